"""Small in-process engines that honour the ports, for the fast test tier only: scripted, instant, no model loaded.

They stand in for the real engines where a test is about the turn logic (the keeper, the assembly, the channels),
so that logic is tested in milliseconds. They never replace the real-engine tier: the default suite still drives
every real engine (tests/conftest.py). Each class says in its name and docstring that it is a stand-in.

The audio they understand is plain: `voice(words)` is a loud tone (speech to the energy VAD, `words` words to the
recogniser), `silence(seconds)` is zeros, and `wake_marker()` is one frame of a constant sample that the marker wake
detector takes for the wake phrase.
"""

from __future__ import annotations

import collections
import concurrent.futures
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from daemon.engines.history import Conversation, whole_sentences
from daemon.ports import (
    AUDIO_RATE_HZ,
    ConversationMemory,
    Engines,
    FittedQuestion,
    GenerationStats,
    LanguageModel,
    SpeechStream,
    SpeechToText,
    TextToSpeech,
    Transcript,
    VoiceActivityDetector,
    WakeWordDetector,
)

Int16Array = npt.NDArray[np.int16]

FRAME_SAMPLES: Final = 480
"""One 30 ms frame at 16 kHz: the stand-in VAD's frame, and the test microphone's (tests/mic.py)."""
WORD_S: Final = 0.09
"""Seconds of voice the stand-in recogniser hears as one word (three frames)."""
VOICE_LEVEL: Final = 8000
"""Peak of the tone `voice()` makes (int16)."""
SPEECH_RMS: Final = 1000.0
"""The stand-in VAD's threshold: a frame louder than this (RMS, int16) is speech."""
WAKE_SAMPLE: Final = 12345
"""The wake marker: a frame of this constant sample is the wake phrase to the stand-in wake detector."""
TONE_HZ: Final = 440.0


# -- audio the stand-ins understand ------------------------------------------------------------------------


def silence(seconds: float) -> Int16Array:
    """`seconds` of digital silence, whole frames."""
    return np.zeros(_frames(seconds) * FRAME_SAMPLES, np.int16)


def voice(words: int) -> Int16Array:
    """Voice as long as `words` words take the stand-in recogniser to hear: a steady tone, whole frames."""
    samples = np.arange(_frames(words * WORD_S) * FRAME_SAMPLES)
    return (np.sin(2 * np.pi * TONE_HZ * samples / AUDIO_RATE_HZ) * VOICE_LEVEL).astype(np.int16)


def wake_marker() -> Int16Array:
    """One frame the stand-in wake detector takes for the wake phrase."""
    return np.full(FRAME_SAMPLES, WAKE_SAMPLE, np.int16)


def _frames(seconds: float) -> int:
    return round(seconds * AUDIO_RATE_HZ / FRAME_SAMPLES)


def voiced_s(pcm: bytes) -> float:
    """Seconds of `pcm` in frames the stand-in VAD would call speech."""
    samples = np.frombuffer(pcm, np.int16)
    whole = len(samples) // FRAME_SAMPLES * FRAME_SAMPLES
    frames = samples[:whole].astype(np.float32).reshape(-1, FRAME_SAMPLES)
    loud = np.sqrt(np.mean(frames**2, axis=1)) > SPEECH_RMS
    return float(np.count_nonzero(loud)) * FRAME_SAMPLES / AUDIO_RATE_HZ


# -- the language model -------------------------------------------------------------------------------------


