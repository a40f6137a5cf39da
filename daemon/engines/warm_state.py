"""The system prompt's evaluated cache kept on disk, so a restart puts it back instead of reading the prompt again.

Reading the system prompt (and the one with the claim note) took the 1.5B brain 6 s at every start here and about
13 minutes under emulation; put back from disk it takes milliseconds. A kept cache is used only by the model,
llama.cpp, machine, configuration and prompt tokens it was made for (its key); anything else, or a damaged file, is
ignored and the prompt read again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from daemon.engines.kv_aside import Aside, copy_in

_LOGGER = logging.getLogger(__name__)

MAGIC: Final = b"talkbox-warm-1\n"
FILE_NAME: Final = "system-prompt.kv"
Part = tuple[list[int], bytes]
"""The tokens of one cached prompt and llama.cpp's copy of its sequence."""


def key_of(model: Path, settings: str, prompts: Sequence[Sequence[int]]) -> str:
    """What a kept cache must have been made for: the model file as it is now, this llama.cpp on this machine, the
    model's settings and the prompts' tokens."""
    import llama_cpp

    stat = model.stat()
    made_for = {
        "model": [str(model.resolve()), stat.st_size, stat.st_mtime_ns],
        "llama_cpp": llama_cpp.__version__,
        "machine": platform.machine(),
        "settings": settings,
        "prompts": [list(p) for p in prompts],
    }
    return hashlib.sha256(json.dumps(made_for, sort_keys=True).encode()).hexdigest()


def save(directory: Path, key: str, parts: Sequence[Part]) -> None:
    """Keep `parts` under `key` (written whole, then renamed: a start killed mid-write leaves no half file)."""
    # NOTE: each part's own hash too: llama.cpp checks a copy's shape, not its numbers (a flipped bit on the card
    # would be a cache it takes and the model reads wrongly until the prompt changes).
    listed = [[tokens, len(state), hashlib.sha256(state).hexdigest()] for tokens, state in parts]
    header = json.dumps({"key": key, "parts": listed}).encode()
    path = directory / FILE_NAME
    partial = path.with_suffix(".partial")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with partial.open("wb") as out:
            out.write(MAGIC + struct.pack("<I", len(header)) + header)
            for _, state in parts:
                out.write(state)
            out.flush()
            os.fsync(out.fileno())
        partial.replace(path)
    except OSError as err:  # a full or read-only disk: the next start reads the prompt again, nothing more
        _LOGGER.warning("cannot keep the system prompt's cache in %s: %s", directory, err)
        partial.unlink(missing_ok=True)
        return
    _LOGGER.info("kept the system prompt's cache in %s (%d bytes)", path, path.stat().st_size)


def load(directory: Path, key: str) -> list[Part] | None:
    """The parts kept under `key`; None if there are none, they were made for something else, or the file is damaged."""
    path = directory / FILE_NAME
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        if not data.startswith(MAGIC):
            raise ValueError("not a kept cache")
        at = len(MAGIC)
        (length,) = struct.unpack_from("<I", data, at)
        header = json.loads(data[at + 4 : at + 4 + length])
        if header["key"] != key:
            _LOGGER.info("the kept system prompt's cache was made for another model, prompt or llama.cpp: not used")
            return None
        at += 4 + length
        parts: list[Part] = []
        for tokens, size, sha256 in header["parts"]:
            state = data[at : at + size]
            if len(state) != size or hashlib.sha256(state).hexdigest() != sha256:
                raise ValueError("its cache is not what was kept")
            parts.append(([int(t) for t in tokens], state))
            at += size
        if at != len(data):
            raise ValueError("longer than its header says")
    except (ValueError, KeyError, TypeError, struct.error) as err:
        _LOGGER.warning("the kept system prompt's cache %s is damaged (%s): the prompt is read again", path, err)
        return None
    return parts


def put_back(llm: Any, noted: Aside, directory: Path, key: str, prompts: list[list[int]]) -> bool:
    """Make the parts kept under `key` the cache of `prompts` (with a claim note: the noted prompt, held by `noted`,
    then the system prompt's, cached for the next question); whether all were kept and llama.cpp took them."""
    parts = load(directory, key)
    if parts is None or [tokens for tokens, _ in parts] != prompts:
        return False
    if all(copy_in(llm, *part) for part in parts):  # the noted prompt's put in, then the system's over it
        if len(parts) == 2:
            noted.hold_copy(*parts[0])
        _LOGGER.info("the system prompt's cache was put back from %s: not read again", directory)
        return True
    _LOGGER.warning("the kept system prompt's cache was refused by llama.cpp: the prompt is read again")
    return False
