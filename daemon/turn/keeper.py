"""Turn-keeping: every question, spoken or typed, is one turn, and turns happen one at a time.

idle -> listening (spoken turns) -> responding -> (follow-up listening) -> idle. The keeper only schedules: it
starts each `Turn` (daemon.turn.run) at the stage its trigger implies, queues typed questions that arrive while a
turn is under way (answered next, in order), hands the turn what the listener heard, and handles barge-in.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import enum
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Final

from daemon.config import ListenConfig
from daemon.errors import TalkboxError
from daemon.events import (
    BargeIn,
    BargeSource,
    EndReason,
    EventBus,
    Notice,
    Outcome,
    Ringing,
    Trigger,
    TurnEnded,
    TurnStarted,
)
from daemon.ports import AudioSink, Engines
from daemon.skills.intents import SkillCall
from daemon.skills.skills import Skills
from daemon.turn import earcons
from daemon.turn.completeness import make_judge
from daemon.turn.crossing import LoopCrossing
from daemon.turn.early import EarlyAnswers
from daemon.turn.heard import Ended, Heard, Paused, Resumed, WakeHeard
from daemon.turn.listener import Listener
from daemon.turn.ringing import Due, Ring
from daemon.turn.run import Stage, Turn, TurnParts, TurnResult
from daemon.turn.typed import Typed, TypedQueue

_LOGGER = logging.getLogger(__name__)

ANSWER_WORKERS: Final = 3
"""Threads that run answers, rings and tool calls: an early answer, a dropped one still finishing, a tool call."""
VOICE_WORKERS: Final = 2
"""Threads that synthesize answers: an early answer's voice may still be finishing when the next one starts."""


class State(enum.Enum):
    """Where the box is in a turn."""

    IDLE = "idle"
    LISTENING = "listening"
    RESPONDING = "responding"


