"""One turn as a staged run: listen -> think -> speak, entered at the stage its trigger implies; one end.

The wake word and the button enter at *listen*, a typed question (serial link, control socket, `talkbox ask`) at
*think*, a timer or an alarm at *speak* (the ring is the speak stage with a chime). Whatever happens inside, the
run ends once, through `on_end`, with a `TurnResult`; a failure is reported as `TurnFailed` in exactly one place.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import enum
import functools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from daemon.errors import TalkboxError
from daemon.events import (
    EndReason,
    Event,
    Outcome,
    SkillCalled,
    SpeakingFinished,
    ThinkingStarted,
    TranscriptReady,
    Trigger,
    TurnFailed,
)
from daemon.ports import AudioSink, Engines, Exchange
from daemon.skills.intents import SkillCall
from daemon.skills.skills import Skills
from daemon.turn import earcons
from daemon.turn.answer import Answer, AnswerResult
from daemon.turn.early import EarlyAnswers, Running, same_words
from daemon.turn.heard import Utterance
from daemon.turn.listener import Listener
from daemon.turn.ringing import Ring

_LOGGER = logging.getLogger(__name__)

ASK_AGAIN: Final = "ask_again"
"""The turn's own reply to words heard too unsurely to answer."""
ASK_AGAIN_REPLY: Final = "Sorry, I didn't catch that. Could you say it again?"
ASK_AGAIN_STILL: Final = "Sorry, I still didn't catch that. Could you say it a little closer, or in other words?"
"""Asked again right after asking again: not the same sentence twice."""
UNREMEMBERED: Final = frozenset({"forget", "repeat", "stop", ASK_AGAIN})
"""Skills whose replies are not part of the conversation (it was just forgotten, or is said again, or nothing)."""


class Stage(enum.IntEnum):
    """The stages of a turn, in the order they run."""

    LISTEN = 0
    THINK = 1
    SPEAK = 2


def entry_stage(trigger: Trigger) -> Stage:
    """Where a turn started by `trigger` begins."""
    if trigger is Trigger.REMINDER:
        return Stage.SPEAK
    return Stage.LISTEN if trigger.spoken else Stage.THINK


@dataclass(frozen=True)
class TurnResult:
    """How a turn ended."""

    turn: int
    outcome: Outcome
    answer: str = ""
    """The generated answer (or what was generated before it was stopped)."""
    error: TalkboxError | None = None


@dataclass
class TurnParts:
    """What every turn of one keeper shares: the engines, the speaker, the skills and the workers."""

    engines: Engines
    sink: AudioSink
    emit: Callable[[Event], None]
    clock: Callable[[], float]
    listener: Listener
    early: EarlyAnswers
    workers: concurrent.futures.Executor
    """Runs answers, rings and tool calls (long-lived threads; the answers' voices have workers of their own)."""
    voices: concurrent.futures.Executor
    skills: Skills | None = None
    choose_skill: Callable[[str], SkillCall | None] | None = None
    """The language model's tool call, when no template matched."""
    chime: bool = True
    ask_again_below: float = -10.0
    """A spoken question no skill takes, heard with less confidence than this, is asked again, not answered."""
    ask_again_unlikely: float = -20.0
    """… and one whose words the model finds less likely than this (mean log-probability per token)."""
    last_answer: str = ""
    """What the box said last (for "repeat that")."""
    asked_again: str | None = None
    """The words of the last question, when it was asked again (heard too unsurely or found unlikely)."""


@dataclass(frozen=True)
class Question:
    """What the think stage answers, and when it was asked."""

    text: str
    asked_at: float
    """When the box had the question (clock seconds): the end of speech, or when it was typed."""
    last_word: float = 0.0
    """When the user's last word ended (clock seconds; 0 for a typed question)."""
    confidence: float | None = None
    """The recogniser's confidence in the words (None: typed, or a recogniser that gives none)."""


