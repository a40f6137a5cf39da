"""How a question reaches the box: the file it comes in, the noise around it, a pause in the middle."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
import soundfile as sf
import soxr

from daemon.lab.evaluation.noises import babble, hum, mains_hum, music, pink_noise, rms, white_noise
from daemon.lab.evaluation.voices import FULL_SCALE, FloatArray, Int16Array, Render, noise_floor, to_int16
from daemon.ports import AUDIO_RATE_HZ

__all__ = ["CONDITIONS", "Condition", "babble", "hum", "music", "white_noise"]

LEAD_S: Final = 0.3
"""Before the first word: the box hears from the press or the wake word, a person starts a moment later."""
TAIL_S: Final = 0.7
"""After the last word: the endpointer's trailing silence (`listen.trailing_silence_s`) is heard too."""
PAUSE_S: Final = (0.5, 0.9)
"""Range of the pause in the middle of a question said in two halves."""
HUM_DB: Final = -15.0
"""Hum in the noise mixture, relative to the pink-ish noise."""
STEREO_RATE_HZ: Final = 48000
STEREO_RIGHT_DB: Final = -3.0
"""The second channel of the stereo file is this much quieter (a microphone pair off to one side)."""
PHONE_RATE_HZ: Final = 8000
PHONE_BAND_HZ: Final = (300.0, 3400.0)
"""What a telephone line passes; the file is 8 kHz mu-law, as a telephone recording is."""
EIGHT_BIT_STEP: Final = 256
"""One step of 8-bit audio, in int16 units."""

Make = Callable[[Render, str, np.random.Generator], bytes]
"""(voice, question text, random source) -> the bytes of a WAV file."""


@dataclass(frozen=True)
class Condition:
    """One way a question arrives."""

    name: str
    make: Make


def _wav(audio: Int16Array | FloatArray, rate_hz: int, subtype: str) -> bytes:
    """The bytes of a WAV file; float audio is in -1..1, int16 as it is."""
    out = io.BytesIO()
    sf.write(out, audio, rate_hz, subtype=subtype, format="WAV")
    return out.getvalue()


def _padded(speech: Int16Array | FloatArray, rng: np.random.Generator) -> FloatArray:
    """Speech with the lead-in and the trailing silence around it, over the noise floor (float, int16 units)."""
    lead, tail = noise_floor(int(LEAD_S * AUDIO_RATE_HZ), rng), noise_floor(int(TAIL_S * AUDIO_RATE_HZ), rng)
    return np.concatenate([lead, speech.astype(np.float64), tail])


def clean_16k(render: Render, text: str, rng: np.random.Generator) -> bytes:
    """The box's own format: 16 kHz mono 16-bit."""
    return _wav(to_int16(_padded(render(text), rng)), AUDIO_RATE_HZ, "PCM_16")


def stereo_48k(render: Render, text: str, rng: np.random.Generator) -> bytes:
    """48 kHz stereo 24-bit, as a USB microphone or a phone app records."""
    left = soxr.resample(_padded(render(text), rng) / FULL_SCALE, AUDIO_RATE_HZ, STEREO_RATE_HZ, quality="HQ")
    return _wav(np.column_stack([left, left * 10 ** (STEREO_RIGHT_DB / 20)]), STEREO_RATE_HZ, "PCM_24")


def phone_8k(render: Render, text: str, rng: np.random.Generator) -> bytes:
    """A telephone: 300-3400 Hz, 8 kHz mu-law."""
    audio = _padded(render(text), rng) / FULL_SCALE
    spectrum = np.fft.rfft(audio)
    hz = np.fft.rfftfreq(len(audio), 1 / AUDIO_RATE_HZ)
    spectrum[(hz < PHONE_BAND_HZ[0]) | (hz > PHONE_BAND_HZ[1])] = 0
    band = np.fft.irfft(spectrum, len(audio))
    return _wav(soxr.resample(band, AUDIO_RATE_HZ, PHONE_RATE_HZ, quality="HQ"), PHONE_RATE_HZ, "ULAW")


