"""Turn-keeping: every question, spoken or typed, is one turn, and turns happen one at a time.

idle -> listening (spoken turns) -> responding -> (follow-up listening) -> idle. Typed questions (the serial
link, the control socket) enter at the thinking stage; one that arrives while a turn is under way waits in a
short queue and is answered next, in order. The keeper drives the engines only through `daemon.ports` and
reports everything as events.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import enum
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Final

from daemon.config import ListenConfig
from daemon.errors import TalkboxError
from daemon.events import (
    AnswerKept,
    BargeIn,
    BargeSource,
    EndReason,
    Event,
    EventBus,
    Notice,
    Outcome,
    Ringing,
    SkillCalled,
    SpeakingFinished,
    ThinkingStarted,
    TranscriptReady,
    Trigger,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from daemon.ports import AudioSink, Engines
from daemon.skills.intents import SkillCall
from daemon.skills.skills import Skills
from daemon.turn import earcons
from daemon.turn.answer import Answer, AnswerResult
from daemon.turn.completeness import make_judge
from daemon.turn.early import Early, EarlyAnswers
from daemon.turn.listener import Listener, Utterance
from daemon.turn.ringing import Ring

_LOGGER = logging.getLogger(__name__)

MAX_WAITING: Final = 8
"""Typed questions that may wait for the turn under way; one more is refused as busy."""


class State(enum.Enum):
    """Where the box is in a turn."""

    IDLE = "idle"
    LISTENING = "listening"
    RESPONDING = "responding"


@dataclass(frozen=True)
class TurnResult:
    """How a typed question's turn ended."""

    turn: int
    outcome: Outcome
    answer: str = ""
    """The generated answer (or what was generated before it was stopped)."""
    error: TalkboxError | None = None


@dataclass
class _Typed:
    """A typed question waiting for its turn."""

    text: str
    trigger: Trigger
    speak: bool
    on_piece: Callable[[str], None] | None
    abandoned: threading.Event
    future: concurrent.futures.Future[TurnResult] = field(default_factory=concurrent.futures.Future)


