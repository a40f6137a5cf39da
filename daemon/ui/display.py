"""Turn the box's events into screens on the OLED: bounded refresh, no busy loop, burn-in care."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, Protocol

from PIL import Image

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
    PartialTranscript,
    QuestionCut,
    RemindersChanged,
    Ringing,
    SentenceSpoken,
    ShuttingDown,
    ThinkingStarted,
    TokenGenerated,
    TranscriptReady,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from daemon.ui.screens import CHAR_W, Kind, Screen, render
from hardware.oled import OledDisplay

_LOGGER = logging.getLogger(__name__)

ANIMATION_S: Final = 0.25
"""Spinner, dots and scrolling advance this often."""
NOTICE_S: Final = 2.5
ERROR_S: Final = 6.0
TYPED_ANSWER_S: Final = 6.0
"""An answer that is not spoken (a typed question's) stays on screen this long."""
SHIFT_EVERY_S: Final = 60.0
"""The idle screen moves by a pixel this often, so no pixel is lit for ever."""
SHIFTS: Final = ((0, 0), (1, 0), (1, 1), (0, 1))
DIM_CONTRAST: Final = 8
ANIMATED: Final = frozenset({Kind.LISTENING, Kind.THINKING, Kind.SPEAKING})


class Display(Protocol):
    """What the controller needs of an OLED (hardware.oled.OledDisplay implements it)."""

    width: int
    height: int

    def show(self, image: Image.Image) -> bool: ...
    def contrast(self, level: int) -> None: ...
    def blank(self, off: bool) -> None: ...


class DisplayController:
    """Subscribe `on_event` to the bus; a thread redraws only when something changed or moves."""

    def __init__(self, display: Display, config: DisplayConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self._display, self._cfg, self._clock = display, config, clock
        self._cond = threading.Condition()
        self._base = Screen(Kind.BOOT, text="Starting", progress=0.0)  # what to return to after a notice
        self._ready = Screen(Kind.READY, text="Ready")
        self._overlay: Screen | None = None
        self._overlay_until = 0.0
        self._speaking_since = 0.0
        self._speaking_for = 1.0
        self._first_token_at = 0.0
        self._tokens = 0
        self._typed_answer = False
        self._typed_from = ""
        self._last_activity = clock()
        self._timers: tuple[tuple[str, float], ...] = ()  # (label, when it ends on this clock)
        self._paused: tuple[tuple[str, float], ...] = ()  # (label, seconds left)
        self._home = ""  # the idle screen's mark for Home Assistant: "HA" reached, "HA?" not, "" no bridge
        self._last_image: bytes = b""
        self._dimmed = self._blanked = False
        self._dirty = True
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.frames_drawn = 0

    # -- events -------------------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Update what to show (any thread); cheap, never blocks on the display."""
        with self._cond:
            self._apply(event, self._clock())
            self._last_activity = self._clock()
            self._dirty = True
            self._cond.notify()

    def _apply(self, event: Event, now: float) -> None:
        base = self._base
        match event:
            case BootProgress(step=step, fraction=fraction):
                self._base = Screen(Kind.BOOT, text=step, progress=fraction)
            case BoxReady(wake_phrase=phrase):
                self._ready = Screen(
                    Kind.READY,
                    text=f'Say "{phrase}"' if phrase else "Press the button",
                    detail="or hold the button and speak" if phrase else "and speak",
                )
                self._base = self._ready
            case ListeningStarted():
                self._base = Screen(Kind.LISTENING, level=0.0)
            case AudioLevel(dbfs=dbfs) if base.kind is Kind.LISTENING:
                self._base = dataclasses.replace(base, level=min(1.0, max(0.0, (dbfs + 60.0) / 60.0)))
            case PartialTranscript(text=text) | TranscriptReady(text=text) if base.kind is Kind.LISTENING:
                self._base = dataclasses.replace(base, text=text)
            case TurnStarted(trigger=trigger, spoken_answer=spoken_answer):
                self._typed_from = "" if trigger.spoken else str(trigger)
                self._typed_answer = bool(self._typed_from) and not spoken_answer
            case ThinkingStarted(question=question):  # a typed question says where it came from until t/s show
                self._base = Screen(Kind.THINKING, text=question, detail=self._typed_from)
                self._tokens, self._first_token_at = 0, 0.0
            case QuestionCut(kept_tokens=kept):
                text = f"Your question was too long: only its first {kept} tokens were used."
                self._show_overlay(Screen(Kind.NOTICE, text=text), now)
            case TokenGenerated() if base.kind is Kind.THINKING:
                self._tokens += 1
                self._first_token_at = self._first_token_at or now
                elapsed = now - self._first_token_at
                if elapsed > 0.3:
                    self._base = dataclasses.replace(base, detail=f"{(self._tokens - 1) / elapsed:.0f} t/s")
            case AnswerFinished(text=text) if self._typed_answer:  # nothing is spoken: show what was written
                self._show_overlay(Screen(Kind.NOTICE, title="Typed answer", text=text), now, TYPED_ANSWER_S)
            case AnswerFinished(tokens_per_s=rate) if base.kind is Kind.THINKING and rate:
                self._base = dataclasses.replace(base, detail=f"{rate:.0f} t/s")
            case SentenceSpoken(index=index, text=text, duration_s=duration):
                self._base = Screen(Kind.SPEAKING, text=text, detail=f"#{index + 1}")
                self._speaking_since, self._speaking_for = now, max(duration, 0.1)
            case TurnEnded(outcome=outcome):
                self._base = self._ready
                if outcome == "no-speech":
                    self._show_overlay(Screen(Kind.NOTICE, title="Listening", text="I didn't hear anything."), now)
            case TurnFailed(code=code, message=message):
                self._show_overlay(Screen(Kind.ERROR, title=code, text=message), now, ERROR_S)
            case Fault(code=code, message=message, permanent=permanent):
                error = Screen(Kind.ERROR, title=code, text=message)
                if permanent:
                    self._base, self._overlay = error, None
                else:
                    self._show_overlay(error, now, ERROR_S)
            case RemindersChanged(timers=timers, paused=paused):
                self._timers = tuple((_short(label), now + left) for label, left in timers)
                self._paused = tuple((_short(label), left) for label, left in paused)
            case Ringing(label=label):
                self._base = Screen(Kind.NOTICE, title="Time's up!", text=label)
            case Notice(text=text):
                self._show_overlay(Screen(Kind.NOTICE, text=text), now)
            case HomeAssistantChanged(connected=connected, reason=reason, bridge=bridge):
                self._home = "HA" if connected else ("HA?" if bridge else "")
                said = "Connected." if connected else f"Not connected: {reason}"
                self._show_overlay(Screen(Kind.NOTICE, title="Home Assistant", text=said), now)
            case ShuttingDown(reason=reason):
                self._base, self._overlay = Screen(Kind.SHUTDOWN, text=reason or "Shutting down..."), None
            case _:
                pass

    def _show_overlay(self, screen: Screen, now: float, seconds: float = NOTICE_S) -> None:
        self._overlay, self._overlay_until = screen, now + seconds

    # -- drawing ------------------------------------------------------------------------------------------

    def current(self, now: float | None = None) -> Screen:
        """The screen that should be visible at `now`."""
        now = self._clock() if now is None else now
        if self._overlay is not None and now < self._overlay_until:
            return self._overlay
        screen = self._base
        tick = int(now / ANIMATION_S)
        if screen.kind is Kind.READY and self._home:
            screen = dataclasses.replace(screen, corner=self._home)
        running = [(n, _clock_face(end - now)) for n, end in self._timers if end > now]
        held = running + [(n, f"{_clock_face(left)} paused") for n, left in self._paused]
        if screen.kind is Kind.READY and held:
            # NOTE: the idle screen counts the two soonest timers down, one per line, instead of its hint; a paused
            # timer shows what it has left, still.
            room = (self._display.width - 4) // CHAR_W  # NOTE: a long reminder's note must not push its clock off
            shown = [_countdown(name, face, room) for name, face in held[:2]]
            more = f" +{len(held) - 2}" if len(held) > 2 else ""
            return dataclasses.replace(screen, text=shown[0], detail=(shown[1:] or [""])[0] + more)
        if screen.kind is Kind.SPEAKING:
            return dataclasses.replace(screen, scroll=min(1.0, (now - self._speaking_since) / self._speaking_for))
        return dataclasses.replace(screen, tick=tick) if screen.kind in ANIMATED else screen

    def draw(self, now: float | None = None) -> Image.Image:
        """Render the current screen (shifted by a pixel now and then when idle)."""
        now = self._clock() if now is None else now
        screen = self.current(now)
        shift = SHIFTS[int(now / SHIFT_EVERY_S) % len(SHIFTS)] if screen.kind is Kind.READY else (0, 0)
        return render(screen, self._display.width, self._display.height, shift)

    def refresh(self, now: float | None = None) -> None:
        """Draw now if the picture changed, and dim or blank an idle screen."""
        now = self._clock() if now is None else now
        idle = now - self._last_activity
        cfg = self._cfg
        blank = bool(cfg.blank_after_s) and idle >= cfg.blank_after_s and self.current(now).kind is Kind.READY
        dim = bool(cfg.dim_after_s) and idle >= cfg.dim_after_s and self.current(now).kind is Kind.READY
        if blank != self._blanked:
            self._display.blank(blank)
            self._blanked = blank
        if dim != self._dimmed:
            self._display.contrast(DIM_CONTRAST if dim else cfg.contrast)
            self._dimmed = dim
        if blank:
            return
        image = self.draw(now)
        data = image.tobytes()
        if data != self._last_image and self._display.show(image):
            self._last_image = data
            self.frames_drawn += 1

    def _next_wake(self, now: float) -> float:
        """Seconds until something on screen must change by itself."""
        screen = self.current(now)
        waits = [SHIFT_EVERY_S - now % SHIFT_EVERY_S]
        if screen.kind in ANIMATED:
            waits.append(ANIMATION_S)
        if screen.kind is Kind.READY and any(end > now for _, end in self._timers):
            waits.append(1.0 - (now % 1.0) + 0.01)  # the countdown's next second
        if self._overlay is not None and now < self._overlay_until:
            waits.append(self._overlay_until - now)
        idle = now - self._last_activity
        for after in (self._cfg.dim_after_s, self._cfg.blank_after_s):
            if after and idle < after:
                waits.append(after - idle)
        return max(min(waits), 1.0 / self._cfg.max_fps)

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._dirty and not self._stopped:
                    self._cond.wait(self._next_wake(self._clock()))
                if self._stopped:
                    return
                self._dirty = False
            started = self._clock()
            self.refresh()
            # Bound the refresh rate whatever the event rate (tokens arrive 50 times a second).
            time.sleep(max(0.0, 1.0 / self._cfg.max_fps - (self._clock() - started)))

    def start(self) -> None:
        """Start the drawing thread."""
        self._display.contrast(self._cfg.contrast)
        self._thread = threading.Thread(target=self._run, name="display", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Draw the last screen and stop the thread."""
        with self._cond:
            self._stopped = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self.refresh()


def _short(label: str) -> str:
    """ "pasta timer" -> "pasta"; an unnamed "10 minute timer" -> "timer"; "reminder to check the oven" -> "check
    the oven"."""
    name = label.removesuffix(" timer").removeprefix("reminder to ")
    return "timer" if name[:1].isdigit() else name


def _countdown(name: str, face: str, room: int) -> str:
    """ "pasta 7:42" in `room` characters: a name too long is cut, the clock never."""
    return f"{name[: max(1, room - len(face) - 1)].rstrip()} {face}"


def _clock_face(seconds: float) -> str:
    """ "7:42", "1:05:00": a countdown as a kitchen timer shows it."""
    whole = max(0, int(seconds + 0.999))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def oled_for(d: DisplayConfig, frames_dir: Path | None = None) -> OledDisplay:
    """The OLED the display settings describe (raises DisplayNotFound)."""
    return OledDisplay.open(
        d.driver,
        interface=d.interface,
        i2c_port=d.i2c_port,
        i2c_address=d.i2c_address,
        spi_port=d.spi_port,
        spi_device=d.spi_device,
        gpio_dc=d.gpio_dc,
        gpio_reset=d.gpio_reset,
        width=d.width,
        height=d.height,
        rotate=d.rotate,
        frames_dir=frames_dir,
    )
