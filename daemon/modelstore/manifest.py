"""The model manifest: which models exist, where their files are, and proof they are intact."""

from __future__ import annotations

import hashlib
import logging
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from daemon.errors import ConfigError, ModelError
from daemon.knowledge.corpus import index_for
from daemon.modelstore import gguf
from daemon.modelstore.parts import ModelPart, assemble, package_dir

_LOGGER = logging.getLogger(__name__)

ROLES: Final = ("llm", "stt", "tts", "wake", "vad")
KNOWLEDGE: Final = "knowledge"
"""The role of an encyclopedia the language model reads from: no engine, optional in a profile."""
MEANING: Final = "meaning"
"""The role of the sentence embedding model that reads requests by meaning: optional in a profile."""
LOCAL_PIN_NAME: Final = ".talkbox-tree.sha256"
"""Written by fetch into a directory it extracted from a verified archive; not part of the tree."""
USER_PIN_SUFFIX: Final = ".sha256"
"""A file's sha256 pinned by the user at fetch time (`--pin`), kept beside it."""
_HASH_CHUNK_BYTES: Final = 1 << 20
_ROLE_WORD: Final = {
    "llm": "model",
    "stt": "model",
    "tts": "voice",
    "wake": "model",
    "vad": "model",
    KNOWLEDGE: "corpus",
    MEANING: "model",
}


@dataclass(frozen=True)
class ModelFile:
    """One pinned file (or directory) of a model; an archive has a URL and no path."""

    path: str = ""
    sha256: str = ""
    md5: str = ""
    size: int = 0
    url: str = ""
    dir: bool = False


@dataclass(frozen=True)
class ModelEntry:
    """One model as the manifest lists it."""

    name: str
    role: str
    licence: str
    source: str
    files: tuple[ModelFile, ...]
    package: str = ""
    engine: str = ""
    archive: ModelFile | None = None
    parts: tuple[ModelPart, ...] = ()
    """Pieces in installed packages that, concatenated in order, make each file in `files` (see `ModelPart.into`)."""

    @property
    def fetchable(self) -> bool:
        """True when the files come from the network rather than installed packages."""
        return not self.package and not self.parts


@dataclass(frozen=True)
class Manifest:
    """Every model and the per-board profiles."""

    models: dict[str, ModelEntry]
    profiles: dict[str, dict[str, str]]
    path: Path

    def profile(self, name: str) -> dict[str, str]:
        """The role -> model mapping of a profile."""
        if name not in self.profiles:
            raise ConfigError(
                "config-invalid",
                f"models.profile = {name!r} is not allowed: one of {', '.join(sorted(self.profiles))}",
            )
        return self.profiles[name]

    def get(self, name: str) -> ModelEntry:
        """The entry called `name`, or a ModelError listing the known ones."""
        if name not in self.models:
            raise ModelError(
                "model-unknown", f"no model called {name!r} in {self.path}; known: {', '.join(sorted(self.models))}"
            )
        return self.models[name]


def default_manifest_path() -> Path:
    """The manifest next to the source tree, or the copy installed under <prefix>/share/talkbox."""
    candidates = [
        Path(__file__).resolve().parents[2] / "models" / "manifest.toml",
        Path(sys.prefix) / "share" / "talkbox" / "manifest.toml",
    ]
    return next((p for p in candidates if p.is_file()), candidates[0])


def _file(raw: dict[str, Any]) -> ModelFile:
    return ModelFile(**raw)


def parts_of(entry: ModelEntry, f: ModelFile) -> tuple[ModelPart, ...]:
    """The parts that, concatenated in order, make the model's file `f`."""
    return tuple(p for p in entry.parts if (p.into or entry.files[0].path) == f.path)


