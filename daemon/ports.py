"""The small interfaces the pipeline drives; engines and hardware implement them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final, Protocol

AUDIO_RATE_HZ: Final = 16000
"""The box's internal audio: 16 kHz, mono, signed 16-bit little-endian PCM."""


@dataclass(frozen=True)
class Word:
    """One recognised word."""

    text: str
    start_s: float
    """Seconds from the start of the utterance."""
    end_s: float
    """Seconds from the start of the utterance."""
    confidence: float
    """0..1."""


@dataclass(frozen=True)
class Transcript:
    """The final result of one utterance."""

    text: str
    words: tuple[Word, ...] = ()


class SpeechStream(Protocol):
    """One utterance being recognised as audio arrives."""

    def feed(self, pcm: bytes) -> str | None:
        """Take 16 kHz mono int16 audio; return the partial transcript when it changed."""
        ...

    def finish(self) -> Transcript:
        """End the utterance and return its final transcript."""
        ...


class SpeechToText(Protocol):
    """A streaming recogniser."""

    def stream(self) -> SpeechStream:
        """Start a new utterance."""
        ...


class Responder(Protocol):
    """Turns a question into a streamed answer, remembering the conversation."""

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        """Yield the answer's text piece by piece; stops within one token once `cancel` is set."""
        ...

    def forget(self) -> None:
        """Drop the conversation history."""
        ...

    def truncate_last_answer(self, spoken: str) -> None:
        """Remember only `spoken` of the last answer (the user interrupted the rest)."""
        ...


class TextToSpeech(Protocol):
    """A voice."""

    @property
    def sample_rate_hz(self) -> int:
        """Rate of the audio it produces."""
        ...

    def synthesize(self, text: str) -> Iterator[bytes]:
        """Yield mono int16 audio chunks for `text`, one or more per sentence."""
        ...


class VoiceActivityDetector(Protocol):
    """Tells speech from silence and noise."""

    frame_bytes: int
    """Size of one frame it judges (16 kHz mono int16)."""

    def is_speech(self, frame: bytes) -> bool:
        """True if the frame holds voice."""
        ...


class AudioSource(Protocol):
    """A microphone: 16 kHz mono int16 audio, paced as it is captured."""

    def frames(self, chunk_s: Callable[[], float] | None = None) -> Iterator[bytes]:
        """Yield audio as it arrives; ends when the source does (a file) or is closed.

        `chunk_s`, asked before every read, is how much audio the consumer wants per chunk (a source may clamp it).
        """
        ...

    def close(self) -> None:
        """Stop capturing; `frames` ends soon after."""
        ...


class AudioDemand(Protocol):
    """What the microphone's consumer wants from it now; asked on the thread that reads the microphone."""

    def audio_chunk_s(self) -> float:
        """Seconds of audio to read at a time."""
        ...

    def wants_audio(self) -> bool:
        """False while the audio would be thrown away anyway: the reader may drop it where it is."""
        ...

    def audio_dropped(self) -> None:
        """The reader dropped a chunk (it still proves that the microphone delivers)."""
        ...


class AudioSink(Protocol):
    """A speaker with its own playback thread."""

    def play(self, pcm: bytes, rate_hz: int, on_start: Callable[[], None] | None = None) -> None:
        """Queue mono int16 audio; `on_start` runs (on the playback thread) when it begins to sound."""
        ...

    def stop(self) -> float:
        """Silence now and drop everything queued; return the fraction of the interrupted chunk played.

        1.0 when nothing was sounding at that moment.
        """
        ...

    def wait(self, timeout: float | None = None) -> bool:
        """Block until everything queued has played; False on timeout."""
        ...


class WakeWordDetector(Protocol):
    """Listens for one wake phrase."""

    @property
    def phrase(self) -> str:
        """What the user says, e.g. "Hey Jarvis"."""
        ...

    def process(self, pcm: bytes) -> bool:
        """Take 16 kHz mono int16 audio; True once the phrase was heard."""
        ...

    def reset(self) -> None:
        """Forget what was heard so far (after a detection or a turn)."""
        ...
