"""One spoken answer: LLM tokens -> sentences -> TTS -> speaker, all overlapped, stoppable at once."""

from __future__ import annotations

import concurrent.futures
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from daemon.engines.heap import return_freed_memory
from daemon.events import (
    AnswerFinished,
    Event,
    QuestionCut,
    SentenceReady,
    SentenceSpoken,
    SpeakingStarted,
    TokenGenerated,
)
from daemon.ports import AudioSink, ConversationMemory, GenerationStats, LanguageModel, TextToSpeech
from daemon.turn.sentences import SentenceSplitter
from daemon.turn.speakable import speakable

_LOGGER = logging.getLogger(__name__)

LEAD_MIN_S: Final = 1.0
"""The next sentence is synthesized once the audio still to play falls to this lead (plus its expected cost)."""
LEAD_SAFETY: Final = 2.0
"""The lead also covers this many times the next sentence's expected synthesis time, so playback has no gap."""


@dataclass(frozen=True)
class AnswerResult:
    """What was generated and what the user actually heard."""

    text: str
    spoken: str
    interrupted: bool


def first_sentence(reply: str) -> str:
    """What the voice says first of a whole reply, as an answer speaks it ("" for nothing to say)."""
    splitter = SentenceSplitter()
    for sentence in [*splitter.feed(reply), splitter.flush()]:
        if spoken := speakable(sentence):
            return spoken
    return ""


