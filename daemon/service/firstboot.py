"""First boot of a flashed card: grow the root file system, make the box unique, allow SSH only with a key, and turn
on the Home Assistant bridge when asked."""

from __future__ import annotations

import argparse
import binascii
import hashlib
import logging
import os
import re
import socket
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from daemon import config as config_mod
from daemon.durable import durable
from daemon.service.statefile import atomic_write
from daemon.ui.screens import Kind, Screen, render

log = logging.getLogger("daemon.service.firstboot")
MARKER: Final = Path("/var/lib/talkbox-firstboot/done")
BOOT_DIR: Final = Path("/boot/firmware")
KEY_FILES: Final = ("authorized_keys", "ssh.pub")
"""Files a user may drop on the boot partition (from any computer) to turn SSH on."""
KEY_PREFIXES: Final = ("ssh-ed25519 ", "ssh-rsa ", "ecdsa-sha2-", "sk-ssh-ed25519@", "sk-ecdsa-sha2-")
READ_ONLY_FILE: Final = "read-only-root"
"""A file on the boot partition (put there by `image-build/build --read-only-root` or by hand) asking for a
read-only root with a RAM overlay."""
OVERLAYROOT_CONF: Final = Path("/etc/overlayroot.local.conf")
"""overlayroot's own override file: read by its initramfs script at every boot, and kept by package upgrades."""
HA_FILE: Final = "homeassistant.toml"
"""A file on the boot partition (`url = "http://..."`, `token = "..."`) asking for the Home Assistant bridge."""
HA_TOKEN_FILE: Final = Path("/etc/talkbox/homeassistant.token")
HA_KEY_FILE: Final = Path("/etc/talkbox/homeassistant.key")
"""[homeassistant] encryption_key_file's default: the voice satellite's ESPHome encryption key."""
SATELLITE_KEY_BYTES: Final = 32
"""[homeassistant] token_file's default, and the bridge unit's ConditionPathExists."""
HA_GROUP: Final = "talkbox-ha"
HA_UNIT: Final = "talkbox-homeassistant.service"
CONFIG_FILE: Final = Path("/etc/talkbox/talkbox.toml")
_HOME_URL: Final = re.compile(r"https?://[A-Za-z0-9._\-\[\]:]+/?")
"""http(s), a host, maybe a port: no path, user or quote (the url is written into a TOML string as it is)."""
_TOKEN: Final = re.compile(r"[\x21-\x7e]{16,1024}")
"""One line, no spaces; Home Assistant's long-lived tokens are JWTs of about 180 characters."""


@dataclass(frozen=True)
class System:
    """Where first boot acts; tests point it at a temp tree and a recording runner."""

    root: Path = Path("/")
    run: Callable[[list[str]], subprocess.CompletedProcess[str]] = lambda argv: subprocess.run(
        argv, capture_output=True, text=True, check=False
    )

    def path(self, absolute: str | Path) -> Path:
        """`absolute` inside this system's root."""
        return self.root / str(absolute).lstrip("/")


def box_name(system: System) -> str:
    """talkbox-XXXX from the board's serial number, else from the machine id: stable across reboots."""
    serial = ""
    cpuinfo = system.path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.lower().startswith("serial"):
                serial = line.split(":", 1)[-1].strip().lstrip("0")
    source = serial or system.path("/etc/machine-id").read_text(errors="replace").strip() or os.urandom(8).hex()
    return "talkbox-" + hashlib.sha256(source.encode()).hexdigest()[:4]


