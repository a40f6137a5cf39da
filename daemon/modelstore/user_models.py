"""Models given by path instead of a manifest name: each must carry a sha256 pin, checked before any parser opens it.

The pin is the config's `<section>.sha256`, or the first word of a `<path>.sha256` file beside the model. What
it covers, so that coreutils can compute it:

| role | path | digest |
|---|---|---|
| llm  | the .gguf file | `sha256sum model.gguf` |
| stt  | the model directory | the sha256 of its sorted `sha256sum` listing (as the manifest pins directories) |
| tts  | the voice's .onnx | `sha256sum voice.onnx voice.onnx.json \\| sha256sum` |
| wake | the model's .json | `sha256sum word.json word.tflite \\| sha256sum` |
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Final

from daemon.errors import ModelError
from daemon.modelstore import gguf
from daemon.modelstore.manifest import USER_PIN_SUFFIX, file_digest, tree_digest

PIN_KEYS: Final = {"llm": "llm.sha256", "stt": "stt.sha256", "tts": "tts.sha256", "wake": "wake.sha256"}
_WHAT: Final = {"llm": "LLM model", "stt": "STT model", "tts": "voice", "wake": "wake word model"}
SHA256: Final = re.compile(r"[0-9a-f]{64}")


def model_files(role: str, path: Path) -> list[Path]:
    """The files a model given by `path` consists of; ModelError if they are not there or not of the right kind."""
    what = f"{_WHAT[role]} {path}"
    if not path.exists():
        raise ModelError(f"{role}-model-missing", f"{what} does not exist")
    if role == "stt":
        if not path.is_dir():
            raise ModelError(f"{role}-model-corrupt", f"{what} is a file; a speech model is a directory")
        return [path]
    if path.is_dir():
        kind = {"llm": "a .gguf file", "tts": "a Piper .onnx file", "wake": "a microWakeWord .json file"}[role]
        raise ModelError(f"{role}-model-corrupt", f"{what} is a directory, not {kind}")
    companions = {"tts": [path.with_name(path.name + ".json")], "wake": [path.with_suffix(".tflite")]}
    for companion in companions.get(role, []):
        if not companion.is_file():
            raise ModelError(f"{role}-model-missing", f"{what} needs {companion.name} beside it; it is not there")
    return [path, *companions.get(role, [])]


def user_digest(role: str, path: Path) -> str:
    """The digest a pin for this model must hold."""
    files = model_files(role, path)
    try:
        if role == "stt":
            return tree_digest(path)[0]
        if len(files) == 1:
            return file_digest(path)
        listing = "".join(f"{file_digest(f)}  {f.name}\n" for f in sorted(files, key=lambda f: f.name))
        return hashlib.sha256(listing.encode()).hexdigest()
    except PermissionError as err:
        raise ModelError(f"{role}-model-unreadable", f"cannot read {_WHAT[role]} {path}: permission denied") from err
    except OSError as err:
        raise ModelError(f"{role}-model-unreadable", f"cannot read {_WHAT[role]} {path}: {err.strerror}") from err


def pin_for(role: str, path: Path, configured: str) -> tuple[str, str]:
    """The pin for a model given by path, and where it came from; ModelError if there is none."""
    if configured:
        return configured, PIN_KEYS[role]
    sidecar = path.with_name(path.name + USER_PIN_SUFFIX)
    if sidecar.is_file():
        words = sidecar.read_text(encoding="utf-8", errors="replace").split()
        if words and SHA256.fullmatch(words[0].lower()):
            return words[0].lower(), str(sidecar)
        raise ModelError(f"{role}-model-unpinned", f"{sidecar} holds no sha256 (64 hex digits) as its first word")
    raise ModelError(
        f"{role}-model-unpinned",
        f"{_WHAT[role]} {path} has no sha256 pin, and the box runs no model it cannot verify: put "
        f'{PIN_KEYS[role]} = "<digest>" in the config, or the digest in {sidecar.name} beside it '
        f"(talkbox models digest {role} {path} prints it)",
    )


def verify_user_model(role: str, path: Path, configured_pin: str) -> None:
    """Check a model given by path against its pin, then (a GGUF) its header; before any engine opens it."""
    files = model_files(role, path)
    pin, source = pin_for(role, path, configured_pin)
    if user_digest(role, path) != pin:
        raise ModelError(
            f"{role}-model-corrupt",
            f"{_WHAT[role]} {path} is refused: sha256 mismatch with its pin ({source}): "
            "the file is corrupt or was modified",
        )
    if role == "llm":
        try:
            gguf.read_header(files[0])
        except gguf.GgufError as err:
            raise ModelError("llm-model-corrupt", f"LLM model {path} is refused: {err}") from err
