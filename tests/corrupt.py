"""Ways a model file goes bad on an SD card, applied to a copy of a real model."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path


def truncated(src: Path, dst: Path) -> None:
    """An interrupted copy: the first half."""
    with src.open("rb") as fin, dst.open("wb") as fout:
        fout.write(fin.read(src.stat().st_size // 2))


def bit_flipped(src: Path, dst: Path) -> None:
    """One bit flipped in the middle of the weights: same size, sane header."""
    shutil.copyfile(src, dst)
    with dst.open("r+b") as fh:
        fh.seek(src.stat().st_size * 3 // 4)
        byte = fh.read(1)[0]
        fh.seek(-1, 1)
        fh.write(bytes([byte ^ 0x10]))


def zero_length(src: Path, dst: Path) -> None:
    """An empty file (a failed write, a full disk)."""
    dst.write_bytes(b"")


def wrong_magic(src: Path, dst: Path) -> None:
    """Something else saved under the model's name, of the same size."""
    shutil.copyfile(src, dst)
    with dst.open("r+b") as fh:
        fh.write(b"PK\x03\x04")


CORRUPTIONS: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "truncated": (truncated, "truncated"),
    "bit-flipped": (bit_flipped, "sha256 mismatch"),
    "zero-length": (zero_length, "empty"),
    "wrong-magic": (wrong_magic, "not a GGUF file"),
}
