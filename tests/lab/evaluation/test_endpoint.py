"""Replaying endpoint rules on a question's recorded pauses: when it ends, and whether it was cut short."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from daemon.config import ListenConfig
from daemon.lab.evaluation.corpus import QUESTIONS
from daemon.lab.evaluation.endpoint import Pause, Walk, replay, unclosed_walk, wait_at
from daemon.lab.evaluation.hearing import SpokenQuestion
from daemon.turn.listener import JUDGE_AFTER_S

RULE = ListenConfig(predict_end=True, trailing_silence_s=1.0, min_silence_s=0.3, max_silence_s=1.5)


def _pause(length_s: float, judged: bool | None, judge_s: float = 0.05) -> Pause:
    return Pause(at_s=1.0, length_s=length_s, text="words", p_end=0.5, command=False, judged=judged, judge_s=judge_s)


@pytest.mark.parametrize(("judged", "wait_s"), [(True, 0.3), (None, 1.0), (False, 1.5)])
def test_each_judgement_waits_its_own_silence(judged: bool | None, wait_s: float) -> None:
    assert wait_at(_pause(2.0, judged), RULE) == pytest.approx(wait_s)


def test_a_finished_pause_waits_for_the_answer_begun_at_it_but_never_past_the_unclear_wait() -> None:
    assert wait_at(_pause(2.0, True), RULE, answer_s=0.5) == pytest.approx(JUDGE_AFTER_S + 0.05 + 0.5)
    assert wait_at(_pause(2.0, True), RULE, answer_s=3.0) == pytest.approx(RULE.trailing_silence_s)
    assert wait_at(_pause(2.0, True, judge_s=0.5), RULE) == pytest.approx(JUDGE_AFTER_S + 0.5)  # judged late


def test_a_question_ended_at_an_inner_pause_is_cut_off_and_one_that_outlasts_it_is_not() -> None:
    said = SpokenQuestion(QUESTIONS[0], "voice", "pauses", np.zeros(16000, np.int16))
    inner, last = _pause(0.6, True), _pause(2.0, True)
    cut, _, lost = replay(Walk(said, (inner, last)), RULE)
    assert cut and not lost  # the same words either side: none lost
    cut, after, _ = replay(Walk(said, (inner, last)), RULE, answer_s=0.5)  # ready 0.67 s in: the user went on
    assert not cut and after == pytest.approx(JUDGE_AFTER_S + 0.05 + 0.5)


def test_a_cut_off_loses_words_when_the_question_went_on_after_the_pause() -> None:
    said = SpokenQuestion(QUESTIONS[0], "voice", "pauses", np.zeros(16000, np.int16))
    inner = replace(_pause(0.6, True), text="Set an alarm for 7.")
    last = replace(_pause(2.0, True), text="Set an alarm for 7 30.")
    assert replay(Walk(said, (inner, last)), RULE)[::2] == (True, True)


def test_the_same_pauses_can_be_judged_as_if_no_command_were_closed() -> None:
    said = SpokenQuestion(QUESTIONS[0], "voice", "pauses", np.zeros(16000, np.int16))
    short = replace(_pause(2.0, True), text="What time is it?", command=True, closed=True)
    (before,) = unclosed_walk(Walk(said, (short,)), punctuated=True).pauses
    assert before.judged is None and not before.closed  # a short command waited the unclear pause
