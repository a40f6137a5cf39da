"""The box as a systemd service: a real NOTIFY_SOCKET, exit statuses, the watchdog and the unit file."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from daemon.errors import EXIT_CONFIG, EXIT_TEMPFAIL

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "talkbox.service"


class NotifySocket:
    """What systemd listens on: a datagram socket, read continuously (as systemd does) by a thread."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(dir="/tmp")  # AF_UNIX paths must stay short
        self.path = os.path.join(self.dir, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.1)
        self.messages: list[str] = []
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        # NOTE: an unread datagram socket fills after a few messages and then blocks the sender.
        while not self._closed.is_set():
            try:
                self.messages.append(self.sock.recv(4096).decode())
            except TimeoutError:
                continue

    def wait_for(self, needle: str, timeout_s: float) -> list[str]:
        """Wait until a message contains `needle`; fail after the timeout."""
        deadline = time.monotonic() + timeout_s
        while not any(needle in m for m in list(self.messages)):
            assert time.monotonic() < deadline, f"no {needle!r} within {timeout_s} s; got {self.messages}"
            time.sleep(0.05)
        return list(self.messages)

    def drain(self) -> list[str]:
        """Everything received so far (give in-flight messages a moment)."""
        time.sleep(0.3)
        return list(self.messages)

    def close(self) -> None:
        self._closed.set()
        self._reader.join(timeout=2)
        self.sock.close()
        os.unlink(self.path)
        os.rmdir(self.dir)


@pytest.fixture
def notify() -> Iterator[NotifySocket]:
    s = NotifySocket()
    yield s
    s.close()


def config(tmp_path: Path, models_dir: Path, extra: str = "") -> Path:
    """A config on the session's models (assembled there once) with a state directory of the test's own: the
    machine's own box keeps its alarms in the default one."""
    path = tmp_path / "talkbox.toml"
    state = "" if "[state]" in extra else f'[state]\ndir = "{tmp_path / "state"}"\n'
    path.write_text(
        f'[models]\ndir = "{models_dir}"\n[display]\ndriver = "none"\n[button]\nenabled = false\n' + state + extra
    )
    return path


def run_argv(tmp_path: Path, models_dir: Path, mic: float | Path, speaker: str = "", extra: str = "") -> list[str]:
    """`talkbox run` on `config()`: a silent microphone of `mic` seconds (or the recording `mic`), into `speaker`."""
    heard = mic if isinstance(mic, Path) else silence(tmp_path, mic)
    said = speaker or str(tmp_path / "a.wav")
    return ["run", "--config", str(config(tmp_path, models_dir, extra)), "--mic", str(heard), "--speaker", said]


def silence(tmp_path: Path, seconds: float) -> Path:
    path = tmp_path / "silence.wav"
    sf.write(path, np.zeros(int(seconds * 16000), np.int16), 16000, subtype="PCM_16")
    return path


