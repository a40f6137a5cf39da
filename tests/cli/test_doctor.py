"""`talkbox doctor` reports every part, one line each, and fails when a required part is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from daemon.cli.main import main


def test_doctor_reports_each_part_with_a_fix(
    tmp_path: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "talkbox.toml"
    cfg.write_text(
        f'[models]\ndir = "{models_dir}"\n[display]\ndriver = "dummy"\n[button]\npin_factory = "mock"\n'
        '[serial]\nenabled = true\nurl = "loop://"\n[audio]\ninput = "alsa:no-such-microphone"\n'
        f'[state]\ndir = "{tmp_path / "state"}"\n'  # the doctor writes a probe there: not the machine's own box's
    )
    status = main(["--config", str(cfg), "doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)}
    assert {
        "llm model",
        "stt model",
        "tts model",
        "wake model",
        "audio in",
        "audio out",
        "display",
        "button",
        "serial",
        "cpu",
        "disk",
        "memory",
    } <= set(checks)
    for role in ("llm", "stt", "tts", "wake"):
        assert checks[f"{role} model"]["ok"], checks[f"{role} model"]
    assert "encyclopedia" not in checks  # read only when llm.encyclopedia is on
    assert checks["display"]["ok"] and checks["button"]["ok"] and checks["serial"]["ok"]
    assert not checks["audio in"]["ok"] and "talkbox devices" in checks["audio in"]["fix"]
    assert status == 1  # a box without a microphone is not a working box


def test_doctor_verifies_the_encyclopedia_when_the_box_reads_one(models_dir: Path) -> None:
    from daemon.cli.doctor import _encyclopedia
    from daemon.config import Config, LlmConfig, ModelsConfig

    check = _encyclopedia(Config(models=ModelsConfig(dir=str(models_dir)), llm=LlmConfig(encyclopedia=True)))
    assert check.ok and check.detail.startswith("wiki-vital-summaries-en verified in")


def test_doctor_text_report_marks_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "talkbox.toml"
    cfg.write_text(
        '[display]\ndriver = "none"\n[button]\nenabled = false\n[audio]\ninput = "alsa:nothing"\n'
        f'[state]\ndir = "{tmp_path / "state"}"\n'
    )
    main(["--config", str(cfg), "doctor"])
    out = capsys.readouterr().out
    assert "✔ llm model" in out and "✘ audio in" in out and "fix:" in out


def test_doctor_says_when_the_root_keeps_writes_in_ram(tmp_path: Path) -> None:
    from daemon.cli.doctor import _root

    mounts = tmp_path / "mounts"
    mounts.write_text("proc /proc proc rw 0 0\noverlayroot / overlay rw,lowerdir=/media/root-ro 0 0\n")
    assert "lost at power-off" in _root(mounts).detail
    mounts.write_text("/dev/mmcblk0p2 / ext4 rw,noatime 0 0\n")
    assert _root(mounts).detail == "writable ext4"


def test_the_memory_check_judges_the_boards_memory_not_what_the_running_box_left_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from daemon.cli.doctor import _resources
    from daemon.config.file import parse

    cfg = parse(f'[state]\ndir = "{tmp_path / "state"}"\n')
    real = os.sysconf
    gb = 1_000_000_000 // real("SC_PAGE_SIZE")
    pages = {"SC_PHYS_PAGES": 4 * gb, "SC_AVPHYS_PAGES": gb // 4}  # a 4 GB board, its box running: 0.25 GB free
    monkeypatch.setattr(os, "sysconf", lambda name: pages.get(name) or real(name))
    memory = next(c for c in _resources(cfg) if c.name == "memory")
    assert memory.ok and memory.detail.startswith("4.0 GB of memory"), memory.detail
    pages["SC_PHYS_PAGES"] = gb  # a 1 GB board cannot hold the 1.5B brain
    assert not next(c for c in _resources(cfg) if c.name == "memory").ok
