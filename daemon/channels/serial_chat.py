"""The serial chat: each line is a question, answered as a turn of the box and streamed back, or a command;
JSON lines also carry the box's events."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import logging
import queue
import re
import threading
from collections.abc import Iterator
from typing import Final, Protocol

from daemon.channels.turns import Status, Turns, dumps, event_line
from daemon.errors import TalkboxError
from daemon.events import Event, Outcome, Trigger
from daemon.turn.run import TurnResult
from hardware.serial_link import LineResult

_LOGGER = logging.getLogger(__name__)

COMMANDS: Final = {
    "/status": "show the box's state",
    "/reset": "forget the conversation",
    "/stop": "stop the answer being spoken",
    "/speak on|off": "also speak the answers to typed questions (default off)",
    "/json on|off": "reply in JSON lines (with the box's events) or in plain text",
    "/help": "list these commands; any other line is a question",
}
OUTPUT_QUEUE: Final = 256
"""Pieces of output waiting for the port; events beyond this are dropped, replies wait."""
STOP_TIMEOUT_S: Final = 5.0

_PLAIN_VALUE: Final = re.compile(r"[^\s\"'=]+")
_NEWLINES: Final = re.compile(r"[\r\n]+")


class LinePort(Protocol):
    """What the chat needs of a serial link."""

    max_line_chars: int
    """Received lines longer than this come flagged too long."""

    def lines(self) -> Iterator[LineResult]:
        """Yield received lines until closed."""
        ...

    def write(self, text: str) -> None:
        """Send text; never raises."""
        ...

    def close(self) -> None:
        """Close; `lines()` ends."""
        ...


class SerialChat:
    """Asks the box the questions typed on the serial link; owns the link and closes it on stop()."""

    def __init__(self, link: LinePort, turns: Turns, *, status: Status, json_mode: bool = False) -> None:
        self._link = link
        self._turns = turns
        self._status = status
        self._json = json_mode
        self._speak = False
        # NOTE: one writer thread does every write, so a port nobody reads (writes block up to their timeout)
        # never stalls the event bus, and replies and events keep their order.
        self._out: queue.Queue[str | None] = queue.Queue(maxsize=OUTPUT_QUEUE)
        self._stopping = threading.Event()
        self._cancel = threading.Event()
        self._wake = threading.Event()  # the question's turn ended, or the chat stops
        self._dropping = False
        self._reader = threading.Thread(target=self._read_loop, name="serial-chat", daemon=True)
        self._writer = threading.Thread(target=self._write_loop, name="serial-out", daemon=True)

    @property
    def json_mode(self) -> bool:
        """True while replies are JSON lines."""
        return self._json

    def start(self) -> None:
        """Start reading questions and writing replies."""
        self._writer.start()
        self._reader.start()

    def stop(self) -> None:
        """Cancel the answer in progress, close the link and end both threads."""
        self._stopping.set()
        self._cancel.set()
        self._wake.set()
        self._link.close()
        if self._reader.ident is None:  # never started
            return
        self._reader.join(STOP_TIMEOUT_S)
        # NOTE: the closed link drops writes at once, so the writer drains the queue quickly and sees the sentinel.
        with contextlib.suppress(queue.Full):
            self._out.put(None, timeout=STOP_TIMEOUT_S)
        self._writer.join(STOP_TIMEOUT_S)

    def on_event(self, event: Event) -> None:
        """Write the box's event as a JSON line (JSON mode only); never blocks the caller."""
        if not self._json or self._stopping.is_set():
            return
        try:
            self._out.put_nowait(event_line(event))
        except queue.Full:
            if not self._dropping:
                _LOGGER.warning("serial output is backed up: dropping events until it drains")
            self._dropping = True
        else:
            self._dropping = False

    def _read_loop(self) -> None:
        for line in self._link.lines():
            try:
                self._handle(line)
            except Exception:  # NOTE: one bad line must never end the chat
                _LOGGER.exception("serial line %r failed", line.text)
                self._error("serial-internal-error", "internal error; see the journal")

    def _write_loop(self) -> None:
        while (text := self._out.get()) is not None:
            self._link.write(text)

    def _send(self, text: str) -> None:
        if not self._stopping.is_set():
            self._out.put(text)

    def _reply(self, text: str, obj: dict[str, object]) -> None:
        """Send `text` as a line in text mode, or `obj` as a JSON line in JSON mode."""
        self._send(dumps(obj) if self._json else text + "\n")

    def _error(self, code: str, message: str) -> None:
        self._reply(f"error: {message}", {"type": "error", "code": code, "message": message})

    def _handle(self, line: LineResult) -> None:
        if line.too_long:
            self._error("serial-line-too-long", f"line too long (max {self._link.max_line_chars} characters)")
            return
        text = line.text.strip()
        if not text:
            return
        if not text.startswith("/"):
            self._answer(text)
            return
        command, _, argument = text.partition(" ")
        command, argument = command.lower(), argument.strip().lower()
        if command == "/status":
            self._send_status()
        elif command == "/reset":
            self._turns.forget()
            self._reply("ok: conversation forgotten", {"type": "ok", "message": "conversation forgotten"})
        elif command == "/stop":
            self._turns.stop_speaking()
            self._reply("ok: stopped", {"type": "ok", "message": "stopped"})
        elif command == "/speak" and argument in ("on", "off"):
            self._speak = argument == "on"
            self._reply(f"ok: speak {argument}", {"type": "ok", "message": f"speak {argument}"})
        elif command == "/speak":
            self._error("serial-bad-argument", "usage: /speak on|off")
        elif command == "/help":
            listing = "\n".join(f"{name:<14}{what}" for name, what in COMMANDS.items())
            self._reply(listing, {"type": "help", "commands": COMMANDS})
        elif command == "/json" and argument in ("on", "off"):
            self._json = argument == "on"
            self._reply(f"ok: json {argument}", {"type": "ok", "message": f"json {argument}"})
        elif command == "/json":
            self._error("serial-bad-argument", "usage: /json on|off")
        else:
            self._error("serial-unknown-command", f"unknown command {command} (try /help)")

    def _send_status(self) -> None:
        try:
            status = self._status()
        except Exception as err:
            _LOGGER.exception("status for the serial link failed")
            self._error("serial-status-failed", f"status unavailable: {err}")
            return
        self._reply(" ".join(f"{key}={_plain(value)}" for key, value in status.items()), {"type": "status", **status})

    def _answer(self, question: str) -> None:
        json_mode, pieces = self._json, []

        def piece(text: str) -> None:  # on the answering thread
            pieces.append(text)
            # NOTE: in text mode an answer stays on one line, so line-reading programs get one reply per question.
            self._send(dumps({"type": "token", "text": text}) if json_mode else _NEWLINES.sub(" ", text))

        future = self._turns.ask(question, Trigger.SERIAL, speak=self._speak, on_piece=piece, abandoned=self._cancel)
        try:
            result = self._wait(future)
        except TalkboxError as err:  # the box could not take the question (busy, stopping)
            self._end_failed_answer(pieces, err.code, err.message)
            return
        if result is None:  # the chat is stopping
            return
        if result.error is not None:
            _LOGGER.warning("serial question %r failed: %s", question, result.error)
            self._end_failed_answer(pieces, result.error.code, result.error.message)
            return
        if json_mode:
            self._send(dumps({"type": "answer", "text": "".join(pieces), "outcome": result.outcome}))
        else:
            self._send(" [stopped]\n" if result.outcome is Outcome.INTERRUPTED else "\n")

    def _wait(self, future: concurrent.futures.Future[TurnResult]) -> TurnResult | None:
        """The turn's result; None once the chat stops (a question still waiting then is dropped by the box)."""
        self._wake.clear()
        future.add_done_callback(lambda _: self._wake.set())
        self._wake.wait()
        if not future.done() or future.cancelled():  # stop() woke us
            return None
        return future.result()

    def _end_failed_answer(self, pieces: list[str], code: str, message: str) -> None:
        if pieces and not self._json:
            self._send("\n")  # the error gets a line of its own after the partial answer
        self._error(code, message)


def _plain(value: object) -> str:
    """A status value for a key=value line: bare when that is unambiguous, else as JSON."""
    if isinstance(value, str) and _PLAIN_VALUE.fullmatch(value):
        return value
    return json.dumps(value, default=str, separators=(",", ":"))
