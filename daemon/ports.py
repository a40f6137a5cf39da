"""The small interfaces the pipeline drives; engines and hardware implement them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:
    from daemon.skills.call import SkillCall

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
    confidence: float | None = None
    """The recogniser's mean log-probability per token of these words (Whisper's), None where it gives none."""


class SpeechStream(Protocol):
    """One utterance being recognised as audio arrives."""

    def feed(self, pcm: bytes) -> str | None:
        """Take 16 kHz mono int16 audio; return the partial transcript when it changed."""
        ...

    def settle(self, final: bool = False) -> str:
        """The transcript of everything fed so far, brought up to date now (the user paused); `final`: as the
        final transcript would hear it (slower, for a recogniser with a final pass)."""
        ...

    def finish(self) -> Transcript:
        """End the utterance and return its final transcript."""
        ...


class Recogniser(Protocol):
    """Hears a whole utterance at once (a second pass over what a streaming recogniser heard)."""

    @property
    def engine(self) -> str:
        """Which recogniser this is, for reports."""
        ...

    def transcribe(self, pcm: bytes) -> Transcript:
        """The transcript of one whole utterance of 16 kHz mono int16 audio."""
        ...

    def close(self) -> None:
        """Free the model."""
        ...


class SpeechToText(Protocol):
    """A streaming recogniser."""

    @property
    def engine(self) -> str:
        """Which recogniser this is ("vosk", "pocketsphinx"), for reports."""
        ...

    @property
    def punctuates(self) -> bool:
        """True when its transcripts end sentences with "?" and "." (a finished question can be told by them)."""
        ...

    def stream(self) -> SpeechStream:
        """Start a new utterance."""
        ...

    def close(self) -> None:
        """Free the model."""
        ...


@dataclass(frozen=True)
class Exchange:
    """One question and the answer the user actually heard."""

    question: str
    answer: str


@dataclass(frozen=True)
class FittedQuestion:
    """A question as the model will take it."""

    text: str
    tokens: int
    """Tokens the question had."""
    kept_tokens: int
    """Tokens of it that are kept (fewer than `tokens` when it was too long)."""

    @property
    def cut(self) -> bool:
        """True when only the beginning of the question is answered."""
        return self.kept_tokens < self.tokens


@dataclass
class GenerationStats:
    """Timings of the last answer."""

    prompt_tokens: int = 0
    """Tokens in the prompt, including remembered turns."""
    evaluated_tokens: int = 0
    """Prompt tokens actually evaluated (the rest came from the KV cache)."""
    prompt_s: float = 0.0
    """Seconds from the request to the first generated token."""
    answer_tokens: int = 0
    decode_s: float = 0.0
    """Seconds spent generating after the first token."""
    dropped_turns: int = 0
    """Old exchanges forgotten to make this prompt fit."""
    cancelled: bool = False
    reference: str = ""
    """The encyclopedia article a passage was read from into the prompt ("" if none was)."""
    token_logprobs: list[float] = field(default_factory=list)
    """The natural log of the chance the model gave each answer token it chose, in order."""
    hedged: bool = False
    """The answer ended by saying the model was unsure of it (daemon/engines/doubt.py)."""
    apology_chance: float = 0.0
    """The chance the model gave opening with an apology, before its first word (daemon/engines/doubt.py)."""
    apologised: bool = False
    """The answer was made to open with the apology the model considered (daemon/engines/doubt.py)."""
    cut: bool = False
    """The answer reached llm.max_answer_tokens: its unfinished last sentence is neither said nor remembered."""

    @property
    def decode_tokens_per_s(self) -> float:
        """Generation speed after the first token."""
        return (self.answer_tokens - 1) / self.decode_s if self.answer_tokens > 1 and self.decode_s else 0.0

    @property
    def prompt_tokens_per_s(self) -> float:
        """Prompt evaluation speed."""
        return self.evaluated_tokens / self.prompt_s if self.prompt_s else 0.0


class LanguageModel(Protocol):
    """Turns a question into a streamed answer, within the conversation it was given (see ConversationMemory)."""

    @property
    def model_name(self) -> str:
        """The model's file name, for logs and status."""
        ...

    @property
    def model_path(self) -> Path:
        """Where the model's file is."""
        ...

    @property
    def threads(self) -> tuple[int, int]:
        """Threads used to decode and to evaluate the prompt."""
        ...

    @property
    def stats(self) -> GenerationStats:
        """Timings of the last answer."""
        ...

    def fit_question(self, question: str) -> FittedQuestion:
        """The question as the model will take it: whitespace collapsed, cut to the longest question it takes."""
        ...

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        """Yield the answer's text piece by piece (and remember the exchange); stops within one token of `cancel`."""
        ...

    def warm_up(self, progress: Callable[[float], None] | None = None) -> None:
        """Evaluate the system prompt now, so the next question only pays for its own tokens; `progress` is told the
        share read as it goes."""
        ...

    def prefill(self, question: str, give_way: bool = False) -> float:
        """Evaluate the prompt up to the end of `question` (words heard so far) into the cache, so the answer only
        pays for what changes; returns the model's probability that the user's turn ends there. `give_way`: stop
        early (returning 0.0) for another prefill's words waiting for the model."""
        ...

    def surprise(self, question: str) -> float | None:
        """The model's mean log-probability per token of `question`'s words where they would be asked now (misheard
        words read as unlikely); None if it cannot tell without waiting for an answer being generated."""
        ...

    def read_history(self) -> Future[None]:
        """Evaluate the conversation so far into the cache in the background (after a skill's exchange was
        remembered), so that the next question pays only for its own words; gives way to a question's words and to
        an answer (which reads the rest). Done when it has read or given way."""
        ...

    def constrained(self, instruction: str, grammar: str, max_tokens: int) -> str:
        """The model's greedy reply to `instruction`, held to a GBNF `grammar`; nothing is remembered."""
        ...

    def cool_down(self) -> None:
        """Drop everything evaluated, the system prompt too (measures what warm_up saves)."""
        ...

    def close(self) -> None:
        """Free the model."""
        ...