class Turn:
    """One turn from its start to its end; `run()` on the loop, `cancel()` (barge-in) from the loop."""

    def __init__(
        self,
        parts: TurnParts,
        number: int,
        trigger: Trigger,
        on_end: Callable[[Turn], None],
        *,
        question: str = "",
        speak: bool = True,
        on_piece: Callable[[str], None] | None = None,
        abandoned: threading.Event | None = None,
        ring: Ring | None = None,
        confidence: float | None = None,
    ) -> None:
        self._p, self.number, self.trigger, self._on_end = parts, number, trigger, on_end
        self._confidence = confidence
        self.entry = entry_stage(trigger)
        self.stage = self.entry
        self._question, self._aloud, self._on_piece, self._abandoned = question, speak, on_piece, abandoned
        self._ring = ring
        self._heard: asyncio.Future[tuple[Utterance, EndReason] | None] = asyncio.get_running_loop().create_future()
        self._running: Running | None = None
        self._starting: set[asyncio.Task[None]] = set()  # early answers being started (held, not awaited)
        self.cancelled = False
        self.barge_in_s = 0.0
        """Seconds from the barge-in to silence."""
        self.result = TurnResult(number, Outcome.FAILED)

    # -- what the keeper tells the turn (on the loop) ------------------------------------------------------

    def heard(self, u: Utterance, reason: EndReason) -> None:
        """The listener ended the question: the listen stage goes on to its transcript."""
        if not self._heard.done():
            self._heard.set_result((u, reason))

    def abandon_listening(self) -> None:
        """The question was cancelled while it was heard (the conversation was forgotten)."""
        if not self._heard.done():
            self._heard.set_result(None)

    def paused(self, u: Utterance) -> None:
        """The question has probably ended at this pause: start answering it now, silently."""
        if self.stage is Stage.LISTEN and not self._p.early.running:
            words = self._p.listener.judged_words(u, u.speculated_pause)
            if words is not None and self._p.choose_skill is None:
                # NOTE: at once, not in a task: the question judged finished ends at the next frame unless an answer
                # holds it, and ended first it waited for the final pass (0.3-0.4 s with the 1.5B beside it).
                self._begin_early(u, words.strip())
                return
            task = asyncio.ensure_future(self._start_early(u))
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    def resumed(self) -> None:
        """The user went on after the pause: the early answer is not to their question."""
        self._p.early.drop()

    def cancel(self) -> None:
        """Stop the answer (or the ring) now: the speaker goes quiet within one block."""
        self.cancelled = True
        running = self._running
        if running is None:
            self._p.sink.stop()
            return
        running.voice.cancel()
        self.barge_in_s = running.voice.silenced_at - running.voice.cancelled_at

    @property
    def ringing(self) -> bool:
        """True while this turn rings a timer or an alarm."""
        return self._ring is not None

    # -- the run --------------------------------------------------------------------------------------------

    async def run(self) -> TurnResult:
        """Run the stages from the entry stage on; the one place a failure becomes `TurnFailed`."""
        p = self._p
        outcome, text, error = Outcome.FAILED, "", None
        try:
            question: Question | None = Question(self._question, p.clock(), confidence=self._confidence)
            if self.entry is Stage.LISTEN:
                question = await self._listen()
                if question is None:
                    outcome = Outcome.CANCELLED if not self._heard.result() else Outcome.NO_SPEECH
                    return self.result
            assert question is not None
            if self.cancelled:
                outcome = Outcome.INTERRUPTED  # stopped while the question was still being transcribed
                return self.result
            self.stage = Stage.THINK
            running = self._rung() if self._ring is not None else await self._think(question)
            self.stage = Stage.SPEAK
            result, call = await self._speak(running, question)
            text = result.text
            outcome = Outcome.INTERRUPTED if result.interrupted else Outcome.ANSWERED
            if result.text and (call is None or call.skill not in ("repeat", ASK_AGAIN)) and self._ring is None:
                p.last_answer = result.text
            if call is not None and call.skill not in UNREMEMBERED:
                # NOTE: a skill's reply is part of the conversation, so the model can follow up on it
                # ("what is the capital of France?" ... "how many people live there?").
                heard = result.spoken if result.interrupted else result.text
                if heard.strip():
                    p.engines.memory.remember((Exchange(question.text, heard),))
                    p.engines.llm.read_history()  # while the user thinks of the next question
        except TalkboxError as err:
            p.emit(TurnFailed(turn=self.number, code=err.code, message=err.message))
            error = err
        except Exception as err:  # a failed turn is reported and the box goes back to idle
            _LOGGER.exception("turn %d failed", self.number)
            error = TalkboxError("turn-failed", f"the answer failed: {err}")
            p.emit(TurnFailed(turn=self.number, code=error.code, message=error.message))
        finally:
            self._running = None
            self.result = TurnResult(self.number, outcome, text, error)
            self._on_end(self)
        return self.result

    async def _listen(self) -> Question | None:
        """Wait for the question to end; its transcript, or None when nothing was said (or it was cancelled)."""
        p = self._p
        heard = await self._heard
        if heard is None:
            return None
        u, reason = heard
        transcript = await p.listener.transcript(u, settled=p.skills.heard_enough if p.skills is not None else None)
        text = transcript.text.strip()
        p.emit(TranscriptReady(turn=self.number, text=text))
        if not text or (not u.speech_heard and reason is not EndReason.RELEASED):
            if p.chime and reason is EndReason.NO_SPEECH:
                rate = p.engines.tts.sample_rate_hz
                p.sink.play(earcons.gave_up(rate), rate)
            return None
        return Question(text, u.ended_at, u.last_voice_at, transcript.confidence)

    async def _think(self, question: Question) -> Running:
        """The answer under way: begun early on these very words, a skill's reply, or the model's answer."""
        p = self._p
        p.emit(ThinkingStarted(turn=self.number, question=question.text))
        unsure = await self._misheard(question)
        if unsure == "":
            p.asked_again = None
        if self.entry is Stage.LISTEN and not unsure and (early := await p.early.take(self.number, question.text)):
            self._running = early
            if early.call is not None:
                self._called(early.call, "template", early.reply or "")
            return early
        if unsure is None:  # the model was busy with an answer begun early on other words, now dropped
            unsure = await self._misheard(question)
        call, reply = await (self._ask_again(unsure, question.text) if unsure else self._skill(question.text))
        answer = Answer(
            p.engines.llm,
            p.engines.memory,
            p.engines.tts,
            p.sink,
            p.emit,
            self.number,
            question.asked_at,
            p.clock,
            voices=p.voices,
            speak=self._aloud,
            on_piece=self._on_piece,
            abandoned=self._abandoned,
            last_word=question.last_word,
        )
        loop = asyncio.get_running_loop()
        running = self._running = Running(answer, loop.run_in_executor(p.workers, answer.run, question.text, reply))
        running.call = call
        if self.cancelled:
            answer.cancel()  # stopped while the skill or the tool call was being chosen
        return running

    def _rung(self) -> Running:
        """The ring as the speak stage's voice: what is due said once, then a chime until stopped."""
        ring = self._ring
        assert ring is not None

        def rung() -> AnswerResult:
            stopped = ring.run()
            return AnswerResult(text="", spoken="", interrupted=stopped)

        running = self._running = Running(ring, asyncio.get_running_loop().run_in_executor(self._p.workers, rung))
        return running

    async def _speak(self, running: Running, question: Question) -> tuple[AnswerResult, SkillCall | None]:
        """Let the answer sound and wait for its end."""
        running.release(question.asked_at, question.last_word)
        result = await running.done
        if self._aloud and self._ring is None:
            p = self._p
            p.emit(SpeakingFinished(turn=self.number, spoken=result.spoken, interrupted=result.interrupted))
        return result, running.call

    async def _misheard(self, question: Question) -> str | None:
        """Who finds the words too unsure to answer, when no skill takes them (a template is strict enough to
        trust; the model would answer whatever was misheard): "recogniser" (it was unsure of them), "model" (it
        finds them unlikely) or "" (nobody). None: not known yet (the model is busy with an answer begun on other
        words)."""
        p = self._p
        if question.confidence is None or (p.skills is not None and p.skills.route(question.text) is not None):
            return ""
        if question.confidence < p.ask_again_below:
            return "recogniser"
        if p.asked_again is not None and same_words(p.asked_again, question.text):
            # NOTE: said again and heard surely, word for word: the person said them; the model would find a rare
            # question ("Who wrote Hamlet?") as unlikely however often it was asked
            return ""
        surprise = await p.listener.surprise(question.text)
        if surprise is None and (begun := p.early.words) is not None and same_words(begun, question.text):
            # NOTE: the same words written otherwise ("?" for "."): scored as the answer began on them
            surprise = await p.listener.surprise(begun)
        _LOGGER.debug("the words' mean log-probability per token: %s", surprise)
        return None if surprise is None else "model" if surprise < p.ask_again_unlikely else ""

    async def _ask_again(self, by: str, words: str) -> tuple[SkillCall, str]:
        """Ask the user to say `words` again; an answer begun early on the same unsure words is dropped unheard."""
        p = self._p
        if (dropped := p.early.drop()) is not None:
            await asyncio.wait([dropped])
        call, reply = SkillCall(ASK_AGAIN, {}), ASK_AGAIN_REPLY if p.asked_again is None else ASK_AGAIN_STILL
        p.asked_again = words
        self._called(call, by, reply)
        return call, reply

    async def _skill(self, question: str) -> tuple[SkillCall | None, str | None]:
        """The skill `question` asks for and its reply, or (None, None) for the language model to answer."""
        p = self._p
        if p.skills is None:
            return None, None
        call = p.skills.route(question)
        by = "meaning" if call is not None and call.by_meaning else "template"
        if call is None and p.choose_skill is not None:
            call = await asyncio.get_running_loop().run_in_executor(p.workers, p.choose_skill, question)
            by = "tool-call"
        if call is None and (call := p.skills.unfollowed(question)) is not None:
            by = "job named"
        if call is None:
            return None, None
        if call.skill == "home" and p.skills.home is not None:
            by, reply = "homeassistant", await p.skills.home.ask(question)
        else:
            reply = p.skills.run(call, last_answer=p.last_answer, forget=p.engines.memory.forget).text
        self._called(call, by, reply)
        return call, reply

    def _called(self, call: SkillCall, by: str, reply: str) -> None:
        """Say which skill made the reply (`by`: template, tool-call or homeassistant)."""
        self._p.emit(SkillCalled(turn=self.number, skill=call.skill, args=dict(call.args), by=by, reply=reply))

    async def _start_early(self, u: Utterance) -> None:
        """Answer the words heard up to this pause, silently, unless a skill would act on them."""
        p = self._p
        pause = u.speculated_pause
        words = (await p.listener.words_so_far(u, pause)).strip()
        if not words or pause < 0 or u.speculated_pause != pause or self.stage is not Stage.LISTEN:
            return  # nothing heard, or the user went on meanwhile
        if p.skills is not None and p.skills.route(words) is not None:
            self._begin_early(u, words)
            return
        if p.choose_skill is not None:
            # NOTE: the tool call decides on the words at the pause too (it is remembered for the same words):
            # a question it leaves to the model is answered early as with templates alone.
            call = await asyncio.get_running_loop().run_in_executor(p.workers, p.choose_skill, words)
            if call is not None or u.speculated_pause != pause or self.stage is not Stage.LISTEN:
                return
        self._begin_early(u, words)

    def _begin_early(self, u: Utterance, words: str) -> None:
        """Start the early answer to `words`: a skill's reply that only answers, or the model's (not a tool call's)."""
        p = self._p
        if p.early.running or not words:
            return
        released = functools.partial(p.listener.end_if_due, u)
        if p.skills is not None and (call := p.skills.route(words)) is not None:
            # NOTE: a reply that only answers ("It's ten past four.") is prepared now and sounds the moment the
            # question is over; a skill that acts (starts a timer...) never acts before the question is over.
            if (reply := p.skills.answer(call)) is not None and reply.text:
                p.early.start(self.number, words, u.endpointer, call, reply.text, released)
            return
        if p.skills is not None and p.skills.unfollowed(words) is not None:
            return  # a request for a job of the box's that it could not read: the model is not asked, early or late
        p.early.start(self.number, words, u.endpointer, released=released)