def grow_root(system: System) -> str:
    """Grow the root partition and its ext4 file system to the end of the card."""
    source = system.run(["findmnt", "-no", "SOURCE", "/"]).stdout.strip()
    part = Path(source).name
    disk = system.run(["lsblk", "-no", "PKNAME", source]).stdout.strip()
    number_file = system.path(f"/sys/class/block/{part}/partition")
    if not disk or not number_file.exists():
        return f"root {source or '?'} is not a partition; left as it is"
    grown = system.run(["growpart", f"/dev/{disk}", number_file.read_text().strip()])
    # growpart exits 1 with NOCHANGE when the partition already fills the card: not an error.
    if grown.returncode not in (0, 1) or (grown.returncode == 1 and "NOCHANGE" not in grown.stdout):
        raise RuntimeError(f"growpart failed: {grown.stderr.strip() or grown.stdout.strip()}")
    resized = system.run(["resize2fs", source])
    if resized.returncode != 0:
        raise RuntimeError(f"resize2fs failed: {resized.stderr.strip()}")
    return f"{source} fills the card"


def host_keys(system: System) -> str:
    """Fresh SSH host keys: a flashed card must never share keys with other boxes."""
    for old in system.path("/etc/ssh").glob("ssh_host_*"):
        old.unlink()
    made = system.run(["ssh-keygen", "-A"])
    if made.returncode != 0:
        raise RuntimeError(f"ssh-keygen failed: {made.stderr.strip()}")
    return "new SSH host keys"


def set_name(system: System) -> str:
    """Give the box its own host name, so several boxes on one network can be told apart."""
    name = box_name(system)
    atomic_write(system.path("/etc/hostname"), f"{name}\n".encode(), mode=0o644)
    hosts = system.path("/etc/hosts")
    lines = [ln for ln in hosts.read_text().splitlines() if not ln.startswith("127.0.1.1")] if hosts.exists() else []
    atomic_write(hosts, ("\n".join([*lines, f"127.0.1.1\t{name}"]) + "\n").encode(), mode=0o644)
    if system.root == Path("/"):
        socket.sethostname(name)
    return name


def ssh_access(system: System) -> str:
    """SSH stays off unless the user put a public key on the boot partition; there is no password to guess."""
    keys: list[str] = []
    for name in KEY_FILES:
        path = system.path(BOOT_DIR / name)
        if path.exists():
            lines = path.read_text(errors="replace").splitlines()
            keys += [ln.strip() for ln in lines if ln.strip().startswith(KEY_PREFIXES)]
    if not keys:
        system.run(["systemctl", "disable", "--now", "ssh.service"])
        return "SSH off (no key on the boot partition)"
    ssh_dir = system.path("/root/.ssh")
    ssh_dir.mkdir(mode=0o700, exist_ok=True)
    atomic_write(ssh_dir / "authorized_keys", ("\n".join(keys) + "\n").encode())  # 0600: sshd insists
    system.run(["systemctl", "enable", "ssh.service"])
    system.run(["systemctl", "start", "--no-block", "ssh.service"])
    return f"SSH on for {len(keys)} key(s), root login by key only"


def protect_card(system: System) -> str:
    """Turn on the read-only root (RAM overlay, from the next boot) when the boot partition asks for it."""
    if not system.path(BOOT_DIR / READ_ONLY_FILE).exists():
        return f"root stays writable (no {READ_ONLY_FILE} file on the boot partition)"
    if not system.path("/usr/sbin/overlayroot-chroot").exists():
        raise RuntimeError("a read-only root was asked for, but this image has no overlayroot")
    # NOTE: this boot stays writable: the steps above must persist (host keys, name, grown partition). From the
    # next boot every write lands in RAM and a power cut cannot damage the card. recurse=0 leaves the FAT boot
    # partition as it is, so a user can still edit it from any computer.
    atomic_write(
        system.path(OVERLAYROOT_CONF),
        b"# Written by talkbox-firstboot: the root is read-only and writes go to RAM.\n"
        b"# To change the card: sudo overlayroot-chroot, or add overlayroot=disabled to cmdline.txt.\n"
        b'overlayroot="tmpfs:recurse=0"\n',
        mode=0o644,
    )
    return "read-only root with a RAM overlay from the next boot"


