"""Short tones that tell the user what the box is doing without words."""

from __future__ import annotations

import functools

import numpy as np


def _tone(freqs_hz: list[float], rate_hz: int, each_s: float = 0.09, volume: float = 0.25) -> bytes:
    parts = []
    for f in freqs_hz:
        t = np.arange(int(rate_hz * each_s)) / rate_hz
        envelope = np.minimum(1.0, np.minimum(t, t[::-1]) / 0.01)  # 10 ms fades: no clicks
        parts.append(np.sin(2 * np.pi * f * t) * envelope * volume)
    return (np.concatenate(parts) * 32767).astype(np.int16).tobytes()


def listening(rate_hz: int) -> bytes:
    """A rising two-note chime: "I am listening"."""
    return _tone([660.0, 880.0], rate_hz)


def gave_up(rate_hz: int) -> bytes:
    """A falling two-note chime: "I heard nothing, going back to sleep"."""
    return _tone([660.0, 440.0], rate_hz)


@functools.cache  # rung again and again: made once per rate
def ringing(rate_hz: int) -> bytes:
    """Three bright notes and a rest, repeated while a timer or an alarm rings."""
    rest = np.zeros(int(rate_hz * 0.5), dtype=np.int16).tobytes()
    return _tone([988.0, 1319.0, 988.0, 1319.0], rate_hz, each_s=0.12, volume=0.35) + rest