class ScriptedModel:
    """A LanguageModel stand-in for the fast tier: answers from a script (or echoes), one word at a time.

    `word_s`: seconds each word takes (0: instant), for an answer that must still be under way when a test acts.
    """

    def __init__(
        self,
        conversation: Conversation | None = None,
        answers: Mapping[str, str] | None = None,
        *,
        p_end: float = 0.5,
        tool_lines: Mapping[str, str] | None = None,
        max_question_words: int = 64,
        word_s: float = 0.0,
        unlikely: Iterable[str] = (),
        max_answer_words: int | None = None,
    ) -> None:
        self.conversation = conversation if conversation is not None else Conversation()
        """What is remembered; the box's ConversationMemory."""
        self.answers = dict(answers or {})
        """Question -> answer; any other question is echoed ("You said: ...")."""
        self.tool_lines = dict(tool_lines or {})
        """Request -> the grammar line `constrained` gives for it; any other request gets "none"."""
        self._p_end, self._max_words, self._word_s = p_end, max_question_words, word_s
        self._stats = GenerationStats()
        self._lock = threading.Lock()  # one generation at a time, as one model context allows
        self.asked: list[str] = []
        """Every question `respond` was given, in order."""
        self.prefilled: list[str] = []
        """Every text `prefill` was given, in order."""
        self.histories_read = 0
        """How many times the conversation was read ahead."""
        self.tool_requests: list[str] = []
        """Every request `constrained` was asked to turn into a tool call, in order."""
        self.unlikely = set(unlikely)
        """Questions whose words it finds as unlikely as misheard ones (-9 per token; any other -1)."""
        self._max_answer_words = max_answer_words
        """An answer stops after this many words, as the real one at llm.max_answer_tokens (None: never)."""

    @property
    def model_name(self) -> str:
        """A name that says it is no model."""
        return "scripted-model"

    @property
    def model_path(self) -> Path:
        """No file: the script is the model."""
        return Path("scripted-model.gguf")

    @property
    def threads(self) -> tuple[int, int]:
        """It runs on the caller's thread."""
        return (1, 1)

    @property
    def stats(self) -> GenerationStats:
        """Counts of the last answer (a word is a token)."""
        return self._stats

    def answer_to(self, question: str) -> str:
        """What it will say to `question`."""
        return self.answers.get(question, f"You said: {question}")

    def fit_question(self, question: str) -> FittedQuestion:
        """Whitespace collapsed; cut to `max_question_words` words (a word is a token)."""
        words = question.split()
        kept = words[: self._max_words]
        return FittedQuestion(" ".join(kept), len(words), len(kept))

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        """Yield the scripted answer word by word; stop at `cancel`; remember what was said, as the real one does."""
        with self._lock:
            question = self.fit_question(question).text
            if not question:
                return
            self.asked.append(question)
            stats = self._stats = GenerationStats(prompt_tokens=len(question.split()))
            cancel = cancel if cancel is not None else threading.Event()
            said: list[str] = []
            try:
                for i, word in enumerate(self.answer_to(question).split()):
                    if cancel.wait(self._word_s) if self._word_s else cancel.is_set():
                        stats.cancelled = True
                        break
                    piece = word if i == 0 else f" {word}"
                    said.append(piece)
                    stats.answer_tokens += 1
                    yield piece
                    if stats.answer_tokens == self._max_answer_words:
                        stats.cut = True
                        break
            finally:
                text = "".join(said).strip()
                if text := whole_sentences(text) if stats.cut else text:
                    self.conversation.add(question, text)

    def warm_up(self, progress: Callable[[float], None] | None = None) -> None:
        """Nothing to evaluate: all of it read at once."""
        if progress is not None:
            progress(1.0)

    def prefill(self, question: str, give_way: bool = False) -> float:
        """Note the words; the fixed probability that the turn ends there."""
        self.prefilled.append(question)
        return self._p_end

    def surprise(self, question: str) -> float | None:
        """-9 per token for the questions it finds unlikely, -1 for any other; None for words never prefilled while
        it answers (the real one cannot score them without waiting for the answer)."""
        question = " ".join(question.split())
        if question not in self.prefilled and self._lock.locked():
            return None
        return -9.0 if question in self.unlikely else -1.0

    def read_history(self) -> concurrent.futures.Future[None]:
        """Note that the conversation would be read now; done at once."""
        self.histories_read += 1
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        done.set_result(None)
        return done

    def constrained(self, instruction: str, grammar: str, max_tokens: int) -> str:
        """The scripted tool line for the request the instruction ends with ("none" for any other)."""
        last = instruction.strip().splitlines()[-1]
        request = re.sub(r"^Request:\s*|\s*->$", "", last).strip()
        self.tool_requests.append(request)
        return self.tool_lines.get(request, "none")

    def cool_down(self) -> None:
        """Nothing was evaluated."""

    def close(self) -> None:
        """Nothing to free."""


# -- the voice ----------------------------------------------------------------------------------------------


class ToneVoice:
    """A TextToSpeech stand-in for the fast tier: one short tone per sentence, as long as its text."""

    def __init__(self, s_per_char: float = 0.002, sample_rate_hz: int = AUDIO_RATE_HZ) -> None:
        self._s_per_char, self._rate = s_per_char, sample_rate_hz
        self.said: list[str] = []
        """Every text synthesized, in order."""
        self.kept: list[str] = []
        """Every text it was asked to keep (voiced ahead), in order."""
        self.pace = 1.0
        """Its tones last `pace` times as long."""

    @property
    def sample_rate_hz(self) -> int:
        """Rate of its tones."""
        return self._rate

    def synthesize(self, text: str) -> Iterator[bytes]:
        """One tone of `s_per_char` seconds a character."""
        self.said.append(text)
        samples = np.arange(max(1, int(len(text) * self._s_per_char * self.pace * self._rate)))
        yield (np.sin(2 * np.pi * TONE_HZ * samples / self._rate) * 3000).astype(np.int16).tobytes()

    def keep(self, text: str) -> None:
        """Noted: a tone costs nothing to make again."""
        self.kept.append(text)

    def close(self) -> None:
        """Nothing to free."""


# -- hearing ------------------------------------------------------------------------------------------------


