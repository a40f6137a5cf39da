"""Log to the journal: structured fields under systemd, plain lines on a terminal; one line per stage of a turn."""

from __future__ import annotations

import logging
import os
import sys

from daemon.events import Event, ListeningStarted, SpeakingStarted, ThinkingStarted, TurnEnded, TurnFailed, TurnStarted


def setup_logging(debug: bool) -> None:
    """The journal (with structured fields) under systemd, plain stderr otherwise."""
    level = logging.DEBUG if debug else logging.INFO
    if os.environ.get("JOURNAL_STREAM") or os.environ.get("INVOCATION_ID"):
        try:
            from systemd.journal import JournalHandler  # type: ignore[import-not-found]

            handler: logging.Handler = JournalHandler(SYSLOG_IDENTIFIER="talkbox")
            handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))  # journald adds the time
            logging.basicConfig(level=level, handlers=[handler], force=True)
            return
        except ImportError:
            pass
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s", force=True)


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