def start(notify: NotifySocket, *argv: str, watchdog_s: float = 1.0) -> subprocess.Popen[str]:
    env = {**os.environ, "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": str(int(watchdog_s * 1e6))}
    return subprocess.Popen(
        [sys.executable, "-m", "daemon", *argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


@pytest.mark.slow
def test_ready_only_after_loading_then_watchdog_then_stopping_on_sigterm(
    notify: NotifySocket, tmp_path: Path, models_dir: Path
) -> None:
    proc = start(notify, *run_argv(tmp_path, models_dir, 60))
    try:
        messages = notify.wait_for("READY=1", 120)
        before = messages[: next(i for i, m in enumerate(messages) if "READY=1" in m)]
        assert any("EXTEND_TIMEOUT_USEC=" in m for m in before)  # loading asked for time
        assert any("Loading" in m and "STATUS=" in m for m in before)  # STATUS told the story
        assert "STATUS=Ready" in messages[len(before)]
        notify.wait_for("WATCHDOG=1", 5)
        time.sleep(2.0)
        assert sum("WATCHDOG=1" in m for m in notify.drain()) >= 3  # pinged every 0.5 s while healthy
        proc.send_signal(signal.SIGTERM)
        notify.wait_for("STOPPING=1", 5)
        assert proc.wait(timeout=10) == 0  # the bound only keeps the test from hanging
    finally:
        proc.kill()


@pytest.mark.slow
def test_status_follows_a_turn(notify: NotifySocket, tmp_path: Path, models_dir: Path) -> None:
    question = tmp_path / "q.wav"
    assert (
        subprocess.run(
            [sys.executable, "-m", "daemon", "say", "Hey Jarvis. How many days are in a week?", "--wav", str(question)],
            capture_output=True,
            timeout=120,
        ).returncode
        == 0
    )
    proc = start(notify, *run_argv(tmp_path, models_dir, question, extra="[listen]\nfollow_up_s = 0.0\n"))
    assert proc.wait(timeout=120) == 0
    statuses = [m.split("STATUS=")[1] for m in notify.drain() if "STATUS=" in m]
    turn = [s for s in statuses if s in ("Listening", "Thinking", "Speaking", "Ready")]
    assert turn == ["Listening", "Thinking", "Speaking", "Ready"]


def test_a_permanent_fault_exits_78_without_ready(notify: NotifySocket, tmp_path: Path, models_dir: Path) -> None:
    proc = start(notify, *run_argv(tmp_path, models_dir, 1, extra='[llm]\nmodel = "/nonexistent/model.gguf"\n'))
    assert proc.wait(timeout=180) == EXIT_CONFIG  # a hang guard: a first start builds the examples (~50 s)
    assert "llm-model-missing" in proc.stderr.read()  # type: ignore[union-attr]
    notify.drain()
    assert not any("READY=1" in m for m in notify.messages)
    assert any("STATUS=Error llm-model-missing" in m for m in notify.messages)


@pytest.mark.slow
def test_a_missing_microphone_at_start_exits_75(notify: NotifySocket, tmp_path: Path, models_dir: Path) -> None:
    cfg = config(
        tmp_path, models_dir, '[audio]\ninput = "alsa:no-such-microphone"\nretry_s = 1.0\nstartup_wait_s = 2.0\n'
    )
    proc = start(notify, "run", "--config", str(cfg), "--speaker", str(tmp_path / "a.wav"))
    assert proc.wait(timeout=90) == EXIT_TEMPFAIL
    notify.drain()
    assert any("STATUS=Error audio-input-unavailable" in m for m in notify.messages)
    assert not any("READY=1" in m for m in notify.messages)


def test_the_unit_scores_at_most_1_and_verifies(tmp_path: Path) -> None:
    score = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(UNIT)], capture_output=True, text=True, timeout=60
    )
    exposure = float(re.search(r"Overall exposure level for talkbox.service: ([0-9.]+)", score.stdout).group(1))  # type: ignore[union-attr]
    assert exposure <= 1.0
    # verify checks that ExecStart exists: point it at this checkout's own talkbox.
    unit = tmp_path / "talkbox.service"
    unit.write_text(
        UNIT.read_text().replace("/opt/talkbox/venv/bin/talkbox", str(Path(sys.executable).parent / "talkbox"))
    )
    verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0 and verify.stderr == "", verify.stderr


def test_the_unit_is_offline_and_restarts_only_for_transient_faults() -> None:
    text = UNIT.read_text()
    for line in (
        "Type=notify",
        "PrivateNetwork=yes",
        "IPAddressDeny=any",
        "RestrictAddressFamilies=AF_UNIX",
        "RestartPreventExitStatus=78",
        "Restart=on-failure",
        "MemoryDenyWriteExecute=yes",
        "DevicePolicy=closed",
        "WatchdogSec=",
    ):
        assert re.search(rf"^{re.escape(line)}", text, re.MULTILINE), line