class Answer:
    """Answers one question, spoken or as text only; `cancel()` from any thread stops generation and sound."""

    def __init__(
        self,
        llm: LanguageModel,
        memory: ConversationMemory,
        tts: TextToSpeech,
        sink: AudioSink,
        emit: Callable[[Event], None],
        turn: int,
        end_of_speech: float,
        clock: Callable[[], float] = time.monotonic,
        *,
        voices: concurrent.futures.Executor,
        speak: bool = True,
        on_piece: Callable[[str], None] | None = None,
        abandoned: threading.Event | None = None,
        last_word: float = 0.0,
        held: bool = False,
        on_ready: Callable[[], None] | None = None,
    ) -> None:
        self._llm, self._memory, self._tts, self._sink = llm, memory, tts, sink
        self._emit, self._turn = self._hold_or_emit, turn
        self._out = emit
        self._held: list[Event] | None = [] if held else None  # a speculative answer's events, until it is kept
        self._gate = threading.Event()  # the speaker may sound it
        if not held:
            self._gate.set()
        self._on_ready = on_ready  # a held answer's first sound is ready (or it has none): once, from the voice thread
        self.turn = turn
        self._end_of_speech, self._clock, self._last_word = end_of_speech, clock, last_word
        self._speak, self._on_piece, self._abandoned = speak, on_piece, abandoned
        self._voices = voices  # long-lived: a thread per answer left glibc an arena of freed pages each time
        self._cancel = threading.Event()
        self._sentences: queue.Queue[tuple[int, str] | None] = queue.Queue()
        self._started: dict[int, str] = {}  # sentences that began to sound, by index
        self._lock = threading.Lock()
        self.cancelled_at = 0.0
        self.silenced_at = 0.0
        self._fraction = 1.0
        self._silenced = threading.Event()
        self._unstarted_s = 0.0  # audio handed to the sink that has not begun to sound, seconds
        self._sounding_until = 0.0  # when the chunk sounding now ends (clock seconds)
        self._synth_s_per_char = 0.0  # the slowest synthesis so far in this answer
        self._reply: str | None = None

    def _hold_or_emit(self, event: Event) -> None:
        with self._lock:
            if self._held is not None:
                self._held.append(event)
                return
        self._out(event)

    def keep(self, end_of_speech: float, last_word: float) -> None:
        """A speculative answer turned out to answer the final question: publish what it did so far, let it sound.

        Latencies are then measured from the real end of speech and last word.
        """
        self._end_of_speech, self._last_word = end_of_speech, last_word
        with self._lock:  # in order: an event the answer emits meanwhile waits for the lock, then follows these
            for event in self._held or []:
                self._out(event)
            self._held = None
        self._gate.set()

    def cancel(self) -> None:
        """Stop now: no more tokens, no more synthesis, and the speaker goes quiet within one block."""
        self.cancelled_at = self._clock()
        with self._lock:  # no chunk can be queued for the speaker after this
            self._cancel.set()
        if self._speak:
            self._fraction = self._sink.stop()
        self.silenced_at = self._clock()
        self._silenced.set()

    @property
    def cancelled(self) -> bool:
        """True once the answer was stopped before its end."""
        return self._cancel.is_set()

    def run(self, question: str, reply: str | None = None) -> AnswerResult:
        """Generate (and speak); block until the speaker is quiet or the answer was cancelled. On a worker thread.

        `reply` is a ready answer (a skill's): it is streamed and spoken like the model's, and the model not asked.
        """
        try:
            return self._run(question, reply)
        finally:
            self._ready()  # whatever happened, nobody waits on this answer any more

    def _run(self, question: str, reply: str | None) -> AnswerResult:
        self._reply = reply
        if reply is None:
            fitted = self._llm.fit_question(question)
            if fitted.cut:
                self._emit(QuestionCut(turn=self._turn, tokens=fitted.tokens, kept_tokens=fitted.kept_tokens))
            question = fitted.text
        if not self._speak:
            text = self._generate(question)
            return AnswerResult(text=text, spoken="", interrupted=self._cancel.is_set())
        voice = self._voices.submit(self._speak_sentences)
        try:
            text = self._generate(question)
        except BaseException:
            self.cancel()  # a failed answer is not left half spoken
            raise
        finally:
            self._sentences.put(None)
            voice.result()
        if not self._cancel.is_set():
            self._sink.wait()
        interrupted = self._cancel.is_set()
        if interrupted:
            self._silenced.wait(timeout=2.0)  # cancel() is still measuring what was heard
        spoken = self._spoken(interrupted)
        if interrupted and reply is None:
            self._memory.truncate_answer(question, spoken)
        # NOTE: the voice allocates in one of glibc's per-thread arenas, which keep the pages an answer freed;
        # trimming them (~1 ms, 0.2-0.8 MB a turn) lowered a 1,000-turn soak's RSS by ~20 MB.
        return_freed_memory()
        return AnswerResult(text=text, spoken=spoken, interrupted=interrupted)

    def _generate(self, question: str) -> str:
        splitter = SentenceSplitter()
        said: list[str] = []
        index = 0
        started = self._clock()
        first = 0.0
        pieces = self._llm.respond(question, self._cancel) if self._reply is None else iter([self._reply])
        for piece in pieces:
            if self._abandoned is not None and self._abandoned.is_set():  # the asker left: nobody reads on
                self.cancel()
                break
            first = first or self._clock()
            said.append(piece)
            self._emit(TokenGenerated(turn=self._turn, text=piece))
            if self._on_piece is not None:
                self._on_piece(piece)
            for sentence in splitter.feed(piece):
                if self._speak:
                    index = self._queue_sentence(index, sentence)
        stats = self._llm.stats if self._reply is None else GenerationStats()
        text = "".join(said).strip()
        rest = splitter.flush()
        if stats.cut and rest:  # the sentence the token limit cut off: not said, not shown as the answer
            text = text.removesuffix(rest).rstrip()
        elif self._speak and not self._cancel.is_set() and rest:
            self._queue_sentence(index, rest)
        self._emit(
            AnswerFinished(
                turn=self._turn,
                text=text,
                tokens=stats.answer_tokens,
                tokens_per_s=round(stats.decode_tokens_per_s, 1),
                prompt_s=round((first or self._clock()) - started, 3),
                prompt_tokens=stats.prompt_tokens,
                evaluated_tokens=stats.evaluated_tokens,
            )
        )
        return text

    def _queue_sentence(self, index: int, sentence: str) -> int:
        spoken = speakable(sentence)
        if not spoken:
            return index
        self._emit(SentenceReady(turn=self._turn, index=index, text=spoken))
        self._sentences.put((index, spoken))
        return index + 1

    def _speak_sentences(self) -> None:
        try:
            self._voice()
        finally:
            self._ready()

    def _ready(self) -> None:
        ready, self._on_ready = self._on_ready, None
        if ready is not None:
            ready()

    def _voice(self) -> None:
        while (item := self._sentences.get()) is not None and not self._cancel.is_set():
            index, sentence = item
            audio = self._tts.synthesize(sentence)
            if not index:
                # NOTE: a speculative answer synthesizes its first sentence, then waits for the word to sound it.
                first = next(audio, None)
                self._ready()
                while not self._gate.wait(timeout=0.05):
                    if self._cancel.is_set():
                        return
                audio = itertools.chain([first] if first is not None else [], audio)
            if index:
                self._pace(sentence)
            started = self._clock()
            for chunk in audio:
                seconds = len(chunk) / 2 / self._tts.sample_rate_hz
                with self._lock:
                    if self._cancel.is_set():
                        break
                    self._unstarted_s += seconds
                    self._sink.play(chunk, self._tts.sample_rate_hz, self._on_start(index, sentence, seconds))
            per_char = (self._clock() - started) / max(1, len(sentence))
            self._synth_s_per_char = max(self._synth_s_per_char, per_char)

    def _pace(self, sentence: str) -> None:
        """Wait until the speaker needs `sentence`: synthesizing it earlier only takes CPU from the LLM."""
        # NOTE: the LLM writes far faster than the voice speaks; synthesizing every sentence at once made
        # the two compete for the cores while the model was still generating. Just in time, the TTS mostly
        # runs after generation has finished: on a loaded 2-core machine in-pipeline decode went from 0.65
        # to 0.98 of bare llama.cpp (median of six alternated runs each).
        lead = LEAD_MIN_S + LEAD_SAFETY * self._synth_s_per_char * len(sentence)
        while not self._cancel.is_set():
            with self._lock:
                ahead = self._unstarted_s + max(0.0, self._sounding_until - self._clock())
            if ahead <= lead or self._sink.wait(timeout=min(ahead - lead, 0.1)):
                return  # a sink that is already idle (not real-time, or stopped) needs it now

    def _on_start(self, index: int, sentence: str, seconds: float) -> Callable[[], None]:
        def started() -> None:
            with self._lock:
                first, new = not self._started, index not in self._started
                self._started[index] = sentence
                self._unstarted_s -= seconds
                self._sounding_until = self._clock() + seconds
            if first:
                now = self._clock()
                since_word = round(now - self._last_word, 3) if self._last_word else 0.0
                self._emit(
                    SpeakingStarted(
                        turn=self._turn, latency_s=round(now - self._end_of_speech, 3), since_last_word_s=since_word
                    )
                )
            if new:  # Piper may cut one of our sentences into several chunks
                self._emit(SentenceSpoken(turn=self._turn, index=index, text=sentence, duration_s=round(seconds, 3)))

        return started

    def _spoken(self, interrupted: bool) -> str:
        """Whole sentences that finished playing, plus the heard share of the one that was cut."""
        with self._lock:
            started = [self._started[i] for i in sorted(self._started)]
        if not interrupted or not started:
            return " ".join(started)
        words = started[-1].split()
        heard = words[: int(len(words) * self._fraction)]
        return " ".join([*started[:-1], *([" ".join(heard)] if heard else [])])
