"""Sounds that are not a question to the box: noise, mains hum, music and a room of people talking (16 kHz int16)."""

from __future__ import annotations

from typing import Final

import numpy as np

from daemon.lab.evaluation.corpus import QUESTIONS
from daemon.lab.evaluation.voices import ESPEAK_VOICES, FloatArray, Int16Array, dbfs, to_int16
from daemon.ports import AUDIO_RATE_HZ

PINK_FROM_HZ: Final = 20.0
"""Below this the pink-ish noise stays flat instead of growing without bound."""
HUM_HARMONICS: Final = 6
BEAT_S: Final = 0.6
"""The music's beat: 100 beats a minute."""
CHORDS_HZ: Final = ((261.6, 329.6, 392.0), (196.0, 246.9, 293.7), (220.0, 261.6, 329.6), (174.6, 220.0, 261.6))
"""C, G, A minor, F: one bar of four beats each."""
NOTE_DECAY_S: Final = 0.25
HAT_S: Final = 0.03
BABBLE_GAP_S: Final = (0.1, 0.5)
"""Pause between one talker's sentences."""


def rms(audio: FloatArray | Int16Array) -> float:
    """Root mean square, in the audio's own units."""
    return float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))) if len(audio) else 0.0


def at_level(audio: FloatArray, level_dbfs: float) -> FloatArray:
    """`audio` scaled to an RMS of `level_dbfs` (float, int16 units)."""
    level = rms(audio)
    scaled: FloatArray = audio * (dbfs(level_dbfs) / level) if level > 0 else audio
    return scaled


def pink_noise(samples: int, rng: np.random.Generator) -> FloatArray:
    """Noise whose power falls 3 dB an octave (fans, traffic, a room), unit RMS."""
    spectrum = np.fft.rfft(rng.normal(0.0, 1.0, samples))
    spectrum /= np.sqrt(np.maximum(np.fft.rfftfreq(samples, 1 / AUDIO_RATE_HZ), PINK_FROM_HZ))
    noise: FloatArray = np.fft.irfft(spectrum, samples)
    return noise / rms(noise)


def mains_hum(samples: int, mains_hz: float = 50.0) -> FloatArray:
    """Hum of the mains frequency and its first harmonics (a cheap power supply near the microphone), unit RMS."""
    t = np.arange(samples) / AUDIO_RATE_HZ
    hum: FloatArray = sum(
        (np.sin(2 * np.pi * k * mains_hz * t + k) / k**1.5 for k in range(1, HUM_HARMONICS + 1)),
        np.zeros(samples),
    )
    return hum / rms(hum)


def white_noise(seconds: float, level_dbfs: float = -30.0, seed: int = 0) -> Int16Array:
    """White noise at an RMS of `level_dbfs`."""
    rng = np.random.default_rng(seed)
    return to_int16(at_level(rng.normal(0.0, 1.0, int(seconds * AUDIO_RATE_HZ)), level_dbfs))


def hum(seconds: float, level_dbfs: float = -30.0, mains_hz: float = 50.0) -> Int16Array:
    """Mains hum at an RMS of `level_dbfs`."""
    return to_int16(at_level(mains_hum(int(seconds * AUDIO_RATE_HZ), mains_hz), level_dbfs))


def _pluck(frequency_hz: float, samples: int, rng: np.random.Generator) -> FloatArray:
    t = np.arange(samples) / AUDIO_RATE_HZ
    tone = sum(np.sin(2 * np.pi * k * frequency_hz * t + rng.uniform(0, 6.3)) / k**1.5 for k in range(1, 6))
    pluck: FloatArray = tone * np.exp(-t / NOTE_DECAY_S)
    return pluck


def music(seconds: float, level_dbfs: float = -25.0, seed: int = 0) -> Int16Array:
    """Plucked chords, a bass line and a hi-hat at 100 beats a minute, at an RMS of `level_dbfs`."""
    rng = np.random.default_rng(seed)
    total = int(seconds * AUDIO_RATE_HZ)
    beat = int(BEAT_S * AUDIO_RATE_HZ)
    out = np.zeros(total + 2 * beat)
    hat = pink_noise(int(HAT_S * AUDIO_RATE_HZ), rng) * np.linspace(0.3, 0.0, int(HAT_S * AUDIO_RATE_HZ))
    for n, start in enumerate(range(0, total, beat)):
        chord = CHORDS_HZ[(n // 4) % len(CHORDS_HZ)]
        out[start : start + 2 * beat] += 0.8 * _pluck(chord[0] / 2, 2 * beat, rng)  # the bass, an octave down
        for half in (0, beat // 2):
            note = chord[int(rng.integers(len(chord)))] * (2 if rng.random() < 0.3 else 1)
            out[start + half : start + half + beat] += 0.5 * _pluck(note, beat, rng)
        out[start + beat // 2 : start + beat // 2 + len(hat)] += hat
    return to_int16(at_level(out[:total], level_dbfs))


def babble(seconds: float, talkers: int = 6, level_dbfs: float = -30.0, seed: int = 0) -> Int16Array:
    """A room of people talking at once (eSpeak NG voices saying the corpus), at an RMS of `level_dbfs`."""
    rng = np.random.default_rng(seed)
    total = int(seconds * AUDIO_RATE_HZ)
    room = np.zeros(total)
    for talker in range(talkers):
        voice = ESPEAK_VOICES[talker % len(ESPEAK_VOICES)]
        said: list[FloatArray] = [np.zeros(int(rng.uniform(0.0, 2.0) * AUDIO_RATE_HZ))]
        length = len(said[0])
        while length < total:
            speech = voice.render(QUESTIONS[int(rng.integers(len(QUESTIONS)))].text).astype(np.float64)
            gap = np.zeros(int(rng.uniform(*BABBLE_GAP_S) * AUDIO_RATE_HZ))
            said += [speech, gap]
            length += len(speech) + len(gap)
        stream = np.concatenate(said)[:total]
        room += stream / max(rms(stream), 1.0)
    return to_int16(at_level(room, level_dbfs))
