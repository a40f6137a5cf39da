"""Answering early: an answer begun at a pause, before the question is known to be over, silent until it is kept.

The model's answer, or a skill's reply to a request that only answers ("what time is it"): never one that acts.

At most one runs at a time. It is kept when the question turns out to be the words it was begun on, and dropped,
unheard and taken out of the conversation, when the user goes on or the final transcript says other words.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass

from daemon.engines.heard_words import bare
from daemon.events import AnswerDropped, AnswerKept, AnswerStartedEarly, Event
from daemon.ports import AudioSink, Engines
from daemon.skills.intents import SkillCall
from daemon.skills.skills import Skills
from daemon.turn.answer import Answer, AnswerResult, first_sentence
from daemon.turn.endpoint import Endpointer
from daemon.turn.ringing import Ring


def same_words(a: str, b: str) -> bool:
    """True when two transcripts say the same words (case and punctuation aside)."""
    return bare(a) == bare(b)


@dataclass
class Running:
    """An answer (begun now or early) or a ring, under way on a worker thread: what the speak stage awaits."""

    voice: Answer | Ring
    done: asyncio.Future[AnswerResult]
    call: SkillCall | None = None
    """The skill that made the reply, if one did."""
    reply: str | None = None
    """That skill's reply."""

    def release(self, asked_at: float, last_word: float) -> None:
        """Let it sound, its latencies measured from when the box had the question (a held answer waits for this)."""
        if isinstance(self.voice, Answer):
            self.voice.keep(asked_at, last_word)


@dataclass
class Early:
    """An answer begun before the question was over."""

    turn: int
    question: str
    running: Running


class EarlyAnswers:
    """Starts, keeps and drops the early answer (on the event loop)."""

    def __init__(
        self,
        engines: Engines,
        sink: AudioSink,
        emit: Callable[[Event], None],
        call: Callable[[Callable[[], None]], None],
        clock: Callable[[], float],
        workers: concurrent.futures.Executor,
        voices: concurrent.futures.Executor,
        skills: Skills | None = None,
    ) -> None:
        self._e, self._sink, self._emit, self._call, self._clock = engines, sink, emit, call, clock
        self._workers, self._voices, self._skills = workers, voices, skills
        self._early: Early | None = None
        self._prepared = ""

    @property
    def running(self) -> bool:
        """True while an early answer waits to be kept or dropped."""
        return self._early is not None

    @property
    def words(self) -> str | None:
        """The words the early answer waiting to be kept or dropped was begun on (None: there is none)."""
        return self._early.question if self._early is not None else None

    def prepare(self, words: str) -> None:
        """Have the voice say the first sentence of the reply to `words` ahead, off the loop, when they are a request
        that only answers, heard well enough: a reply prepared at the pause then sounds at once (the voice keeps
        short sentences)."""
        if self._skills is not None and words.strip():
            self._workers.submit(self._prepare, self._skills, words)

    def _prepare(self, skills: Skills, words: str) -> None:
        # NOTE: the words of a partial are mostly the words at the pause: "It's ten past four." took 0.2 s of
        # synthesis after the pause, the whole wait of a closed "what time is it" beyond the pause itself. Only
        # for words heard well enough to skip the final pass: for the others the voice would share the cores with
        # the final pass and the judge, which the reply waits for anyway.
        call = skills.route(words) if skills.heard_enough(words) else None
        reply = skills.answer(call) if call is not None else None
        sentence = first_sentence(reply.text) if reply is not None else ""
        if sentence and sentence != self._prepared:
            self._prepared = sentence
            self._voices.submit(lambda: sum(len(chunk) for chunk in self._e.tts.synthesize(sentence)))

    def keep(self, replies: tuple[str, ...], idle: Callable[[], bool]) -> None:
        """Have the voice keep the first sentences of `replies` (given word for word), off the loop, while `idle`."""

        def work() -> None:
            for reply in replies:
                if not idle():
                    return  # NOTE: a turn wants the cores; a reply not voiced yet is kept once it is first said
                self._e.tts.keep(first_sentence(reply))

        self._voices.submit(work)

    def start(
        self,
        turn: int,
        words: str,
        endpointer: Endpointer,
        call: SkillCall | None = None,
        reply: str | None = None,
        released: Callable[[], None] = lambda: None,
    ) -> None:
        """Answer `words`, heard up to the endpointer's current pause (with a skill's ready `reply`, if `call` made
        one); the question waits for it to be ready, and `released` is told on the loop when it is."""
        pause = endpointer.pauses

        def release() -> None:
            endpointer.release(pause)
            released()

        def ready() -> None:
            self._call(release)

        e = self._e
        answer = Answer(
            e.llm,
            e.memory,
            e.tts,
            self._sink,
            self._emit,
            turn,
            self._clock(),
            self._clock,
            voices=self._voices,
            held=True,
            on_ready=ready,
        )
        endpointer.hold(pause)
        done = asyncio.get_running_loop().run_in_executor(self._workers, answer.run, words, reply)
        self._early = Early(turn, words, Running(answer, done, call, reply))
        self._emit(AnswerStartedEarly(turn=turn, question=words))

    async def take(self, turn: int, heard: str) -> Running | None:
        """The early answer, if it answers `heard` (kept); otherwise it is dropped, and out of the conversation."""
        early, self._early = self._early, None
        if early is not None and early.turn == turn and same_words(early.question, heard):
            self._emit(AnswerKept(turn=turn))
            return early.running
        self._early = early
        if (dropped := self.drop()) is not None:
            await asyncio.wait([dropped])  # out of the conversation before the real answer begins
        return None

    def drop(self) -> asyncio.Future[AnswerResult] | None:
        """Stop the early answer nobody heard and take it out of the conversation; its end, to await."""
        early, self._early = self._early, None
        if early is None:
            return None
        early.running.voice.cancel()
        memory = self._e.memory

        def retract(done: asyncio.Future[AnswerResult]) -> None:
            if done.cancelled() or done.exception() is not None or done.result().text:
                memory.retract(early.question)  # it may have remembered something; an empty answer did not

        if early.running.call is None:  # NOTE: a skill's reply is remembered by its turn only, once it is heard
            early.running.done.add_done_callback(retract)
        self._emit(AnswerDropped(turn=early.turn, question=early.question))
        return early.running.done
