"""The console's timings: from when the box had the question, whether the answer began early or not."""

from __future__ import annotations

import io

import pytest

from daemon.cli.console import ConsoleView
from daemon.events import (
    AnswerDropped,
    AnswerFinished,
    AnswerStartedEarly,
    EndReason,
    Event,
    ListeningEnded,
    SkillCalled,
    SpeakingStarted,
)


def _watch(timed: list[tuple[float, Event]]) -> ConsoleView:
    now = [0.0]
    view = ConsoleView(io.StringIO(), clock=lambda: now[0])
    for t, event in timed:
        now[0] = t
        view(event)
    return view


def test_an_early_answer_that_sounded_is_timed_from_its_start() -> None:
    view = _watch(
        [
            (1.0, AnswerStartedEarly(turn=1, question="What is the capital of France?")),
            (1.5, ListeningEnded(turn=1, reason=EndReason.SILENCE, speech_s=1.6)),
            (1.6, SpeakingStarted(turn=1, latency_s=0.1, since_last_word_s=0.9)),
        ]
    )
    assert view.question_latencies == [pytest.approx(0.6)] and view.latencies == [0.1]


def test_a_dropped_early_answer_leaves_the_timing_to_the_end_of_speech() -> None:
    view = _watch(
        [
            (1.0, AnswerStartedEarly(turn=1, question="What is the capital")),
            (1.4, AnswerDropped(turn=1, question="What is the capital")),  # the user went on
            (2.5, ListeningEnded(turn=1, reason=EndReason.SILENCE, speech_s=2.6)),
            (3.1, SpeakingStarted(turn=1, latency_s=0.6, since_last_word_s=1.0)),
        ]
    )
    assert view.question_latencies == [pytest.approx(0.6)]


def test_a_skills_answer_says_which_skill_answered_not_the_models_speed() -> None:
    out = io.StringIO()
    view = ConsoleView(out)
    view(SkillCalled(turn=1, skill="chance", args={"what": "coin"}, by="template", reply="It's tails."))
    view(AnswerFinished(turn=1, text="It's tails.", tokens=0, tokens_per_s=0.0, prompt_s=0.0))
    view(AnswerFinished(turn=2, text="Rome.", tokens=3, tokens_per_s=12.5, prompt_s=0.4))
    printed = out.getvalue()
    assert "[answered by the box's own chance skill; the model was not asked]" in printed
    assert "0 tokens" not in printed and "[answer: 3 tokens at 12.5 tok/s; first token 0.40 s]" in printed
    assert view.decode_rates == [12.5]  # a skill's turn decoded nothing
