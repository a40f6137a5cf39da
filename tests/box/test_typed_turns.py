"""Typed questions are turns of the running box: the whole event sequence, the display, and the state file that
holds them the moment their turn has ended, even if the box is then killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from PIL import Image

from daemon.channels.control_client import ControlClient
from daemon.ui.screens import Kind, Screen, render

pytestmark = pytest.mark.slow
SERIAL_QUESTION = "What is the largest ocean?"
SOCKET_QUESTION = "Who painted the Mona Lisa?"  # questions for the model: a capital is answered by the facts


def events_of(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def wait_for(path: Path, done: Any, timeout_s: float = 90) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout_s
    while not done(events := events_of(path)):
        assert time.monotonic() < deadline, f"not in time; events: {[e['event'] for e in events][-20:]}"
        time.sleep(0.05)
    return events


@pytest.fixture(scope="module")
def set_up(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The models directory as the set-up leaves it (`talkbox models verify`): the brain assembled, and the skills'
    example sentences embedded beside the sentence model, so that the box does not make them when it starts."""
    config = tmp_path_factory.mktemp("set-up") / "talkbox.toml"
    config.write_text(f'[models]\ndir = "{models_dir}"\n')
    verify = [sys.executable, "-m", "daemon", "models", "verify", "--config", str(config)]
    done = subprocess.run(verify, capture_output=True, text=True, timeout=600, check=True)
    assert "example sentences embedded" in done.stdout, done.stdout + done.stderr
    assert list(models_dir.glob("*/examples-*.npz")), "no embedded examples kept beside the sentence model"
    return models_dir


@pytest.fixture
def box(tmp_path: Path, set_up: Path) -> Iterator[tuple[subprocess.Popen[str], int, Path]]:
    """`talkbox run` from a silent microphone, with a pty as its serial link and a private control socket."""
    master, slave = os.openpty()
    tty.setraw(slave)  # a serial line does not echo
    runtime = Path(tempfile.mkdtemp(dir="/tmp"))  # AF_UNIX paths must stay short
    config = tmp_path / "talkbox.toml"
    config.write_text(
        f'[models]\ndir = "{set_up}"\n'
        f'[display]\ndriver = "dummy"\nframes_dir = "{tmp_path / "frames"}"\n'
        "[button]\nenabled = false\n"
        f'[serial]\nenabled = true\nurl = "{os.ttyname(slave)}"\n'
        f'[state]\ndir = "{tmp_path / "state"}"\nkeep_history = true\n'
        "[llm]\ntemperature = 0.0\nseed = 7\n"
    )
    mic = tmp_path / "silence.wav"
    sf.write(mic, np.zeros(120 * 16000, np.int16), 16000, subtype="PCM_16")
    argv = ["run", "--config", str(config), "--mic", str(mic), "--speaker", str(tmp_path / "a.wav")]
    env = {**os.environ, "RUNTIME_DIRECTORY": str(runtime)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "daemon", *argv, "--events", str(tmp_path / "events.jsonl")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(tmp_path / "events.jsonl", lambda events: any(e["event"] == "BoxReady" for e in events))
        yield proc, master, runtime / "control.sock"
    finally:
        proc.kill()
        proc.wait(timeout=10)
        os.close(master)
        os.close(slave)


def read_line(fd: int, timeout_s: float = 60) -> str:
    data, deadline = b"", time.monotonic() + timeout_s
    while not data.endswith(b"\n"):
        assert time.monotonic() < deadline, f"no whole line in time; got {data!r}"
        data += os.read(fd, 4096)
    return data.decode()


def turn_names(events: list[dict[str, Any]], turn: int) -> list[str]:
    names = [e["event"] for e in events if e.get("turn") == turn and e["event"] != "TokenGenerated"]
    tokens = sum(e["event"] == "TokenGenerated" for e in events if e.get("turn") == turn)
    return [*names[:2], f"TokenGenerated x{'many' if tokens > 1 else tokens}", *names[2:]]


def test_typed_questions_are_whole_turns_shown_and_saved_before_a_kill(
    box: tuple[subprocess.Popen[str], int, Path], tmp_path: Path
) -> None:
    proc, serial, socket_path = box
    os.write(serial, f"{SERIAL_QUESTION}\r\n".encode())
    assert "Pacific" in read_line(serial)
    answer = "".join(ControlClient(socket_path).ask(SOCKET_QUESTION))
    assert "Leonardo" in answer
    events = wait_for(tmp_path / "events.jsonl", lambda ev: sum(e["event"] == "TurnEnded" for e in ev) == 2)
    proc.send_signal(signal.SIGKILL)  # right after the second turn ended: nothing gets a chance to tidy up
    proc.wait(timeout=10)

    started = [e for e in events if e["event"] == "TurnStarted"]
    assert [(e["turn"], e["trigger"], e["question"]) for e in started] == [
        (1, "serial", SERIAL_QUESTION),
        (2, "socket", SOCKET_QUESTION),
    ]
    for turn in (1, 2):
        expected = ["TurnStarted", "ThinkingStarted", "TokenGenerated xmany", "AnswerFinished", "TurnEnded"]
        assert turn_names(events, turn) == expected
    assert [e["outcome"] for e in events if e["event"] == "TurnEnded"] == ["answered", "answered"]

    saved = json.loads((tmp_path / "state" / "state.json").read_text())
    assert [h["question"] for h in saved["history"]] == [SERIAL_QUESTION, SOCKET_QUESTION]
    assert "Leonardo" in saved["history"][1]["answer"]

    frames = [Image.open(p).convert("1").tobytes() for p in sorted((tmp_path / "frames").glob("frame-*.png"))]
    thinking = [
        render(Screen(Kind.THINKING, text=SERIAL_QUESTION, detail="serial", tick=tick)).tobytes() for tick in range(4)
    ]
    assert any(frame in thinking for frame in frames), "the serial question was never on the display"
    first = next(e["text"] for e in events if e["event"] == "AnswerFinished" and e["turn"] == 1)
    shown = render(Screen(Kind.NOTICE, title="Typed answer", text=first)).tobytes()
    assert shown in frames, "the serial question's answer was never on the display"
