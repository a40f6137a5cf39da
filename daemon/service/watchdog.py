"""Feed systemd's watchdog only while every active stage makes progress, not from a timer alone.

The engines run C code that releases the GIL: a plain "ping" thread would keep pinging while the LLM or the
audio device hangs. Here each stage reports progress (through the events it causes) and the pings stop as
soon as one active stage has been silent for longer than its budget; systemd then restarts the service.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Final

from daemon.events import (
    AnswerFinished,
    Event,
    ListeningEnded,
    SentenceReady,
    SentenceSpoken,
    SpeakingFinished,
    ThinkingStarted,
    TokenGenerated,
    TranscriptReady,
    TurnEnded,
)
from daemon.service.notify import Notifier

_LOGGER = logging.getLogger(__name__)

BUDGETS_S: Final = {
    "audio": 10.0,  # microphone frames arrive every 30 ms
    "stt": 20.0,  # the final transcript after the end of speech
    "llm-first": 90.0,  # the first token: a long prompt on a Pi 4 takes a while
    "llm": 15.0,  # between tokens
    "tts": 30.0,  # the next sentence starts sounding
}


class ProgressWatchdog:
    """Bus subscriber plus a thread that pings WATCHDOG=1 while nothing is stalled."""

    def __init__(
        self,
        notifier: Notifier,
        interval_s: float,
        clock: Callable[[], float] = time.monotonic,
        budgets: dict[str, float] | None = None,
    ) -> None:
        self._notifier, self._interval, self._clock = notifier, interval_s, clock
        self._budgets = budgets or dict(BUDGETS_S)
        self._active: dict[str, tuple[float, float]] = {}  # stage -> (last progress, budget)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reported = ""
        self.pings = 0

    def beat(self, stage: str, budget_stage: str | None = None) -> None:
        """`stage` made progress now (and is active until `done`)."""
        with self._lock:
            self._active[stage] = (self._clock(), self._budgets[budget_stage or stage])

    def done(self, *stages: str) -> None:
        """These stages are idle: nothing is expected of them."""
        with self._lock:
            for stage in stages:
                self._active.pop(stage, None)

    def __call__(self, event: Event) -> None:
        match event:
            case ListeningEnded():
                self.beat("stt")
            case TranscriptReady():
                self.done("stt")
            case ThinkingStarted():
                self.beat("llm", "llm-first")
            case TokenGenerated():
                self.beat("llm")
            case AnswerFinished():
                self.done("llm")
            case SentenceReady() | SentenceSpoken():
                self.beat("tts")
            case SpeakingFinished() | TurnEnded():
                self.done("stt", "llm", "tts")

    def stalled(self, now: float | None = None) -> str | None:
        """The first active stage silent for longer than its budget, or None."""
        now = self._clock() if now is None else now
        with self._lock:
            for stage, (last, budget) in self._active.items():
                if now - last > budget:
                    return f"{stage} ({now - last:.0f} s without progress)"
        return None

    def tick(self) -> bool:
        """Ping if healthy; True if it pinged."""
        stalled = self.stalled()
        if stalled is None:
            self._notifier.watchdog()
            self.pings += 1
            self._reported = ""
            return True
        if stalled != self._reported:
            self._reported = stalled
            _LOGGER.error("stage %s: withholding the watchdog so systemd restarts the service", stalled)
        return False

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.tick()

    def start(self) -> None:
        """Start pinging every interval."""
        self.tick()
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop pinging."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
