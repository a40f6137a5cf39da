"""A client for the daemon's control socket, for the CLI and other programs on the box."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import BinaryIO, Final

from daemon.errors import TalkboxError

_LOGGER = logging.getLogger(__name__)

SOCKET_NAME: Final = "control.sock"
SYSTEM_SOCKET: Final = Path("/run/talkbox") / SOCKET_NAME
"""Where the systemd service listens (its RuntimeDirectory)."""
ANSWER_WAIT_S: Final = 300.0
"""Longest wait for each piece of an answer: the model first finishes any answer the box is speaking."""
PROBE_TIMEOUT_S: Final = 1.0


def default_socket_path() -> Path:
    """The socket of the service when there is one, else a per-user one (for a daemon run by hand)."""
    runtime = os.environ.get("RUNTIME_DIRECTORY")
    if runtime:  # NOTE: set by systemd, colon-separated when a unit has several runtime directories
        return Path(runtime.split(":")[0]) / SOCKET_NAME
    if SYSTEM_SOCKET.exists():
        return SYSTEM_SOCKET
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    return (Path(xdg) / "talkbox" if xdg else Path(f"/tmp/talkbox-{os.getuid()}")) / SOCKET_NAME


def connect_if_running(path: Path | None = None) -> ControlClient | None:
    """A client for the daemon at `path` (default: default_socket_path()), or None if nothing listens there.

    Raises TalkboxError("control-not-answering") when a daemon listens but gives no status within 1 s (it is
    stopped, or hung): running a second copy of the models beside it would only make things worse.
    """
    path = path or default_socket_path()
    try:
        ControlClient(path, timeout_s=PROBE_TIMEOUT_S).status()
    except TalkboxError as err:
        if err.code == "control-timeout":
            message = f"a talkbox daemon listens on {path} but does not answer (stopped, or hung?)"
            raise TalkboxError("control-not-answering", message) from err
        _LOGGER.debug("no daemon on %s: %s", path, err)
        return None
    except OSError as err:
        _LOGGER.debug("no daemon on %s: %s", path, err)
        return None
    return ControlClient(path)


class ControlClient:
    """Talks to a running daemon, one connection per request."""

    def __init__(self, path: Path, timeout_s: float = 5.0) -> None:
        self.path = path
        self.timeout_s = timeout_s

    def ask(self, text: str, speak: bool = False) -> Generator[str, None, None]:
        """Yield the answer to `text` piece by piece (spoken by the box too if `speak`); closing early cancels it."""
        with self._connect() as connection:
            connection.send({"cmd": "ask", "text": text, "speak": speak})
            connection.wait_s(max(self.timeout_s, ANSWER_WAIT_S))
            while (reply := connection.receive())["type"] == "token":
                yield str(reply["text"])
            connection.expect(reply, "answer")

    def status(self) -> dict[str, object]:
        """What the box is doing: state, profile, model, wake phrase and whatever else the daemon reports."""
        reply = self._request({"cmd": "status"}, "status")
        del reply["type"]
        return reply

    def events(self) -> Generator[dict[str, object], None, None]:
        """Yield the box's events as they happen ({"type": "event", "event": name, ...}) until the daemon stops.

        A {"type": "dropped", "count": n} comes in between when this client fell behind and lost n events.
        """
        with self._connect() as connection:
            connection.send({"cmd": "events"})
            connection.expect(connection.receive(), "subscribed")
            connection.wait_s(None)  # events may be minutes apart
            while (reply := connection.receive_or_end()) is not None:
                yield reply

    def reset(self) -> None:
        """Make the box forget the conversation."""
        self._request({"cmd": "reset"}, "ok")

    def stop(self) -> None:
        """Silence the answer being spoken."""
        self._request({"cmd": "stop"}, "ok")

    def _request(self, request: dict[str, object], expected: str) -> dict[str, object]:
        with self._connect() as connection:
            connection.send(request)
            return connection.expect(connection.receive(), expected)

    @contextlib.contextmanager
    def _connect(self) -> Iterator[_Connection]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(self.timeout_s)
            try:
                sock.connect(os.fspath(self.path))
            except (FileNotFoundError, ConnectionRefusedError) as err:
                raise TalkboxError("control-not-running", f"no talkbox daemon answers on {self.path}") from err
            except PermissionError as err:
                message = f"not permitted to use {self.path} (is this user in the socket's group?)"
                raise TalkboxError("control-not-permitted", message) from err
            except TimeoutError as err:
                raise TalkboxError("control-timeout", f"the daemon on {self.path} accepts no connection") from err
            with sock.makefile("rb") as stream:
                yield _Connection(sock, stream, self.path, self.timeout_s)


class _Connection:
    """One open connection: JSON lines out, JSON lines in, error replies raised."""

    def __init__(self, sock: socket.socket, stream: BinaryIO, path: Path, timeout_s: float | None) -> None:
        self._sock, self._stream, self._path, self._timeout_s = sock, stream, path, timeout_s

    def wait_s(self, seconds: float | None) -> None:
        """Wait this long for each reply from now on (None: for ever)."""
        self._timeout_s = seconds
        self._sock.settimeout(seconds)

    def send(self, request: dict[str, object]) -> None:
        """Send one request line; a daemon that refused the connection (busy) says why, as an error reply."""
        try:
            self._sock.sendall(json.dumps(request).encode() + b"\n")
        except OSError as err:
            # NOTE: a daemon with every place taken writes its refusal and closes before our line goes out: the
            # refusal is still there to read, and says more than the broken pipe.
            with contextlib.suppress(OSError):
                self.receive_or_end()
            raise TalkboxError("control-connection-lost", f"the connection to {self._path} broke: {err}") from err

    def receive(self) -> dict[str, object]:
        """The next reply; raise TalkboxError for an error reply, a silent daemon or a closed connection."""
        if (reply := self.receive_or_end()) is None:
            raise TalkboxError("control-connection-lost", f"the daemon on {self._path} closed the connection")
        return reply

    def receive_or_end(self) -> dict[str, object] | None:
        """The next reply, or None when the daemon closed the connection between replies."""
        try:
            line = self._stream.readline()
        except TimeoutError as err:
            raise TalkboxError("control-timeout", f"no reply from {self._path} in {self._timeout_s} s") from err
        except OSError as err:
            raise TalkboxError("control-connection-lost", f"the connection to {self._path} broke: {err}") from err
        if not line:
            return None
        if not line.endswith(b"\n"):
            raise TalkboxError("control-connection-lost", f"the daemon on {self._path} closed the connection")
        try:
            reply = json.loads(line)
        except ValueError as err:
            raise TalkboxError("control-bad-reply", f"the daemon sent a line that is not JSON: {line!r:.80}") from err
        if not isinstance(reply, dict) or not isinstance(reply.get("type"), str):
            raise TalkboxError("control-bad-reply", f"the daemon sent a reply without a type: {line!r:.80}")
        if reply["type"] == "error":
            raise TalkboxError(str(reply.get("code", "control-error")), str(reply.get("message", "")))
        return reply

    def expect(self, reply: dict[str, object], expected: str) -> dict[str, object]:
        """`reply`, checked to be of the `expected` type."""
        if reply["type"] != expected:
            raise TalkboxError("control-bad-reply", f"expected a {expected} reply, got {reply['type']}")
        return reply