def pcm_8bit(render: Render, text: str, rng: np.random.Generator) -> bytes:
    """16 kHz mono 8-bit, dithered as a converter does (else the quiet stretches become digital silence)."""
    audio = _padded(render(text), rng)
    dither = EIGHT_BIT_STEP * (rng.random(len(audio)) - rng.random(len(audio)))
    steps = np.clip(np.round((audio + dither) / EIGHT_BIT_STEP), -128, 127)
    return _wav((steps * EIGHT_BIT_STEP).astype(np.int16), AUDIO_RATE_HZ, "PCM_U8")


def noisy(speech: Int16Array | FloatArray, snr_db: float, rng: np.random.Generator) -> FloatArray:
    """Speech (lead-in and tail added) in pink-ish noise with a little hum, `snr_db` below the speech's RMS."""
    padded = _padded(speech, rng)
    noise = pink_noise(len(padded), rng) + 10 ** (HUM_DB / 20) * mains_hum(len(padded))
    mixed = padded + noise * (rms(speech) * 10 ** (-snr_db / 20) / rms(noise))
    peak = float(np.max(np.abs(mixed)))
    # NOTE: a loud noise can push peaks past full scale; the whole file is turned down, as an input gain would be.
    return mixed * (FULL_SCALE / peak) if peak > FULL_SCALE else mixed


def _in_noise(snr_db: float) -> Make:
    def make(render: Render, text: str, rng: np.random.Generator) -> bytes:
        return _wav(to_int16(noisy(render(text), snr_db, rng)), AUDIO_RATE_HZ, "PCM_16")

    return make


def halves(text: str) -> tuple[str, str]:
    """The text cut at the word boundary nearest its middle (the second half is empty for one word)."""
    words = text.split()
    if len(words) < 2:
        return text, ""
    cut = min(range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i])) - len(text) / 2))
    return " ".join(words[:cut]), " ".join(words[cut:])


WordGaps = Callable[[FloatArray], list[float]]
"""Speech (int16 units, 16 kHz) -> the times (seconds) between its words, in order."""


def paused_in_one_breath(word_gaps: WordGaps) -> Make:
    """The question said whole, then a 0.5-0.9 s pause opened between the words `halves` cuts it at.

    NOTE: said in two halves, the first half ends with a sentence's falling voice; cut from one saying, it keeps
    the voice of a sentence that goes on, as a person's does who stops to think.
    """

    def make(render: Render, text: str, rng: np.random.Generator) -> bytes:
        speech = render(text).astype(np.float64)
        first, second = halves(text)
        gaps = word_gaps(speech) if second else []
        at = int(gaps[min(len(first.split()), len(gaps)) - 1] * AUDIO_RATE_HZ) if gaps else len(speech)
        pause = noise_floor(int(rng.uniform(*PAUSE_S) * AUDIO_RATE_HZ), rng) if second else np.zeros(0)
        return _wav(to_int16(_padded(np.concatenate([speech[:at], pause, speech[at:]]), rng)), AUDIO_RATE_HZ, "PCM_16")

    return make


def pauses(render: Render, text: str, rng: np.random.Generator) -> bytes:
    """The question said in two halves with a 0.5-0.9 s pause between ("set a timer ... for ten minutes")."""
    first, second = halves(text)
    pause = noise_floor(int(rng.uniform(*PAUSE_S) * AUDIO_RATE_HZ), rng)
    parts = [render(first).astype(np.float64)] + ([pause, render(second).astype(np.float64)] if second else [])
    return _wav(to_int16(_padded(np.concatenate(parts), rng)), AUDIO_RATE_HZ, "PCM_16")


CONDITIONS: Final = (
    Condition("clean-16k", clean_16k),
    Condition("stereo-48k", stereo_48k),
    Condition("phone-8k", phone_8k),
    Condition("pcm-8bit", pcm_8bit),
    Condition("noise-20db", _in_noise(20.0)),
    Condition("noise-10db", _in_noise(10.0)),
    Condition("noise-5db", _in_noise(5.0)),
    Condition("pauses", pauses),
)
"""Every condition, the box's own format first."""
