"""Voice activity detection: WebRTC's VAD (webrtcvad-wheels), with a spectral-flatness noise gate."""

from __future__ import annotations

from typing import Final

import numpy as np

from daemon.ports import AUDIO_RATE_HZ

FRAME_S: Final = 0.03
MAX_FLATNESS: Final = 0.3
"""Frames flatter than this are noise, whatever WebRTC's VAD says.

Measured on 30 ms frames: white noise 0.54-0.56, the dev voice's speech 0.001-0.005 (median).
"""
_WINDOW: Final = np.hanning(int(AUDIO_RATE_HZ * FRAME_S)).astype(np.float32)


def spectral_flatness(frame: np.ndarray) -> float:
    """Geometric over arithmetic mean of the power spectrum: ~0 for tones and voice, ~0.56 for white noise."""
    power = np.abs(np.fft.rfft(frame.astype(np.float32) * _WINDOW[: len(frame)])) ** 2 + 1e-10
    return float(np.exp(np.mean(np.log(power))) / np.mean(power))


class WebRtcVad:
    """Judges 30 ms frames of 16 kHz mono int16 audio."""

    frame_bytes = int(AUDIO_RATE_HZ * FRAME_S) * 2

    def __init__(self, aggressiveness: int = 2) -> None:
        import webrtcvad

        self._vad = webrtcvad.Vad(aggressiveness)

    def is_speech(self, frame: bytes) -> bool:
        """True if the frame holds voice: WebRTC says so and it is not broadband noise."""
        if not self._vad.is_speech(frame, AUDIO_RATE_HZ):
            return False
        # NOTE: WebRTC's VAD calls steady broadband noise (fans, hiss) speech; PocketSphinx then
        # "hears" words in it. Voice is far from spectrally flat; noise is nearly flat.
        return spectral_flatness(np.frombuffer(frame, np.int16)) < MAX_FLATNESS
