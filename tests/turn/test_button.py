"""Every button gesture through gpiozero's MockFactory pins, into the real turn keeper and the real engines."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from daemon.config import ButtonConfig, ListenConfig
from daemon.events import Event, ListeningEnded, Notice, ShuttingDown, TurnEnded, TurnStarted
from daemon.ports import Engines
from daemon.turn.button import ButtonGestures
from hardware.button import ButtonInput
from tests.conftest import Speech
from tests.harness import Person, of, run_box
from tests.mic import ScriptedMic

pytestmark = pytest.mark.slow
QUICK = ListenConfig(trailing_silence_s=0.5, no_speech_timeout_s=1.5, follow_up_s=0.0, chime=False)
GESTURES = ButtonConfig(forget_hold_s=1.0, shutdown_hold_s=2.0, shutdown=True, pin_factory="mock")
QUESTION = "What is the capital of France?"
Act = Callable[[MockFactory, ScriptedMic], None]


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """gpiozero's mock pins, restored afterwards."""
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous


@pytest.fixture(autouse=True)
def fresh_conversation(engines: Engines) -> None:
    engines.memory.forget()


def press_for(factory: MockFactory, seconds: float) -> None:
    pin = factory.pin(17)
    pin.drive_low()  # pulled up: pressing connects the pin to ground
    time.sleep(seconds)
    pin.drive_high()


def run_with_button(
    engines: Engines,
    factory: MockFactory,
    tmp_path: Path,
    act: Act,
    listen: ListenConfig = QUICK,
    watch: Callable[[Event], None] = lambda _: None,
) -> tuple[list[Event], list[str]]:
    mic = ScriptedMic()
    shutdowns: list[str] = []
    holder: dict[str, ButtonInput] = {}

    def start(person: Person) -> None:
        gestures = ButtonGestures(person.keeper, GESTURES, shutdown=lambda: shutdowns.append("off"))
        holder["button"] = ButtonInput(
            17, on_press=gestures.pressed, on_release=gestures.released, on_held=gestures.held
        )
        threading.Thread(target=act, args=(factory, mic), daemon=True).start()

    script = lambda event, person, mic: watch(event)  # noqa: E731
    events, _ = run_box(engines, mic, listen, tmp_path / "out.wav", script, start=start, timeout_s=60)
    holder["button"].close()
    return events, shutdowns


@pytest.mark.parametrize("wake_word", [True, False], ids=["wake-word-on", "button-only"])
def test_hold_to_talk(engines: Engines, speech: Speech, factory: MockFactory, tmp_path: Path, wake_word: bool) -> None:
    question = speech(QUESTION, lead_s=0.0, tail_s=0.0)

    def act(factory: MockFactory, mic: ScriptedMic) -> None:
        time.sleep(0.7)  # button-only: the microphone is in its long idle chunks by now
        mic.say(question)
        press_for(factory, len(question) / 16000 + 0.3)
        time.sleep(6.0)
        mic.end()

    listen = dataclasses.replace(QUICK, wake_word=wake_word)
    events, _ = run_with_button(engines, factory, tmp_path, act, listen)
    assert of(events, TurnStarted)[0].trigger == "button"
    assert of(events, ListeningEnded)[0].reason == "released"
    assert of(events, TurnEnded)[0].outcome == "answered"


def test_tap_while_speaking_stops_the_answer(
    engines: Engines, speech: Speech, factory: MockFactory, tmp_path: Path
) -> None:
    spoken = threading.Event()

    def act(factory: MockFactory, mic: ScriptedMic) -> None:
        press_for(factory, 0.1)  # a tap starts listening...
        mic.say(speech("Tell me a long story about a brave dragon."))  # ...the question...
        spoken.wait(30)  # ...its answer starts...
        time.sleep(1.0)
        press_for(factory, 0.1)  # ...and a tap stops it
        time.sleep(1.0)
        mic.end()

    def start_speaking(event: Event) -> None:
        if type(event).__name__ == "SpeakingStarted":
            spoken.set()

    events, _ = run_with_button(engines, factory, tmp_path, act, watch=start_speaking)
    assert [e.outcome for e in of(events, TurnEnded)] == ["interrupted"]


def test_hold_three_seconds_forgets_and_eight_shuts_down(
    engines: Engines, factory: MockFactory, tmp_path: Path
) -> None:
    def act(factory: MockFactory, mic: ScriptedMic) -> None:
        press_for(factory, 2.4)
        time.sleep(0.5)
        mic.end()

    events, shutdowns = run_with_button(engines, factory, tmp_path, act)
    assert [e.text for e in of(events, Notice)] == ["Conversation forgotten."]
    assert of(events, TurnEnded)[0].outcome == "cancelled"
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
