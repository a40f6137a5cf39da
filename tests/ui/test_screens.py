"""Every screen, driven by real events through luma's dummy device, compared with reference PNGs.

Set TALKBOX_UPDATE_REFERENCES=1 to rewrite the references after a deliberate change (then look at them).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from daemon.config import DisplayConfig
from daemon.events import (
    AnswerFinished,
    AudioLevel,
    BootProgress,
    BoxReady,
    Event,
    Fault,
    HomeAssistantChanged,
    ListeningStarted,
    Notice,
    Outcome,
    PartialTranscript,
    QuestionCut,
    SentenceSpoken,
    ShuttingDown,
    ThinkingStarted,
    TokenGenerated,
    Trigger,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from daemon.ui.display import DisplayController
from daemon.ui.screens import CHAR_W, Kind
from hardware.oled import OledDisplay

REFERENCE = Path(__file__).parent / "reference"
ANSWER = (
    "The capital of France is Paris. It is known for the Eiffel Tower and the Louvre museum, which holds the Mona Lisa."
)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


SCENES: dict[str, tuple[list[Event], float]] = {
    "boot": ([BootProgress(step="Loading language model", fraction=0.42)], 0.0),
    "ready": ([BoxReady(wake_phrase="Hey Jarvis")], 0.0),
    "ready-button-only": ([BoxReady(wake_phrase="")], 0.0),
    "listening": (
        [
            ListeningStarted(turn=1),
            AudioLevel(turn=1, dbfs=-20.0),
            PartialTranscript(turn=1, text="what is the capital of france"),
        ],
        0.0,
    ),
    "thinking": (
        [ThinkingStarted(turn=1, question="what is the capital of france")] + [TokenGenerated(turn=1, text="x")] * 1,
        0.0,
    ),
    "speaking-start": ([SentenceSpoken(turn=1, index=0, text=ANSWER, duration_s=8.0)], 0.0),
    "speaking-end": ([SentenceSpoken(turn=1, index=0, text=ANSWER, duration_s=8.0)], 7.9),
    "no-speech": ([BoxReady(wake_phrase="Hey Jarvis"), TurnEnded(turn=1, outcome=Outcome.NO_SPEECH)], 0.0),
    "turn-failed": ([TurnFailed(turn=1, code="llm-generation-failed", message="The language model failed.")], 0.0),
    "fault": (
        [
            Fault(
                code="llm-model-corrupt", message="The language model file is damaged; fetch it again.", permanent=True
            )
        ],
        0.0,
    ),
    "forgotten": ([Notice(text="Conversation forgotten.")], 0.0),
    "typed-question": (
        [
            TurnStarted(turn=3, trigger=Trigger.SERIAL, question="What is the capital of France?", spoken_answer=False),
            ThinkingStarted(turn=3, question="What is the capital of France?"),
        ],
        0.0,
    ),
    "typed-answer": (
        [
            TurnStarted(turn=3, trigger=Trigger.SOCKET, question="What is the capital of France?", spoken_answer=False),
            ThinkingStarted(turn=3, question="What is the capital of France?"),
            AnswerFinished(turn=3, text=ANSWER, tokens=30, tokens_per_s=45.0, prompt_s=0.1),
            TurnEnded(turn=3, outcome=Outcome.ANSWERED),
        ],
        0.0,
    ),
    "question-cut": (
        [ThinkingStarted(turn=1, question="Why " * 300), QuestionCut(turn=1, tokens=900, kept_tokens=256)],
        0.0,
    ),
    "shutdown": ([ShuttingDown(reason="Shutting down. Wait for the light to go out.")], 0.0),
    "homeassistant-down": (
        [
            BoxReady(wake_phrase="Hey Jarvis"),
            HomeAssistantChanged(connected=False, reason="nothing answers at 192.168.1.20:8123; is it running?"),
        ],
        0.0,
    ),
    "ready-homeassistant": (
        [BoxReady(wake_phrase="Hey Jarvis"), HomeAssistantChanged(connected=True, reason="")],
        60.0,  # the notice has gone: the idle screen's corner says Home Assistant is reached
    ),
}


def show(events: list[Event], after_s: float, height: int = 64) -> Image.Image:
    clock = Clock()
    oled = OledDisplay.open("dummy", height=height)
    controller = DisplayController(oled, DisplayConfig(driver="dummy", height=height), clock)
    for event in events:
        controller.on_event(event)
    clock.now += after_s
    controller.refresh()
    image: Image.Image = oled._device.image.copy()  # what luma's dummy device holds: the pixels sent
    return image


def same(image: Image.Image, name: str) -> bool:
    path = REFERENCE / f"{name}.png"
    if os.environ.get("TALKBOX_UPDATE_REFERENCES") or not path.exists():
        image.save(path)
    return bool(Image.open(path).convert("L").tobytes() == image.convert("L").tobytes())


def differ(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is not None


@pytest.mark.parametrize("name", sorted(SCENES))
def test_screen_matches_reference(name: str) -> None:
    events, after_s = SCENES[name]
    assert same(show(events, after_s), name)


def test_a_128x32_panel_gets_its_own_layout() -> None:
    assert same(show(SCENES["speaking-start"][0], 0.0, height=32), "speaking-128x32")
    assert same(show(SCENES["boot"][0], 0.0, height=32), "boot-128x32")


def test_speaking_scrolls_in_step_with_the_audio() -> None:
    start, end = (show(*SCENES[k]) for k in ("speaking-start", "speaking-end"))
    assert differ(start, end)


class CountingDisplay:
    """A display that only counts what it is asked to do (to test timing behaviour, not pixels)."""

    width, height = 128, 64

    def __init__(self) -> None:
        self.frames = 0
        self.contrasts: list[int] = []
        self.blanks: list[bool] = []

    def show(self, image: Image.Image) -> bool:
        self.frames += 1
        return True

    def contrast(self, level: int) -> None:
        self.contrasts.append(level)

    def blank(self, off: bool) -> None:
        self.blanks.append(off)


def controller(clock: Callable[[], float]) -> tuple[DisplayController, CountingDisplay]:
    display = CountingDisplay()
    cfg = DisplayConfig(driver="dummy", dim_after_s=60.0, blank_after_s=600.0)
    return DisplayController(display, cfg, clock), display


def test_idle_screen_dims_then_blanks_and_any_event_wakes_it() -> None:
    clock = Clock()
    c, display = controller(clock)
    c.on_event(BoxReady(wake_phrase="Hey Jarvis"))
    c.refresh()
    clock.now += 61
    c.refresh()
    assert display.contrasts[-1] < 50  # dimmed
    clock.now += 600
    c.refresh()
    assert display.blanks == [True]
    frames = display.frames
    c.on_event(ListeningStarted(turn=1))
    c.refresh()
    assert display.blanks == [True, False] and display.contrasts[-1] == 200 and display.frames == frames + 1


def test_the_idle_screen_shifts_a_pixel_and_unchanged_frames_are_not_resent() -> None:
    clock = Clock()
    c, display = controller(clock)
    c.on_event(BoxReady(wake_phrase="Hey Jarvis"))
    first = c.draw()
    c.refresh()
    c.refresh()
    assert display.frames == 1  # nothing changed, nothing sent: no flicker, no bus traffic
    clock.now += 60
    assert differ(first, c.draw())


def test_the_drawing_thread_sleeps_when_nothing_changes() -> None:
    import time

    display = CountingDisplay()
    # NOTE: a still clock: the ready screen moves a pixel every SHIFT_EVERY_S by design, and a real clock
    # crossing that boundary inside the idle second drew a frame (a 1.5 s window in 60 s: one run in forty).
    c = DisplayController(display, DisplayConfig(driver="dummy", max_fps=8.0), clock=lambda: 1000.0)
    c.on_event(BoxReady(wake_phrase="Hey Jarvis"))
    c.start()
    time.sleep(0.5)
    idle_frames = display.frames
    time.sleep(1.0)
    assert display.frames == idle_frames  # idle: no redraws at all
    for _ in range(200):  # a burst of tokens
        c.on_event(TokenGenerated(turn=1, text="x"))
    time.sleep(1.0)
    c.stop()
    assert display.frames - idle_frames <= 8 + 2  # bounded by max_fps, not by the event rate


def test_the_idle_screen_marks_home_assistant_reached_lost_or_off() -> None:
    clock = Clock()
    c, _ = controller(clock)
    c.on_event(BoxReady(wake_phrase="Hey Jarvis"))
    assert c.current().corner == ""  # no bridge: nothing about Home Assistant at all
    for connected, bridge, corner in ((True, True, "HA"), (False, True, "HA?"), (False, False, "")):
        c.on_event(HomeAssistantChanged(connected=connected, reason="" if connected else "down", bridge=bridge))
        assert (c.current().title, c.current().text) == (
            "Home Assistant",
            "Connected." if connected else "Not connected: down",
        )
        clock.now += 60
        assert c.current().kind is Kind.READY and c.current().corner == corner


def test_the_idle_screen_counts_timers_down_and_shows_which_one_rings() -> None:
    from daemon.events import Outcome as Ended
    from daemon.events import RemindersChanged, Ringing, TurnEnded

    clock = Clock()
    c, _ = controller(clock)
    c.on_event(BoxReady(wake_phrase="Hey Jarvis"))
    c.on_event(RemindersChanged(timers=(("pasta timer", 462.0), ("8 minute timer", 480.0)), alarms=()))
    screen = c.current()
    assert (screen.text, screen.detail) == ("pasta 7:42", "timer 8:00")
    assert c._next_wake(clock.now) <= 1.01  # the countdown moves every second
    clock.now += 62
    assert c.current().text == "pasta 6:40"
    c.on_event(Ringing(turn=3, label="pasta timer"))
    assert (c.current().title, c.current().text) == ("Time's up!", "pasta timer")
    c.on_event(TurnEnded(turn=3, outcome=Ended.INTERRUPTED))
    clock.now += 500  # both ended: the hint comes back
    assert c.current().text == 'Say "Hey Jarvis"'


def test_a_paused_timer_shows_what_it_has_left_without_counting_down() -> None:
    from daemon.events import RemindersChanged

    clock = Clock()
    c, _ = controller(clock)
    c.on_event(BoxReady(wake_phrase="Hey Jarvis"))
    c.on_event(RemindersChanged(timers=(("tea timer", 125.0),), alarms=(), paused=(("pasta timer", 240.0),)))
    assert (c.current().text, c.current().detail) == ("tea 2:05", "pasta 4:00 paused")
    clock.now += 200  # the tea timer is over; the paused one still has its four minutes
    assert c.current().text == "pasta 4:00 paused"
    assert len(c.current().text) * CHAR_W <= 128 - 4


def test_a_reminder_counts_down_by_its_note_and_a_long_one_never_hides_its_clock() -> None:
    from daemon.events import RemindersChanged

    clock = Clock()
    c, _ = controller(clock)
    c.on_event(BoxReady(wake_phrase="Hey Jarvis"))
    timers = (("reminder to check the oven", 1182.0), ("reminder to call the plumber about the leak", 7170.0))
    c.on_event(RemindersChanged(timers=timers, alarms=()))
    screen = c.current()
    assert screen.text == "check the oven 19:42"
    assert screen.detail == "call the plu 1:59:30"  # the note cut, the clock whole
    assert all(len(line) * CHAR_W <= 128 - 4 for line in (screen.text, screen.detail))  # one line each, clock shown


def test_recorded_frames_are_whole_pngs_in_order_and_a_gif_on_close(tmp_path: Path) -> None:
    shown = [Image.new("1", (128, 64), color) for color in (0, 1, 0)]
    with OledDisplay.open("dummy", frames_dir=tmp_path) as oled:
        for image in shown:
            oled.show(image)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["frame-00000.png", "frame-00001.png", "frame-00002.png", "frames.gif"]
    for image, name in zip(shown, names, strict=False):
        assert Image.open(tmp_path / name).convert("1").tobytes() == image.tobytes()
