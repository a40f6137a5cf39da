"""The dev profile's encyclopedia, its index built once per session from the installed package's data."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from daemon.config import Config
from daemon.engines.load import load_knowledge
from daemon.knowledge.lookup import Knowledge


@pytest.fixture(scope="session")
def knowledge(dev_config: Config) -> Iterator[Knowledge]:
    """The real encyclopedia (Wikipedia's vital articles), as the box opens it."""
    opened = load_knowledge(dev_config)
    assert opened is not None, "the dev profile names an encyclopedia whose package is installed (dev-models)"
    yield opened
    opened.close()