class ConversationMemory(Protocol):
    """What the box remembers of the conversation; any thread may use it."""

    def forget(self) -> None:
        """Drop the conversation history."""
        ...

    def truncate_answer(self, question: str, spoken: str) -> None:
        """Remember only `spoken` of the latest answer to `question` (the user interrupted the rest)."""
        ...

    def retract(self, question: str) -> None:
        """Forget the latest exchange that answered `question` (an early answer nobody heard)."""
        ...

    def remembered(self) -> tuple[Exchange, ...]:
        """The conversation, oldest exchange first."""
        ...

    def remember(self, exchanges: tuple[Exchange, ...]) -> None:
        """Put exchanges back into the conversation (after a restart)."""
        ...


class TextToSpeech(Protocol):
    """A voice."""

    pace: float
    """How slowly it speaks relative to its configured pace: 1.0 as configured, above 1 slower (the user may ask)."""

    @property
    def sample_rate_hz(self) -> int:
        """Rate of the audio it produces."""
        ...

    def synthesize(self, text: str) -> Iterator[bytes]:
        """Yield mono int16 audio chunks for `text`, one or more per sentence."""
        ...

    def keep(self, text: str) -> None:
        """Synthesize `text` now and keep it, so that it sounds at once whenever it is said."""
        ...

    def close(self) -> None:
        """Free the voice."""
        ...


class VoiceActivityDetector(Protocol):
    """Tells speech from silence and noise."""

    frame_bytes: int
    """Size of one frame it judges (16 kHz mono int16)."""

    def is_speech(self, frame: bytes) -> bool:
        """True if the frame holds voice."""
        ...

    def reset(self) -> None:
        """Forget the frames before (a new utterance begins)."""
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

    def close(self) -> None:
        """Stop playing and release the device (or finish the file)."""
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

    def close(self) -> None:
        """Free the model."""
        ...


class RequestReader(Protocol):
    """Reads what no template matched by its meaning."""

    def route(self, text: str) -> SkillCall | None:
        """The skill call `text` means (with `read_as`, the sentence it was read as), or None."""
        ...

    def close(self) -> None:
        """Free the model."""
        ...


@dataclass(frozen=True)
class Engines:
    """Everything the turn drives, behind its ports."""

    stt: SpeechToText
    llm: LanguageModel
    memory: ConversationMemory
    """The conversation `llm` answers within."""
    tts: TextToSpeech
    vad: VoiceActivityDetector
    wake: WakeWordDetector | None
    meaning: RequestReader | None = None
    """Reads a request no template matched by meaning (None: templates alone)."""

    def close(self) -> None:
        """Free every engine's model."""
        for engine in (self.wake, self.tts, self.stt, self.llm, self.meaning):
            if engine is not None:
                engine.close()
