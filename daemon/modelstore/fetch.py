"""Download pinned models: the only code in talkbox that opens a network connection.

Run by a person (`talkbox models fetch`) or the image build on a machine with internet, never by the
daemon. Downloads resume, show progress, and land only after their digest matched the manifest.
"""

from __future__ import annotations

import logging
import shutil
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Final

from daemon.errors import ModelError
from daemon.modelstore.manifest import (
    LOCAL_PIN_NAME,
    USER_PIN_SUFFIX,
    ModelEntry,
    ModelFile,
    file_digest,
    tree_digest,
    verify,
)
from daemon.modelstore.progress import ProgressBar

_LOGGER = logging.getLogger(__name__)

CHUNK_BYTES: Final = 1 << 16
TIMEOUT_S: Final = 30.0
ATTEMPTS: Final = 4
BACKOFF_S: Final = 2.0
USER_AGENT: Final = "talkbox-models-fetch/1"


def _expected(f: ModelFile, pins: dict[str, str]) -> tuple[str, str]:
    """The (algorithm, digest) a download must match; refuses a file with no pin at all."""
    if f.sha256:
        return "sha256", f.sha256
    if f.path in pins:
        return "sha256", pins[f.path]
    if f.md5:
        _LOGGER.warning("%s is pinned by md5 only (the publisher gives no sha256)", f.path)
        return "md5", f.md5
    raise ModelError(
        "models-unpinned",
        f"{f.path} has no pinned digest; refusing to download it. Pin it explicitly with "
        f"--pin {f.path}=<sha256> after checking the publisher's checksum",
    )


def _download_once(url: str, part: Path, total: int, bar: ProgressBar) -> None:
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    if have:
        request.add_header("Range", f"bytes={have}-")
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
        if have and response.status != 206:  # the server ignored Range: start over
            have = 0
        with part.open("ab" if have else "wb") as out:
            while chunk := response.read(CHUNK_BYTES):
                out.write(chunk)
                have += len(chunk)
                bar.update(have)


def download(url: str, dest: Path, size: int, algorithm: str, digest: str) -> None:
    """Fetch `url` into `dest` (resuming a .part file), then check size and digest before renaming."""
    part = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    if part.exists() and size and part.stat().st_size > size:
        part.unlink()
    bar = ProgressBar(dest.name, size)
    try:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                if not (size and part.exists() and part.stat().st_size == size):
                    _download_once(url, part, size, bar)
                break
            except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
                if isinstance(err, urllib.error.HTTPError) and err.code not in (408, 429, 500, 502, 503, 504):
                    raise ModelError("models-fetch-failed", f"{url}: HTTP {err.code} {err.reason}") from err
                if attempt == ATTEMPTS:
                    raise ModelError("models-fetch-failed", f"{url}: {err}; run fetch again to resume") from err
                _LOGGER.warning("download interrupted (%s); resuming in %.0f s", err, BACKOFF_S * attempt)
                time.sleep(BACKOFF_S * attempt)
    finally:
        bar.close()
    got = part.stat().st_size
    if size and got != size:
        raise ModelError(
            "models-fetch-failed", f"{dest.name}: got {got} bytes, expected {size}; run fetch again to resume"
        )
    if file_digest(part, algorithm) != digest:
        part.unlink()
        raise ModelError(
            "models-fetch-corrupt", f"{dest.name}: {algorithm} does not match the manifest; the download was discarded"
        )
    part.replace(dest)


def _extract(archive: Path, into: Path, top: str) -> Path:
    """Unzip `archive` and move its `top` directory to `into/top`, refusing paths that escape."""
    staging = into.parent / (into.name + ".extract")
    shutil.rmtree(staging, ignore_errors=True)
    with zipfile.ZipFile(archive) as zf:
        for member in zf.namelist():
            target = (staging / member).resolve()
            if not target.is_relative_to(staging.resolve()):
                raise ModelError("models-fetch-corrupt", f"{archive.name}: member {member!r} escapes the archive")
        zf.extractall(staging)
    final = into / top
    shutil.rmtree(final, ignore_errors=True)
    into.mkdir(parents=True, exist_ok=True)
    (staging / top).replace(final)
    shutil.rmtree(staging, ignore_errors=True)
    return final


def fetch(entry: ModelEntry, models_dir: Path, pins: dict[str, str] | None = None) -> Path:
    """Download every file of `entry` that is missing or wrong, then verify the whole model."""
    pins = pins or {}
    if not entry.fetchable:
        return verify(entry, models_dir)  # comes from an installed package: nothing to download
    base = models_dir / entry.name
    if entry.archive is not None:
        a = entry.archive
        algorithm, digest = _expected(a, pins)
        archive = models_dir / ".downloads" / Path(a.url).name
        if not archive.exists() or file_digest(archive, algorithm) != digest:
            download(a.url, archive, a.size, algorithm, digest)
        top = entry.files[0].path
        final = _extract(archive, base, top)
        tree, _ = tree_digest(final)
        # The archive's digest was pinned; pin what came out of it so later checks need no archive.
        (final / LOCAL_PIN_NAME).write_text(f"{tree}  {top}\nfrom {Path(a.url).name} sha256={digest}\n")
        archive.unlink()
    for f in entry.files:
        if not f.url:
            continue
        algorithm, digest = _expected(f, pins)
        dest = base / f.path
        if dest.exists() and dest.stat().st_size == f.size and file_digest(dest, algorithm) == digest:
            continue
        download(f.url, dest, f.size, algorithm, digest)
        if f.path in pins and not f.sha256:  # remember the user's explicit pin for later verification
            dest.with_name(dest.name + USER_PIN_SUFFIX).write_text(f"{digest}  {dest.name}\n")
    return verify(entry, models_dir)
