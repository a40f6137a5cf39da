"""A hang inside the model's native code, not a Python sleep: the running daemon's decoding thread is frozen with
ptrace while every other thread (the microphone, the event loop, the watchdog's own) runs on; the watchdog pings
stop, so systemd would restart the service, and they come back when the thread is let go."""

from __future__ import annotations

import contextlib
import ctypes
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from daemon.channels.control_client import ControlClient
from daemon.errors import TalkboxError
from daemon.service.watchdog import BUDGETS_S
from tests.service.test_notify import NotifySocket, run_argv

pytestmark = pytest.mark.slow
PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT = 17, 0x4206, 0x4207
WALL = 0x40000000
"""waitpid's __WALL: wait for a thread, not only for a child process."""


def cpu_ticks(pid: int) -> dict[int, int]:
    """CPU time (user + system, clock ticks) of each thread of `pid`."""
    ticks = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        ticks[int(task.name)] = int(fields[11]) + int(fields[12])
    return ticks


class Frozen:
    """Threads of another process stopped with PTRACE_INTERRUPT (the rest of the process runs on)."""

    def __init__(self, tids: list[int]) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.tids: list[int] = []
        for tid in tids:
            if self._libc.ptrace(PTRACE_SEIZE, tid, 0, 0) != 0:
                self.release()
                pytest.skip(f"ptrace is not permitted here ({os.strerror(ctypes.get_errno())})")
            self.tids.append(tid)
            self._libc.ptrace(PTRACE_INTERRUPT, tid, 0, 0)
            os.waitpid(tid, WALL)  # it is stopped now

    def release(self) -> None:
        for tid in self.tids:
            self._libc.ptrace(PTRACE_DETACH, tid, 0, 0)
        self.tids = []


def read_to_the_end(answer: Iterator[str]) -> None:
    """Keep reading an answer until it ends or the daemon goes away (it is killed at the end of the test)."""
    with contextlib.suppress(TalkboxError):
        for _ in answer:
            pass


@pytest.fixture
def notify() -> Iterator[NotifySocket]:
    s = NotifySocket()
    yield s
    s.close()


def test_a_model_frozen_in_native_code_stops_the_watchdog(
    notify: NotifySocket, tmp_path: Path, models_dir: Path
) -> None:
    runtime = Path(tempfile.mkdtemp(dir="/tmp"))
    env = {
        **os.environ,
        "NOTIFY_SOCKET": notify.path,
        "WATCHDOG_USEC": str(2_000_000),  # a ping every second while healthy
        "RUNTIME_DIRECTORY": str(runtime),
    }
    argv = run_argv(tmp_path, models_dir, 120, os.devnull)
    proc = subprocess.Popen([sys.executable, "-m", "daemon", *argv], env=env, stderr=subprocess.DEVNULL)
    frozen: Frozen | None = None
    try:
        notify.wait_for("READY=1", 120)
        answer = ControlClient(runtime / "control.sock").ask("Tell me a long story about a brave dragon.", speak=True)
        first = next(answer)  # the model is decoding now
        assert first
        threading.Thread(target=read_to_the_end, args=(answer,), daemon=True).start()
        before = cpu_ticks(proc.pid)
        time.sleep(0.5)
        after = cpu_ticks(proc.pid)
        busy = [tid for tid, t in after.items() if t - before.get(tid, t) >= 10]  # at least 20 % of a core
        assert busy, "no thread was working while the model answered"
        frozen = Frozen(busy)
        frozen_at = len(notify.messages)
        time.sleep(BUDGETS_S["llm"] + 4.0)  # longer than a stalled model is allowed, plus a ping interval or two
        silent_since = len(notify.messages)
        time.sleep(3.0)
        assert proc.poll() is None  # the process is alive: only the model is stuck
        assert not any("WATCHDOG=1" in m for m in notify.messages[silent_since:]), "pinged while the model hung"
        assert any("WATCHDOG=1" in m for m in notify.messages[frozen_at:silent_since]), "no ping before the budget"
        frozen.release()
        resumed = len(notify.messages)
        time.sleep(3.0)
        assert any("WATCHDOG=1" in m for m in notify.messages[resumed:]), "the pings did not come back"
    finally:
        if frozen is not None:
            frozen.release()
        proc.kill()
        proc.wait(timeout=10)