def home_assistant_settings(text: str) -> tuple[str, str, str]:
    """The url, token and satellite key ("" for none) of a homeassistant.toml; ValueError says what is wrong,
    never quoting the token or the key."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"not TOML ({err})") from err
    if unknown := sorted(set(doc) - {"url", "token", "satellite_key"}):
        raise ValueError(f"unknown key(s) {', '.join(unknown)}: it holds url, token and satellite_key only")
    url, token, key = doc.get("url"), doc.get("token"), doc.get("satellite_key", "")
    if not isinstance(url, str) or not _is_home_url(url):
        raise ValueError('url must be http:// or https:// and a host, like "http://192.168.1.20:8123"')
    if not isinstance(token, str) or not _TOKEN.fullmatch(token.strip()):
        raise ValueError("token must be one line of 16 to 1024 characters without spaces (a long-lived access token)")
    if not isinstance(key, str) or (key.strip() and not _is_satellite_key(key.strip())):
        raise ValueError("satellite_key must be an ESPHome encryption key: base64 of 32 bytes")
    return url, token.strip(), key.strip()


def _is_satellite_key(text: str) -> bool:
    try:
        return len(binascii.a2b_base64(text, strict_mode=True)) == SATELLITE_KEY_BYTES
    except binascii.Error:
        return False


def _is_home_url(url: str) -> bool:
    """http(s)://host[:port][/], the form [homeassistant] url takes."""
    if _HOME_URL.fullmatch(url) is None:
        return False
    try:
        parts = urlsplit(url)
        return bool(parts.hostname) and parts.port != 0  # .port raises for a port that is not 0-65535
    except ValueError:
        return False


def with_home_assistant_url(text: str, url: str, satellite: bool = False) -> str:
    """`text` (a talkbox.toml) with [homeassistant] url = `url` (and satellite = true), every other line as it was.

    Raises tomllib.TOMLDecodeError when `text` is not TOML, RuntimeError when the edit would not give that url.
    """
    tomllib.loads(text)  # a broken file is reported, not edited by guesswork
    lines = text.splitlines()
    settings = {"url": f'"{url}"'} | ({"satellite": "true"} if satellite else {})
    header = next((i for i, ln in enumerate(lines) if re.fullmatch(r"\s*\[\s*homeassistant\s*\]\s*(#.*)?", ln)), None)
    if header is None:
        lines += [*([""] if lines and lines[-1].strip() else []), "[homeassistant]"]
        header = len(lines) - 1
    for key, value in settings.items():
        end = next((i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        old = next((i for i in range(header + 1, end) if re.match(rf"\s*{key}\s*=", lines[i])), None)
        if old is None:
            lines.insert(end if end == len(lines) else header + 1, f"{key} = {value}")
        else:
            lines[old] = f"{key} = {value}"
    edited = "\n".join(lines) + "\n"
    # NOTE: a section written some other way (dotted keys, an inline table, a multi-line value) fails here.
    try:
        section = tomllib.loads(edited).get("homeassistant", {})
        done = section.get("url") == url and (not satellite or section.get("satellite") is True)
    except tomllib.TOMLDecodeError:
        done = False
    if not done:
        raise RuntimeError(f"could not set [homeassistant] url in {CONFIG_FILE}; set it by hand")
    return edited


def _must(system: System, argv: list[str]) -> None:
    """Run `argv`; RuntimeError with its message if it fails."""
    done = system.run(argv)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:2])} failed: {done.stderr.strip() or done.stdout.strip()}")


def _erase(path: Path) -> None:
    """Overwrite a file, then delete it: a deleted file's clusters on FAT stay readable until reused."""
    size = path.stat().st_size
    with path.open("r+b") as f:
        f.write(b"\0" * size)
        f.flush()
        os.fsync(f.fileno())
    path.unlink()
    durable(path.parent)


