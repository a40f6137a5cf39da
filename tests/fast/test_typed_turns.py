"""Typed questions through the turn keeper, on the stand-in engines: whole event sequences, the queue, the limit,
stopping, failures, and what the conversation keeps."""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from daemon.errors import TalkboxError
from daemon.events import (
    AnswerFinished,
    Event,
    EventBus,
    QuestionCut,
    SentenceSpoken,
    SpeakingFinished,
    SpeakingStarted,
    ThinkingStarted,
    TokenGenerated,
    Trigger,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from daemon.ports import Engines, Exchange
from daemon.turn.keeper import State, TurnKeeper
from daemon.turn.typed import MAX_WAITING
from hardware.audio import WavFileSink
from tests.fast.script import ANSWER, QUESTION, QUICK, STORY, STORY_ANSWER, WAIT_S, shape
from tests.harness import KeeperThread, faulty, names, of
from tests.inprocess import ScriptedModel, ToneVoice, stand_in_engines

SPOKEN_ANSWER = [
    "TurnStarted",
    "ThinkingStarted",
    "SentenceReady",
    "SentenceReady",
    "SpeakingStarted",
    "SentenceSpoken",
    "SentenceSpoken",
    "SpeakingFinished",
    "TurnEnded",
]
"""A typed question answered aloud with ANSWER's two sentences, as shape() lists it."""


@pytest.fixture
def typed(stand_ins: Engines, tmp_path: Path) -> Iterator[KeeperThread]:
    with KeeperThread(stand_ins, tmp_path / "typed.wav", QUICK) as box:
        yield box


def wait_for(events: list[Event], kind: type[Event]) -> None:
    """Block until an event of `kind` was emitted."""
    deadline = time.monotonic() + WAIT_S
    while not of(events, kind):
        assert time.monotonic() < deadline, f"no {kind.__name__} in time; got {names(events)}"
        time.sleep(0.01)


def test_a_typed_question_is_a_turn_of_its_own_with_its_answer_streamed(typed: KeeperThread) -> None:
    pieces: list[str] = []
    result = typed.keeper.ask(QUESTION, Trigger.SOCKET, on_piece=pieces.append).result(WAIT_S)
    assert (result.outcome, result.turn, result.answer, result.error) == ("answered", 1, ANSWER, None)
    assert pieces == [
        "Bees",
        " make",
        " honey",
        " from",
        " nectar.",
        " They",
        " store",
        " it",
        " in",
        " wax",
        " combs.",
    ]
    assert names(typed.events) == ["TurnStarted", "ThinkingStarted", "AnswerFinished", "TurnEnded"]
    started = of(typed.events, TurnStarted)[0]
    assert (started.trigger, started.question, started.spoken_answer) == (Trigger.SOCKET, QUESTION, False)
    assert [e.question for e in of(typed.events, ThinkingStarted)] == [QUESTION]
    assert [e.text for e in of(typed.events, AnswerFinished)] == [ANSWER]
    assert [e.text for e in of(typed.events, TokenGenerated)] == pieces
    assert {e.turn for e in typed.events} == {1}
    assert typed.keeper.state is State.IDLE and typed.keeper.last_answer == ANSWER


def test_a_typed_question_may_ask_to_be_spoken(typed: KeeperThread, stand_ins: Engines) -> None:
    result = typed.ask(QUESTION, speak=True).result(WAIT_S)
    assert result.outcome == "answered"
    assert shape(typed.events) == SPOKEN_ANSWER
    assert of(typed.events, TurnStarted)[0].spoken_answer
    sentences = ["Bees make honey from nectar.", "They store it in wax combs."]
    assert [(e.index, e.text) for e in of(typed.events, SentenceSpoken)] == list(enumerate(sentences))
    finished = of(typed.events, SpeakingFinished)[0]
    assert (finished.spoken, finished.interrupted) == (ANSWER, False)
    assert isinstance(stand_ins.tts, ToneVoice) and stand_ins.tts.said == sentences
    assert stand_ins.memory.remembered() == (Exchange(QUESTION, ANSWER),)


def test_typed_questions_wait_for_the_turn_under_way_and_are_answered_in_order(
    typed: KeeperThread, model: ScriptedModel
) -> None:
    first = typed.ask(STORY, speak=True)
    second, third = typed.ask(QUESTION), typed.ask("What is two and two?")
    assert [f.result(WAIT_S).turn for f in (first, second, third)] == [1, 2, 3]
    bracket = [(type(e).__name__, e.turn) for e in typed.events if isinstance(e, TurnStarted | TurnEnded)]
    assert bracket == [(name, turn) for turn in (1, 2, 3) for name in ("TurnStarted", "TurnEnded")]
    assert model.asked == [STORY, QUESTION, "What is two and two?"]
    assert third.result(0).answer == "You said: What is two and two?"


def test_one_question_too_many_is_refused_as_busy_and_a_left_asker_is_skipped(typed: KeeperThread) -> None:
    gone = threading.Event()
    running = typed.ask(STORY, speak=True)
    left = typed.keeper.ask("Who wrote Hamlet?", Trigger.SOCKET, abandoned=gone)
    waiting = [typed.ask(f"Question {n}?") for n in range(MAX_WAITING - 1)]
    with pytest.raises(TalkboxError) as refused:
        typed.ask(QUESTION).result(WAIT_S)
    assert refused.value.code == "turn-busy"
    assert refused.value.message == f"the box is busy: {MAX_WAITING} questions are already waiting"
    gone.set()  # the asker of the second question left while it waited
    wait_for(typed.events, SpeakingStarted)
    typed.keeper.stop_speaking()
    assert running.result(WAIT_S).outcome == "interrupted"
    with pytest.raises(concurrent.futures.CancelledError):
        left.result(WAIT_S)
    assert [f.result(WAIT_S).outcome for f in waiting] == ["answered"] * (MAX_WAITING - 1)
    asked = [e.question for e in of(typed.events, ThinkingStarted)]
    assert asked == [STORY, *(f"Question {n}?" for n in range(MAX_WAITING - 1))]
    assert [e.turn for e in of(typed.events, TurnStarted)] == list(range(1, MAX_WAITING + 1))


def test_stopping_an_answer_keeps_only_what_was_heard(typed: KeeperThread, stand_ins: Engines) -> None:
    running = typed.ask(STORY, speak=True)
    wait_for(typed.events, SentenceSpoken)
    typed.keeper.stop_speaking()
    result = running.result(WAIT_S)
    assert result.outcome == "interrupted" and STORY_ANSWER.startswith(result.answer)
    tail = names(typed.events)[names(typed.events).index("BargeIn") :]
    # NOTE: on a loaded machine the stop may land while the answer is still written: its end is then told after.
    assert [n for n in tail if n not in ("AnswerFinished", "SentenceReady")] == [
        "BargeIn",
        "SpeakingFinished",
        "TurnEnded",
    ]
    finished = of(typed.events, SpeakingFinished)[0]
    assert finished.interrupted and finished.spoken and len(finished.spoken) < len(STORY_ANSWER)
    assert result.answer.startswith(finished.spoken)  # what was heard began what was generated
    # The conversation keeps what the user heard, not what was generated.
    assert stand_ins.memory.remembered() == (Exchange(STORY, finished.spoken),)
    assert typed.keeper.state is State.IDLE


def test_stopping_the_box_finishes_the_answer_and_refuses_the_questions_still_waiting(
    stand_ins: Engines, tmp_path: Path
) -> None:
    box = KeeperThread(stand_ins, tmp_path / "typed.wav", QUICK)
    running, waiting = box.ask(STORY, speak=True), box.ask(QUESTION)
    box.close()  # the answer under way is finished first
    assert running.result(WAIT_S).outcome == "answered"
    with pytest.raises(TalkboxError) as refused:
        waiting.result(WAIT_S)
    assert refused.value.code == "turn-box-stopping"
    assert [e.question for e in of(box.events, ThinkingStarted)] == [STORY]


def test_a_question_before_the_box_runs_is_refused(stand_ins: Engines, tmp_path: Path) -> None:
    with WavFileSink(tmp_path / "a.wav", stand_ins.tts.sample_rate_hz) as sink:
        keeper = TurnKeeper(stand_ins, sink, QUICK, EventBus())
        with pytest.raises(TalkboxError) as refused:
            keeper.ask(QUESTION, Trigger.SOCKET).result(WAIT_S)
    assert refused.value.code == "turn-not-running"


def test_a_failed_turn_is_reported_once_and_the_box_keeps_answering(stand_ins: Engines, tmp_path: Path) -> None:
    with KeeperThread(faulty(stand_ins), tmp_path / "typed.wav", QUICK) as box:
        failed, crashed, fine = box.ask("model"), box.ask("crash"), box.ask(QUESTION)
        results = [f.result(WAIT_S) for f in (failed, crashed, fine)]
    assert [r.outcome for r in results] == ["failed", "failed", "answered"]
    assert [(e.turn, e.code, e.message) for e in of(box.events, TurnFailed)] == [
        (1, "llm-failed", "the model stopped"),
        (2, "turn-failed", "the answer failed: boom"),
    ]
    assert [(r.error.code if r.error else None) for r in results] == ["llm-failed", "turn-failed", None]
    assert results[1].answer == "" and results[2].answer == ANSWER
    turn_two = [type(e).__name__ for e in box.events if e.turn == 2 and type(e).__name__ != "TokenGenerated"]
    assert turn_two == ["TurnStarted", "ThinkingStarted", "TurnFailed", "TurnEnded"]
    assert box.keeper.state is State.IDLE


def test_a_long_question_is_cut_and_says_so(tmp_path: Path) -> None:
    engines = stand_in_engines(ScriptedModel(max_question_words=4))
    with KeeperThread(engines, tmp_path / "typed.wav", QUICK) as box:
        result = box.ask("one two three four five six").result(WAIT_S)
    assert result.answer == "You said: one two three four"
    assert names(box.events) == ["TurnStarted", "ThinkingStarted", "QuestionCut", "AnswerFinished", "TurnEnded"]
    assert of(box.events, QuestionCut) == [QuestionCut(turn=1, tokens=6, kept_tokens=4)]
