"""The control socket when its process runs out of file descriptors: it pauses accepting, says so once, comes back.

The server runs in a process of its own (this file, run as a module) whose descriptor limit is lowered, so the test
process keeps its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from daemon.channels.control_server import ControlServer
from daemon.events import Trigger
from daemon.turn.run import TurnResult

ROOT: Final = Path(__file__).resolve().parents[2]
WAIT_S: Final = 10.0
LIFETIME_S: Final = 120.0
"""The server process stops by itself after this, should the test never stop it."""
SPARE_FDS: Final = 8
"""Descriptors the server process may still open once it listens."""
FLOOD: Final = 40
"""Clients connecting at once: far more than the server's spare descriptors."""
HELD_S: Final = 3.5
"""How long the flood is held: asyncio's own accept loop logs a traceback for every second of it."""
STATUS: Final[dict[str, object]] = {"state": "idle"}


class StatusOnly:
    """The box's turns, for a server that is only asked for its status."""

    def ask(
        self,
        question: str,
        trigger: Trigger,
        *,
        speak: bool = False,
        on_piece: Callable[[str], None] | None = None,
        abandoned: threading.Event | None = None,
    ) -> concurrent.futures.Future[TurnResult]:
        """Never called: nothing is asked here."""
        raise NotImplementedError(question)

    def forget(self) -> None:
        """Nothing to forget."""

    def stop_speaking(self) -> None:
        """Nothing to stop."""


async def serve_with_few_descriptors(path: Path, spare: int) -> None:
    """Serve the control socket at `path` with `spare` descriptors left to open, until SIGTERM."""
    server = ControlServer(path, turns=StatusOnly(), status=lambda: dict(STATUS))
    await server.start()
    stopped = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopped.set)
    highest = max(int(fd) for fd in os.listdir("/proc/self/fd"))
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (highest + 1 + spare, hard))
    (path.parent / "ready").touch()
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopped.wait(), LIFETIME_S)
    finally:
        await server.stop()


@pytest.fixture
def directory() -> Iterator[Path]:
    """A directory short enough for an AF_UNIX path (107 bytes at most), unlike pytest's tmp_path."""
    made = Path(tempfile.mkdtemp(prefix="tb-", dir="/tmp"))
    yield made
    shutil.rmtree(made, ignore_errors=True)


@contextlib.contextmanager
def server_process(directory: Path) -> Iterator[Path]:
    """A server with few descriptors to spare, logging to `directory`/server.log; yields its socket path."""
    path = directory / "control.sock"
    server = [sys.executable, "-m", "tests.channels.test_control_fd_limit", os.fspath(path), os.fspath(directory)]
    process = subprocess.Popen(server, cwd=ROOT, stdin=subprocess.DEVNULL)
    try:
        wait_until(lambda: (directory / "ready").exists() or process.poll() is not None, "the server never started")
        assert process.poll() is None, (directory / "server.log").read_text()
        yield path
        process.send_signal(signal.SIGTERM)
        assert process.wait(WAIT_S) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(WAIT_S)


def wait_until(done: Callable[[], bool], failure: str) -> None:
    """Poll `done` until it is true, for at most WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while not done():
        assert time.monotonic() < deadline, failure
        time.sleep(0.05)


def connect(path: Path) -> socket.socket:
    """A client of the socket at `path`; every read is bounded by WAIT_S."""
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(WAIT_S)
    client.connect(os.fspath(path))
    return client


def status(client: socket.socket) -> Any:
    """Ask for the status and return the reply."""
    client.sendall(b'{"cmd": "status"}\n')
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = client.recv(4096)
        assert chunk, f"the server hung up; got {reply!r}"
        reply += chunk
    return json.loads(reply)


def test_out_of_descriptors_the_server_pauses_says_so_once_and_comes_back(directory: Path) -> None:
    log = directory / "server.log"
    with server_process(directory) as path, contextlib.closing(connect(path)) as early:
        assert status(early) == {"type": "status", **STATUS}
        flood = [connect(path) for _ in range(FLOOD)]  # the kernel queues those the server cannot take yet
        try:
            wait_until(lambda: "WARNING" in log.read_text() or "ERROR" in log.read_text(), "never out of descriptors")
            time.sleep(HELD_S)
            assert status(early) == {"type": "status", **STATUS}  # a client served before is still served
        finally:
            for client in flood:
                client.close()
        with contextlib.closing(connect(path)) as late:  # descriptors are free again
            assert status(late) == {"type": "status", **STATUS}
    text = log.read_text()
    assert "Traceback" not in text, text
    said = [line for line in text.splitlines() if not line.startswith("INFO ")]
    assert len(said) == 1, text
    assert said[0].startswith("WARNING ") and str(path) in said[0] and "LimitNOFILE" in said[0], text


if __name__ == "__main__":  # the server's side: python -m tests.channels.test_control_fd_limit SOCKET DIRECTORY
    logging.basicConfig(
        filename=os.path.join(sys.argv[2], "server.log"),
        level=logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
    )
    asyncio.run(serve_with_few_descriptors(Path(sys.argv[1]), SPARE_FDS))