def test_each_turn_stage_is_logged_with_journal_fields(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from daemon.events import (
        ListeningStarted,
        Outcome,
        SpeakingStarted,
        ThinkingStarted,
        Trigger,
        TurnEnded,
        TurnStarted,
    )
    from daemon.service.journal import TurnJournal

    journal = TurnJournal("smollm2")
    with caplog.at_level(logging.INFO, logger="daemon.turn"):
        for event in (
            ListeningStarted(turn=4),
            ThinkingStarted(turn=4, question="q"),
            SpeakingStarted(turn=4, latency_s=0.432),
            TurnEnded(turn=4, outcome=Outcome.ANSWERED),
            TurnStarted(turn=5, trigger=Trigger.SERIAL, question="typed"),
        ):
            journal(event)
    stages = [(r.TURN, r.STAGE, r.MODEL) for r in caplog.records]  # type: ignore[attr-defined]
    assert stages == [
        (4, "listen", "smollm2"),
        (4, "think", "smollm2"),
        (4, "speak", "smollm2"),
        (4, "end", "smollm2"),
        (5, "start", "smollm2"),
    ]
    assert caplog.records[2].LATENCY_MS == 432  # type: ignore[attr-defined]
    assert caplog.records[4].getMessage() == "turn 5 start: typed question from the serial link"


def test_each_step_of_a_start_gives_it_the_whole_limit_and_nothing_else_does() -> None:
    from daemon.events import BootProgress, BoxReady
    from daemon.service import notify

    sent: list[str] = []
    mirror = notify.StatusMirror(notify.Notifier(send=sent.append))
    steps = [BootProgress(step="Preparing the conversation", fraction=0.45 + 0.02 * i) for i in range(5)]
    for step in steps:  # one step told in pieces: each gives 15 minutes from now, so a step may take minutes
        mirror(step)
    extensions = [m for m in sent if m.startswith("EXTEND_TIMEOUT_USEC=")]
    assert extensions == [f"EXTEND_TIMEOUT_USEC={int(notify.START_LIMIT_S * 1e6)}"] * len(steps)
    # NOTE: no thread sends more while a step runs: one holding Python's lock for minutes starved it under emulation,
    # and the restart was ended mid-step. A start that shows nothing for the limit is stuck and is ended.
    mirror(BootProgress(step="Ready", fraction=1.0))
    mirror(BoxReady(wake_phrase=""))
    assert [m for m in sent if m.startswith("EXTEND_TIMEOUT_USEC=")] == extensions


@pytest.mark.slow
def test_sighup_stops_cleanly_saving_state_and_exits_75_for_systemd_to_start_it_anew(
    notify: NotifySocket, tmp_path: Path, models_dir: Path
) -> None:
    from daemon.channels.control_client import ControlClient

    runtime = Path(tempfile.mkdtemp(dir="/tmp"))
    env = {**os.environ, "NOTIFY_SOCKET": notify.path, "RUNTIME_DIRECTORY": str(runtime)}
    argv = run_argv(tmp_path, models_dir, 60, extra=f'[state]\ndir = "{tmp_path / "state"}"\nkeep_history = true\n')
    proc = subprocess.Popen([sys.executable, "-m", "daemon", *argv], env=env, stderr=subprocess.PIPE, text=True)
    try:
        notify.wait_for("READY=1", 120)
        assert "".join(ControlClient(runtime / "control.sock").ask("What is the largest ocean?"))
        proc.send_signal(signal.SIGHUP)
        assert proc.wait(timeout=15) == EXIT_TEMPFAIL
    finally:
        proc.kill()
    assert "read the configuration again" in proc.stderr.read()  # type: ignore[union-attr]
    assert any("STOPPING=1" in m for m in notify.drain())
    assert not (runtime / "control.sock").exists()
    saved = (tmp_path / "state" / "state.json").read_text()
    assert "largest ocean" in saved


@pytest.mark.slow
def test_status_tells_a_hung_daemon_from_one_that_is_not_running(
    notify: NotifySocket, tmp_path: Path, models_dir: Path
) -> None:
    runtime = Path(tempfile.mkdtemp(dir="/tmp"))
    env = {**os.environ, "NOTIFY_SOCKET": notify.path, "RUNTIME_DIRECTORY": str(runtime)}
    argv = run_argv(tmp_path, models_dir, 60, os.devnull)
    proc = subprocess.Popen([sys.executable, "-m", "daemon", *argv], env=env, stderr=subprocess.DEVNULL)

    def status() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "daemon", "status"], env=env, capture_output=True, text=True, timeout=30
        )

    try:
        notify.wait_for("READY=1", 120)
        assert status().returncode == 0
        proc.send_signal(signal.SIGSTOP)  # as a hung daemon: its socket still takes connections
        hung = status()
        assert hung.returncode == 1 and "not answering" in hung.stdout and "stopped, or hung?" in hung.stdout
        proc.send_signal(signal.SIGCONT)
        assert status().returncode == 0
    finally:
        proc.kill()
        proc.wait(timeout=10)
    gone = status()
    assert gone.returncode == 3 and "not running" in gone.stdout
