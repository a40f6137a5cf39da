"""Fixtures of the skills' tests: the request reader by meaning, on the dev profile's real embedding model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from daemon.config import Config
from daemon.engines.load import load_meaning
from daemon.skills.meaning import MeaningRouter


@pytest.fixture(scope="module")
def router(dev_config: Config) -> Iterator[MeaningRouter]:
    reader = load_meaning(dev_config)
    assert reader is not None
    yield reader
    reader.close()
