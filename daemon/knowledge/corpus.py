"""The encyclopedia's SQLite index: built once from the verified corpus, checked by its own digest before each use.

The corpus (a JSON file: title -> {"title", "extract", ...}) is verified against the manifest before this module
reads it. The index is a derived file beside the models the box assembles: written to a temporary name, its sha256
written next to it, and only then renamed into place; an index whose digest does not match (half-written, damaged
on the card) is built again, never opened. Another corpus or build version has an index of another name.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from daemon.durable import durable
from daemon.errors import ModelError
from daemon.knowledge.text import aliases, sentences, words

_LOGGER = logging.getLogger(__name__)

BUILD_VERSION: Final = 4
"""Bumped whenever the schema or the text preparation changes: an index of another version is built again."""
INDEX_MODE: Final = 0o644
"""Built by root at image build (`talkbox models verify`), read by the service's own user."""
STALE_TEMP_S: Final = 3600.0
"""A temporary file untouched this long was left by a build that died."""
TOKENIZER: Final = "porter unicode61 remove_diacritics 2"

_SCHEMA: Final = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE article(id INTEGER PRIMARY KEY, title TEXT NOT NULL, sentences TEXT NOT NULL);
CREATE TABLE alias(name TEXT NOT NULL, article INTEGER NOT NULL, exact INTEGER NOT NULL);
CREATE VIRTUAL TABLE body USING fts5(title, extract, content='', tokenize='{TOKENIZER}');
"""


def index_path(folder: Path, corpus_sha256: str) -> Path:
    """Where the index of the corpus with this digest lives: another corpus or build version, another file."""
    return folder / f"index-{corpus_sha256[:16]}-v{BUILD_VERSION}.sqlite"


def _pin_of(index: Path) -> Path:
    return index.with_name(index.name + ".sha256")


def _digest(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def damage(index: Path) -> str:
    """Why the index cannot be trusted ("" if its digest matches the one written when it was built)."""
    if not index.is_file():
        return "it does not exist"
    pin = _pin_of(index)
    if not pin.is_file():
        return "its digest file is missing (a build did not finish)"
    if _digest(index) != (pin.read_text().split() or [""])[0]:
        return "sha256 mismatch: it is half-written or damaged"
    return ""


def _articles(corpus: Path, what: str) -> list[tuple[str, str]]:
    """(title, extract) of every article; a file of another shape is refused as corrupt."""

    def refuse(reason: str) -> ModelError:
        return ModelError("knowledge-model-corrupt", f"{what}: {corpus} is refused: {reason}")

    try:
        raw: Any = json.loads(corpus.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise refuse(f"not JSON ({err})") from err
    if not isinstance(raw, dict) or not raw:
        raise refuse("not a JSON object of articles")
    found = []
    for key, value in raw.items():
        if not (isinstance(value, dict) and isinstance(value.get("extract"), str)):
            raise refuse(f"article {key!r} has no extract")
        title, extract = value.get("title"), value["extract"]
        title = title if isinstance(title, str) else str(key)
        if extract.strip() and words(title):
            found.append((title, extract))
    return found


def _fill(db: sqlite3.Connection, articles: list[tuple[str, str]], corpus_sha256: str) -> None:
    db.executescript(_SCHEMA)
    for rowid, (title, extract) in enumerate(articles, start=1):
        db.execute("INSERT INTO article VALUES (?, ?, ?)", (rowid, title, json.dumps(sentences(extract))))
        db.execute("INSERT INTO body(rowid, title, extract) VALUES (?, ?, ?)", (rowid, title, extract))
        exact = " ".join(words(title))
        db.executemany(
            "INSERT INTO alias VALUES (?, ?, ?)", [(name, rowid, int(name == exact)) for name in aliases(title)]
        )
    db.execute("CREATE INDEX alias_name ON alias(name)")
    db.execute("INSERT INTO body(body) VALUES ('optimize')")
    meta = {"corpus_sha256": corpus_sha256, "build_version": str(BUILD_VERSION), "articles": str(len(articles))}
    db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
    db.commit()
    db.execute("VACUUM")


def _unwritable(what: str, folder: Path, detail: str) -> ModelError:
    return ModelError(
        "knowledge-model-unwritable",
        f"{what}: its index cannot be built in {folder}: {detail}; "
        f"build it as a user who can write there: talkbox models verify {folder.name}",
    )


@contextlib.contextmanager
def _temporary(folder: Path, prefix: str) -> Iterator[Path]:
    """A temporary file in `folder`, removed afterwards unless it was renamed away."""
    fd, name = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=".tmp")
    os.close(fd)
    try:
        yield Path(name)
    finally:
        Path(name).unlink(missing_ok=True)


def build(corpus: Path, corpus_sha256: str, dest: Path, what: str) -> None:
    """Write the index of `corpus` (already verified) to `dest`, atomically, with its digest beside it."""
    articles = _articles(corpus, what)
    folder = dest.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob(".index-*.tmp"):
            if time.time() - stale.stat().st_mtime > STALE_TEMP_S:
                stale.unlink(missing_ok=True)
        with _temporary(folder, f".{dest.name}.") as temp, _temporary(folder, f".{dest.name}.sha256.") as pin:
            db = sqlite3.connect(temp)
            try:
                db.execute("PRAGMA journal_mode = OFF")  # a temporary file: a failed build is thrown away whole
                _fill(db, articles, corpus_sha256)
            finally:
                db.close()
            durable(temp)
            pin.write_text(f"{_digest(temp)}  {dest.name}\n")
            durable(pin)
            temp.chmod(INDEX_MODE)
            pin.chmod(INDEX_MODE)
            # NOTE: the digest first: an index in place without its digest is rebuilt, never trusted.
            pin.replace(_pin_of(dest))
            temp.replace(dest)
            durable(folder)
    except sqlite3.OperationalError as err:
        if "fts5" in str(err):
            raise ModelError("knowledge-model-unusable", f"{what}: this Python's SQLite has no FTS5") from err
        raise _unwritable(what, folder, str(err)) from err
    except OSError as err:
        raise _unwritable(what, folder, err.strerror or str(err)) from err
    for old in folder.glob("index-*.sqlite*"):  # other corpora or build versions: derived, so simply dropped
        if old.name not in (dest.name, _pin_of(dest).name):
            old.unlink(missing_ok=True)


@contextlib.contextmanager
def _building(folder: Path, what: str) -> Iterator[None]:
    """One build at a time in `folder` (the box and a `talkbox ask` may start together): an index and its digest
    written by two builds could disagree."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = (folder / ".index.lock").open("a")
    except OSError as err:
        raise _unwritable(what, folder, err.strerror or str(err)) from err
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _trust(index: Path, what: str) -> str:
    """damage(), a read failure reported as the model error it is."""
    try:
        return damage(index)
    except OSError as err:
        raise ModelError("knowledge-model-unreadable", f"{what}: cannot read {index}: {err.strerror}") from err


def index_for(corpus: Path, corpus_sha256: str, folder: Path, what: str) -> Path:
    """The verified index of the verified `corpus` in `folder`, built (again) if it is missing or damaged.

    Raises ModelError: `knowledge-model-corrupt` (the corpus is not the expected JSON), `-unwritable` (no index
    and no right or room to build one), `-unreadable`, `-unusable` (SQLite without FTS5).
    """
    dest = index_path(folder, corpus_sha256)
    if not (why := _trust(dest, what)):
        return dest
    with _building(folder, what):
        if not _trust(dest, what):  # another process built it while this one waited
            return dest
        if dest.exists():
            _LOGGER.warning("%s: %s is refused (%s): building it again", what, dest, why)
        started = time.monotonic()
        build(corpus, corpus_sha256, dest, what)
        _LOGGER.info("%s: index %s built in %.1f s", what, dest, time.monotonic() - started)
    return dest