def _check_parts(entry: ModelEntry) -> None:
    """A model assembled from parts has pinned files, each made of pinned parts whose sizes add up to it."""
    if entry.package or entry.archive or any(f.dir or f.url for f in entry.files):
        raise ValueError(f"model {entry.name}: a model made of parts has only plain files, and no package or url")
    paths = {f.path for f in entry.files}
    for part in entry.parts:
        if not (part.package and part.path and part.requirement and len(part.sha256) == 64 and part.size > 0):
            raise ValueError(f"model {entry.name}: part {part.path!r} needs package, path, size, sha256, requirement")
        if (part.into or len(entry.files) > 1) and part.into not in paths:
            raise ValueError(f"model {entry.name}: part {part.path!r} goes into {part.into!r}, not one of its files")
    for whole in entry.files:
        if not (len(whole.sha256) == 64 and whole.size > 0):
            raise ValueError(f"model {entry.name}: {whole.path}, assembled from parts, needs its sha256 and size")
        if (total := sum(p.size for p in parts_of(entry, whole))) != whole.size:
            raise ValueError(f"model {entry.name}: the parts of {whole.path} add up to {total} bytes, not {whole.size}")


def load_manifest(path: Path | None = None) -> Manifest:
    """Read and check manifest.toml."""
    path = path or default_manifest_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        models = {}
        for name, raw in data.get("models", {}).items():
            raw = dict(raw)
            files = tuple(_file(f) for f in raw.pop("files"))
            if not files or not all(f.path for f in files):
                raise ValueError(f"model {name}: every entry of files needs a path")
            archive = _file(raw.pop("archive")) if "archive" in raw else None
            parts = tuple(ModelPart(**p) for p in raw.pop("parts", ()))
            entry = ModelEntry(name=name, files=files, archive=archive, parts=parts, **raw)
            if entry.role not in (*ROLES, KNOWLEDGE, MEANING):
                raise ValueError(f"model {name}: role {entry.role!r} is not one of {(*ROLES, KNOWLEDGE, MEANING)}")
            if entry.parts:
                _check_parts(entry)
            models[name] = entry
        profiles = {k: dict(v) for k, v in data.get("profiles", {}).items()}
    except FileNotFoundError as err:
        raise ConfigError("models-manifest-missing", f"model manifest {path} does not exist") from err
    except (OSError, tomllib.TOMLDecodeError, TypeError, KeyError, ValueError) as err:
        raise ConfigError("models-manifest-invalid", f"model manifest {path} is invalid: {err}") from err
    for pname, roles in profiles.items():
        for role, model in roles.items():
            if model and model not in models:  # an empty name: nothing for that role (e.g. no second pass)
                raise ConfigError(
                    "models-manifest-invalid", f"profile {pname}: {role} = {model!r} is not a model in {path}"
                )
    return Manifest(models=models, profiles=profiles, path=path)


def base_dir(entry: ModelEntry, models_dir: Path) -> Path | None:
    """Where the entry's files live: its package folder, or models_dir/<name> (fetched or assembled there)."""
    if entry.package:
        return package_dir(entry.package)
    return models_dir / entry.name


def file_digest(path: Path, algorithm: str = "sha256") -> str:
    """Hex digest of a file, read in 1 MiB chunks."""
    h = hashlib.new(algorithm)
    with path.open("rb") as fh:
        while chunk := fh.read(_HASH_CHUNK_BYTES):
            h.update(chunk)
    return h.hexdigest()


def _tree_files(root: Path) -> Iterator[Path]:
    for p in sorted(root.rglob("*"), key=lambda q: q.relative_to(root).as_posix()):
        if p.is_file() and p.name != LOCAL_PIN_NAME:
            yield p


def tree_digest(root: Path) -> tuple[str, int]:
    """sha256 of a directory's sorted sha256sum listing, and its total size in bytes."""
    lines, total = [], 0
    for p in _tree_files(root):
        lines.append(f"{file_digest(p)}  {p.relative_to(root).as_posix()}\n")
        total += p.stat().st_size
    return hashlib.sha256("".join(lines).encode()).hexdigest(), total


def _tree_size(root: Path) -> int:
    return sum(p.stat().st_size for p in _tree_files(root))


