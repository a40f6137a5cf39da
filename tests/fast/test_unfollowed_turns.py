"""A request for one of the box's own jobs that no skill could read, inside the box's one assembly on the stand-in
engines: it is told that nothing was done and how to ask, the model never asked (it promised: "Sure, I can set a
timer for 4 minutes."), typed or spoken; a question about the same things still goes to the model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from daemon.events import AnswerStartedEarly, SkillCalled, SpeakingFinished
from daemon.ports import Engines
from daemon.skills import intents
from daemon.skills.unfollowed import REPLIES
from tests.fast.script import ANSWER
from tests.fast.test_skills_in_the_box import AssembledBox, box_config, spoken_turn
from tests.harness import of
from tests.inprocess import ScriptedModel, ScriptedRecogniser

UNREAD = [
    ("could I get a reminder about the oven in twenty minutes", "reminder"),
    ("Put a reminder in for ten minutes", "reminder"),
    ("Never mind the timer.", "timer"),
    ("timer off please now", "timer"),
    ("Alarm 06:20 please", "alarm"),
    ("make yourself a bit louder", "volume"),
    ("could you go a little quieter please", "volume"),
    ("fix your clock, it is five pm", "clock"),
    ("erase what we talked about", "conversation"),
    ("talk slower will you", "pace"),
]
"""Requests no sentence template reads, and the job each names."""
THE_MODELS = [
    "how do I set an alarm on my phone",
    "why are alarms so loud",
    "what's a good kitchen timer to buy",
    "tell me a story about a clock",
    "write a poem about waking up",
]
"""Questions and requests about the same things that are the model's to answer."""


@pytest.fixture
def box(stand_ins: Engines, tmp_path: Path) -> Iterator[AssembledBox]:
    with AssembledBox(box_config(tmp_path), stand_ins, tmp_path) as opened:
        yield opened


@pytest.mark.parametrize(("said", "job"), UNREAD)
def test_a_request_for_a_job_no_skill_read_is_told_nothing_was_done_and_how_to_ask(
    box: AssembledBox, model: ScriptedModel, said: str, job: str
) -> None:
    assert intents.match(said) is None  # no template reads it: before, it went to the model
    result = box.ask(said)
    assert (result.outcome, result.answer) == ("answered", REPLIES[job])
    assert [(e.skill, e.args, e.by) for e in of(box.events, SkillCalled)] == [("unfollowed", {"job": job}, "job named")]
    assert model.asked == []
    skills = box.parts.skills
    assert skills is not None and len(skills.reminders) == 0  # nothing set, as it says
    assert box.parts.sink.level == 100 and not box.parts.sink.muted


def test_every_example_the_replies_give_is_a_request_the_box_does() -> None:
    for reply in REPLIES.values():
        examples = reply.split("Say, for example: ")[-1].split("Say: ")[-1].split("say: ")[-1]
        for example in examples.removesuffix(".").replace(", or ", ", ").split(", "):
            call = intents.match(example)
            assert call is not None and call.skill != "unfollowed", f"{example!r} of {reply!r}"


@pytest.mark.parametrize("said", THE_MODELS)
def test_a_question_about_the_same_things_still_goes_to_the_model(
    box: AssembledBox, model: ScriptedModel, said: str
) -> None:
    box.ask(said)
    assert model.asked == [said] and not of(box.events, SkillCalled)


def test_a_spoken_request_no_skill_read_is_not_begun_by_the_model_at_the_pause(
    stand_ins: Engines, recogniser: ScriptedRecogniser, model: ScriptedModel, tmp_path: Path
) -> None:
    box = spoken_turn(stand_ins, recogniser, tmp_path, "put a reminder in for ten minutes", 7)
    assert of(box.events, AnswerStartedEarly) == [] and model.asked == []
    assert [(e.spoken, e.interrupted) for e in of(box.events, SpeakingFinished)] == [(REPLIES["reminder"], False)]
    assert ANSWER not in [e.spoken for e in of(box.events, SpeakingFinished)]
