#!/usr/bin/env python3
"""Boot a built talkbox image under qemu-system-aarch64 (-M virt, the image's own kernel) and check it from inside."""

from __future__ import annotations

import argparse
import json
import lzma
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).resolve().parent
UNIT: Final = """[Unit]
Description=talkbox boot test (injected by image-build/boot_test.py)
# NOTE: not after talkbox.service (nor multi-user.target, which waits for it): a start that never reaches READY
# kept the check from starting at all until systemd gave up on it, 15 minutes later, and hid where it stood.
After=talkbox-firstboot.service systemd-user-sessions.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/talkbox-guest-check
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
"""
GROW_MB: Final = 512
"""The test card is this much bigger than the image, so first boot has something to grow into."""


def partitions(image: Path) -> list[dict[str, int]]:
    """start and size, in bytes, of each partition in the image's MBR."""
    table = json.loads(subprocess.run(["sfdisk", "-J", str(image)], capture_output=True, check=True).stdout)
    sector = table["partitiontable"].get("sectorsize", 512)
    return [{"start": p["start"] * sector, "size": p["size"] * sector} for p in table["partitiontable"]["partitions"]]


def _extract(image: Path, part: dict[str, int], dest: Path) -> None:
    with image.open("rb") as src, dest.open("wb") as out:
        src.seek(part["start"])
        left = part["size"]
        while left:
            block = src.read(min(left, 1 << 22))
            out.write(block)
            left -= len(block)


def _write_back(image: Path, part: dict[str, int], source: Path) -> None:
    with image.open("r+b") as dst, source.open("rb") as src:
        dst.seek(part["start"])
        shutil.copyfileobj(src, dst, 1 << 22)


def decompress(image: Path, dest: Path) -> None:
    """A writable raw copy of an .img or .img.xz."""
    opener = lzma.open if image.suffix == ".xz" else open
    with opener(image, "rb") as src, dest.open("wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 22)


def prepare(image: Path, work: Path, read_only: bool = False) -> tuple[Path, Path, Path]:
    """A writable test copy of the image with the check unit injected, and its kernel and initrd."""
    disk = work / "disk.img"
    decompress(image, disk)
    boot, root = partitions(disk)[:2]
    # The kernel and initrd the Pi would boot, read from the FAT partition with mtools (no mounts).
    fat = f"{disk}@@{boot['start']}"
    listing = subprocess.run(["mdir", "-b", "-i", fat, "::/"], capture_output=True, text=True, check=True).stdout
    names = [Path(line.strip()).name for line in listing.splitlines()]
    kernel = next(n for n in names if n.startswith("vmlinuz"))
    initrd = next(n for n in names if n.startswith("initrd.img"))
    for name in (kernel, initrd):
        subprocess.run(["mcopy", "-o", "-i", fat, f"::/{name}", str(work / name)], check=True)
    if read_only:  # what `build --read-only-root` (or a user, from any computer) puts on the boot partition
        (work / "read-only-root").write_bytes(b"")
        subprocess.run(["mcopy", "-o", "-i", fat, str(work / "read-only-root"), "::/read-only-root"], check=True)
    # The check script goes into a copy of the root partition with debugfs, again without mounting anything.
    rootfs = work / "root.ext4"
    _extract(disk, root, rootfs)
    (work / "check.sh").write_text((HERE / "guest-check.sh").read_text())
    (work / "check.sh").chmod(0o755)
    (work / "check.service").write_text(UNIT)
    (work / "check.service").chmod(0o644)
    commands = [
        f"write {work / 'check.sh'} /usr/local/sbin/talkbox-guest-check",
        f"write {work / 'check.service'} /etc/systemd/system/talkbox-guest-check.service",
        "symlink /etc/systemd/system/multi-user.target.wants/talkbox-guest-check.service "
        "/etc/systemd/system/talkbox-guest-check.service",
    ]
    (work / "debugfs.cmd").write_text("\n".join(commands) + "\n")
    subprocess.run(["debugfs", "-w", "-f", str(work / "debugfs.cmd"), str(rootfs)], check=True, capture_output=True)
    _write_back(disk, root, rootfs)
    rootfs.unlink()
    with disk.open("r+b") as f:
        f.truncate(disk.stat().st_size + GROW_MB * 1048576)
    return disk, work / kernel, work / initrd


def boot(
    disk: Path, kernel: Path, initrd: Path, cpu: str, kills: int, timeout_s: float, log: Path, memory_mb: int = 2048
) -> dict[str, str]:
    """Boot once with `memory_mb` of memory and collect the BOOTCHECK lines the guest prints."""
    append = (
        f"root=LABEL=talkbox-root rw rootwait console=ttyAMA0 modules-load=snd-aloop talkbox.kills={kills} "
        "systemd.show_status=no"
    )
    argv = [
        "qemu-system-aarch64", "-M", "virt", "-cpu", cpu, "-smp", "2", "-m", str(memory_mb),
        "-nographic", "-nic", "none",
        "-kernel", str(kernel), "-initrd", str(initrd), "-append", append,
        "-drive", f"if=none,file={disk},format=raw,id=card", "-device", "virtio-blk-pci,drive=card",
        "-device", "virtio-rng-pci",
    ]  # fmt: skip
    found: dict[str, str] = {}
    start = time.monotonic()
    # Line-buffered, so a long run can be followed with tail -f.
    with (
        log.open("w", buffering=1) as out,
        subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL) as qemu,
    ):
        assert qemu.stdout is not None
        for raw in qemu.stdout:
            line = raw.decode(errors="replace").rstrip()
            out.write(line + "\n")
            match = re.search(r"BOOTCHECK (\S+) ?(.*)", line)
            if match:
                key, value = match.groups()
                found[key] = f"{found[key]}\n{value}" if key in found else value  # kill and doctor-line repeat
                print(f"  [{time.monotonic() - start:6.0f}s] {key} {value}", flush=True)
            if time.monotonic() - start > timeout_s:
                qemu.kill()
                found["timeout"] = f"{timeout_s:.0f}s"
                break
    found["wall_s"] = f"{time.monotonic() - start:.0f}"
    return found


def main(argv: list[str] | None = None) -> int:
    """Boot the image once per CPU and print what the guest reported, as JSON too."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("image", type=Path, help="talkbox-*.img.xz or .img")
    parser.add_argument("--cpu", action="append", help="QEMU CPU model (default: cortex-a72 and cortex-a76)")
    parser.add_argument("--kills", type=int, default=3, help="kill -9 the daemon this many times (and hang it once)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per boot before giving up")
    parser.add_argument("--memory", type=int, default=2048, metavar="MB", help="the guest's memory (a Pi 4: 1-8 GB)")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument(
        "--read-only", action="store_true", help="ask for a read-only root and check it on a second boot"
    )
    args = parser.parse_args(argv)
    results: dict[str, dict[str, str]] = {}
    for cpu in args.cpu or ["cortex-a72", "cortex-a76"]:
        with tempfile.TemporaryDirectory(prefix="talkbox-boot-") as tmp:
            work = Path(tmp)
            print(f"== {cpu}: preparing a test card from {args.image.name}", flush=True)
            disk, kernel, initrd = prepare(args.image, work, args.read_only)
            print(f"== {cpu}: booting (kernel {kernel.name})", flush=True)
            log = Path(f"boot-{cpu}{'-ro' if args.read_only else ''}.log")
            results[cpu] = boot(disk, kernel, initrd, cpu, args.kills, args.timeout, log, args.memory)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if all("done" in r for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
