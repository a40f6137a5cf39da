"""Which requests name a job of the box's own (daemon/skills/unfollowed.py): a request no skill read is then told
nothing was done; every general question of the tune halves stays the model's."""

from __future__ import annotations

import pytest

from daemon.lab.evaluation import answers
from daemon.lab.evaluation.skill_phrases import PHRASES
from daemon.lab.evaluation.skills import GENERAL, tune
from daemon.skills.unfollowed import job_of


def test_no_general_question_of_the_tune_halves_names_a_job() -> None:
    general = [p.text for p in tune() if p.skill == GENERAL]
    general += [q.text for q in answers.QUESTIONS if answers.split(q) == "tune" and q.kind != answers.UNABLE]
    assert len(general) > 600
    assert [(said, job_of(said)) for said in general if job_of(said) is not None] == []


def test_the_tune_halfs_requests_that_do_something_name_their_job() -> None:
    jobs = {"timer_start": {"timer", "reminder"}, "timer_cancel": {"timer"}, "alarm_set": {"alarm", "reminder"}}
    jobs |= {"alarm_cancel": {"alarm"}, "forget": {"conversation"}}
    requests = [p for p in tune(PHRASES) if p.skill in jobs]
    named = [p for p in requests if job_of(p.text) in jobs[p.skill]]
    assert len(named) >= 0.95 * len(requests), [p.text for p in requests if p not in named]


@pytest.mark.parametrize(
    ("said", "job"),
    [
        ("set an alarm on my phone for seven", None),  # another thing's: the model may tell how
        ("turn the tv volume down", None),
        ("the fire alarm went off", None),
        ("How do I set a timer?", None),  # a question
        ("write a poem about my alarm clock", None),
        ("remind me in 40 minutes to check the oven", "reminder"),  # a note may name anything
        ("Never mind the timer.", "timer"),
        ("could you go a little quieter please", "volume"),
    ],
)
def test_a_job_is_the_box_s_own_and_asked_for(said: str, job: str | None) -> None:
    assert job_of(said) == job