class TurnKeeper:
    """Runs turns from the microphone, the button, typed questions and reminders; owns the listener."""

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
        self._crossing = LoopCrossing(bus)
        self.emit = self._crossing.emit
        """Publish an event from the loop thread or any worker thread (subscribers run on the loop)."""
        self.call = self._crossing.call
        """Run a function on the loop: where other threads (button, channels, answers) cross into it."""
        self.skills = skills
        self._ring_s = ring_s
        route, finished = (skills.route, skills.finished) if skills is not None else (None, None)
        self._workers = concurrent.futures.ThreadPoolExecutor(ANSWER_WORKERS, thread_name_prefix="answer")
        self._voices = concurrent.futures.ThreadPoolExecutor(VOICE_WORKERS, thread_name_prefix="voice")
        early = EarlyAnswers(engines, sink, self.emit, self.call, clock, self._workers, self._voices, skills)
        self.listener = Listener(
            engines,
            config,
            self.emit,
            self._heard,
            self.call,
            heartbeat=heartbeat,
            clock=clock,
            judge=make_judge(engines.llm.prefill, route, engines.stt.punctuates, closed=finished),
            on_partial=early.prepare,
        )
        self._parts = TurnParts(
            engines, sink, self.emit, clock, self.listener, early, self._workers, self._voices,
            skills=skills, choose_skill=choose_skill, chime=config.chime, ask_again_below=config.ask_again_below,
            ask_again_unlikely=config.ask_again_unlikely,
        )  # fmt: skip
        self.state = State.IDLE
        self.turn = 0
        """Number of the latest turn (0 before the first)."""
        self._current: Turn | None = None
        self._tasks: set[asyncio.Task[TurnResult]] = set()  # turns still finishing (an interrupted one may overlap)
        self._waiting = TypedQueue()
        self._due: collections.deque[Due] = collections.deque()
        self._source_ended = False
        self._closing = False
        self.last_barge_in_s = 0.0
        """Seconds from the last barge-in to silence (for benchmarks)."""

    @property
    def _loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop turns run on, once started."""
        return self._crossing.loop

    @property
    def last_answer(self) -> str:
        """What the box said last (for "repeat that")."""
        return self._parts.last_answer

    def start(self) -> None:
        """Bind to the running loop; typed questions are taken from now on."""
        self._crossing.bind()
        self._closing = False
        self.listener.start()

    def voice_ahead(self, replies: tuple[str, ...]) -> None:
        """Have the voice say `replies` ahead while the box is idle, so that each sounds at once when first given."""
        self._parts.early.keep(replies, idle=lambda: self.state is State.IDLE and not self._closing)

    async def hear(self, frames: AsyncIterator[bytes]) -> None:
        """Serve turns from a microphone until it ends; the turn in progress then finishes (may be called again)."""
        self._source_ended = False
        await self.listener.hear(frames)
        self._source_ended = True
        await self._finish_turns()

    async def close(self) -> None:
        """Finish the turn in progress, refuse the questions still waiting, and stop the worker threads."""
        self._closing = True
        if (dropped := self._parts.early.drop()) is not None:
            await asyncio.wait([dropped])
        stopping = TalkboxError("turn-box-stopping", "the box is stopping; the question was not answered")
        self._waiting.refuse_all(stopping)
        if self.state is State.LISTENING:
            self._cancel_listening()
        for due in self._due:
            if due.done is not None:
                due.done(False)  # an announcement not made: its sender hears so
        self._due.clear()  # already marked rung: they are not rung again at the next start
        await self._finish_turns()
        self.listener.close()
        self._workers.shutdown(wait=True)
        self._voices.shutdown(wait=True)

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
        turn = self._begin(trigger)
        self.state = State.LISTENING
        self.emit(TurnStarted(turn=turn.number, trigger=trigger))
        if self._cfg.chime and trigger is not Trigger.FOLLOW_UP:
            self._sink.play(earcons.listening(self._e.tts.sample_rate_hz), self._e.tts.sample_rate_hz)
        self.listener.open(turn.number, push_to_talk=push_to_talk, timeout_s=timeout_s)
        self._spawn(turn)
        return True

    def end_listening(self, reason: EndReason) -> None:
        """End the question being heard now (the button came up)."""
        if self.state is State.LISTENING:
            self.listener.end(reason)

    def barge_in(self, source: BargeSource, then_listen: bool = False) -> None:
        """Stop the answer now; `then_listen` starts a new spoken turn at once (the wake word)."""
        if self.state is not State.RESPONDING:
            return
        turn = self._current
        self.emit(BargeIn(turn=self.turn, source=source))
        self.state = State.IDLE  # the finishing turn must not open a follow-up window
        if turn is not None:
            turn.cancel()
            self.last_barge_in_s = turn.barge_in_s
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
        self._parts.early.drop()
        if self.state is State.LISTENING:
            self._cancel_listening()
        elif self.state is State.RESPONDING:
            self.barge_in(BargeSource.BUTTON)
        assert self._loop is not None
        # NOTE: off the loop: the model may still be finishing its current token under its own lock.
        future = self._loop.run_in_executor(self._workers, self._e.memory.forget)
        future.add_done_callback(lambda _: self.emit(Notice(turn=0, text="Conversation forgotten.")))
        self._next_waiting()

    def _cancel_listening(self) -> None:
        """Drop the question being heard; its turn ends as cancelled."""
        self.listener.drop(EndReason.CANCELLED)
        self.state = State.IDLE
        if self._current is not None:
            self._current.abandon_listening()

    # -- what the listener heard (on the loop) ----------------------------------------------------------

    def _heard(self, heard: Heard) -> None:
        turn = self._current
        match heard:
            case WakeHeard():
                self.listener.wake_word_heard(self.turn)
                if self.state is State.RESPONDING:
                    self.barge_in(BargeSource.WAKE_WORD, then_listen=True)
                else:
                    self.listen(Trigger.WAKE_WORD)
            case Ended(utterance=u, reason=reason):
                self.state = State.RESPONDING
                if turn is not None and turn.number == u.turn:
                    turn.heard(u, reason)
            case Paused(utterance=u):
                if self.state is State.LISTENING and turn is not None and turn.number == u.turn:
                    turn.paused(u)
            case Resumed():
                if turn is not None:
                    turn.resumed()

    # -- typed questions ----------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        trigger: Trigger,
        *,
        speak: bool = False,
        on_piece: Callable[[str], None] | None = None,
        abandoned: threading.Event | None = None,
        confidence: float | None = None,
    ) -> concurrent.futures.Future[TurnResult]:
        """Queue a typed question (any thread); its answer streams to `on_piece` on the answering thread.

        The future ends with the turn's result, or with a TalkboxError when the question cannot be taken
        (`turn-busy`: too many waiting; `turn-box-stopping`). Setting `abandoned` (the asker left) stops it.
        `confidence`: the question was heard by a recogniser with this confidence (as a spoken one is judged).
        """
        typed = Typed(question, trigger, speak, on_piece, abandoned or threading.Event(), confidence=confidence)
        if self._loop is None:
            typed.future.set_exception(TalkboxError("turn-not-running", "the box is not running yet"))
            return typed.future
        self.call(lambda: self._take(typed))
        return typed.future

    def _take(self, typed: Typed) -> None:
        if self._closing:
            typed.future.set_exception(TalkboxError("turn-box-stopping", "the box is stopping"))
        elif self._waiting.add(typed):
            if self._current is not None and self._current.ringing and self.state is State.RESPONDING:
                self.barge_in(BargeSource.STOP)  # a typed line silences a ringing timer, as the button does
            self._next_waiting()

    def _next_waiting(self) -> None:
        """Ring a due reminder, else start the oldest waiting question, if the box is idle."""
        if self.state is not State.IDLE or self._closing:
            return
        if self._due:
            self._ring(self._due.popleft())
        elif (typed := self._waiting.next()) is not None:
            turn = self._begin(
                typed.trigger, question=typed.text, speak=typed.speak, on_piece=typed.on_piece,
                abandoned=typed.abandoned, future=typed.future, confidence=typed.confidence,
            )  # fmt: skip
            self.state = State.RESPONDING
            self.emit(
                TurnStarted(turn=turn.number, trigger=typed.trigger, question=typed.text, spoken_answer=typed.speak)
            )
            self._spawn(turn)

    # -- timers and alarms ----------------------------------------------------------------------------------

    def ring(self, text: str, label: str, chime: bool = True) -> bool:
        """Say `text` and chime until stopped (a timer or an alarm is due); True if it rang now, else it waits.

        It rings at once unless the user is speaking or another reminder rings: an idle box, a listening stage
        nobody speaks into (an empty follow-up window) and an answer under way all give way to it. Due while the
        user speaks, it rings as soon as their answer is over, and says it came due while they were talking.
        """
        due = Due(text, label, chime)
        return self._queue(due) and due not in self._due

    def _make_way(self) -> None:
        """Let the reminders waiting ring now, if nobody is talking to the box."""
        if self.state is State.LISTENING:
            if self.hearing_speech or self.push_to_talk:
                for due in self._due:
                    due.while_talking = True
                return
            self._cancel_listening()
        elif self.state is State.RESPONDING:
            current = self._current
            if current is None or current.ringing or any(due.while_talking for due in self._due):
                return  # another ring sounds, or the answer they were asking for: it rings right after
            self.barge_in(BargeSource.REMINDER)  # a timer is on time: the answer can be asked for again
        self._next_waiting()

    def announce(self, text: str, chime: bool) -> concurrent.futures.Future[bool]:
        """Say `text` once (after a chime if `chime`) as soon as nobody is talking to the box, as a reminder rings;
        the future tells whether it was heard to the end (False if stopped, or if the box is closing)."""
        said: concurrent.futures.Future[bool] = concurrent.futures.Future()
        if not self._queue(Due(text, "announcement", chime, announcement=True, done=said.set_result)):
            said.set_result(False)
        return said

    def _queue(self, due: Due) -> bool:
        """Queue `due` and let it sound now if nobody is talking to the box; False if the box is closing."""
        if self._closing:
            return False
        self._due.append(due)
        self._make_way()
        return True

    def _ring(self, due: Due) -> None:
        """Ring `due` now, as a turn of its own (the box is idle)."""
        ring = Ring(
            self._e.tts, self._sink, self.turn + 1, due.said(), self._ring_s,
            chime=due.chime, repeat=not due.announcement, clock=self._clock,
        )  # fmt: skip
        ended: concurrent.futures.Future[TurnResult] | None = None
        if due.done is not None:
            tell = due.done
            ended = concurrent.futures.Future()
            ended.add_done_callback(lambda f: tell(f.result().outcome is Outcome.ANSWERED))
        turn = self._begin(Trigger.REMINDER, question=due.label, ring=ring, future=ended)
        self.state = State.RESPONDING
        self.emit(TurnStarted(turn=turn.number, trigger=Trigger.REMINDER, question=due.label))
        self.emit(Notice(text=due.text) if due.announcement else Ringing(turn=turn.number, label=due.label))
        self._spawn(turn)

    # -- one turn after another -------------------------------------------------------------------------

    def _begin(
        self,
        trigger: Trigger,
        *,
        question: str = "",
        speak: bool = True,
        on_piece: Callable[[str], None] | None = None,
        abandoned: threading.Event | None = None,
        ring: Ring | None = None,
        future: concurrent.futures.Future[TurnResult] | None = None,
        confidence: float | None = None,
    ) -> Turn:
        """A new turn, numbered and current."""
        self.turn += 1

        def ended(turn: Turn) -> None:
            # NOTE: the turn is over (and saved, by the state file's subscriber) before its asker hears so.
            self._turn_over(turn)
            if future is not None and not future.done():
                future.set_result(turn.result)

        turn = self._current = Turn(
            self._parts, self.turn, trigger, ended,
            question=question, speak=speak, on_piece=on_piece, abandoned=abandoned, ring=ring, confidence=confidence,
        )  # fmt: skip
        return turn

    def _spawn(self, turn: Turn) -> None:
        assert self._loop is not None
        task = self._loop.create_task(turn.run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _turn_over(self, turn: Turn) -> None:
        """The terminal event, then idle (unless a barge-in already moved on), then what comes next."""
        outcome = turn.result.outcome
        self.emit(TurnEnded(turn=turn.number, outcome=outcome))
        if self.state is not State.RESPONDING or turn.number != self.turn:
            return  # interrupted, or cancelled while listening: the box has moved on already
        self.state = State.IDLE
        if self._due or self._waiting:
            self._next_waiting()  # reminders and typed questions have waited: they come before a follow-up window
        elif (
            turn.entry is Stage.LISTEN
            and outcome is Outcome.ANSWERED
            and self._cfg.follow_up_s > 0
            and not self._source_ended
            and not self._closing
        ):
            self.listen(Trigger.FOLLOW_UP, timeout_s=self._cfg.follow_up_s)
