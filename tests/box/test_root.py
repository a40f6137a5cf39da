"""The running box degrades instead of dying: no display, no button, no microphone yet."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from daemon.box.root import Box, RunOptions
from daemon.config import AudioConfig, ButtonConfig, Config, DisplayConfig, ListenConfig
from daemon.events import BoxReady, Event, Fault
from daemon.ports import Engines

pytestmark = pytest.mark.slow


@contextmanager
def running_box(
    engines: Engines, cfg: Config, tmp_path: Path, mic: Path | None, watch: Callable[[Event], None] | None = None
) -> Iterator[Box]:
    """A box with the shared engines, running on its own thread until it is READY; stopped and closed after."""
    ready = threading.Event()

    def note(event: Event) -> None:
        if isinstance(event, BoxReady):
            ready.set()
        if watch is not None:
            watch(event)

    options = RunOptions(speaker=str(tmp_path / "a.wav"), subscribers=[note])
    box = Box(cfg, dataclasses.replace(options, mic=str(mic)) if mic else options, engines)
    runner = threading.Thread(target=box.run, daemon=True)
    runner.start()
    try:
        if mic is not None:  # without a microphone the box never gets ready: it retries the device
            assert ready.wait(timeout=10), "the box did not get ready"
        yield box
    finally:
        box.stop()
        runner.join(timeout=10)
        box.close()
    assert not runner.is_alive(), "the box did not stop"


def silence_wav(tmp_path: Path, seconds: float) -> Path:
    """A WAV microphone that hears nothing for `seconds`."""
    import numpy as np
    import soundfile as sf

    from hardware.audio import RATE_HZ

    path = tmp_path / "silence.wav"
    sf.write(path, np.zeros(int(seconds * RATE_HZ), np.int16), RATE_HZ, subtype="PCM_16")
    return path


def test_missing_display_and_button_are_warned_once_and_the_box_runs(
    engines: Engines, dev_config: Config, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = dataclasses.replace(
        dev_config,
        display=DisplayConfig(driver="ssd1306", i2c_port=7),
        button=ButtonConfig(pin=17),
        listen=ListenConfig(follow_up_s=0.0),
    )
    question = tmp_path / "q.wav"
    from daemon.box.rehearsal import speak_question

    speak_question(engines.tts, question, "How many days are in a week?")
    events: list[Event] = []
    box = Box(
        cfg,
        RunOptions(mic=str(question), speaker=str(tmp_path / "a.wav"), fast=True, subscribers=[events.append]),
        engines,
    )
    with caplog.at_level(logging.WARNING):
        box.run()
    box.close()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sum("running without a display" in w for w in warnings) == 1
    assert sum("running without the button" in w for w in warnings) == 1
    assert any(isinstance(e, BoxReady) for e in events)
    assert [type(e).__name__ for e in events].count("TurnEnded") == 1


def test_a_missing_microphone_is_shown_and_retried(engines: Engines, dev_config: Config, tmp_path: Path) -> None:
    cfg = dataclasses.replace(
        dev_config,
        display=DisplayConfig(driver="none"),
        button=ButtonConfig(enabled=False),
        audio=AudioConfig(input="alsa:no-such-microphone", retry_s=1.0),
    )
    faults: list[Fault] = []
    retried = threading.Event()

    def watch(event: Event) -> None:
        if isinstance(event, Fault):
            faults.append(event)
            if len(faults) >= 2:
                retried.set()

    with running_box(engines, cfg, tmp_path, None, watch):
        assert retried.wait(timeout=10), "the microphone was not retried"
    assert faults[0].code == "audio-input-unavailable" and not faults[0].permanent
    assert "no-such-microphone" in faults[0].message


def test_the_serial_link_answers_while_the_box_runs(engines: Engines, dev_config: Config, tmp_path: Path) -> None:
    import os
    import select
    import tty

    from daemon.config import SerialConfig

    master, slave = os.openpty()
    cfg = dataclasses.replace(
        dev_config,
        display=DisplayConfig(driver="none"),
        button=ButtonConfig(enabled=False),
        serial=SerialConfig(enabled=True, url=os.ttyname(slave)),
    )
    tty.setraw(slave)  # a serial line does not echo
    received = b""
    try:
        with running_box(engines, cfg, tmp_path, silence_wav(tmp_path, 6)):
            os.write(master, b"/status\r\nWhat is the capital of France?\r\n")
            while b"paris" not in received.lower() or not received.endswith(b"\n"):
                readable, _, _ = select.select([master], [], [], 15)
                assert readable, f"no reply on the serial link; got {received!r}"
                received += os.read(master, 4096)
    finally:
        os.close(master)
        os.close(slave)
    text = received.decode()
    assert "state=" in text and "profile=dev" in text and "Paris" in text


def test_status_and_ask_go_through_the_control_socket_while_the_box_runs(
    engines: Engines,
    dev_config: Config,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import tempfile

    from daemon.cli.main import main

    runtime = Path(tempfile.mkdtemp(dir="/tmp"))  # AF_UNIX paths must stay short
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(runtime))
    cfg = dataclasses.replace(dev_config, display=DisplayConfig(driver="none"), button=ButtonConfig(enabled=False))
    with running_box(engines, cfg, tmp_path, silence_wav(tmp_path, 8)):
        socket_file = runtime / "control.sock"
        assert socket_file.is_socket() and (socket_file.stat().st_mode & 0o777) == 0o660
        assert main(["status"]) == 0
        assert "state=idle" in (out := capsys.readouterr().out) and "saving=ok" in out
        assert main(["ask", "What is the largest ocean?"]) == 0
        assert "Pacific" in capsys.readouterr().out
        assert engines.memory.remembered()  # the running box's model answered and remembers
    assert not (runtime / "control.sock").exists()
    assert main(["status"]) == 3


def test_a_stop_as_the_box_becomes_ready_is_not_lost(engines: Engines, dev_config: Config, tmp_path: Path) -> None:
    cfg = dataclasses.replace(dev_config, display=DisplayConfig(driver="none"), button=ButtonConfig(enabled=False))
    holder: list[Box] = []

    def stop_at_ready(event: Event) -> None:
        if isinstance(event, BoxReady):  # as a slow subscriber would: the stop comes before the microphone is read
            holder[0].stop()

    options = RunOptions(
        mic=str(silence_wav(tmp_path, 60)), speaker=str(tmp_path / "a.wav"), control_socket=False,
        subscribers=[stop_at_ready],
    )  # fmt: skip
    box = Box(cfg, options, engines)
    holder.append(box)
    runner = threading.Thread(target=box.run, daemon=True)
    runner.start()
    runner.join(timeout=10)
    box.close()
    assert not runner.is_alive(), "the stop was lost: the box kept reading its microphone"


def test_a_stop_while_the_models_load_ends_the_run_before_they_are_loaded(dev_config: Config, tmp_path: Path) -> None:
    cfg = dataclasses.replace(dev_config, display=DisplayConfig(driver="none"), button=ButtonConfig(enabled=False))
    events: list[Event] = []
    holder: list[Box] = []

    def stop_at_the_first_step(event: Event) -> None:
        events.append(event)
        if len(events) == 1:
            holder[0].stop()

    options = RunOptions(mic=str(silence_wav(tmp_path, 60)), speaker=str(tmp_path / "a.wav"), control_socket=False,
                         subscribers=[stop_at_the_first_step])  # fmt: skip
    box = Box(cfg, options)
    holder.append(box)
    runner = threading.Thread(target=box.run, daemon=True)
    runner.start()
    runner.join(timeout=10)
    box.close()
    assert not runner.is_alive()
    assert not any(isinstance(e, BoxReady) for e in events) and box.engines is None
