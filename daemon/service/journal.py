"""Log to the journal: structured fields under systemd, plain lines on a terminal; one line per stage of a turn."""

from __future__ import annotations

import collections
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Final

from daemon.events import Event, ListeningStarted, SpeakingStarted, ThinkingStarted, TurnEnded, TurnFailed, TurnStarted

REPEATS_PER_WINDOW: Final = 5
"""The same message is logged at most this many times per window; then one line says how many were held back."""
REPEAT_WINDOW_S: Final = 60.0
KEPT_MESSAGES: Final = 256
"""Distinct messages remembered for the count (the least recent is forgotten first)."""


class RepeatFilter(logging.Filter):
    """Holds back a message logged again and again: a log flood is a memory fault where the journal is in RAM."""

    # NOTE: 1,010 idle clients on the control socket once made asyncio log an accept() failure with its traceback
    # 373,894 times in a minute: 168 MB, where a Pi keeps a 24 MB journal in RAM.

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._clock = clock
        self._seen: collections.OrderedDict[tuple[str, int, str], list[float]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, record.levelno, str(record.msg))
        now = self._clock()
        with self._lock:
            entry = self._seen.pop(key, None)  # [window start, logged in it, held back in it]
            if entry is None or now - entry[0] >= REPEAT_WINDOW_S:
                held = int(entry[2]) if entry is not None else 0
                entry = [now, 0.0, 0.0]
                if held:  # the first of a new window says what the last one held back
                    record.msg = f"{record.msg} (and {held} more like this in the last {REPEAT_WINDOW_S:.0f} s)"
            self._seen[key] = entry
            while len(self._seen) > KEPT_MESSAGES:
                self._seen.popitem(last=False)
            if entry[1] < REPEATS_PER_WINDOW:
                entry[1] += 1
                return True
            entry[2] += 1
            return False


def setup_logging(debug: bool) -> None:
    """The journal (with structured fields) under systemd, plain stderr otherwise; floods are held back."""
    level = logging.DEBUG if debug else logging.INFO
    handler: logging.Handler | None = None
    if os.environ.get("JOURNAL_STREAM") or os.environ.get("INVOCATION_ID"):
        try:
            from systemd.journal import JournalHandler  # type: ignore[import-not-found]

            handler = JournalHandler(SYSLOG_IDENTIFIER="talkbox")
            handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))  # journald adds the time
        except ImportError:
            handler = None
    if handler is None:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RepeatFilter())
    logging.basicConfig(level=level, handlers=[handler], force=True)


class TurnJournal:
    """Bus subscriber: one log line per stage of a turn, with structured journal fields.

    journalctl -u talkbox TURN=3 shows one turn; LATENCY_MS, STAGE and MODEL are fields too.
    """

    def __init__(self, model: str) -> None:
        self._model = model
        self._log = logging.getLogger("daemon.turn")

    def _emit(self, event: Event, stage: str, message: str, *args: object, latency_ms: int | None = None) -> None:
        fields: dict[str, object] = {"TURN": event.turn, "STAGE": stage, "MODEL": self._model}
        if latency_ms is not None:
            fields["LATENCY_MS"] = latency_ms
        self._log.info("turn %d %s: " + message, event.turn, stage, *args, extra=fields)

    def __call__(self, event: Event) -> None:
        match event:
            case TurnStarted(trigger=trigger) if not trigger.spoken:
                self._emit(event, "start", "typed question from the %s link", trigger)
            case ListeningStarted():
                self._emit(event, "listen", "listening")
            case TurnFailed(code=code, message=message):
                self._log.error(
                    "turn %d failed: %s [%s]",
                    event.turn,
                    message,
                    code,
                    extra={"TURN": event.turn, "STAGE": "failed", "CODE": code},
                )
            case ThinkingStarted(question=question):
                self._emit(event, "think", "question %r", question)
            case SpeakingStarted(latency_s=latency):
                self._emit(
                    event,
                    "speak",
                    "first audio %.0f ms after end of speech",
                    latency * 1000,
                    latency_ms=round(latency * 1000),
                )
            case TurnEnded(outcome=outcome):
                self._emit(event, "end", "%s", outcome)
