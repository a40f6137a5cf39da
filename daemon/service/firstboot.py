"""First boot of a flashed card: grow the root file system, make the box unique, and allow SSH only with a key."""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from daemon import config as config_mod
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


STEPS: Final[tuple[tuple[str, Callable[[System], str]], ...]] = (
    ("Growing storage", grow_root),
    ("Making host keys", host_keys),
    ("Naming the box", set_name),
    ("Checking SSH", ssh_access),
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
