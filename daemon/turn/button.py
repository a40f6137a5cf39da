"""Everything the button means: hold to talk, tap to start listening or to stop the answer, tap again to end
a question, hold 3 s to forget the conversation, 8 s to shut down."""

from __future__ import annotations

import logging
import subprocess
import time
from collections.abc import Callable
from typing import Final, Protocol

from daemon.config import ButtonConfig
from daemon.events import BargeSource, ButtonPressed, ButtonReleased, EndReason, Event, Notice, ShuttingDown, Trigger
from daemon.turn.keeper import State

_LOGGER = logging.getLogger(__name__)

PUSH_TO_TALK_MIN_HOLD_S: Final = 0.6
"""A press released sooner than this was a tap: keep listening and let silence end the question."""


class Turns(Protocol):
    """What the button drives (the turn keeper)."""

    @property
    def state(self) -> State: ...

    @property
    def turn(self) -> int: ...

    @property
    def hearing_speech(self) -> bool: ...

    @property
    def push_to_talk(self) -> bool: ...

    def call(self, fn: Callable[[], None]) -> None: ...
    def listen(self, trigger: Trigger, push_to_talk: bool = False, timeout_s: float = 0.0) -> bool: ...
    def end_listening(self, reason: EndReason) -> None: ...
    def until_silence(self) -> None: ...
    def barge_in(self, source: BargeSource, then_listen: bool = False) -> None: ...
    def forget(self) -> None: ...
    def emit(self, event: Event) -> None: ...


def power_off() -> None:
    """Ask systemd for a clean power-off."""
    subprocess.run(["systemctl", "poweroff"], check=False, timeout=10)


class ButtonGestures:
    """Takes the button's plain callbacks (gpiozero's thread) and turns them into what the box does."""

    def __init__(
        self,
        turns: Turns,
        config: ButtonConfig,
        shutdown: Callable[[], None] = power_off,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._turns, self._cfg, self._shutdown, self._clock = turns, config, shutdown, clock
        self._pressed_at = 0.0
        self._forgot = self._stopping = False

    def pressed(self) -> None:
        """Button down (any thread)."""
        self._forgot = self._stopping = False
        self._pressed_at = self._clock()
        self._turns.call(self._on_press)

    def released(self, held_s: float | None = None) -> None:
        """Button up after `held_s` seconds (any thread; measured here when not given)."""
        held = self._clock() - self._pressed_at if held_s is None else held_s
        self._turns.call(lambda: self._on_release(held))

    def held(self, held_s: float) -> None:
        """Still held after `held_s` seconds (any thread): the long gestures."""
        if self._turns.hearing_speech:
            return  # a long push-to-talk question, not a gesture
        if held_s >= self._cfg.forget_hold_s and not self._forgot:
            self._forgot = True
            self._turns.forget()
        if held_s >= self._cfg.shutdown_hold_s and not self._stopping:
            self._stopping = True
            if not self._cfg.shutdown:
                self._turns.emit(Notice(text="Shutdown by button is off in the settings."))
                return
            _LOGGER.warning("shutdown requested with the button")
            self._turns.emit(ShuttingDown(reason="Shutting down. Wait for the light to go out."))
            self._shutdown()

    def _on_press(self) -> None:
        turns = self._turns
        turns.emit(ButtonPressed(turn=turns.turn))
        if turns.state is State.IDLE:
            turns.listen(Trigger.BUTTON, push_to_talk=True)
        elif turns.state is State.RESPONDING:
            turns.barge_in(BargeSource.BUTTON)
        elif not turns.push_to_talk:  # a tap ends a question that silence would end
            turns.end_listening(EndReason.RELEASED)

    def _on_release(self, held_s: float) -> None:
        turns = self._turns
        turns.emit(ButtonReleased(turn=turns.turn, held_s=round(held_s, 3)))
        if self._forgot or not turns.push_to_talk:
            return
        if held_s < PUSH_TO_TALK_MIN_HOLD_S:
            turns.until_silence()  # a tap: silence ends the question
        else:
            turns.end_listening(EndReason.RELEASED)
