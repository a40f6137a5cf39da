"""One client of the control socket: requests in, JSON-line replies and events out."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import select
import threading
from typing import TYPE_CHECKING, Any, Final

from daemon.errors import TalkboxError

if TYPE_CHECKING:
    from daemon.control import ControlServer

_LOGGER = logging.getLogger(__name__)

EVENT_QUEUE: Final = 256
"""Event lines waiting for one client; beyond this its events are dropped and counted."""
PEER_CHECK_S: Final = 0.2
"""How often a client that is not being read (mid-answer, following events) is checked for having left."""


class Session:
    """One client: its requests are answered one after the other, in the order they came."""

    def __init__(self, server: ControlServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._server, self._reader, self._writer = server, reader, writer
        self._task = asyncio.current_task()
        self._gone = threading.Event()  # the client left or the server stops; the answer's cancel too
        self._pieces = asyncio.Queue[str | TalkboxError | None]()  # of the answer being streamed
        self._events: collections.deque[str] = collections.deque()
        self._wake = asyncio.Event()  # events came, or the client left
        self._dropped = 0
        self._skipping = False  # dropping the rest of an overlong request

    async def run(self) -> None:
        """Answer the client's requests until it leaves."""
        # NOTE: nothing is read mid-answer or while events stream, so no EOF is seen then: watch for the hang-up.
        watcher = asyncio.create_task(self._watch())
        try:
            while not self._gone.is_set() and (line := await self._read_line()) is not None:
                if line.strip():  # blank lines are no requests
                    await self._handle(line)
        finally:
            watcher.cancel()
            self._writer.close()

    def close(self) -> asyncio.Task[Any] | None:
        """Drop the client now (the server stops); return the task to wait for."""
        # NOTE: no task.cancel(): Python 3.11's asyncio logs a cancelled connection task as an error.
        self._leave()
        self._writer.transport.abort()  # ends a read or a drain at once
        return self._task

    def offer(self, line: str) -> None:
        """Queue an event line for the client; drop and count it while the client lags behind."""
        if self._dropped and len(self._events) < EVENT_QUEUE:
            self._events.append(self._take_dropped())  # before newer events, so the order stays true
        if len(self._events) < EVENT_QUEUE:
            self._events.append(line)
        else:
            if not self._dropped:
                _LOGGER.warning("a control client lags behind: dropping its events until it catches up")
            self._dropped += 1
        self._wake.set()

    def _take_dropped(self) -> str:
        count, self._dropped = self._dropped, 0
        return dumps({"type": "dropped", "count": count})

    def _leave(self) -> None:
        self._gone.set()
        self._wake.set()
        self._pieces.put_nowait(None)  # ends the answer being streamed without waiting for the responder

    async def _watch(self) -> None:
        while not _peer_closed(self._writer):
            await asyncio.sleep(PEER_CHECK_S)
        self._leave()

    async def _read_line(self) -> bytes | None:
        """The next request line (b"" for none), or None once the client has finished sending."""
        try:
            line = await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as err:  # the end: a last line needs no newline
            return None if self._skipping or not err.partial else err.partial
        except asyncio.LimitOverrunError as err:
            await self._reader.readexactly(err.consumed)  # drop what is buffered, keep reading to the newline
            if not self._skipping:
                limit = self._server._max_request_bytes
                await self._send(_error("control-request-too-long", f"a request may be at most {limit} bytes"))
            self._skipping = True
            return b""
        except OSError:
            return None
        skipped, self._skipping = self._skipping, False
        return b"" if skipped else line

    async def _handle(self, line: bytes) -> None:
        try:
            await self._dispatch(_parse(line))
        except TalkboxError as err:
            await self._send(_error(err.code, err.message))
        except Exception as err:  # NOTE: a failing callback must end neither the session nor the server
            _LOGGER.exception("control request %.200r failed", line)
            await self._send(_error("control-command-failed", f"the command failed: {err}"))

    async def _dispatch(self, request: dict[str, object]) -> None:
        cmd = request.get("cmd")
        if cmd == "ask":
            text = request.get("text")
            if not isinstance(text, str) or not text.strip():
                raise TalkboxError("control-bad-request", 'ask needs a non-empty "text" string')
            # NOTE: JSON may carry unpaired surrogates ("\ud800"); the model tokenizes UTF-8, so they become U+FFFD.
            await self._answer(text.strip().encode("utf-16", "surrogatepass").decode("utf-16", "replace"))
        elif cmd == "status":
            await self._send({"type": "status", **await asyncio.to_thread(self._server._status)})
        elif cmd == "events":
            await self._stream_events()
        elif isinstance(cmd, str) and cmd in self._server._actions:
            # NOTE: off the loop, since a callback may wait on the box's locks while other clients are served.
            await asyncio.to_thread(self._server._actions[cmd])
            await self._send({"type": "ok", "cmd": cmd})
        elif isinstance(cmd, str):
            raise TalkboxError("control-unknown-command", f"unknown command {cmd!r} (ask, status, events, reset, stop)")
        else:
            raise TalkboxError("control-bad-request", 'a request needs a "cmd" string, like {"cmd": "status"}')

    async def _answer(self, question: str) -> None:
        loop = asyncio.get_running_loop()

        def post(item: str | TalkboxError | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server stopped mid-answer
                loop.call_soon_threadsafe(self._pieces.put_nowait, item)

        def produce() -> None:
            end: TalkboxError | None = None
            try:
                for piece in self._server._responder.respond(question, self._gone):
                    post(piece)
            except TalkboxError as err:
                _LOGGER.warning("control question %r failed: %s", question, err)
                end = err
            except Exception as err:
                _LOGGER.exception("control question %r failed", question)
                end = TalkboxError("control-answer-failed", f"the answer failed: {err}")
            post(end)

        # NOTE: the responder blocks (first on the voice pipeline's answer): it runs on a thread of its own.
        threading.Thread(target=produce, name="control-answer", daemon=True).start()
        text: list[str] = []
        while (item := await self._pieces.get()) is not None:
            if isinstance(item, TalkboxError):
                raise item
            text.append(item)
            await self._send({"type": "token", "text": item})
        await self._send({"type": "answer", "text": "".join(text)})

    async def _stream_events(self) -> None:
        """Send the box's events until the client leaves; what it sends meanwhile is not read."""
        self._server._subscribers.add(self)
        await self._send({"type": "subscribed"})
        while not self._gone.is_set():
            await self._wake.wait()
            self._wake.clear()
            while self._events and not self._gone.is_set():
                await self._send(self._events.popleft())
                if self._dropped and not self._events:
                    await self._send(self._take_dropped())

    async def _send(self, reply: dict[str, object] | str) -> None:
        if self._gone.is_set():
            return
        try:
            self._writer.write((reply if isinstance(reply, str) else dumps(reply)).encode())
            await self._writer.drain()
        except OSError:  # it left; the watcher has not noticed yet
            self._leave()


def _parse(line: bytes) -> dict[str, object]:
    try:
        request = json.loads(line.decode())
    except (ValueError, RecursionError) as err:  # bad UTF-8 or JSON, or too many digits or brackets
        raise TalkboxError("control-bad-json", f"the request is not JSON in UTF-8: {err}") from err
    if not isinstance(request, dict):
        raise TalkboxError("control-bad-request", 'a request is a JSON object, like {"cmd": "status"}')
    return request


def _error(code: str, message: str) -> dict[str, object]:
    return {"type": "error", "code": code, "message": message}


def dumps(reply: dict[str, object]) -> str:
    return json.dumps(reply, default=str) + "\n"


def _peer_closed(writer: asyncio.StreamWriter) -> bool:
    """True once the client closed its socket, not just its sending half (as `echo ... | socat` does)."""
    sock = writer.get_extra_info("socket")
    if sock is None or sock.fileno() < 0:
        return True
    poller = select.poll()
    poller.register(sock.fileno(), 0)  # hang-ups and errors are reported whatever the mask
    return any(events & (select.POLLHUP | select.POLLERR) for _, events in poller.poll(0))
