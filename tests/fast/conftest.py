"""The fast tier: every test in this directory is marked `fast`, and none may ask for a real engine.

`pytest -m fast` runs the turn, keeper, assembly and channel logic against the stand-ins of tests/inprocess.py in
seconds. The real-engine tier stays the default suite (`pytest`): this tier runs beside it, never instead of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, NoReturn

import pytest

from daemon.engines import load
from daemon.ports import Engines
from tests.fast.script import ANSWERS
from tests.inprocess import ScriptedModel, ScriptedRecogniser, ToneVoice, stand_in_engines

HERE: Final = Path(__file__).parent
REAL_ENGINES: Final = frozenset(
    {"llm", "short_llm", "stt", "pocketsphinx", "tts", "engines", "quick_engines", "speech", "dev_config"}
)
"""The session fixtures that load real models (tests/conftest.py): a fast test asking for one is a mistake."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fast: the fast tier, on in-process stand-in engines (tests/fast/README.md)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not item.path.is_relative_to(HERE):
            continue
        item.add_marker(pytest.mark.fast)
        real = REAL_ENGINES & set(getattr(item, "fixturenames", ()))
        if real:
            raise pytest.UsageError(f"{item.nodeid} is in the fast tier but asks for real engines: {sorted(real)}")


@pytest.fixture(autouse=True)
def no_real_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every loader of a real model refuses while a fast test runs (restored after it)."""

    def refuse(*_: object, **__: object) -> NoReturn:
        raise AssertionError("a fast test tried to load a real model: use the stand-ins of tests/inprocess.py")

    for name in ("load_engines", "load_llm", "load_stt", "load_tts", "load_vad", "load_wake"):
        monkeypatch.setattr(load, name, refuse)


@pytest.fixture
def model() -> ScriptedModel:
    """The stand-in model, with the scripted answers of tests/fast/script.py."""
    return ScriptedModel(answers=ANSWERS)


@pytest.fixture
def recogniser() -> ScriptedRecogniser:
    """The stand-in recogniser; a test scripts what it hears (`will_hear`)."""
    return ScriptedRecogniser()


@pytest.fixture
def voice() -> ToneVoice:
    """The stand-in voice."""
    return ToneVoice()


@pytest.fixture
def stand_ins(model: ScriptedModel, recogniser: ScriptedRecogniser, voice: ToneVoice) -> Engines:
    """Every port served by a stand-in; the memory is the model's conversation."""
    return stand_in_engines(model, recogniser, voice)
