"""Voices that speak the questions: the box's own Piper voice at three rates, eSpeak NG and, if installed, Flite."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import shutil
import subprocess
import tempfile
import wave
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt
import soxr

from daemon.config import Config
from daemon.ports import AUDIO_RATE_HZ, TextToSpeech

Int16Array = npt.NDArray[np.int16]
FloatArray = npt.NDArray[np.float64]
Render = Callable[[str], Int16Array]
"""Text -> 16 kHz mono int16 speech."""

FULL_SCALE: Final = 32767.0
PEAK_DBFS: Final = -3.0
"""Every rendering is brought to this peak, so no voice is heard louder (or cleaner, in 8 bits) than another."""
NOISE_FLOOR_DBFS: Final = -70.0
"""RMS of the faint noise under every rendering.

NOTE: PocketSphinx normalises its features by the signal's energy; stretches of pure digital silence (log of
zero) throw that off, and no microphone delivers them.
"""
EDGE_DBFS: Final = -40.0
"""Below this, relative to the rendering's peak, the start and end of a rendering are trimmed as silence."""
EDGE_KEEP_S: Final = 0.05
"""Seconds kept before the first and after the last sound (a voice's own lead-in differs from voice to voice)."""
PIPER_LENGTH_SCALES: Final = (0.85, 1.0, 1.2)
"""Speaking rates of the box's voice: faster, as configured, slower."""
ESPEAK_VOICES_RATES: Final = (("en-us", 160), ("en-gb", 150), ("en-us+f3", 180), ("en-us+m7", 140), ("en-sc", 170))
"""eSpeak NG voice and variant, words per minute."""
FLITE_VOICE_NAMES: Final = ("kal", "slt", "rms", "awb")
SYNTH_TIMEOUT_S: Final = 30.0


@dataclass(frozen=True)
class Voice:
    """One way of saying a question."""

    name: str
    render: Render
    """Text -> 16 kHz mono int16 speech: edges trimmed, peak at PEAK_DBFS, over a -70 dBFS noise floor."""


def stable_seed(*parts: str) -> int:
    """A random seed from text, the same in every process and on every machine."""
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()[:8], "little")


def dbfs(level: float) -> float:
    """An int16 amplitude for a level in dB relative to full scale."""
    return FULL_SCALE * 10 ** (level / 20)


def noise_floor(samples: int, rng: np.random.Generator) -> FloatArray:
    """`samples` of faint white noise at NOISE_FLOOR_DBFS (as float, in int16 units)."""
    floor: FloatArray = rng.normal(0.0, dbfs(NOISE_FLOOR_DBFS), samples)
    return floor


def to_int16(audio: npt.NDArray[np.floating] | FloatArray) -> Int16Array:
    """Round and clip float audio in int16 units."""
    out: Int16Array = np.clip(np.round(audio), -32768, 32767).astype(np.int16)
    return out


def _finish(audio: Int16Array, rate_hz: int, text: str) -> Int16Array:
    """At 16 kHz, silent edges trimmed, peak at PEAK_DBFS, over the noise floor."""
    speech = np.asarray(soxr.resample(audio.astype(np.float32), rate_hz, AUDIO_RATE_HZ, quality="HQ"), np.float64)
    peak = float(np.max(np.abs(speech))) if speech.size else 0.0
    if peak <= 0.0:
        raise ValueError(f"the voice said nothing for {text!r}")
    loud = np.flatnonzero(np.abs(speech) >= peak * 10 ** (EDGE_DBFS / 20))
    keep = int(EDGE_KEEP_S * AUDIO_RATE_HZ)
    speech = speech[max(0, loud[0] - keep) : loud[-1] + keep + 1] * (dbfs(PEAK_DBFS) / peak)
    return to_int16(speech + noise_floor(len(speech), np.random.default_rng(stable_seed("floor", text))))


def _read_wav(data: bytes) -> tuple[Int16Array, int]:
    """Mono int16 samples and rate of a WAV; reads what is there (eSpeak's stdout header claims 2 GB)."""
    with wave.open(io.BytesIO(data)) as wav:
        rate, pcm = wav.getframerate(), wav.readframes(wav.getnframes())
    return np.frombuffer(pcm[: len(pcm) // 2 * 2], "<i2"), rate


def _espeak(voice: str, words_per_minute: int) -> Render:
    def render(text: str) -> Int16Array:
        command = ["espeak-ng", "-v", voice, "-s", str(words_per_minute), "--stdout"]
        done = subprocess.run(command, input=text.encode(), capture_output=True, check=True, timeout=SYNTH_TIMEOUT_S)
        return _finish(*_read_wav(done.stdout), text)

    return render


def _flite(voice: str) -> Render:
    def render(text: str) -> Int16Array:
        with tempfile.TemporaryDirectory(prefix="talkbox-flite-") as tmp:
            out = Path(tmp) / "speech.wav"
            command = ["flite", "-voice", voice, "-t", text, "-o", str(out)]
            subprocess.run(command, capture_output=True, check=True, timeout=SYNTH_TIMEOUT_S)
            return _finish(*_read_wav(out.read_bytes()), text)

    return render


def piper_voice(tts: TextToSpeech, name: str = "piper") -> Voice:
    """A voice built on a loaded TextToSpeech (the box's Piper voice, as the tests' `tts` fixture gives it)."""

    def render(text: str) -> Int16Array:
        audio = np.frombuffer(b"".join(tts.synthesize(text)), np.int16)
        return _finish(audio, tts.sample_rate_hz, text)

    return Voice(name, render)


class _PiperAtRate:
    """The box's voice at one speaking rate, loaded when it first speaks."""

    def __init__(self, config: Config, length_scale: float) -> None:
        self._config = dataclasses.replace(config, tts=dataclasses.replace(config.tts, length_scale=length_scale))
        self._voice: Voice | None = None

    def __call__(self, text: str) -> Int16Array:
        if self._voice is None:
            from daemon.engines.load import load_tts

            self._voice = piper_voice(load_tts(self._config))
        return self._voice.render(text)


def piper_voices(config: Config) -> tuple[Voice, ...]:
    """The configured Piper voice at each of PIPER_LENGTH_SCALES (the rest of `config.tts` as given)."""
    return tuple(Voice(f"piper-{scale:.2f}", _PiperAtRate(config, scale)) for scale in PIPER_LENGTH_SCALES)


ESPEAK_VOICES: Final = tuple(Voice(f"espeak-{v}-{wpm}", _espeak(v, wpm)) for v, wpm in ESPEAK_VOICES_RATES)
FLITE_VOICES: Final = tuple(Voice(f"flite-{v}", _flite(v)) for v in FLITE_VOICE_NAMES)
VOICES: Final = (ESPEAK_VOICES if shutil.which("espeak-ng") else ()) + (FLITE_VOICES if shutil.which("flite") else ())
"""The voices this machine has besides Piper: eSpeak NG's (.ci/setup installs it) and Flite's, when installed."""


def all_voices(config: Config) -> tuple[Voice, ...]:
    """The box's voice at three rates, then every other voice this machine has."""
    return piper_voices(config) + VOICES
