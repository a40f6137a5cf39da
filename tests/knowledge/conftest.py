"""The dev profile's encyclopedia, its index built once per session from the installed package's data, and a brain
that reads it (the box reads none unless `llm.encyclopedia` is on)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from daemon.config import Config
from daemon.engines.load import load_knowledge
from daemon.knowledge.lookup import Knowledge


@pytest.fixture(scope="session")
def reading_config(dev_config: Config) -> Config:
    """The `small` profile (SmolLM2-135M) with the encyclopedia's passages on."""
    return dataclasses.replace(
        dev_config,
        models=dataclasses.replace(dev_config.models, profile="small"),
        llm=dataclasses.replace(dev_config.llm, encyclopedia=True),
    )


@pytest.fixture(scope="session")
def knowledge(reading_config: Config) -> Iterator[Knowledge]:
    """The real encyclopedia (Wikipedia's vital articles), as the box opens it."""
    opened = load_knowledge(reading_config)
    assert opened is not None, "the dev profile names an encyclopedia whose package is installed (dev-models)"
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def llm(reading_config: Config):  # type: ignore[no-untyped-def]
    """A chat model that reads the encyclopedia's passages: SmolLM2-135M (the `small` profile's brain)."""
    from daemon.engines.load import load_llm

    model = load_llm(reading_config)
    yield model
    model.close()
