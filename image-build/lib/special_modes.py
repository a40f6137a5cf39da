#!/usr/bin/env python3
"""Put back the setuid, setgid and sticky bits that `debugfs rdump` drops (it chowns after it chmods).

Usage: special_modes.py ROOT.ext4 ROOTFS_DIR  -> prints how many modes it restored.
Lists every directory of ROOTFS_DIR in the ext4 image with one debugfs run and re-applies the full mode of each
entry that has one of those bits. Extended attributes (file capabilities) are not carried over.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path


def image_modes(ext4: Path, root: Path) -> dict[str, tuple[int, int, int]]:
    """Path (relative to the root) -> (mode, uid, gid) in the ext4 image, for every entry below the directories
    of the unpacked tree, read with one debugfs run."""
    dirs = ["/"] + sorted("/" + str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir() and not p.is_symlink())
    with tempfile.NamedTemporaryFile("w", suffix=".cmd") as cmds:
        cmds.write("".join(f'ls -p "{d}"\n' for d in dirs))
        cmds.flush()
        out = subprocess.run(["debugfs", "-f", cmds.name, str(ext4)], capture_output=True, text=True, check=True)
    found: dict[str, tuple[int, int, int]] = {}
    current = "/"
    for line in out.stdout.splitlines():
        if line.startswith("debugfs: ls -p "):
            current = line.removeprefix("debugfs: ls -p ").strip('"')
            continue
        fields = line.split("/")  # /inode/mode/uid/gid/name/size/
        if len(fields) < 7 or not fields[2].isdigit() or fields[5] in (".", ".."):
            continue
        found[os.path.join(current, fields[5]).lstrip("/")] = (int(fields[2], 8), int(fields[3]), int(fields[4]))
    return found


def special_modes(ext4: Path, root: Path) -> dict[str, int]:
    """Path -> full mode, for every entry of the image with a setuid, setgid or sticky bit."""
    return {
        rel: mode
        for rel, (mode, _, _) in image_modes(ext4, root).items()
        if mode & 0o7000 and not stat.S_ISLNK(mode)
    }


def main() -> int:
    """Restore the bits on the unpacked tree."""
    ext4, root = Path(sys.argv[1]), Path(sys.argv[2])
    modes = special_modes(ext4, root)
    for rel, mode in modes.items():
        os.chmod(root / rel, stat.S_IMODE(mode), follow_symlinks=False)
    print(f"{len(modes)} setuid/setgid/sticky modes restored")
    return 0


if __name__ == "__main__":
    sys.exit(main())
