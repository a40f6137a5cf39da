"""Every button gesture through gpiozero's MockFactory pins, into the real pipeline (with in-memory engines)."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from daemon.config import ListenConfig
from daemon.config_hardware import ButtonConfig
from daemon.events import Event, ListeningEnded, Notice, ShuttingDown, TurnEnded, TurnStarted
from daemon.gestures import ButtonGestures
from daemon.pipeline import Pipeline
from hardware.button import ButtonInput
from tests.fakes import FakeResponder, voice
from tests.harness import of, run_box
from tests.mic import ScriptedMic
from tests.test_pipeline import engines

QUICK = ListenConfig(trailing_silence_s=0.3, no_speech_timeout_s=1.0, follow_up_s=0.0, chime=False)
GESTURES = ButtonConfig(forget_hold_s=1.0, shutdown_hold_s=2.0, shutdown=True, pin_factory="mock")


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """gpiozero's mock pins, restored afterwards."""
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous


def wire(pipeline: Pipeline, mic: ScriptedMic, events: list[Event], shutdowns: list[str]) -> ButtonInput:
    gestures = ButtonGestures(pipeline, GESTURES, pipeline.emit, shutdown=lambda: shutdowns.append("off"))
    return ButtonInput(17, on_press=gestures.pressed, on_release=gestures.released, on_held=gestures.held)


def press_for(factory: MockFactory, seconds: float) -> None:
    pin = factory.pin(17)
    pin.drive_low()  # pulled up: pressing connects the pin to ground
    time.sleep(seconds)
    pin.drive_high()


def run_with_button(
    factory: MockFactory,
    tmp_path: Path,
    person: callable,
    responder: FakeResponder | None = None,
    listen: ListenConfig = QUICK,
) -> tuple[list[Event], list[str]]:  # type: ignore[valid-type]
    mic = ScriptedMic()
    shutdowns: list[str] = []
    holder: dict[str, ButtonInput] = {}

    def start(pipeline: Pipeline) -> None:
        holder["button"] = wire(pipeline, mic, [], shutdowns)
        threading.Thread(target=person, args=(factory, mic), daemon=True).start()

    events, _ = run_box(engines(responder), mic, listen, tmp_path / "out.wav", start=start, timeout_s=30)
    holder["button"].close()
    return events, shutdowns


@pytest.mark.parametrize("wake_word", [True, False], ids=["wake-word-on", "button-only"])
def test_hold_to_talk(factory: MockFactory, tmp_path: Path, wake_word: bool) -> None:
    def person(factory: MockFactory, mic: ScriptedMic) -> None:
        time.sleep(0.7)  # button-only: the microphone is in its long idle chunks by now
        mic.say(voice(1.0))
        press_for(factory, 1.6)
        time.sleep(3.0)
        mic.end()

    listen = dataclasses.replace(QUICK, wake_word=wake_word)
    events, _ = run_with_button(factory, tmp_path, person, listen=listen)
    assert of(events, TurnStarted)[0].trigger == "button"  # type: ignore[attr-defined]
    assert of(events, ListeningEnded)[0].reason == "released"  # type: ignore[attr-defined]
    assert of(events, TurnEnded)[0].outcome == "answered"  # type: ignore[attr-defined]


def test_tap_while_speaking_stops_the_answer(factory: MockFactory, tmp_path: Path) -> None:
    def person(factory: MockFactory, mic: ScriptedMic) -> None:
        press_for(factory, 0.1)  # a tap starts listening...
        mic.say(voice(1.0))  # ...the question...
        time.sleep(2.3)  # ...its answer starts...
        press_for(factory, 0.1)  # ...and a tap stops it
        time.sleep(1.0)
        mic.end()

    events, _ = run_with_button(factory, tmp_path, person, FakeResponder("One two three four five six seven eight."))
    assert [e.outcome for e in of(events, TurnEnded)] == ["interrupted"]  # type: ignore[attr-defined]


def test_hold_three_seconds_forgets_and_eight_shuts_down(factory: MockFactory, tmp_path: Path) -> None:
    def person(factory: MockFactory, mic: ScriptedMic) -> None:
        press_for(factory, 2.4)
        time.sleep(0.5)
        mic.end()

    events, shutdowns = run_with_button(factory, tmp_path, person)
    assert [e.text for e in of(events, Notice)] == ["Conversation forgotten."]  # type: ignore[attr-defined]
    assert of(events, TurnEnded)[0].outcome == "cancelled"  # type: ignore[attr-defined]
    assert len(of(events, ShuttingDown)) == 1 and shutdowns == ["off"]


def test_a_pin_that_cannot_be_used_is_reported_by_name() -> None:
    from hardware.button import ButtonUnavailable

    with pytest.raises(ButtonUnavailable, match="GPIO99"):
        ButtonInput(99, pin_factory=MockFactory(pin_class=None))


def test_a_board_without_gpio_gets_one_error_with_the_reason_and_no_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    import warnings

    from hardware.button import ButtonUnavailable

    monkeypatch.setattr(Device, "pin_factory", None)  # gpiozero picks a real pin library, as on a board

    with warnings.catch_warnings(record=True) as leaked:
        warnings.simplefilter("always")
        with pytest.raises(ButtonUnavailable, match=r"GPIO17 cannot be used: .*\(Falling back from \w+: "):
            ButtonInput(17)  # this machine has no GPIO: gpiozero falls through every pin library
    assert [str(w.message) for w in leaked if "Falling back" in str(w.message)] == []
