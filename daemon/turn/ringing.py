"""A timer or an alarm ringing: a chime at once, what is due said once, then chimes until stopped or time is up.

An announcement (Home Assistant's, through the bridge) goes the same way, said once: on time, and never over the
user's own words.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from daemon.ports import AudioSink, TextToSpeech
from daemon.turn import earcons


@dataclass(eq=False)
class Due:
    """A timer or an alarm waiting to ring (each one is its own, even with the same words)."""

    text: str
    label: str
    chime: bool
    while_talking: bool = False
    """It came due while the user was speaking: it rings once their answer is over, and says so."""
    announcement: bool = False
    """Said once (after one chime if `chime`), not rung until stopped."""
    done: Callable[[bool], None] | None = field(default=None, compare=False)
    """Told, once it has sounded, whether it was heard to the end."""

    def said(self) -> str:
        """What the ring says first."""
        if not self.while_talking:
            return self.text
        return f"While you were talking, {self.text[:1].lower()}{self.text[1:]}"


class Ring:
    """Rings on a worker thread (`run`); `cancel()` from any thread silences it within one block."""

    def __init__(
        self,
        tts: TextToSpeech,
        sink: AudioSink,
        turn: int,
        text: str,
        limit_s: float,
        *,
        chime: bool = True,
        repeat: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._tts, self._sink, self.turn, self._text = tts, sink, turn, text
        self._limit_s, self._chime, self._repeat, self._clock = limit_s, chime, repeat, clock
        self._cancel = threading.Event()
        self.cancelled_at = 0.0
        self.silenced_at = 0.0

    def cancel(self) -> None:
        """Stop ringing now."""
        self.cancelled_at = self._clock()
        self._cancel.set()
        self._sink.stop()
        self.silenced_at = self._clock()

    @property
    def cancelled(self) -> bool:
        """True once it was stopped before its limit."""
        return self._cancel.is_set()

    def run(self) -> bool:
        """Chime, say what is due, then chime until cancelled or the limit; True if someone stopped it."""
        started = self._clock()
        rate = self._tts.sample_rate_hz
        chime = earcons.ringing(rate)
        if self._chime:
            # NOTE: the chime first: it sounds the moment the timer is due, while its words are still synthesized.
            self._sink.play(chime, rate)
        for chunk in self._tts.synthesize(self._text):
            if self._cancel.is_set():
                return True
            self._sink.play(chunk, rate)
        while self._chime and self._repeat and not self._cancel.is_set() and self._clock() - started < self._limit_s:
            self._sink.play(chime, rate)
            while not self._sink.wait(timeout=0.1):
                if self._cancel.is_set():
                    return True
        if not self._cancel.is_set():
            self._sink.wait()
        return self._cancel.is_set()