class TurnKeeper:
    """Runs turns from the microphone, the button and typed questions; owns the listener."""

    def __init__(
        self,
        engines: Engines,
        sink: AudioSink,
        config: ListenConfig,
        bus: EventBus,
        *,
        heartbeat: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        skills: Skills | None = None,
        choose_skill: Callable[[str], SkillCall | None] | None = None,
        ring_s: float = 120.0,
    ) -> None:
        self._e, self._sink, self._cfg, self._bus, self._clock = engines, sink, config, bus, clock
        self.skills = skills
        self._choose_skill = choose_skill  # the language model's tool call, when no template matched
        self._ring_s = ring_s
        self.last_answer = ""
        """What the box said last (for "repeat that")."""
        route = skills.route if skills is not None else None
        punctuated = engines.stt.engine == "whisper"  # its "?" and "." say where it hears a sentence end
        self.listener = Listener(
            engines,
            config,
            self.emit,
            on_wake=self._on_wake,
            on_end=self._on_utterance_end,
            heartbeat=heartbeat,
            clock=clock,
            judge=make_judge(engines.responder.prefill, route, punctuated),
            prefill=engines.responder.prefill,
            on_speculate=self._speculate,
            on_resume=self._on_resume,
        )
        self._early = EarlyAnswers(engines, sink, self.emit, self.call, clock)
        self.state = State.IDLE
        self.turn = 0
        """Number of the latest turn (0 before the first)."""
        self._answer: Answer | Ring | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # turns still finishing (an interrupted one may overlap)
        self._waiting: collections.deque[_Typed] = collections.deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._source_ended = False
        self._closing = False
        self.last_barge_in_s = 0.0
        """Seconds from the last barge-in to silence (for benchmarks)."""

    # -- threads and the loop -----------------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        """Publish an event from the loop thread or any worker thread (subscribers run on the loop)."""
        loop = self._loop
        if loop is not None and loop.is_running() and not _on_loop(loop):
            loop.call_soon_threadsafe(self._bus.emit, event)
        else:
            self._bus.emit(event)

    def call(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the loop: the one place other threads (the button, channels, signals) cross into it."""
        loop = self._loop
        if loop is not None and not _on_loop(loop):
            loop.call_soon_threadsafe(fn)
        else:
            fn()

    def start(self) -> None:
        """Bind to the running loop; typed questions are taken from now on."""
        self._loop = asyncio.get_running_loop()
        self._closing = False
        self.listener.start()

    async def hear(self, frames: AsyncIterator[bytes]) -> None:
        """Serve turns from a microphone until it ends; the turn in progress then finishes (may be called again)."""
        self._source_ended = False
        await self.listener.hear(frames)
        self._source_ended = True
        await self._finish_turns()

    async def close(self) -> None:
        """Finish the turn in progress, refuse the questions still waiting, and stop the STT thread."""
        self._closing = True
        if (dropped := self._early.drop()) is not None:
            await asyncio.wait([dropped])
        while self._waiting:
            self._waiting.popleft().future.set_exception(
                TalkboxError("turn-box-stopping", "the box is stopping; the question was not answered")
            )
        await self._finish_turns()
        self.listener.close()

    async def _finish_turns(self) -> None:
        while self._tasks:  # a finishing turn may start the next (a waiting question)
            await asyncio.gather(*self._tasks)

    async def run(self, frames: AsyncIterator[bytes]) -> None:
        """start(), hear() one microphone, close(): a whole run from one source."""
        self.start()
        try:
            await self.hear(frames)
        finally:
            await self.close()

    # -- what the button, the channels and the wake word ask for (on the loop) -------------------------

    @property
    def hearing_speech(self) -> bool:
        """True while the user is speaking a question (any thread may read it)."""
        return self.state is State.LISTENING and self.listener.hearing_speech

    @property
    def push_to_talk(self) -> bool:
        """True while the question being heard ends when the button comes up."""
        return self.state is State.LISTENING and self.listener.push_to_talk

    def until_silence(self) -> None:
        """Let the pause, not the button, end the question being heard (the button was only tapped)."""
        self.listener.until_silence()

    def listen(self, trigger: Trigger, push_to_talk: bool = False, timeout_s: float = 0.0) -> bool:
        """Start a spoken turn if the box is idle; True if it started."""
        if self.state is not State.IDLE or self._closing:
            return False
        self.turn += 1
        self.state = State.LISTENING
        self.emit(TurnStarted(turn=self.turn, trigger=trigger))
        if self._cfg.chime and trigger is not Trigger.FOLLOW_UP:
            self._sink.play(earcons.listening(self._e.tts.sample_rate_hz), self._e.tts.sample_rate_hz)
        self.listener.open(self.turn, push_to_talk=push_to_talk, timeout_s=timeout_s)
        return True

    def end_listening(self, reason: EndReason) -> None:
        """End the question being heard now (the button came up)."""
        if self.state is State.LISTENING:
            self.listener.end(reason)

    def barge_in(self, source: BargeSource, then_listen: bool = False) -> None:
        """Stop the answer now; `then_listen` starts a new spoken turn at once (the wake word)."""
        if self.state is not State.RESPONDING:
            return
        answer = self._answer
        self.emit(BargeIn(turn=self.turn, source=source))
        self.state = State.IDLE  # the finishing task must not open a follow-up window
        if answer is not None:
            answer.cancel()
            self.last_barge_in_s = answer.silenced_at - answer.cancelled_at
        else:
            self._sink.stop()
        if then_listen:
            self.listen(Trigger.WAKE_WORD if source is BargeSource.WAKE_WORD else Trigger.BUTTON)
        else:
            self._next_waiting()

    def stop_speaking(self) -> None:
        """Cut the answer under way, if any (call from any thread)."""
        self.call(lambda: self.barge_in(BargeSource.STOP))

    def forget(self) -> None:
        """Stop whatever is happening and forget the conversation (call from any thread)."""
        self.call(self._forget)

    def _forget(self) -> None:
        self._early.drop()
        if self.state is State.LISTENING:
            u = self.listener.drop(EndReason.CANCELLED)
            self.state = State.IDLE
            if u is not None:
                self.emit(TurnEnded(turn=u.turn, outcome=Outcome.CANCELLED))
        elif self.state is State.RESPONDING:
            self.barge_in(BargeSource.BUTTON)
        assert self._loop is not None
        # NOTE: off the loop: the model may still be finishing its current token under its own lock.
        future = self._loop.run_in_executor(None, self._e.responder.forget)
        future.add_done_callback(lambda _: self.emit(Notice(turn=0, text="Conversation forgotten.")))
        self._next_waiting()

    def _on_wake(self) -> None:
        self.listener.wake_word_heard(self.turn)
        if self.state is State.RESPONDING:
            self.barge_in(BargeSource.WAKE_WORD, then_listen=True)
        else:
            self.listen(Trigger.WAKE_WORD)

    # -- typed questions ----------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        trigger: Trigger,
        *,
        speak: bool = False,
        on_piece: Callable[[str], None] | None = None,
        abandoned: threading.Event | None = None,
    ) -> concurrent.futures.Future[TurnResult]:
        """Queue a typed question (any thread); its answer streams to `on_piece` on the answering thread.

        The future ends with the turn's result, or with a TalkboxError when the question cannot be taken
        (`turn-busy`: too many waiting; `turn-box-stopping`). Setting `abandoned` (the asker left) stops it.
        """
        typed = _Typed(question, trigger, speak, on_piece, abandoned or threading.Event())
        if self._loop is None:
            typed.future.set_exception(TalkboxError("turn-not-running", "the box is not running yet"))
            return typed.future
        self.call(lambda: self._take(typed))
        return typed.future

    def _take(self, typed: _Typed) -> None:
        if self._closing:
            typed.future.set_exception(TalkboxError("turn-box-stopping", "the box is stopping"))
        elif len(self._waiting) >= MAX_WAITING:
            message = f"the box is busy: {MAX_WAITING} questions are already waiting"
            typed.future.set_exception(TalkboxError("turn-busy", message))
        else:
            self._waiting.append(typed)
            if isinstance(self._answer, Ring):
                self.barge_in(BargeSource.STOP)  # a typed line silences a ringing timer, as the button does
            self._next_waiting()

    def _next_waiting(self) -> None:
        """Start the oldest waiting question if the box is idle."""
        while self.state is State.IDLE and self._waiting and not self._closing:
            typed = self._waiting.popleft()
            if typed.abandoned.is_set():
                typed.future.cancel()
                continue
            self.turn += 1
            self.state = State.RESPONDING
            turn = self.turn
            self.emit(TurnStarted(turn=turn, trigger=typed.trigger, question=typed.text, spoken_answer=typed.speak))
            assert self._loop is not None
            self._spawn(self._typed_turn(turn, typed))

    async def _typed_turn(self, turn: int, typed: _Typed) -> None:
        result = TurnResult(turn, Outcome.FAILED)
        try:
            result = await self._answer_turn(
                turn,
                typed.text,
                asked_at=self._clock(),
                speak=typed.speak,
                on_piece=typed.on_piece,
                abandoned=typed.abandoned,
            )
        finally:
            # NOTE: the turn is over (and saved, by the state file's subscriber) before its asker hears so.
            self._turn_over(turn, result.outcome, follow_up=False)
            if not typed.future.done():
                typed.future.set_result(result)

    # -- spoken questions ---------------------------------------------------------------------------------

    def _on_utterance_end(self, u: Utterance, reason: EndReason) -> None:
        self.state = State.RESPONDING
        assert self._loop is not None
        self._spawn(self._spoken_turn(u, reason))

    def _spawn(self, turn: Coroutine[Any, Any, None]) -> None:
        assert self._loop is not None
        task = self._loop.create_task(turn)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _spoken_turn(self, u: Utterance, reason: EndReason) -> None:
        outcome = Outcome.FAILED
        try:
            transcript = await self.listener.transcript(u)
            text = transcript.text.strip()
            self.emit(TranscriptReady(turn=u.turn, text=text))
            if not text or (not u.speech_heard and reason is not EndReason.RELEASED):
                outcome = Outcome.NO_SPEECH
                if self._cfg.chime and reason is EndReason.NO_SPEECH:
                    self._sink.play(earcons.gave_up(self._e.tts.sample_rate_hz), self._e.tts.sample_rate_hz)
                return
            early = await self._early.take(u.turn, text)
            answered = await self._answer_turn(
                u.turn, text, asked_at=u.ended_at, speak=True, last_word=u.last_voice_at, early=early
            )
            outcome = answered.outcome
        except TalkboxError as err:
            self.emit(TurnFailed(turn=u.turn, code=err.code, message=err.message))
        except Exception as err:  # a failed turn is reported and the box goes back to idle
            _LOGGER.exception("turn %d failed", u.turn)
            self.emit(TurnFailed(turn=u.turn, code="turn-failed", message=str(err)))
        finally:
            self._turn_over(u.turn, outcome, follow_up=True)

    # -- answering ----------------------------------------------------------------------------------------

    async def _answer_turn(
        self,
        turn: int,
        question: str,
        *,
        asked_at: float,
        speak: bool,
        on_piece: Callable[[str], None] | None = None,
        abandoned: threading.Event | None = None,
        last_word: float = 0.0,
        early: Early | None = None,
    ) -> TurnResult:
        """Think and (maybe) speak; failures become TurnFailed and a failed result."""
        assert self._loop is not None
        if self.turn != turn or self.state is not State.RESPONDING:
            return TurnResult(turn, Outcome.INTERRUPTED)  # stopped while the question was still being transcribed
        result: AnswerResult | None = None
        try:
            self.emit(ThinkingStarted(turn=turn, question=question))
            if early is not None:  # begun at the pause, and the question was what it had heard: keep it
                call, reply = None, None
                answer = self._answer = early.answer
                answer.keep(asked_at, last_word)
                result = await early.done
                self.emit(AnswerKept(turn=turn))
                return self._answered(turn, result, speak, call)
            call, reply = await self._skill(turn, question)
            answer = self._answer = Answer(
                self._e.responder,
                self._e.tts,
                self._sink,
                self.emit,
                turn,
                asked_at,
                self._clock,
                speak=speak,
                on_piece=on_piece,
                abandoned=abandoned,
                last_word=last_word,
            )
            result = await self._loop.run_in_executor(None, answer.run, question, reply)
            return self._answered(turn, result, speak, call)
        except TalkboxError as err:
            self.emit(TurnFailed(turn=turn, code=err.code, message=err.message))
            return TurnResult(turn, Outcome.FAILED, error=err)
        except Exception as err:  # a failed turn is reported and the box goes back to idle
            _LOGGER.exception("turn %d failed", turn)
            wrapped = TalkboxError("turn-failed", f"the answer failed: {err}")
            self.emit(TurnFailed(turn=turn, code=wrapped.code, message=wrapped.message))
            return TurnResult(turn, Outcome.FAILED, error=wrapped)
        finally:
            if self._answer is not None and self._answer.turn == turn:
                self._answer = None

    def _answered(self, turn: int, result: AnswerResult, speak: bool, call: SkillCall | None) -> TurnResult:
        if speak:
            self.emit(SpeakingFinished(turn=turn, spoken=result.spoken, interrupted=result.interrupted))
        outcome = Outcome.INTERRUPTED if result.interrupted else Outcome.ANSWERED
        if result.text and (call is None or call.skill != "repeat"):
            self.last_answer = result.text
        return TurnResult(turn, outcome, result.text)

    async def _skill(self, turn: int, question: str) -> tuple[SkillCall | None, str | None]:
        """The skill `question` asks for and its reply, or (None, None) for the language model to answer."""
        skills = self.skills
        if skills is None:
            return None, None
        by = "template"
        call = skills.route(question)
        if call is None and self._choose_skill is not None:
            assert self._loop is not None
            call = await self._loop.run_in_executor(None, self._choose_skill, question)
            by = "tool-call"
        if call is None:
            return None, None
        forget = self._e.responder.forget
        reply = skills.run(call, last_answer=self.last_answer, forget=forget)
        self.emit(SkillCalled(turn=turn, skill=call.skill, args=dict(call.args), by=by, reply=reply.text))
        return call, reply.text

    # -- answering early -------------------------------------------------------------------------------------

    def _speculate(self, u: Utterance) -> None:
        """The question has probably ended at this pause: start answering now, silently (on the loop)."""
        if self.state is State.LISTENING and u.turn == self.turn and not self._early.running:
            self._spawn(self._start_early(u))

    async def _start_early(self, u: Utterance) -> None:
        pause = u.speculated_pause
        words = (await self.listener.words_so_far(u, pause)).strip()
        if not words or pause < 0 or u.speculated_pause != pause or self.state is not State.LISTENING:
            return  # nothing heard, or the user went on meanwhile
        if (self.skills is not None and self.skills.route(words) is not None) or self._choose_skill is not None:
            return  # a skill acts (starts a timer...): never before the question is over
        assert self._loop is not None
        self._early.start(self._loop, u.turn, words, u.endpointer)

    def _on_resume(self, u: Utterance) -> None:
        self._early.drop()  # the user went on after the pause: the early answer is not to their question

    # -- timers and alarms ----------------------------------------------------------------------------------

    def ring(self, text: str, label: str, chime: bool = True) -> bool:
        """Say `text` and chime until stopped (a timer or an alarm is due); False if the box is busy."""
        if self.state is not State.IDLE or self._closing:
            return False
        self.turn += 1
        self.state = State.RESPONDING
        turn = self.turn
        self.emit(TurnStarted(turn=turn, trigger=Trigger.REMINDER, question=label))
        self.emit(Ringing(turn=turn, label=label))
        ring = self._answer = Ring(self._e.tts, self._sink, turn, text, self._ring_s, chime=chime, clock=self._clock)
        self._spawn(self._ring_turn(ring))
        return True

    async def _ring_turn(self, ring: Ring) -> None:
        assert self._loop is not None
        outcome = Outcome.FAILED
        try:
            stopped = await self._loop.run_in_executor(None, ring.run)
            outcome = Outcome.INTERRUPTED if stopped else Outcome.ANSWERED
        except Exception as err:  # a failed ring is reported and the box goes back to idle
            _LOGGER.exception("ringing failed")
            self.emit(TurnFailed(turn=ring.turn, code="turn-failed", message=f"ringing failed: {err}"))
        finally:
            if self._answer is ring:
                self._answer = None
            self._turn_over(ring.turn, outcome, follow_up=False)

    def _turn_over(self, turn: int, outcome: Outcome, follow_up: bool) -> None:
        """The terminal event, then idle (unless a barge-in already moved on), then what comes next."""
        self.emit(TurnEnded(turn=turn, outcome=outcome))
        if self.state is not State.RESPONDING or turn != self.turn:
            return  # interrupted: the box has moved on already
        self.state = State.IDLE
        if self._waiting:
            self._next_waiting()  # typed questions have waited: they come before a follow-up window
        elif (
            follow_up
            and outcome is Outcome.ANSWERED
            and self._cfg.follow_up_s > 0
            and not self._source_ended
            and not self._closing
        ):
            self.listen(Trigger.FOLLOW_UP, timeout_s=self._cfg.follow_up_s)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
