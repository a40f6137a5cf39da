"""Skills inside the box's one assembly, on the stand-in engines: sums, units, the clock (honest when it is not
trusted), a tool call, "repeat that", timers that ring at the speak stage until stopped, a spoken skill request,
and `talkbox ask` with no box running."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import re
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from daemon.box.asking import ask_here
from daemon.box.assembly import Assembly, assembled
from daemon.box.audio import frames_of
from daemon.config import Config, SkillsConfig, StateConfig
from daemon.events import (
    AnswerDropped,
    AnswerKept,
    AnswerStartedEarly,
    EndJudged,
    Event,
    EventBus,
    ListeningEnded,
    RemindersChanged,
    Ringing,
    SkillCalled,
    SpeakingFinished,
    SpeakingStarted,
    TranscriptReady,
    Trigger,
    TurnEnded,
    TurnStarted,
)
from daemon.ports import Engines, SpeechStream, Transcript
from daemon.skills import clock
from daemon.skills.honest import UNSET_CLOCK
from daemon.skills.replies import NO_TIMERS, STOCK_REPLIES
from daemon.turn.answer import first_sentence
from daemon.turn.keeper import State, TurnKeeper
from daemon.turn.run import ASK_AGAIN_REPLY, ASK_AGAIN_STILL, TurnResult
from hardware.audio import WavFileSink
from tests.fast.script import ANSWER, ANSWERS, QUESTION, QUICK, SPEED, WAIT_S
from tests.harness import names, of
from tests.inprocess import (
    ScriptedModel,
    ScriptedRecogniser,
    ToneVoice,
    silence,
    stand_in_engines,
    voice,
    voiced_s,
    wake_marker,
)
from tests.mic import ScriptedMic

T = TypeVar("T")


class AssembledBox:
    """The box's one assembly (daemon.box.assembly) on an event loop of its own thread, as the box runs it."""

    def __init__(self, config: Config, engines: Engines, tmp_path: Path) -> None:
        self.events: list[Event] = []
        bus = EventBus()
        bus.subscribe(self.events.append)
        self._sink = WavFileSink(tmp_path / "speaker.wav", engines.tts.sample_rate_hz)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="test-loop", daemon=True)
        self._thread.start()
        self._stack = contextlib.AsyncExitStack()
        state = tmp_path / "state"
        box = assembled(config, engines, self._sink, bus, state_dir=state)
        self.parts: Assembly = self.on_loop(self._stack.enter_async_context(box))

    def on_loop(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on the box's loop and wait for it."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(WAIT_S)

    def ask(self, question: str, speak: bool = False) -> TurnResult:
        """A typed question, as the control socket asks it; its turn's result."""
        return self.parts.keeper.ask(question, Trigger.SOCKET, speak=speak).result(WAIT_S)

    def until(self, happened: Callable[[], object], what: str) -> None:
        """Wait until `happened()` is true."""
        deadline = time.monotonic() + WAIT_S
        while not happened():
            assert time.monotonic() < deadline, f"{what} not in time; events: {names(self.events)}"
            time.sleep(0.01)

    def hear_one_turn(self, mic: ScriptedMic) -> None:
        """Serve the microphone until its first turn has ended, then leave the assembly (`close`)."""
        keeper = self.parts.keeper
        try:
            hearing = asyncio.run_coroutine_threadsafe(keeper.hear(frames_of(mic, keeper.listener)), self.loop)
            self.until(lambda: of(self.events, TurnEnded), "the spoken turn's end")
            mic.end()
            hearing.result(WAIT_S)
        finally:
            mic.close()
            self.close()

    def __enter__(self) -> AssembledBox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Leave the assembly (the turn under way finishes), stop the loop."""
        self.on_loop(self._stack.aclose())
        self.on_loop(_tasks_ended())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(WAIT_S)
        self.loop.close()
        self._sink.close()


async def _tasks_ended() -> None:
    """Let the tasks the assembly cancelled on its way out (the alarm clock) end, as asyncio.run() does."""
    tasks = asyncio.all_tasks() - {asyncio.current_task()}
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), WAIT_S)


def box_config(tmp_path: Path, **skills: Any) -> Config:
    """Defaults, but the quick listening of the real-engine tests and a state directory of the test's own."""
    return Config(
        listen=QUICK,
        state=StateConfig(dir=str(tmp_path / "state")),
        skills=SkillsConfig(**{"trust_clock": "system", "ring_s": 5.0, **skills}),
    )


@pytest.fixture
def box(stand_ins: Engines, tmp_path: Path) -> Iterator[AssembledBox]:
    with AssembledBox(box_config(tmp_path), stand_ins, tmp_path) as opened:
        yield opened


def spoken_turn(
    engines: Engines, recogniser: ScriptedRecogniser, tmp_path: Path, heard: str, words: int
) -> AssembledBox:
    """One spoken turn through the assembly (wake word, then `words` words heard as `heard`); the box, closed."""
    box = AssembledBox(box_config(tmp_path), engines, tmp_path)
    say(box, recogniser, heard, words)
    return box


def say(box: AssembledBox, recogniser: ScriptedRecogniser, heard: str, words: int) -> None:
    """The wake word, then `words` words heard as `heard`, into the box; back once the turn is over."""
    recogniser.will_hear(heard)
    mic = ScriptedMic(speed=SPEED)
    mic.say(silence(0.3))
    mic.say(wake_marker())
    mic.say(voice(words))
    box.hear_one_turn(mic)


def skill_calls(events: list[Event]) -> list[tuple[str, dict[str, object], str, str]]:
    return [(e.skill, e.args, e.by, e.reply) for e in of(events, SkillCalled)]


def test_a_sum_is_answered_by_its_skill_and_never_by_the_model(box: AssembledBox, model: ScriptedModel) -> None:
    result = box.ask("what is 17 times 23")
    assert (result.outcome, result.answer) == ("answered", "That's 391.")
    assert skill_calls(box.events) == [("calculate", {"value": 391.0}, "template", "That's 391.")]
    assert names(box.events) == ["TurnStarted", "ThinkingStarted", "SkillCalled", "AnswerFinished", "TurnEnded"]
    assert model.asked == []


def test_a_conversion_is_answered_by_its_skill(box: AssembledBox, model: ScriptedModel) -> None:
    result = box.ask("how many meters in 2 kilometers")
    assert result.answer == "2 kilometres is 2000 metres."
    args = {"value": 2000.0, "unit": "metre", "amount": 2.0, "from_unit": "kilometre"}
    assert skill_calls(box.events) == [("convert", args, "template", result.answer)]
    assert model.asked == []


def test_a_question_no_skill_takes_goes_to_the_model(box: AssembledBox, model: ScriptedModel) -> None:
    assert box.ask(QUESTION).answer == ANSWER
    assert model.asked == [QUESTION] and of(box.events, SkillCalled) == []


def test_a_skills_exchange_is_remembered_and_read_by_the_model_before_the_next_question(
    box: AssembledBox, model: ScriptedModel, stand_ins: Engines
) -> None:
    box.ask("what is 17 times 23")
    assert [(x.question, x.answer) for x in stand_ins.memory.remembered()] == [("what is 17 times 23", "That's 391.")]
    assert model.histories_read == 1 and model.asked == []
    box.ask(QUESTION)  # the model's own exchange is in its cache already: nothing to read ahead
    assert model.histories_read == 1 and model.asked == [QUESTION]


def test_cancel_it_after_setting_a_timer_cancels_that_timer_in_a_turn(box: AssembledBox) -> None:
    box.ask("set a timer for 10 minutes for the pasta")
    box.events.clear()
    assert box.ask("cancel it").answer == "Pasta timer cancelled."
    assert skill_calls(box.events)[0][0] == "timer_cancel"
    assert [e.timers for e in of(box.events, RemindersChanged)] == [()]  # the display is told it is gone


def test_time_added_to_a_running_timer_moves_its_ring_and_sets_no_other(box: AssembledBox) -> None:
    # NOTE: read by meaning as "add my timer for 5 minutes", it started a second timer and left the first alone.
    box.ask("set a timer for 10 minutes for the pasta")
    box.events.clear()
    assert box.ask("add five minutes to the pasta timer").answer.startswith("The pasta timer now has 1")
    assert skill_calls(box.events)[0][0] == "timer_add"
    (timers,) = [e.timers for e in of(box.events, RemindersChanged)]  # the display is told of the longer one
    assert [label for label, _ in timers] == ["pasta timer"] and 14 * 60 < timers[0][1] <= 15 * 60


def test_two_timers_asked_for_at_once_are_both_shown_and_both_ring_in_turn(
    box: AssembledBox, model: ScriptedModel
) -> None:
    # NOTE: "Set two timers, one for 5 minutes and one for 10 minutes." set the first and said nothing of the second.
    result = box.ask("Set two timers, one for 1 second and one for 2 seconds.")
    assert result.answer == "Two timers, for 1 second and 2 seconds, starting now."
    assert [label for label, _ in of(box.events, RemindersChanged)[-1].timers] == ["1 second timer", "2 second timer"]
    box.until(lambda: len(of(box.events, Ringing)) == 2, "both timers' rings")
    assert [e.label for e in of(box.events, Ringing)] == ["1 second timer", "2 second timer"]
    assert model.asked == []


def test_a_skill_answer_may_be_spoken(box: AssembledBox, voice: ToneVoice) -> None:
    result = box.ask("what is 17 times 23", speak=True)
    assert [(e.spoken, e.interrupted) for e in of(box.events, SpeakingFinished)] == [("That's 391.", False)]
    assert voice.said == ["That's 391."] and result.outcome == "answered"


def test_repeat_that_says_the_last_answer_again(box: AssembledBox, model: ScriptedModel) -> None:
    box.ask(QUESTION)
    assert box.ask("repeat that").answer == ANSWER
    assert box.ask("repeat that").answer == ANSWER  # "repeat" never becomes the last answer itself
    assert [call[0] for call in skill_calls(box.events)] == ["repeat", "repeat"]
    assert model.asked == [QUESTION]


def test_the_clock_is_stated_when_trusted(box: AssembledBox) -> None:
    answer = box.ask("what time is it").answer
    assert re.fullmatch(r"It's .+\.", answer) and answer != UNSET_CLOCK


def test_the_clock_is_honest_when_nothing_vouches_for_it(
    stand_ins: Engines, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(clock, "ntp_synchronised", lambda: False)  # no network
    monkeypatch.setattr(clock, "rtc_set_the_clock", lambda *_: False)  # no real-time clock
    box = AssembledBox(box_config(tmp_path, trust_clock="auto"), stand_ins, tmp_path)
    try:
        assert box.ask("what time is it").answer == UNSET_CLOCK
        alarm = box.ask("set an alarm for 7 am").answer
        assert alarm.startswith("Alarm set for") and "can't ring until my clock is set" in alarm
    finally:
        box.close()
    assert [call[0] for call in skill_calls(box.events)] == ["time", "alarm_set"]


def test_the_model_may_choose_a_skill_no_template_matched(tmp_path: Path) -> None:
    request = "could you make it a bit quieter for me"
    model = ScriptedModel(tool_lines={request: "volume_down"})
    box = AssembledBox(box_config(tmp_path, tool_calls=True), stand_in_engines(model), tmp_path)
    try:
        assert box.ask(request).answer == "Volume 90."
        assert box.ask("could you tell me a joke").answer == "You said: could you tell me a joke"
        assert box.parts.sink.level == 90
    finally:
        box.close()
    assert skill_calls(box.events) == [("volume", {"action": "down"}, "tool-call", "Volume 90.")]
    assert model.tool_requests == [request]  # the joke names no skill: never sent to the tool call
    assert model.asked == ["could you tell me a joke"]


def test_a_timer_rings_at_the_speak_stage_until_a_typed_stop(box: AssembledBox, voice: ToneVoice) -> None:
    started = box.ask("set a tea timer for 1 second")
    assert started.answer == "A tea timer for 1 second, starting now."
    box.until(lambda: of(box.events, Ringing), "the timer's ring")
    assert box.ask("stop").answer == ""  # a typed line silences the ring, as the button does
    ring_turn = next(e.turn for e in of(box.events, TurnStarted) if e.trigger is Trigger.REMINDER)
    # NOTE: the stop's own turn may end a moment before the ring's end is published.
    box.until(lambda: any(e.turn == ring_turn for e in of(box.events, TurnEnded)), "the ring's end")
    ring = [type(e).__name__ for e in box.events if e.turn == ring_turn]
    assert ring == ["TurnStarted", "Ringing", "BargeIn", "TurnEnded"]  # no listening, no thinking: it only sounds
    assert [e.outcome for e in of(box.events, TurnEnded) if e.turn == ring_turn] == ["interrupted"]
    assert of(box.events, Ringing)[0].label == "tea timer"
    assert "Your tea timer is done." in voice.said
    assert [call[0] for call in skill_calls(box.events)] == ["timer_start", "stop"]
    skills = box.parts.skills
    assert skills is not None and skills.reminders.timers() == []  # rung once, and gone


def test_a_ring_is_a_turn_of_its_own_that_a_stop_ends(box: AssembledBox, voice: ToneVoice) -> None:
    keeper = box.parts.keeper

    async def ring(text: str, label: str) -> bool:
        return keeper.ring(text, label)

    assert box.on_loop(ring("Your egg timer is done.", "egg timer"))
    assert not box.on_loop(ring("Another one.", "second timer"))  # another rings: this one rings next
    box.until(lambda: voice.said, "the ring's words")
    keeper.stop_speaking()
    box.until(lambda: len(of(box.events, Ringing)) == 2, "the second ring")
    keeper.stop_speaking()
    box.until(lambda: len(of(box.events, TurnEnded)) == 2, "the second ring's end")
    assert [(e.turn, e.outcome) for e in of(box.events, TurnEnded)] == [(1, "interrupted"), (2, "interrupted")]
    assert [e.label for e in of(box.events, Ringing)] == ["egg timer", "second timer"]
    assert keeper.state is State.IDLE and keeper.last_answer == ""  # a ring is not an answer to repeat


def test_a_spoken_sum_ends_sooner_and_its_reply_is_ready_before_the_question_is_over(
    stand_ins: Engines, recogniser: ScriptedRecogniser, model: ScriptedModel, tmp_path: Path
) -> None:
    box = spoken_turn(stand_ins, recogniser, tmp_path, "what is 17 times 23", 5)
    assert [e.complete for e in of(box.events, EndJudged)] == [True]  # a whole command...
    ended = of(box.events, ListeningEnded)[0]
    assert ended.reason == "silence" and ended.after_last_voice_s < QUICK.trailing_silence_s  # ...ends sooner
    # A reply that only answers is prepared at the pause, silent until the question is over, then kept.
    assert [e.question for e in of(box.events, AnswerStartedEarly)] == ["what is 17 times 23"]
    assert of(box.events, AnswerKept) and not of(box.events, AnswerDropped)
    assert skill_calls(box.events) == [("calculate", {"value": 391.0}, "template", "That's 391.")]
    assert [(e.spoken, e.interrupted) for e in of(box.events, SpeakingFinished)] == [("That's 391.", False)]
    assert model.asked == [] and model.prefilled  # the words went into the cache, the answer never to the model


class HeardVoice(ToneVoice):
    """The stand-in voice, noting which events the box had published when it was asked to say each text."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[Event] = []
        self.when: list[tuple[str, list[str]]] = []

    def synthesize(self, text: str) -> Iterator[bytes]:
        """One tone, noted."""
        self.when.append((text, names(self.events)))
        return super().synthesize(text)


def heard_turn(model: ScriptedModel, recogniser: ScriptedRecogniser, tmp_path: Path, heard: str) -> HeardVoice:
    """One spoken turn heard as `heard`, through the assembly, with a voice that notes when it was asked."""
    noted = HeardVoice()
    box = AssembledBox(box_config(tmp_path), stand_in_engines(model, recogniser, noted), tmp_path)
    noted.events = box.events
    say(box, recogniser, heard, len(heard.split()))
    return noted


def test_a_reply_that_only_answers_is_voiced_from_the_words_heard_before_the_pause(
    model: ScriptedModel, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    noted = heard_turn(model, recogniser, tmp_path, "what day is it")
    reply = [c[3] for c in skill_calls(noted.events)]
    assert [c[0] for c in skill_calls(noted.events)] == ["day"] and reply
    first = noted.when[0][0]
    assert reply[0].startswith(first.rstrip(".")) and [text for text, _ in noted.when].count(first) == 2
    before = noted.when[0][1]
    assert "SpeechStarted" in before and "EndJudged" not in before  # voiced before the pause was judged
    assert [e.spoken for e in of(noted.events, SpeakingFinished)] == [reply[0]]


def test_nothing_is_voiced_ahead_for_words_a_skill_would_act_on_or_the_model_answer(
    model: ScriptedModel, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    # A timer acts; a sum has a number the final pass hears better; a question is the model's.
    for heard in ("set a timer for ten minutes", "what is 17 times 23", QUESTION):
        (place := tmp_path / heard.split()[0]).mkdir()
        noted = heard_turn(model, recogniser, place, heard)
        said = [text for text, _ in noted.when]
        assert said and len(set(said)) == len(said)  # each sentence voiced once: nothing ahead from a partial
    assert model.asked == [QUESTION]


def test_the_skills_stock_replies_are_voiced_ahead_while_the_box_idles(
    model: ScriptedModel, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    noted = heard_turn(model, recogniser, tmp_path, "cancel the timer")
    ahead = (*STOCK_REPLIES, ASK_AGAIN_REPLY, ASK_AGAIN_STILL)  # and what asks the user to say it again
    assert noted.kept == [first_sentence(reply) for reply in ahead]  # before anyone spoke
    assert [c[3] for c in skill_calls(noted.events)] == [NO_TIMERS] and NO_TIMERS in noted.kept


class AroundHearing:
    """The stand-in recogniser, wrapped: what it is, as the stand-in."""

    def __init__(self, recogniser: ScriptedRecogniser) -> None:
        self._recogniser = recogniser

    @property
    def engine(self) -> str:
        """As the stand-in."""
        return self._recogniser.engine

    @property
    def punctuates(self) -> bool:
        """As the stand-in."""
        return self._recogniser.punctuates

    def close(self) -> None:
        """Nothing to free."""


class SlowSecondHearing(AroundHearing):
    """The stand-in recogniser, whose final pass hears `final` and takes until the box speaks (or `wait_s`)."""

    def __init__(self, recogniser: ScriptedRecogniser, final: str, spoken: Callable[[], bool], wait_s: float) -> None:
        super().__init__(recogniser)
        self._final, self._spoken, self._wait_s = final, spoken, wait_s
        self.spoken_before_final_pass: list[bool] = []
        """For each final pass, whether the box had spoken before it was over."""

    def stream(self) -> SpeechStream:
        """Start an utterance."""
        return _SlowStream(self, self._recogniser.stream())

    def final_pass(self) -> Transcript:
        """Hear everything again: slowly."""
        deadline = time.monotonic() + self._wait_s
        while not self._spoken() and time.monotonic() < deadline:
            time.sleep(0.01)
        self.spoken_before_final_pass.append(self._spoken())
        return Transcript(self._final)


class _SlowStream:
    def __init__(self, hearing: SlowSecondHearing, quick: SpeechStream) -> None:
        self._hearing, self._quick = hearing, quick

    def feed(self, pcm: bytes) -> str | None:
        return self._quick.feed(pcm)

    def settle(self, final: bool = False) -> str:
        return self._hearing.final_pass().text if final else self._quick.settle()

    def finish(self) -> Transcript:
        return self._hearing.final_pass()


def slow_final_pass_turn(
    model: ScriptedModel, recogniser: ScriptedRecogniser, tmp_path: Path, quick: str, final: str
) -> tuple[AssembledBox, SlowSecondHearing]:
    """One spoken turn heard as `quick` at its pause and as `final` by a final pass that takes until the box speaks."""
    events: list[Event] = []
    hearing = SlowSecondHearing(recogniser, final, lambda: bool(of(events, SpeakingStarted)), wait_s=1.0)
    engines = dataclasses.replace(stand_in_engines(model, recogniser, ToneVoice()), stt=hearing)
    box = AssembledBox(box_config(tmp_path), engines, tmp_path)
    events = box.events
    say(box, recogniser, quick, len(quick.split()))
    return box, hearing


class SlowJudge(ScriptedModel):
    """The stand-in model, whose judgement of a pause (on the recogniser's thread) waits until `ready` is set."""

    def __init__(self, ready: threading.Event) -> None:
        super().__init__(answers=ANSWERS)
        self._ready = ready

    def prefill(self, question: str, give_way: bool = False) -> float:
        """P(end), once `ready` (at once for the listener's own prefill of a partial)."""
        if threading.current_thread().name.startswith("stt"):
            self._ready.wait(WAIT_S)
        return super().prefill(question, give_way)


def final_pass_held_for_the_answer(
    model: ScriptedModel, question: str, tmp_path: Path
) -> tuple[AssembledBox, SlowSecondHearing, ScriptedMic]:
    """A box (unclear pause 1.0 s) whose final pass takes until an early answer starts, and a microphone that has just
    said `question` after the wake phrase."""
    recogniser = ScriptedRecogniser(punctuates=True)
    events: list[Event] = []
    hearing = SlowSecondHearing(recogniser, question, lambda: bool(of(events, AnswerStartedEarly)), wait_s=1.0)
    engines = dataclasses.replace(stand_in_engines(model, recogniser, ToneVoice()), stt=hearing)
    config = dataclasses.replace(box_config(tmp_path), listen=dataclasses.replace(QUICK, trailing_silence_s=1.0))
    box = AssembledBox(config, engines, tmp_path)
    events = box.events
    recogniser.will_hear(question)
    mic = ScriptedMic(speed=SPEED)
    mic.say(silence(0.3))
    mic.say(wake_marker())
    mic.say(voice(len(question.split())))
    return box, hearing, mic


def held_until_started_early(events: list[Event]) -> threading.Event:
    """An event set once the box has started an early answer (or after WAIT_S): the microphone stalls on it, so a loaded
    machine cannot deliver the rest of the pause, and end the question, before the early answer had its chance."""
    started = threading.Event()

    def watch() -> None:
        deadline = time.monotonic() + WAIT_S
        while not of(events, AnswerStartedEarly) and time.monotonic() < deadline:
            time.sleep(0.01)
        started.set()

    threading.Thread(target=watch, daemon=True).start()
    return started


def test_an_answer_asked_for_before_the_judgement_came_starts_on_the_judged_words_not_after_the_final_pass(
    tmp_path: Path,
) -> None:
    # The unclear pause (1.0 s) asks for an answer 0.5 s before its end; the judgement, slow as a 1.5B brain's while
    # it reads the words of a partial, comes after that, and says the question is finished.
    stalled = threading.Event()
    model = SlowJudge(stalled)
    box, hearing, mic = final_pass_held_for_the_answer(model, QUESTION, tmp_path)
    events = box.events
    mic.say(silence(0.8))  # past the answer asked for at 0.5 s, short of the question's end at 1.0 s
    mic.stall(held_until_started_early(events), reached=stalled)  # the judgement comes now
    mic.say(silence(1.0))
    box.hear_one_turn(mic)
    assert [e.complete for e in of(events, EndJudged)] == [True]
    assert hearing.spoken_before_final_pass[0]  # begun on the words judged, while the final pass still ran
    assert of(events, AnswerKept) and model.asked == [QUESTION]
    assert [e.spoken for e in of(events, SpeakingFinished)] == [ANSWER]


def test_an_answer_to_words_judged_unclear_starts_on_the_judged_words_not_after_the_final_pass(
    tmp_path: Path,
) -> None:
    # Four words, punctuated: the judge cannot tell a whole question from half of one, so the pause waits the
    # unclear 1.0 s; the answer asked for 0.5 s before that starts on the words heard to judge it.
    question, answer = "Why do leaves fall?", "Trees shed them in autumn."
    model = ScriptedModel(answers={question: answer})
    box, hearing, mic = final_pass_held_for_the_answer(model, question, tmp_path)
    events = box.events
    mic.say(silence(0.7))  # past the answer asked for at 0.5 s, short of the question's end at 1.0 s
    mic.stall(held_until_started_early(events))
    mic.say(silence(1.3))
    box.hear_one_turn(mic)
    assert [e.complete for e in of(events, EndJudged)] == [None]
    assert hearing.spoken_before_final_pass[0]  # begun on the words judged, while the final pass still ran
    assert of(events, AnswerKept) and model.asked == [question]
    assert [e.spoken for e in of(events, SpeakingFinished)] == [answer]


def test_a_pause_judged_finished_ends_the_question_when_the_judgement_comes_not_at_the_next_delivery(
    tmp_path: Path,
) -> None:
    # A microphone hands over 90 ms at a time; the judgement of a pause that went on while it was made comes between
    # two deliveries. Here the microphone stalls after the pause until long after the judgement came.
    stalled, go_on = threading.Event(), threading.Event()
    model = SlowJudge(stalled)
    recogniser = ScriptedRecogniser(punctuates=True)
    config = dataclasses.replace(box_config(tmp_path), listen=dataclasses.replace(QUICK, trailing_silence_s=1.0))
    box = AssembledBox(config, stand_in_engines(model, recogniser, ToneVoice()), tmp_path)
    recogniser.will_hear(QUESTION)
    ended_in_the_stall: list[bool] = []

    def later() -> None:
        stalled.wait(WAIT_S)
        time.sleep(1.0)
        ended_in_the_stall.append(bool(of(box.events, ListeningEnded)))
        go_on.set()

    mic = ScriptedMic(speed=SPEED)
    mic.say(silence(0.3))
    mic.say(wake_marker())
    mic.say(voice(len(QUESTION.split())))
    mic.say(silence(0.4))  # past a finished question's 0.2 s, short of the unclear 1.0 s
    mic.stall(go_on, reached=stalled)
    threading.Thread(target=later, daemon=True).start()
    mic.say(silence(1.0))
    box.hear_one_turn(mic)
    assert [e.complete for e in of(box.events, EndJudged)] == [True]
    assert ended_in_the_stall == [True]
    assert [e.spoken for e in of(box.events, SpeakingFinished)] == [ANSWER]


class NotedHearing(AroundHearing):
    """The stand-in recogniser, noting how much voice each piece of audio handed to it held."""

    def __init__(self, recogniser: ScriptedRecogniser) -> None:
        super().__init__(recogniser)
        self.pieces: list[float] = []
        """Seconds of voice in each piece fed, in order."""

    def stream(self) -> SpeechStream:
        """Start an utterance whose pieces are noted."""
        return _NotedStream(self, self._recogniser.stream())


class _NotedStream:
    def __init__(self, hearing: NotedHearing, stream: SpeechStream) -> None:
        self._hearing, self._stream = hearing, stream

    def feed(self, pcm: bytes) -> str | None:
        self._hearing.pieces.append(voiced_s(pcm))
        return self._stream.feed(pcm)

    def settle(self, final: bool = False) -> str:
        return self._stream.settle(final)

    def finish(self) -> Transcript:
        return self._stream.finish()


def test_silence_after_words_reaches_the_recogniser_only_when_words_follow_it(
    model: ScriptedModel, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    # Decoding silence re-hears the same words and keeps the recogniser busy when the pause's own decode is due.
    hearing = NotedHearing(recogniser)
    engines = dataclasses.replace(stand_in_engines(model, recogniser, ToneVoice()), stt=hearing)
    config = dataclasses.replace(box_config(tmp_path), listen=dataclasses.replace(QUICK, trailing_silence_s=1.0))
    box = AssembledBox(config, engines, tmp_path)
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)
    mic.say(silence(0.3))
    mic.say(wake_marker())
    mic.say(voice(3))
    mic.say(silence(0.6))  # a pause, judged (unfinished), and the question goes on
    mic.say(voice(len(QUESTION.split()) - 3))
    mic.say(silence(1.5))
    box.hear_one_turn(mic)
    assert [e.text for e in of(box.events, TranscriptReady)] == [QUESTION]
    spoken = hearing.pieces[next(i for i, v in enumerate(hearing.pieces) if v) :]
    assert len(of(box.events, EndJudged)) == 2
    assert 0.0 not in spoken  # the pause's silence went with the words that followed it; the last one's nowhere


def test_a_closed_command_with_nothing_to_fill_in_is_answered_without_waiting_for_the_final_pass(
    model: ScriptedModel, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    box, hearing = slow_final_pass_turn(model, recogniser, tmp_path, "what day is it", "what day is it")
    assert [e.text for e in of(box.events, TranscriptReady)] == ["what day is it"]
    assert [c[0] for c in skill_calls(box.events)] == ["day"]
    assert hearing.spoken_before_final_pass and hearing.spoken_before_final_pass[0]


def test_a_command_with_a_slot_waits_for_the_final_pass_and_follows_it(
    model: ScriptedModel, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    box, hearing = slow_final_pass_turn(model, recogniser, tmp_path, "what is 17 times 23", "what is 17 times 24")
    assert [e.text for e in of(box.events, TranscriptReady)] == ["what is 17 times 24"]  # heard better
    assert skill_calls(box.events) == [("calculate", {"value": 408.0}, "template", "That's 408.")]
    assert [e.spoken for e in of(box.events, SpeakingFinished)] == ["That's 408."]
    assert hearing.spoken_before_final_pass and not hearing.spoken_before_final_pass[0]


def test_a_reply_prepared_for_words_the_user_then_went_on_from_is_dropped_and_the_conversation_kept(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    box = AssembledBox(box_config(tmp_path), stand_ins, tmp_path)
    assert box.ask("what is 17 times 23").answer == "That's 391."  # remembered, as a skill's reply is
    recogniser.will_hear("what is 17 times 23 plus 5")
    mic = ScriptedMic(speed=SPEED)
    mic.say(silence(0.3))
    mic.say(wake_marker())
    mic.say(voice(5))  # "what is 17 times 23"
    mic.say(silence(0.3))  # long enough to prepare its reply, too short to end the question
    mic.say(voice(2))  # "plus 5"
    box.hear_one_turn(mic)
    assert [e.question for e in of(box.events, AnswerDropped)] == ["what is 17 times 23"]
    assert [c[3] for c in skill_calls(box.events)] == ["That's 391.", "That's 396."]
    assert [e.spoken for e in of(box.events, SpeakingFinished)] == ["That's 396."]  # the dropped one never sounded
    # The same words asked before are still in the conversation: a dropped reply was never in it to take out.
    assert [(x.question, x.answer) for x in stand_ins.memory.remembered()] == [
        ("what is 17 times 23", "That's 391."),
        ("what is 17 times 23 plus 5", "That's 396."),
    ]


def test_a_spoken_skill_request_that_acts_is_never_begun_before_the_question_is_over(
    stand_ins: Engines, recogniser: ScriptedRecogniser, model: ScriptedModel, tmp_path: Path
) -> None:
    box = spoken_turn(stand_ins, recogniser, tmp_path, "set a timer for ten minutes", 6)
    assert of(box.events, AnswerStartedEarly) == []  # a skill that acts does so only once the question is over
    assert [(c[0], c[1]["seconds"]) for c in skill_calls(box.events)] == [("timer_start", 600)]
    skills = box.parts.skills
    assert skills is not None and len(skills.reminders.timers()) == 1  # set once


def test_a_timer_asked_for_without_a_length_is_asked_how_long_and_set_by_the_answer_alone(
    box: AssembledBox, model: ScriptedModel
) -> None:
    # NOTE: "For how long? Say, for example: set a timer for 10 minutes." had the user say it all again; "ten
    # minutes" alone went to the model, which said a timer was set
    assert box.ask("set a timer").answer == "For how long?"
    assert box.ask("ten minutes").answer == "A timer for 10 minutes, starting now."
    assert [(c[0], c[1].get("seconds")) for c in skill_calls(box.events)] == [
        ("remind_when", None),
        ("timer_start", 600),
    ]
    assert model.asked == []
    skills = box.parts.skills
    assert skills is not None and [t.seconds for t in skills.reminders.timers()] == [600]


def test_a_reminder_asked_for_tonight_is_asked_its_time_and_the_follow_up_alone_sets_it(
    stand_ins: Engines, recogniser: ScriptedRecogniser, model: ScriptedModel, tmp_path: Path
) -> None:
    config = dataclasses.replace(box_config(tmp_path), listen=dataclasses.replace(QUICK, follow_up_s=2.0))
    box = AssembledBox(config, stand_ins, tmp_path)
    recogniser.will_hear("Remind me to call mum tonight.", "At eight.")
    mic = ScriptedMic(speed=SPEED)
    mic.say(silence(0.3))
    mic.say(wake_marker())
    mic.say(voice(6))
    keeper = box.parts.keeper
    try:
        hearing = asyncio.run_coroutine_threadsafe(keeper.hear(frames_of(mic, keeper.listener)), box.loop)
        box.until(lambda: any(e.trigger == "follow-up" for e in of(box.events, TurnStarted)), "the follow-up window")
        mic.say(silence(0.3))
        mic.say(voice(2))  # the answer alone, without the wake word
        box.until(lambda: len(of(box.events, TurnEnded)) >= 2, "the follow-up's end")
        mic.end()
        hearing.result(WAIT_S)
    finally:
        mic.close()
        box.close()
    assert [(e.turn, e.trigger) for e in of(box.events, TurnStarted)][:2] == [(1, "wake-word"), (2, "follow-up")]
    called = [(c[0], c[3]) for c in skill_calls(box.events)]
    assert called[0] == ("remind_when", "At what time tonight?") and [c[0] for c in called[1:]] == ["alarm_set"]
    skills = box.parts.skills
    assert skills is not None
    assert [(a.hour, a.minute, a.note) for a in skills.reminders.alarms()] == [(20, 0, "call mum")]
    assert model.asked == []


def test_ask_with_no_box_running_answers_through_the_same_assembly(stand_ins: Engines, tmp_path: Path) -> None:
    events: list[Event] = []
    config = box_config(tmp_path)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        sum_ = pool.submit(ask_here, config, stand_ins, "what is 17 times 23", subscribers=(events.append,))
        assert sum_.result(WAIT_S).answer == "That's 391."
        wav = tmp_path / "answer.wav"
        asked = pool.submit(ask_here, config, stand_ins, QUESTION, wav=wav, subscribers=(events.append,))
        assert asked.result(WAIT_S).answer == ANSWER
    assert [(e.trigger, e.spoken_answer) for e in of(events, TurnStarted)] == [
        (Trigger.COMMAND, False),
        (Trigger.COMMAND, True),
    ]
    assert [e.spoken for e in of(events, SpeakingFinished)] == [ANSWER]
    assert wav.stat().st_size > 44  # the spoken answer, in the WAV file
    assert [e.skill for e in of(events, SkillCalled)] == ["calculate"]


def test_a_ring_nobody_stops_ends_by_itself(stand_ins: Engines, tmp_path: Path) -> None:
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)

    async def main() -> None:
        with WavFileSink(tmp_path / "speaker.wav", stand_ins.tts.sample_rate_hz) as sink:
            keeper = TurnKeeper(stand_ins, sink, QUICK, bus, ring_s=0.3)
            keeper.start()
            ended = asyncio.Event()
            bus.subscribe(lambda e: ended.set() if isinstance(e, TurnEnded) else None)
            assert keeper.ring("Your tea is ready.", "tea")
            await asyncio.wait_for(ended.wait(), WAIT_S)
            await asyncio.wait_for(keeper.close(), WAIT_S)

    asyncio.run(main())
    assert names(events) == ["TurnStarted", "Ringing", "TurnEnded"]
    assert [e.outcome for e in of(events, TurnEnded)] == ["answered"]  # rang its time out: nobody interrupted it


def test_a_misheard_cancel_is_asked_about_in_a_turn_and_done_on_the_next_yes(
    box: AssembledBox, model: ScriptedModel
) -> None:
    assert box.ask("set a timer for ten minutes").answer == "A timer for 10 minutes, starting now."
    assert box.ask("Can still my timer.").answer == 'Did you mean "cancel my timer"? Say yes, and I will.'
    assert box.ask("how long is left on my timer").answer.startswith("10 minute timer")  # still running; moves on
    assert box.ask("yes").answer == "You said: yes"  # nothing asked about any more: the model's
    assert box.ask("Can still my timer.").answer.startswith("Did you mean")
    assert box.ask("yes").answer == "10 minute timer cancelled."
    assert [c[0] for c in skill_calls(box.events)] == [
        "timer_start", "timer_cancel", "timer_left", "timer_cancel", "confirm",
    ]  # fmt: skip
    assert model.asked == ["yes"]


def test_a_box_left_at_once_with_a_reminder_restored_ends(stand_ins: Engines, tmp_path: Path) -> None:
    config = box_config(tmp_path)
    with AssembledBox(config, stand_ins, tmp_path) as box:
        assert box.ask("Set an alarm for 6:45 AM.").answer.startswith("Alarm set")

    async def enter_and_leave(steps: int) -> None:
        # The alarm clock looks at the restored alarm just as the box leaves: after any number of loop steps
        # (a missing microphone file ends the run at once), its leaving must not be lost.
        with WavFileSink(tmp_path / "left.wav", stand_ins.tts.sample_rate_hz) as sink:
            async with assembled(config, stand_ins, sink, EventBus(), state_dir=tmp_path / "state"):
                for _ in range(steps):
                    await asyncio.sleep(0)

    async def left_in_time(steps: int) -> bool:
        leaving = asyncio.ensure_future(enter_and_leave(steps))
        done, _ = await asyncio.wait({leaving}, timeout=WAIT_S)
        return leaving in done and leaving.result() is None

    for steps in range(8):
        loop = asyncio.new_event_loop()
        try:
            assert loop.run_until_complete(left_in_time(steps)), f"the box never ended, left after {steps} steps"
        finally:
            loop.close()
