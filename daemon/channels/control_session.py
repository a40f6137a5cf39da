"""One client of the control socket: requests in, JSON-line replies and events out."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import select
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from daemon.channels.control_home import serve_bridge
from daemon.channels.turns import Status, Turns, dumps
from daemon.errors import TalkboxError
from daemon.events import Trigger
from daemon.home.link import HomeLink

_LOGGER = logging.getLogger(__name__)

EVENT_QUEUE: Final = 256
"""Event lines waiting for one client; beyond this its events are dropped and counted."""


@dataclass(frozen=True)
class SessionContext:
    """What every session of one server shares."""

    turns: Turns
    status: Status
    max_request_bytes: int
    follow: Callable[[Session], None]
    """Start sending the box's events to a session."""
    unfollow: Callable[[Session], None]
    home: HomeLink | None = None
    """Where a Home Assistant bridge registers (None: the `home` command is unknown)."""


class Session:
    """One client: its requests are answered one after the other, in the order they came."""

    def __init__(self, context: SessionContext, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._ctx, self._reader, self._writer = context, reader, writer
        self._task = asyncio.current_task()
        self._gone = threading.Event()  # the client left or the server stops; the answer's "abandoned" too
        self._left = asyncio.Event()
        self._events: collections.deque[str] = collections.deque()
        self._wake = asyncio.Event()  # events came, or the client left
        self._dropped = 0
        self._skipping = False  # dropping the rest of an overlong request
        self.opened = asyncio.get_running_loop().time()
        self.busy = False
        """True while the session is not reading (mid-answer, following events): the server watches for a hang-up."""

    @property
    def gone(self) -> bool:
        """True once the client left."""
        return self._gone.is_set()

    async def run(self) -> None:
        """Answer the client's requests until it leaves."""
        try:
            while not self._gone.is_set() and (line := await self._read_line()) is not None:
                if line.strip():  # blank lines are no requests
                    self.busy = True
                    try:
                        await self._handle(line)
                    finally:
                        self.busy = False
        finally:
            self._ctx.unfollow(self)
            self._writer.close()

    def close(self) -> asyncio.Task[Any] | None:
        """Drop the client now (the server stops); return the task to wait for."""
        # NOTE: no task.cancel(): Python 3.11's asyncio logs a cancelled connection task as an error.
        self.leave()
        self._writer.transport.abort()  # ends a read or a drain at once
        return self._task

    def evict(self, message: str) -> asyncio.Task[Any] | None:
        """Tell an idle client why it is dropped, and drop it (room for a new one)."""
        with contextlib.suppress(OSError):
            self._writer.write(dumps(_error("control-evicted", message)).encode())
        return self.close_gently()

    def close_gently(self) -> asyncio.Task[Any] | None:
        """Drop the client once what was written to it is sent."""
        self.leave()
        self._writer.close()
        return self._task

    def fileno(self) -> int:
        """The client's socket (-1 once closed), for the server's watch for hang-ups."""
        sock = self._writer.get_extra_info("socket")
        return -1 if sock is None else int(sock.fileno())

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

    def leave(self) -> None:
        """The client left (or the server stops): end the answer being streamed without waiting for it."""
        self._gone.set()
        self._left.set()
        self._wake.set()

    async def _read_line(self) -> bytes | None:
        """The next request line (b"" for none), or None once the client has finished sending."""
        try:
            line = await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as err:  # the end: a last line needs no newline
            return None if self._skipping or not err.partial else err.partial
        except asyncio.LimitOverrunError as err:
            await self._reader.readexactly(err.consumed)  # drop what is buffered, keep reading to the newline
            if not self._skipping:
                limit = self._ctx.max_request_bytes
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
            text, speak = request.get("text"), request.get("speak", False)
            if not isinstance(text, str) or not text.strip():
                raise TalkboxError("control-bad-request", 'ask needs a non-empty "text" string')
            if not isinstance(speak, bool):
                raise TalkboxError("control-bad-request", '"speak" is true or false')
            # NOTE: JSON may carry unpaired surrogates ("\ud800"); the model tokenizes UTF-8, so they become U+FFFD.
            await self._answer(text.strip().encode("utf-16", "surrogatepass").decode("utf-16", "replace"), speak)
        elif cmd == "status":
            await self._send({"type": "status", **self._ctx.status()})
        elif cmd == "events":
            await self._stream_events()
        elif cmd == "reset":
            self._ctx.turns.forget()
            await self._send({"type": "ok", "cmd": cmd})
        elif cmd == "stop":
            self._ctx.turns.stop_speaking()
            await self._send({"type": "ok", "cmd": cmd})
        elif cmd == "home" and self._ctx.home is not None:
            await serve_bridge(self._ctx.home, request, self._next_request, self._to_bridge, self._send)
        elif isinstance(cmd, str):
            raise TalkboxError("control-unknown-command", f"unknown command {cmd!r} (ask, status, events, reset, stop)")
        else:
            raise TalkboxError("control-bad-request", 'a request needs a "cmd" string, like {"cmd": "status"}')

    async def _answer(self, question: str, speak: bool) -> None:
        loop = asyncio.get_running_loop()
        pieces: asyncio.Queue[str] = asyncio.Queue()

        def piece(text: str) -> None:  # on the answering thread
            with contextlib.suppress(RuntimeError):  # the loop is closed: the box stopped mid-answer
                loop.call_soon_threadsafe(pieces.put_nowait, text)

        future = self._ctx.turns.ask(question, Trigger.SOCKET, speak=speak, on_piece=piece, abandoned=self._gone)
        done = asyncio.wrap_future(future)
        left = asyncio.ensure_future(self._left.wait())
        text: list[str] = []
        try:
            while True:
                if not pieces.empty():
                    text.append(pieces.get_nowait())
                    await self._send({"type": "token", "text": text[-1]})
                    continue
                if done.done() or left.done():
                    break
                getting = asyncio.ensure_future(pieces.get())
                waits: set[asyncio.Future[object]] = {getting, done, left}  # type: ignore[arg-type]
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if getting.done():
                    text.append(getting.result())
                    await self._send({"type": "token", "text": text[-1]})
                else:
                    getting.cancel()
        finally:
            left.cancel()
        if left.done() or done.cancelled():
            return  # the client left: nobody reads the rest
        result = done.result()  # a TalkboxError (busy, stopping) goes to the client as an error reply
        if result.error is not None:
            raise result.error
        await self._send({"type": "answer", "text": "".join(text), "outcome": result.outcome, "turn": result.turn})

    async def _next_request(self) -> dict[str, object] | None:
        """The client's next request, answering malformed ones with an error; None once it has left."""
        while not self._gone.is_set() and (line := await self._read_line()) is not None:
            if line.strip():
                try:
                    return _parse(line)
                except TalkboxError as err:
                    await self._send(_error(err.code, err.message))
        return None

    async def _to_bridge(self, message: dict[str, object]) -> None:
        """Send the bridge a command; ConnectionError if it has left."""
        if self._gone.is_set():
            raise ConnectionError("the bridge left")
        await self._send(message)
        if self._gone.is_set():
            raise ConnectionError("the bridge left")

    async def _stream_events(self) -> None:
        """Send the box's events until the client leaves; what it sends meanwhile is not read."""
        self._ctx.follow(self)
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
            self.leave()


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


def hung_up(fds: list[int]) -> set[int]:
    """Which of these sockets' peers closed them (not just their sending half, as `echo ... | socat` does)."""
    poller = select.poll()
    for fd in fds:
        if fd >= 0:
            poller.register(fd, 0)  # hang-ups and errors are reported whatever the mask
    return {fd for fd, events in poller.poll(0) if events & (select.POLLHUP | select.POLLERR | select.POLLNVAL)}
