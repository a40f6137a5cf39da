"""First boot on a temp tree: each step does its job once, a failed step does not stop the others."""

from __future__ import annotations

import base64
import logging
import subprocess
import tomllib
from pathlib import Path

import pytest

from daemon.service import firstboot
from daemon.service.firstboot import MARKER, System
from daemon.ui.screens import Screen

TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJ0YWxrYm94In0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
CONFIG = '# talkbox settings\n[models]\nprofile = "pi4"\ndir = "/var/lib/talkbox/models"\n'
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ0bGn1ZrFmN1YwYqzJX9fK0Q0mXo9mY3n7t1z0wQx1 user@laptop"


class Recorder:
    """Runs nothing: answers like the real tools would for a card at /dev/mmcblk0p2."""

    def __init__(self, fail: str = "") -> None:
        self.calls: list[list[str]] = []
        self._fail = fail

    def __call__(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        self.calls.append(argv)
        out = {"findmnt": "/dev/mmcblk0p2\n", "lsblk": "mmcblk0\n", "growpart": "CHANGED: partition=2\n"}
        code = 1 if argv[0] == self._fail else 0
        return subprocess.CompletedProcess(argv, code, out.get(argv[0], ""), "boom" if code else "")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A root with just the files first boot reads."""
    for d in ("etc/ssh", "boot/firmware", "sys/class/block/mmcblk0p2", "root", "proc"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "etc/machine-id").write_text("0123456789abcdef0123456789abcdef\n")
    (tmp_path / "etc/hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\ttalkbox\n")
    (tmp_path / "etc/ssh/ssh_host_ed25519_key").write_text("a key every card shares\n")
    (tmp_path / "sys/class/block/mmcblk0p2/partition").write_text("2\n")
    (tmp_path / "proc/cpuinfo").write_text("processor\t: 0\nSerial\t\t: 10000000a1b2c3d4\n")
    return tmp_path


def test_first_boot_makes_the_box_unique_and_keeps_ssh_off(tree: Path) -> None:
    runner = Recorder()
    shown: list[Screen] = []
    assert firstboot.run(System(tree, runner), shown.append) == 0
    name = (tree / "etc/hostname").read_text().strip()
    assert name.startswith("talkbox-") and len(name) == len("talkbox-") + 4
    assert f"127.0.1.1\t{name}" in (tree / "etc/hosts").read_text()
    assert "127.0.0.1\tlocalhost" in (tree / "etc/hosts").read_text()
    assert oct((tree / "etc/hostname").stat().st_mode & 0o777) == "0o644"
    assert not (tree / "etc/ssh/ssh_host_ed25519_key").exists(), "the shared host key must go"
    assert ["ssh-keygen", "-A"] in runner.calls
    assert ["growpart", "/dev/mmcblk0", "2"] in runner.calls
    assert ["resize2fs", "/dev/mmcblk0p2"] in runner.calls
    assert ["systemctl", "disable", "--now", "ssh.service"] in runner.calls
    assert not (tree / "root/.ssh/authorized_keys").exists()
    assert (tree / str(MARKER).lstrip("/")).exists()
    assert [s.progress for s in shown] == [i / 6 for i in range(6)] + [1.0]
    assert not (tree / "etc/overlayroot.local.conf").exists(), "the root stays writable unless asked"
    assert not any("talkbox-homeassistant.service" in call for call in runner.calls), "the bridge stays off"


def test_a_key_on_the_boot_partition_turns_ssh_on_for_that_key_only(tree: Path) -> None:
    (tree / "boot/firmware/authorized_keys").write_text(f"# my laptop\n{KEY}\nnot a key at all\n")
    runner = Recorder()
    firstboot.run(System(tree, runner), lambda screen: None)
    keys = tree / "root/.ssh/authorized_keys"
    assert keys.read_text() == KEY + "\n"
    assert oct(keys.stat().st_mode & 0o777) == "0o600"
    assert ["systemctl", "enable", "ssh.service"] in runner.calls


def test_the_name_is_stable_for_one_board_and_differs_between_boards(tree: Path) -> None:
    system = System(tree, Recorder())
    first = firstboot.box_name(system)
    assert firstboot.box_name(system) == first
    (tree / "proc/cpuinfo").write_text("Serial\t\t: 10000000ffffffff\n")
    assert firstboot.box_name(system) != first


def test_first_boot_runs_once(tree: Path) -> None:
    firstboot.run(System(tree, Recorder()), lambda screen: None)
    again = Recorder()
    assert firstboot.run(System(tree, again), lambda screen: None) == 0
    assert again.calls == []


def test_a_failed_step_is_shown_and_the_others_still_run(tree: Path) -> None:
    runner = Recorder(fail="resize2fs")
    shown: list[Screen] = []
    assert firstboot.run(System(tree, runner), shown.append) == 1
    assert any(s.kind == "error" and "Growing storage" in s.text for s in shown)
    assert ["ssh-keygen", "-A"] in runner.calls
    assert (tree / "etc/hostname").exists()
    assert "failed steps: 1" in (tree / str(MARKER).lstrip("/")).read_text()


def test_a_read_only_root_is_turned_on_when_the_boot_partition_asks(tree: Path) -> None:
    (tree / "boot/firmware/read-only-root").write_text("")
    (tree / "usr/sbin").mkdir(parents=True)
    (tree / "usr/sbin/overlayroot-chroot").write_text("#!/bin/sh\n")
    assert firstboot.run(System(tree, Recorder()), lambda screen: None) == 0
    conf = (tree / "etc/overlayroot.local.conf").read_text()
    assert 'overlayroot="tmpfs:recurse=0"' in conf.splitlines()
    assert (tree / "etc/hostname").exists(), "the writable first boot still keeps its name and keys"


def test_a_read_only_root_without_overlayroot_is_a_failed_step_not_a_silent_one(tree: Path) -> None:
    (tree / "boot/firmware/read-only-root").write_text("")
    shown: list[Screen] = []
    assert firstboot.run(System(tree, Recorder()), shown.append) == 1
    assert any(s.kind == "error" and "Protecting the card" in s.text for s in shown)
    assert not (tree / "etc/overlayroot.local.conf").exists()


def home_assistant(tree: Path, text: str, runner: Recorder, caplog: pytest.LogCaptureFixture) -> int:
    """Run first boot with `text` as the boot partition's homeassistant.toml and the image's talkbox.toml."""
    (tree / "etc/talkbox").mkdir(parents=True, exist_ok=True)
    if not (tree / "etc/talkbox/talkbox.toml").exists():
        (tree / "etc/talkbox/talkbox.toml").write_text(CONFIG)
    (tree / "etc/talkbox/talkbox.toml").chmod(0o644)
    (tree / "boot/firmware/homeassistant.toml").write_text(text)
    with caplog.at_level(logging.INFO, logger="daemon.service.firstboot"):
        return firstboot.run(System(tree, runner), lambda screen: None)


def test_home_assistant_stays_off_without_a_file(tree: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="daemon.service.firstboot"):
        firstboot.run(System(tree, Recorder()), lambda screen: None)
    assert "Home Assistant off (no homeassistant.toml on the boot partition)" in caplog.text
    assert not (tree / "etc/talkbox/homeassistant.token").exists()


def test_a_home_assistant_file_turns_the_bridge_on_and_is_deleted(tree: Path, caplog: pytest.LogCaptureFixture) -> None:
    runner = Recorder()
    text = f'url = "http://192.168.1.20:8123"\ntoken = "{TOKEN}"\n'
    assert home_assistant(tree, text, runner, caplog) == 0
    token = tree / "etc/talkbox/homeassistant.token"
    assert token.read_text() == TOKEN + "\n"
    assert oct(token.stat().st_mode & 0o777) == "0o640"
    assert ["chown", "root:talkbox-ha", str(token)] in runner.calls
    config = (tree / "etc/talkbox/talkbox.toml").read_text()
    assert config.startswith(CONFIG), "the rest of the settings stay as they were"
    assert config.endswith('\n[homeassistant]\nurl = "http://192.168.1.20:8123"\n')
    assert oct((tree / "etc/talkbox/talkbox.toml").stat().st_mode & 0o777) == "0o644"
    assert runner.calls.index(["systemctl", "enable", "talkbox-homeassistant.service"]) > runner.calls.index(
        ["chown", "root:talkbox-ha", str(token)]
    )
    assert ["systemctl", "start", "--no-block", "talkbox-homeassistant.service"] in runner.calls
    assert not (tree / "boot/firmware/homeassistant.toml").exists(), "a token must not stay on the FAT partition"
    assert "Home Assistant bridge on for http://192.168.1.20:8123" in caplog.text
    assert TOKEN not in caplog.text


def test_an_existing_home_assistant_section_keeps_its_other_settings(
    tree: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tree / "etc/talkbox").mkdir(parents=True)
    (tree / "etc/talkbox/talkbox.toml").write_text(
        CONFIG + '[homeassistant]  # mine\nlanguage = "de"\nurl = "http://old:8123"\n\n[display]\ndriver = "none"\n'
    )
    text = f'url = "https://ha.example.lan:8123/"\ntoken = " {TOKEN}\\n"\n'  # padding, as copied from a browser
    assert home_assistant(tree, text, Recorder(), caplog) == 0
    assert (tree / "etc/talkbox/talkbox.toml").read_text() == CONFIG + (
        '[homeassistant]  # mine\nlanguage = "de"\nurl = "https://ha.example.lan:8123/"\n\n[display]\ndriver = "none"\n'
    )
    assert (tree / "etc/talkbox/homeassistant.token").read_text() == TOKEN + "\n"


def test_a_satellite_key_turns_the_voice_satellite_on_with_it(tree: Path, caplog: pytest.LogCaptureFixture) -> None:
    runner = Recorder()
    key = base64.b64encode(bytes(range(32))).decode()
    text = f'url = "http://192.168.1.20:8123"\ntoken = "{TOKEN}"\nsatellite_key = "{key}"\n'
    assert home_assistant(tree, text, runner, caplog) == 0
    key_file = tree / "etc/talkbox/homeassistant.key"
    assert key_file.read_text() == key + "\n" and oct(key_file.stat().st_mode & 0o777) == "0o640"
    assert ["chown", "root:talkbox-ha", str(key_file)] in runner.calls
    config = tomllib.loads((tree / "etc/talkbox/talkbox.toml").read_text())
    assert config["homeassistant"] == {"url": "http://192.168.1.20:8123", "satellite": True}
    assert "Home Assistant bridge and its voice satellite on for http://192.168.1.20:8123" in caplog.text
    assert key not in caplog.text and not (tree / "boot/firmware/homeassistant.toml").exists()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (f'url = "http://192.168.1.20:8123"\ntoken = "{TOKEN}"\nsatellite_key = "c2hvcnQ="\n', "satellite_key must be"),
        (f'url = "ftp://192.168.1.20"\ntoken = "{TOKEN}"\n', "url must be"),
        (f'url = "http://192.168.1.20:8123/lovelace"\ntoken = "{TOKEN}"\n', "url must be"),
        (f'url = "http://:8123"\ntoken = "{TOKEN}"\n', "url must be"),
        (f'token = "{TOKEN}"\n', "url must be"),
        ('url = "http://192.168.1.20:8123"\n', "token must be"),
        ('url = "http://192.168.1.20:8123"\ntoken = "short"\n', "token must be"),
        (f'url = "http://192.168.1.20:8123"\ntoken = "{TOKEN} {TOKEN}"\n', "token must be"),
        (f'url = "http://192.168.1.20:8123"\ntoken = """{TOKEN}\n{TOKEN}"""\n', "token must be"),
        (f'url = "http://192.168.1.20:8123"\ntokn = "{TOKEN}"\n', "unknown key(s) tokn"),
        (f"http://192.168.1.20:8123\n{TOKEN}\n", "not TOML"),
    ],
)
def test_a_bad_home_assistant_file_is_reported_and_left_alone(
    tree: Path, caplog: pytest.LogCaptureFixture, text: str, why: str
) -> None:
    runner = Recorder()
    assert home_assistant(tree, text, runner, caplog) == 0, "the user's mistake is not a failed first boot"
    assert (tree / "boot/firmware/homeassistant.toml").read_text() == text
    assert not (tree / "etc/talkbox/homeassistant.token").exists()
    assert (tree / "etc/talkbox/talkbox.toml").read_text() == CONFIG
    assert not any("talkbox-homeassistant.service" in call for call in runner.calls)
    assert "homeassistant.toml on the boot partition is not valid" in caplog.text and why in caplog.text
    assert TOKEN not in caplog.text


def test_a_broken_talkbox_toml_fails_the_step_before_anything_is_written(
    tree: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tree / "etc/talkbox").mkdir(parents=True)
    (tree / "etc/talkbox/talkbox.toml").write_text("[models\n")
    runner = Recorder()
    text = f'url = "http://192.168.1.20:8123"\ntoken = "{TOKEN}"\n'
    assert home_assistant(tree, text, runner, caplog) == 1
    assert "Connecting Home Assistant failed" in caplog.text
    assert not (tree / "etc/talkbox/homeassistant.token").exists()
    assert (tree / "boot/firmware/homeassistant.toml").exists()
    assert not any("talkbox-homeassistant.service" in call for call in runner.calls)
