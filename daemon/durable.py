"""Files that survive a power cut: an SD card may lose power at any moment, so what was written is synced."""

from __future__ import annotations

import os
from pathlib import Path


def durable(path: Path) -> None:
    """fsync a file (its data is on the card) or a folder (a rename in it survives a power cut)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