def home_assistant(system: System) -> str:
    """Turn the Home Assistant bridge on when the boot partition holds homeassistant.toml, then delete the file."""
    source = system.path(BOOT_DIR / HA_FILE)
    if not source.exists():
        return f"Home Assistant off (no {HA_FILE} on the boot partition)"
    try:
        url, token, key = home_assistant_settings(source.read_text(errors="replace"))
    except ValueError as err:
        return f"Home Assistant off: {HA_FILE} on the boot partition is not valid and was left there: {err}"
    config_file = system.path(CONFIG_FILE)
    try:
        config_text = with_home_assistant_url(config_file.read_text() if config_file.exists() else "", url, bool(key))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise RuntimeError(f"{CONFIG_FILE} is not TOML ({err}); Home Assistant left off") from err
    token_file = system.path(HA_TOKEN_FILE)
    token_file.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(token_file, f"{token}\n".encode(), mode=0o640)  # root:root until the chown: never too open
    _must(system, ["chown", f"root:{HA_GROUP}", str(token_file)])
    if key:  # the satellite's encryption key, the one Home Assistant is given when it adds the box
        key_file = system.path(HA_KEY_FILE)
        atomic_write(key_file, f"{key}\n".encode(), mode=0o640)
        _must(system, ["chown", f"root:{HA_GROUP}", str(key_file)])
    mode = config_file.stat().st_mode & 0o777 if config_file.exists() else 0o644  # the daemon's user reads it
    atomic_write(config_file, config_text.encode(), mode=mode)
    _must(system, ["systemctl", "enable", HA_UNIT])
    # --no-block: the bridge starts after talkbox.service, which waits for first boot to finish.
    system.run(["systemctl", "start", "--no-block", HA_UNIT])
    _erase(source)  # the token now lives only in /etc, readable by root and the bridge
    satellite = " and its voice satellite" if key else ""
    return f"Home Assistant bridge{satellite} on for {url}; {HA_FILE} deleted from the boot partition"


STEPS: Final[tuple[tuple[str, Callable[[System], str]], ...]] = (
    ("Growing storage", grow_root),
    ("Making host keys", host_keys),
    ("Naming the box", set_name),
    ("Checking SSH", ssh_access),
    ("Connecting Home Assistant", home_assistant),
    ("Protecting the card", protect_card),
)


def _oled() -> Callable[[Screen], None]:
    """A function that shows a screen on the OLED, or does nothing if there is none."""
    try:
        from daemon.ui.display import oled_for

        cfg = config_mod.load()
        oled = oled_for(cfg.display)
        width, height = cfg.display.width, cfg.display.height
    except Exception as err:  # first boot must finish without a display, whatever is wrong with it
        log.warning("no OLED for first boot progress: %s", err)
        return lambda screen: None

    def show(screen: Screen) -> None:
        oled.show(render(screen, width, height))  # a failed frame is retried by the next step's frame

    return show


def run(system: System, show: Callable[[Screen], None]) -> int:
    """Run every step once; a failed step is logged and shown, and the others still run."""
    marker = system.path(MARKER)
    if marker.exists():
        log.info("first boot already done (%s)", MARKER)
        return 0
    failed = 0
    for i, (label, step) in enumerate(STEPS):
        show(Screen(Kind.BOOT, title="First boot", text=label, progress=i / len(STEPS)))
        try:
            log.info("%s: %s", label, step(system))
        except (OSError, RuntimeError) as err:
            failed += 1
            log.error("%s failed: %s", label, err)
            show(Screen(Kind.ERROR, title="First boot", text=f"{label} failed", detail=str(err)))
    show(Screen(Kind.BOOT, title="First boot", text="Done", progress=1.0))
    marker.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(marker, f"failed steps: {failed}\n".encode())
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """`talkbox-firstboot`: run by talkbox-firstboot.service once, before the box starts."""
    parser = argparse.ArgumentParser(prog="talkbox-firstboot", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("/"), help="act on this tree instead of / (tests)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="talkbox-firstboot: %(message)s", stream=sys.stdout)
    system = System(root=args.root)
    return run(system, _oled() if args.root == Path("/") else lambda screen: None)


if __name__ == "__main__":
    sys.exit(main())
