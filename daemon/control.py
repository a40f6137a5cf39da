"""The local control socket: programs on the box ask questions, read the status and follow events in JSON lines."""

from __future__ import annotations

import asyncio
import contextlib
import grp
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final

from daemon.control_session import Session, dumps
from daemon.errors import TalkboxError
from daemon.events import Event
from daemon.ports import Responder

_LOGGER = logging.getLogger(__name__)

PROBE_TIMEOUT_S: Final = 1.0
STOP_TIMEOUT_S: Final = 5.0


class ControlServer:
    """Answers JSON-line requests on a Unix socket, from a thread and event loop of its own."""

    def __init__(
        self,
        path: Path,
        *,
        responder: Responder,
        status: Callable[[], dict[str, object]],
        stop_speaking: Callable[[], None],
        forget: Callable[[], None],
        mode: int = 0o660,
        group: str | None = None,
        max_request_bytes: int = 8192,
    ) -> None:
        self.path = path
        self._responder, self._status = responder, status
        self._actions = {"reset": forget, "stop": stop_speaking}
        self._mode, self._group, self._max_request_bytes = mode, group, max_request_bytes
        self._sessions: set[Session] = set()
        self._subscribers: set[Session] = set()  # changed only on the loop; on_event merely peeks
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._inode: int | None = None  # of our socket file, so stop() never removes another daemon's

    def start(self) -> None:
        """Listen on the socket; raise TalkboxError if it cannot, or if another daemon answers there."""
        try:
            sock = _bind(self.path, self._mode)
            self._inode = os.stat(self.path).st_ino
        except OSError as err:
            message = f"cannot open the control socket {self.path}: {err.strerror or err}"
            raise TalkboxError("control-socket-failed", message) from err
        if self._group is not None:
            _set_group(self.path, self._group)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="control", daemon=True)
        self._thread.start()
        # NOTE: the reader's limit bounds a request line: a longer one raises LimitOverrunError, it is never buffered.
        listen = asyncio.start_unix_server(self._serve, sock=sock, limit=self._max_request_bytes)
        try:
            self._server = asyncio.run_coroutine_threadsafe(listen, self._loop).result(STOP_TIMEOUT_S)
        except BaseException:
            sock.close()
            self.stop()
            raise
        _LOGGER.info("control socket listening on %s", self.path)

    def stop(self) -> None:
        """Close the socket and every client, and remove the socket file; calling it again does nothing."""
        loop, thread, self._loop = self._loop, self._thread, None
        if loop is not None and thread is not None:
            with contextlib.suppress(TimeoutError):
                asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(STOP_TIMEOUT_S)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(STOP_TIMEOUT_S)
            if not thread.is_alive():
                loop.close()
        with contextlib.suppress(FileNotFoundError):
            if self.path.lstat().st_ino == self._inode:
                self.path.unlink()

    def on_event(self, event: Event) -> None:
        """Send `event` to every client following events (call from any thread); never blocks the caller."""
        loop = self._loop
        if loop is None or not self._subscribers:
            return
        line = dumps({"type": "event", "event": type(event).__name__, **event.fields()})
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server has stopped
            loop.call_soon_threadsafe(self._fan_out, line)

    def _fan_out(self, line: str) -> None:
        for session in self._subscribers:
            session.offer(line)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = Session(self, reader, writer)
        self._sessions.add(session)
        try:
            await session.run()
        finally:
            self._sessions.discard(session)
            self._subscribers.discard(session)

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        if tasks := [task for session in self._sessions if (task := session.close()) is not None]:
            await asyncio.wait(tasks, timeout=STOP_TIMEOUT_S)


def _bind(path: Path, mode: int) -> socket.socket:
    """A socket bound at `path` with `mode`, replacing a dead daemon's socket file but never a live one's."""
    path.parent.mkdir(mode=0o750, parents=True, exist_ok=True)
    if path.parent.stat().st_uid != os.getuid():  # e.g. a /tmp fallback directory made by another user first
        raise TalkboxError("control-socket-failed", f"{path.parent} belongs to another user; not using it")
    if path.is_socket():
        if _answers(path):
            raise TalkboxError("control-socket-in-use", f"another talkbox daemon answers on {path}; stop it first")
        _LOGGER.info("removing the stale control socket %s", path)
        path.unlink(missing_ok=True)
    elif path.exists() or path.is_symlink():
        raise TalkboxError("control-socket-failed", f"{path} exists and is not a socket; not replacing it")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(os.fspath(path))
        os.chmod(path, mode)  # NOTE: before listen(), so no client ever connects through looser permissions
    except BaseException:
        sock.close()
        raise
    return sock


def _answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(PROBE_TIMEOUT_S)
        try:
            probe.connect(os.fspath(path))
        except ConnectionRefusedError:  # the file outlived its daemon
            return False
        except TimeoutError:  # NOTE: a daemon too busy to accept is alive all the same
            pass
        return True


def _set_group(path: Path, group: str) -> None:
    try:
        gid = grp.getgrnam(group).gr_gid
        if path.stat().st_gid == gid:  # the service's own group already: chown is filtered out under systemd
            return
        os.chown(path, -1, gid)
    except KeyError:
        _LOGGER.warning("no group %s: the control socket %s keeps its group", group, path)
    except OSError as err:
        _LOGGER.warning("cannot give the control socket %s to group %s: %s", path, group, err.strerror or err)
