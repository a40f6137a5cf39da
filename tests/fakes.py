"""In-memory stand-ins for the engine ports, for fast pipeline tests (the real engines are tested too)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np

from daemon.ports import Transcript, Word

RATE_HZ = 16000
WAKE_MARK = 12345
"""A frame starting with this sample value is "the wake word" for FakeWake."""
VOICE_RMS = 1000.0


def voice(seconds: float, freq_hz: float = 220.0) -> np.ndarray:
    """A loud tone standing in for speech (FakeVad and FakeStt hear it as voice)."""
    t = np.arange(int(seconds * RATE_HZ)) / RATE_HZ
    return (np.sin(2 * np.pi * freq_hz * t) * 8000).astype(np.int16)


def wake_word() -> np.ndarray:
    """A frame FakeWake recognises."""
    frame = np.zeros(480, np.int16)
    frame[0] = WAKE_MARK
    return frame


def _rms(pcm: bytes) -> float:
    x = np.frombuffer(pcm, np.int16).astype(np.float32)
    return float(np.sqrt(np.mean(x**2))) if len(x) else 0.0


class FakeVad:
    frame_bytes = 960

    def is_speech(self, frame: bytes) -> bool:
        return _rms(frame) > VOICE_RMS


class FakeWake:
    phrase = "Hey Test"

    def process(self, pcm: bytes) -> bool:
        return bool(np.frombuffer(pcm, np.int16)[0] == WAKE_MARK)

    def reset(self) -> None:
        pass


class FakeStream:
    def __init__(self, text: str) -> None:
        self._text, self._voiced = text, 0.0

    def feed(self, pcm: bytes) -> str | None:
        if _rms(pcm) > VOICE_RMS:
            self._voiced += len(pcm) / 2 / RATE_HZ
            return self._text[: int(self._voiced * 20)]
        return None

    def finish(self) -> Transcript:
        text = self._text if self._voiced > 0.2 else ""
        return Transcript(text, tuple(Word(w, 0.0, 0.1, 1.0) for w in text.split()))


class FakeStt:
    def __init__(self, text: str = "what time is it") -> None:
        self.text = text

    def stream(self) -> FakeStream:
        return FakeStream(self.text)


class FakeResponder:
    """Answers with a fixed text, token by token, honouring cancel."""

    def __init__(self, answer: str = "It is noon. Time for lunch.") -> None:
        self.answer = answer
        self.history: list[tuple[str, str]] = []

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        produced = []
        try:
            for word in self.answer.split(" "):
                if cancel is not None and cancel.is_set():
                    return
                produced.append(word)
                yield word + " "
        finally:
            self.history.append((question, " ".join(produced)))

    def forget(self) -> None:
        self.history.clear()

    def truncate_last_answer(self, spoken: str) -> None:
        self.history[-1] = (self.history[-1][0], spoken)


class FakeTts:
    """0.25 s of tone per word."""

    sample_rate_hz = RATE_HZ

    def synthesize(self, text: str) -> Iterator[bytes]:
        yield voice(0.25 * len(text.split()), 440.0).tobytes()