class ScriptedRecogniser:
    """A SpeechToText stand-in for the fast tier: each utterance with voice in it is heard as the next transcript."""

    def __init__(self, transcripts: Iterable[str] = (), *, punctuates: bool = False) -> None:
        self._transcripts = collections.deque(transcripts)
        self._lock = threading.Lock()
        self._punctuates = punctuates
        self.streams = 0
        """Utterances begun."""
        self.confidence: float | None = None
        """The confidence every final transcript is heard with (None: it gives none, as PocketSphinx)."""
        self.finals: dict[str, str] = {}
        """A transcript's words as the final pass writes them, where it writes them otherwise ("." for "?")."""

    @property
    def engine(self) -> str:
        """A name that says it is no recogniser."""
        return "scripted"

    @property
    def punctuates(self) -> bool:
        """As told: whether its transcripts end sentences with "?" and "."."""
        return self._punctuates

    def will_hear(self, *transcripts: str) -> None:
        """Script what the next utterances with voice in them say."""
        with self._lock:
            self._transcripts.extend(transcripts)

    def next_transcript(self) -> str:
        """The next scripted transcript ("" once the script is used up)."""
        with self._lock:
            return self._transcripts.popleft() if self._transcripts else ""

    def stream(self) -> SpeechStream:
        """Start an utterance."""
        self.streams += 1
        return ScriptedStream(self)

    def close(self) -> None:
        """Nothing to free."""


class ScriptedStream:
    """One utterance to the scripted recogniser: its words come one per `WORD_S` of voice fed."""

    def __init__(self, recogniser: ScriptedRecogniser) -> None:
        self._recogniser = recogniser
        self._text: str | None = None  # taken at the first voice
        self._voiced_s = 0.0
        self._partial = ""

    def feed(self, pcm: bytes) -> str | None:
        """Count the voice; the words heard so far when they changed."""
        voiced = voiced_s(pcm)
        if voiced and self._text is None:
            self._text = self._recogniser.next_transcript()
        self._voiced_s += voiced
        partial = self.settle()
        if partial == self._partial:
            return None
        self._partial = partial
        return partial

    def settle(self, final: bool = False) -> str:
        """The words the voice so far has carried (the whole transcript once all of them were heard)."""
        if self._text is None:
            return ""
        words = self._text.split()
        heard = min(len(words), int(self._voiced_s / WORD_S + 1e-6))
        return self._text if heard == len(words) else " ".join(words[:heard])

    def finish(self) -> Transcript:
        """The scripted transcript if any voice was heard, else nothing."""
        text = self._text or ""
        return Transcript(self._recogniser.finals.get(text, text), confidence=self._recogniser.confidence)


class EnergyVad:
    """A VoiceActivityDetector stand-in for the fast tier: a frame louder than a threshold is speech."""

    def __init__(self, threshold_rms: float = SPEECH_RMS, frame_bytes: int = 2 * FRAME_SAMPLES) -> None:
        self.frame_bytes = frame_bytes
        self._threshold = threshold_rms
        self.resets = 0

    def is_speech(self, frame: bytes) -> bool:
        """True if the frame's RMS is above the threshold."""
        samples = np.frombuffer(frame, np.int16).astype(np.float32)
        return bool(samples.size) and float(np.sqrt(np.mean(samples**2))) > self._threshold

    def reset(self) -> None:
        """It keeps nothing between frames."""
        self.resets += 1


class MarkerWake:
    """A WakeWordDetector stand-in for the fast tier: fires on the wake marker, or never when `marker` is None."""

    def __init__(self, phrase: str = "Hey Jarvis", marker: int | None = WAKE_SAMPLE) -> None:
        self._phrase, self._marker = phrase, marker

    @property
    def phrase(self) -> str:
        """The phrase the marker stands for."""
        return self._phrase

    def process(self, pcm: bytes) -> bool:
        """True when half a frame or more of `pcm` is the marker sample."""
        if self._marker is None:
            return False
        return int(np.count_nonzero(np.frombuffer(pcm, np.int16) == self._marker)) >= FRAME_SAMPLES // 2

    def reset(self) -> None:
        """It keeps nothing between calls."""

    def close(self) -> None:
        """Nothing to free."""


def stand_in_engines(
    model: ScriptedModel | None = None,
    recogniser: ScriptedRecogniser | None = None,
    voice: ToneVoice | None = None,
    wake: MarkerWake | None = None,
) -> Engines:
    """Every port served by a stand-in (the model's conversation as the memory); the wake marker fires by default."""
    model = model if model is not None else ScriptedModel()
    llm: LanguageModel = model
    memory: ConversationMemory = model.conversation
    stt: SpeechToText = recogniser if recogniser is not None else ScriptedRecogniser()
    tts: TextToSpeech = voice if voice is not None else ToneVoice()
    vad: VoiceActivityDetector = EnergyVad()
    detector: WakeWordDetector = wake if wake is not None else MarkerWake()
    return Engines(stt=stt, llm=llm, memory=memory, tts=tts, vad=vad, wake=detector)
