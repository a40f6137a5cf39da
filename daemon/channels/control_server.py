"""The local control socket: programs on the box ask questions, read the status and follow events in JSON lines.

It runs on the box's event loop; a question asked here is a turn of the box like a spoken one.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import grp
import logging
import math
import os
import socket
from pathlib import Path
from typing import Final

from daemon.channels.control_session import Session, SessionContext, hung_up
from daemon.channels.turns import Status, Turns, dumps, event_line
from daemon.errors import TalkboxError
from daemon.events import Event
from daemon.home.link import HomeLink

_LOGGER = logging.getLogger(__name__)

PROBE_TIMEOUT_S: Final = 1.0
STOP_TIMEOUT_S: Final = 5.0
PEER_CHECK_S: Final = 0.2
"""How often clients that are not being read (mid-answer, following events) are checked for having left."""
MAX_SESSIONS: Final = 64
"""Clients served at once; a new one beyond this takes the place of the longest idle one, or is refused."""
# NOTE: every client is a file descriptor: without a cap ~1,010 idle clients exhausted the 1,024 the process
# may hold, and accept() then failed in a tight loop (373,894 logged errors in a minute).
LISTEN_BACKLOG: Final = 4 * MAX_SESSIONS
"""Clients the kernel queues while the server cannot take them: a burst, or a pause for want of descriptors."""
ACCEPT_PAUSE_S: Final = 1.0
"""Longest pause in accepting after accept() failed for want of descriptors or memory; a client leaving ends it."""
ACCEPT_WARN_EVERY_S: Final = 60.0
"""At most one warning about such a pause this often, should descriptors run out again and again."""
# NOTE: an accept loop of our own, not asyncio.start_unix_server(): asyncio's logs every accept() that fails for
# want of descriptors with a traceback, once a second while it lasts, through the exception handler of the whole
# loop (the keeper's too). Filtering that handler or the "asyncio" logger would match asyncio's wording and catch
# other servers' errors; our own loop sees the error itself, pauses, warns once and goes on, with documented calls
# only (loop.sock_accept, asyncio.open_unix_connection).


class ControlServer:
    """Answers JSON-line requests on a Unix socket, on the event loop it is started on."""

    def __init__(
        self,
        path: Path,
        *,
        turns: Turns,
        status: Status,
        mode: int = 0o660,
        group: str | None = None,
        max_request_bytes: int = 8192,
        home: HomeLink | None = None,
    ) -> None:
        self.path = path
        self._mode, self._group = mode, group
        self._context = SessionContext(turns, status, max_request_bytes, self._follow, self._unfollow, home)
        self._sessions: set[Session] = set()
        self._subscribers: set[Session] = set()  # changed only on the loop
        self._loop: asyncio.AbstractEventLoop | None = None
        self._acceptor: asyncio.Task[None] | None = None
        self._clients: set[asyncio.Task[None]] = set()  # NOTE: the loop holds its tasks only weakly
        self._client_left = asyncio.Event()  # a descriptor was freed: worth trying accept() again
        self._watcher: asyncio.Task[None] | None = None
        self._inode: int | None = None  # of our socket file, so stop() never removes another daemon's

    async def start(self) -> None:
        """Listen on the socket; raise TalkboxError if it cannot, or if another daemon answers there."""
        try:
            sock = _listen(self.path, self._mode)
            self._inode = os.stat(self.path).st_ino
        except OSError as err:
            message = f"cannot open the control socket {self.path}: {err.strerror or err}"
            raise TalkboxError("control-socket-failed", message) from err
        if self._group is not None:
            _set_group(self.path, self._group)
        self._loop = asyncio.get_running_loop()
        self._acceptor = asyncio.create_task(self._accept(sock))
        self._watcher = asyncio.create_task(self._watch_peers())
        _LOGGER.info("control socket listening on %s", self.path)

    async def stop(self) -> None:
        """Close the socket and every client, and remove the socket file; calling it again does nothing."""
        self._loop = None
        if self._watcher is not None:
            self._watcher.cancel()
            self._watcher = None
        acceptor, self._acceptor = self._acceptor, None
        if acceptor is not None:
            acceptor.cancel()  # it closes the listening socket as it ends
            await asyncio.wait({acceptor}, timeout=STOP_TIMEOUT_S)
        for session in list(self._sessions):
            session.close()
        if self._clients:
            await asyncio.wait(set(self._clients), timeout=STOP_TIMEOUT_S)
        with contextlib.suppress(FileNotFoundError):
            if self.path.lstat().st_ino == self._inode:
                self.path.unlink()

    def on_event(self, event: Event) -> None:
        """Send `event` to every client following events (any thread); never blocks the caller."""
        loop = self._loop
        if loop is None or not self._subscribers:
            return
        line = event_line(event)
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server has stopped
            loop.call_soon_threadsafe(self._fan_out, line)

    def _fan_out(self, line: str) -> None:
        for session in self._subscribers:
            session.offer(line)

    def _follow(self, session: Session) -> None:
        self._subscribers.add(session)

    def _unfollow(self, session: Session) -> None:
        self._subscribers.discard(session)

    async def _accept(self, sock: socket.socket) -> None:
        """Take clients until stopped, pausing while the process cannot hold another; `sock` is closed at the end."""
        loop = asyncio.get_running_loop()
        paused_since: float | None = None
        warned_at = -math.inf
        try:
            while True:
                try:
                    conn, _ = await loop.sock_accept(sock)
                except ConnectionAbortedError:  # the client left before it was taken
                    continue
                except OSError as err:  # out of descriptors or memory (EMFILE, ENFILE...): clients wait in the backlog
                    if paused_since is None:
                        paused_since = loop.time()
                        if paused_since - warned_at >= ACCEPT_WARN_EVERY_S:
                            warned_at = paused_since
                            _LOGGER.warning(
                                "control socket %s cannot take new clients (%s): %s; they wait until it can",
                                self.path,
                                err.strerror or err,
                                _remedy(err),
                            )
                    self._client_left.clear()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(ACCEPT_PAUSE_S):
                            await self._client_left.wait()
                    continue
                if paused_since is not None and warned_at >= paused_since:
                    _LOGGER.info("control socket %s takes clients again", self.path)
                paused_since = None
                task = asyncio.create_task(self._client(conn))
                self._clients.add(task)
                task.add_done_callback(self._client_done)
                await asyncio.sleep(0)  # NOTE: a burst is taken one client a turn, so each can make room under the cap
        finally:
            sock.close()

    def _client_done(self, task: asyncio.Task[None]) -> None:
        self._clients.discard(task)
        self._client_left.set()

    async def _client(self, conn: socket.socket) -> None:
        """Serve one accepted client; its socket is closed however this ends."""
        # NOTE: the reader's limit bounds a request line: a longer one raises LimitOverrunError, it is never buffered.
        try:
            reader, writer = await asyncio.open_unix_connection(sock=conn, limit=self._context.max_request_bytes)
        except OSError as err:
            conn.close()
            _LOGGER.debug("a control client left before it was served: %s", err)
            return
        try:
            if self._loop is not None:  # NOTE: stop() may have begun while the client was being set up
                await self._serve(reader, writer)
        finally:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = Session(self._context, reader, writer)
        if len(self._sessions) >= MAX_SESSIONS and not self._make_room():
            _LOGGER.warning("control socket: %d clients are busy; refusing another", len(self._sessions))
            writer.write(dumps(_busy()).encode())
            session.close_gently()
            return
        self._sessions.add(session)
        try:
            await session.run()
        finally:
            self._sessions.discard(session)
            self._subscribers.discard(session)

    def _make_room(self) -> bool:
        """Drop the longest idle client for a new one; False if every client is busy."""
        idle = [s for s in self._sessions if not s.busy]
        if not idle:
            return False
        oldest = min(idle, key=lambda s: s.opened)
        self._sessions.discard(oldest)
        _LOGGER.warning("control socket: %d clients; dropping the longest idle one", MAX_SESSIONS)
        oldest.evict(f"too many clients ({MAX_SESSIONS}): the longest idle one is dropped")
        return True

    async def _watch_peers(self) -> None:
        """One watch for every client that is not being read: a reading client sees its end by itself."""
        # NOTE: nothing is read mid-answer or while events stream, so no EOF is seen then; one poll() for all
        # such clients replaces a timer per client.
        while True:
            await asyncio.sleep(PEER_CHECK_S)
            busy = [s for s in self._sessions if s.busy and not s.gone]
            if busy:
                gone = hung_up([s.fileno() for s in busy])
                for session in busy:
                    if session.fileno() in gone or session.fileno() < 0:
                        session.leave()


def _listen(path: Path, mode: int) -> socket.socket:
    """A socket listening at `path` with `mode`, replacing a dead daemon's socket file but never a live one's."""
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
        sock.listen(LISTEN_BACKLOG)
        sock.setblocking(False)
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


def _remedy(err: OSError) -> str:
    """What a person can do about a failed accept()."""
    if err.errno == errno.EMFILE:
        return "the daemon holds all the files LimitNOFILE= allows; close idle clients or raise it in talkbox.service"
    if err.errno == errno.ENFILE:
        return "the system holds all the files it may; close programs or raise fs.file-max"
    if err.errno in (errno.ENOBUFS, errno.ENOMEM):
        return "the system is out of memory; close programs"
    return "waiting for it to pass"


def _busy() -> dict[str, object]:
    return {"type": "error", "code": "control-busy", "message": f"{MAX_SESSIONS} clients are busy; try again soon"}
