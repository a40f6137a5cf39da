"""The wake-word benchmark: how often each detector misses its phrase, and how often it fires on speech and noise
that do not hold it (false accepts per hour)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final

import numpy as np

from daemon.lab.evaluation.conditions import LEAD_S, TAIL_S
from daemon.lab.evaluation.corpus import QUESTIONS
from daemon.lab.evaluation.noises import at_level, babble, hum, music, white_noise
from daemon.lab.evaluation.voices import Int16Array, Voice, noise_floor, stable_seed, to_int16
from daemon.ports import AUDIO_RATE_HZ, WakeWordDetector

CHUNK_S: Final = 0.09
"""The box hands the wake-word detector audio in chunks this long."""
GAP_S: Final = 0.4
"""Silence between two sentences of the long stretch of ordinary speech."""
NOISES: Final = ("white", "hum", "music", "babble")
NOISE_S: Final = 120.0
"""Each kind of noise is heard this long."""


def _stream(detector: WakeWordDetector, audio: Int16Array) -> list[float]:
    """Feed the audio in the box's chunks; the seconds at which the detector fired."""
    detector.reset()
    step = int(CHUNK_S * AUDIO_RATE_HZ)
    return [k / AUDIO_RATE_HZ for k in range(0, len(audio), step) if detector.process(audio[k : k + step].tobytes())]


def _with_room(
    speech: Int16Array, rng: np.random.Generator, lead_s: float = LEAD_S, tail_s: float = TAIL_S
) -> Int16Array:
    lead, tail = int(lead_s * AUDIO_RATE_HZ), int(tail_s * AUDIO_RATE_HZ)
    room = noise_floor(lead + len(speech) + tail, rng)
    room[lead : lead + len(speech)] += speech
    return to_int16(room)


def phrase_renderings(phrase: str, voices: Sequence[Voice]) -> Iterator[tuple[str, Int16Array]]:
    """The phrase alone and before a question, by every voice, clean and in noise at 10 dB."""
    for voice in voices:
        for text in (f"{phrase}.", f"{phrase}, what time is it?"):
            rng = np.random.default_rng(stable_seed(voice.name, text))
            clean = _with_room(voice.render(text), rng)
            yield f"{voice.name} clean", clean
            noise = at_level(rng.normal(0.0, 1.0, len(clean)), 20 * np.log10(max(1.0, float(np.std(clean)))) - 10)
            yield f"{voice.name} noise-10db", to_int16(clean.astype(np.float64) + noise)


def ordinary_speech(voices: Sequence[Voice], minutes: float, say: Callable[[str], None]) -> Int16Array:
    """A long stretch of questions that hold no wake phrase, said by the voices in turn."""
    rng = np.random.default_rng(0)
    pieces, total, target = [], 0, int(minutes * 60 * AUDIO_RATE_HZ)
    for k in range(10 * len(QUESTIONS) * max(1, len(voices))):
        voice = voices[k % len(voices)]
        speech = _with_room(voice.render(QUESTIONS[k % len(QUESTIONS)].text), rng, GAP_S / 2, GAP_S / 2)
        pieces.append(speech)
        total += len(speech)
        if total >= target:
            break
        if k % 200 == 199:
            say(f"rendered {total / AUDIO_RATE_HZ / 60:.1f} of {minutes:.0f} minutes of ordinary speech")
    return np.concatenate(pieces)


def noises() -> dict[str, Int16Array]:
    """Two minutes of each kind of noise that is not speech to the box."""
    return {
        "white": white_noise(NOISE_S, -35.0, seed=1),
        "hum": hum(NOISE_S, -30.0),
        "music": music(NOISE_S, -25.0, seed=2),
        "babble": babble(NOISE_S, seed=3),
    }


def run_wake(
    detectors: Mapping[str, tuple[str, WakeWordDetector]],
    voices: Sequence[Voice],
    minutes: float,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Misses on each detector's phrase, false accepts per hour of ordinary speech and of noise, real-time factor."""
    speech = ordinary_speech(voices, minutes, say)
    sounds = noises()
    hours = len(speech) / AUDIO_RATE_HZ / 3600
    report: dict[str, Any] = {"speech_hours": hours, "noise_hours": len(sounds) * NOISE_S / 3600, "detectors": {}}
    for name, (phrase, detector) in detectors.items():
        started = time.monotonic()
        fired_on_speech = _stream(detector, speech)
        busy = time.monotonic() - started
        fired_on_noise = {kind: len(_stream(detector, audio)) for kind, audio in sounds.items()}
        renderings = list(phrase_renderings(phrase, voices))
        heard = [bool(_stream(detector, audio)) for _, audio in renderings]
        missed = [label for (label, _), hit in zip(renderings, heard, strict=True) if not hit]
        report["detectors"][name] = {
            "phrase": phrase,
            "miss_rate": len(missed) / len(renderings),
            "missed": missed,
            "said": len(renderings),
            "false_accepts_per_hour_speech": len(fired_on_speech) / hours,
            "false_accepts_on_noise": fired_on_noise,
            "rtf": busy / (len(speech) / AUDIO_RATE_HZ),
        }
        say(f"{name}: missed {len(missed)}/{len(renderings)}, {len(fired_on_speech)} false accepts in {hours:.2f} h")
    return report


def table(report: dict[str, Any]) -> str:
    """One line per detector."""
    lines = [f"ordinary speech {report['speech_hours'] * 60:.0f} min, noise {report['noise_hours'] * 60:.0f} min"]
    for name, d in report["detectors"].items():
        noise = ", ".join(f"{k} {v}" for k, v in d["false_accepts_on_noise"].items())
        lines.append(
            f"{name:28} misses {d['miss_rate']:5.1%} of {d['said']:3}   false accepts "
            f"{d['false_accepts_per_hour_speech']:5.1f}/h of speech   on noise: {noise}   RTF {d['rtf']:.4f}"
        )
    return "\n".join(lines)