def _what(entry: ModelEntry) -> str:
    return f"{entry.role.upper()} {_ROLE_WORD[entry.role]} {entry.name}"


def _check_file(entry: ModelEntry, f: ModelFile, path: Path) -> None:
    """Raise ModelError unless `path` matches the pin `f`: size, GGUF header, then digest."""
    role = entry.role
    what = _what(entry)
    if not path.exists():
        hint = f"run: talkbox models fetch {entry.name}" if entry.fetchable else f"install its package ({entry.source})"
        raise ModelError(f"{role}-model-missing", f"{what}: {path} does not exist; {hint}")

    fix = (
        f"fetch it again: talkbox models fetch {entry.name}"
        if entry.fetchable
        else f"reinstall its package ({entry.source})"
    )

    def corrupt(reason: str) -> ModelError:
        return ModelError(f"{role}-model-corrupt", f"{what}: {path} is refused: {reason}; {fix}")

    try:
        if f.dir:
            pin = f.sha256
            local = path / LOCAL_PIN_NAME
            if not pin and local.is_file():
                pin = local.read_text().split()[0]
            if not pin:
                raise corrupt("no pinned tree digest (fetch it again to pin it)")
            if f.size and (size := _tree_size(path)) != f.size:
                raise corrupt(f"it holds {size} bytes, the manifest says {f.size} (incomplete?)")
            digest, _ = tree_digest(path)
            if digest != pin:
                raise corrupt("tree sha256 mismatch: a file in it is corrupt, missing or was modified")
            return
        size = path.stat().st_size
        if size == 0:
            raise corrupt("the file is empty (0 bytes)")
        if f.size and size != f.size:
            raise corrupt(f"it is {size} bytes, the manifest says {f.size} (truncated or incomplete)")
        if path.suffix == ".gguf":
            try:
                gguf.read_header(path)
            except gguf.GgufError as err:
                raise corrupt(str(err)) from err
        if f.sha256:
            if file_digest(path) != f.sha256:
                raise corrupt("sha256 mismatch: the file is corrupt or was modified")
        elif f.md5:
            if file_digest(path, "md5") != f.md5:
                raise corrupt("md5 mismatch: the file is corrupt or was modified")
        elif (user_pin := path.with_name(path.name + USER_PIN_SUFFIX)).is_file():
            if file_digest(path) != user_pin.read_text().split()[0]:
                raise corrupt("sha256 mismatch with the digest you pinned: the file is corrupt or modified")
        else:
            raise corrupt("the manifest pins no digest for it")
    except OSError as err:
        raise ModelError(f"{role}-model-unreadable", f"{what}: cannot read {path}: {err.strerror}") from err


def verify(entry: ModelEntry, models_dir: Path) -> Path:
    """Check every file of `entry` against its pins; return the path of its first file.

    A model made of parts has each of its files assembled into models_dir/<name> first if it is not there intact
    (see parts.py); a directory model (Whisper's model.bin, config.json, tokenizer.json…) is one file per piece.
    For an encyclopedia, the path of its index (built from the verified file into models_dir/<name> if it is not
    there intact, see daemon/knowledge/corpus.py).
    """
    if entry.parts:
        for f in entry.files:
            dest = models_dir / entry.name / f.path
            assemble(parts_of(entry, f), dest, size=f.size, sha256=f.sha256, role=entry.role, what=_what(entry))
        return models_dir / entry.name / entry.files[0].path
    base = base_dir(entry, models_dir)
    if base is None:
        raise ModelError(
            f"{entry.role}-model-missing",
            f"{_what(entry)}: package {entry.package!r} is not installed; install it ({entry.source})",
        )
    for f in entry.files:
        _check_file(entry, f, base / f.path)
    first = base / entry.files[0].path
    if entry.role == KNOWLEDGE:
        digest = entry.files[0].sha256 or file_digest(first)
        return index_for(first, digest, models_dir / entry.name, _what(entry))
    return first
