"""Audio files in and out (libsndfile), with errors a person can act on, resampled by soxr."""

from __future__ import annotations

import os
import wave
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soxr

from daemon.errors import InputError
from hardware.audio import AudioFileError, read_audio_file

Int16Array = npt.NDArray[np.int16]


def resample(audio: Int16Array, from_hz: int, to_hz: int) -> Int16Array:
    """Resample mono int16 audio with soxr (high quality)."""
    if from_hz == to_hz or len(audio) == 0:
        return audio
    out: Int16Array = np.asarray(soxr.resample(audio, from_hz, to_hz, quality="HQ"), dtype=np.int16)
    return out


def read_wav(path: Path, rate_hz: int) -> Int16Array:
    """Read any WAV (or FLAC/OGG) of any rate, width and channel count as mono int16 at `rate_hz`."""
    try:
        audio: Int16Array = read_audio_file(path, rate_hz)
    except AudioFileError as err:  # missing, invalid, not-wav, unreadable, implausible, too-long, empty
        raise InputError(f"input-{err.reason}", str(err)) from err
    return audio


def check_writable(path: Path) -> None:
    """InputError unless a file can be written at `path` (asked before any work is done for it)."""
    parent = path.parent
    if path.is_dir():
        raise InputError("output-unwritable", f"cannot write {path}: it is a directory")
    if not parent.is_dir():
        raise InputError("output-unwritable", f"cannot write {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError("output-unwritable", f"cannot write {path}: permission denied")


def write_wav(path: Path, audio: Int16Array | bytes, rate_hz: int) -> None:
    """Write mono int16 audio as a WAV file."""
    data = audio if isinstance(audio, bytes) else audio.astype("<i2").tobytes()
    try:
        # NOTE: the file is opened first: wave.open() of a path that cannot be created leaves a half-made writer
        # whose finalizer prints a traceback after the real error.
        with path.open("wb") as fh, wave.open(fh, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate_hz)
            w.writeframes(data)
    except OSError as err:
        raise InputError("output-unwritable", f"cannot write {path}: {err.strerror}") from err
