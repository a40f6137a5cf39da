"""Honest answers inside the box's one assembly, on the stand-in engines: an impossible skill request and a question
only the internet could answer are each answered by a skill in a turn of their own, the model never asked, not
even for a tool call; a general question still goes to the model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from daemon.events import RemindersChanged, SkillCalled, SpeakingFinished
from daemon.ports import Engines
from daemon.skills import unable
from daemon.skills.honest import LATEST, NOT_ONLINE, OFFLINE, PERSONAL, TIMER_LIMITS, VOLUME_LIMITS
from tests.fast.script import ANSWER, QUESTION
from tests.fast.test_skills_in_the_box import AssembledBox, box_config
from tests.harness import names, of
from tests.inprocess import ScriptedModel, ToneVoice

HONEST = [
    ("what is 5 divided by 0", "calculate", "I can't divide by zero."),
    ("what is the square root of minus 4", "calculate", "Minus 4 has no real square root."),
    ("what is a million factorial", "calculate", "That number is too big for me to say."),
    ("set a timer for minus 5 minutes", "timer_start", TIMER_LIMITS),
    ("set a timer for 0 seconds", "timer_start", TIMER_LIMITS),
    ("set an alarm for 25:99", "alarm_set", "25:99 isn't a time on the clock."),
    ("set the volume to 500 percent", "volume", VOLUME_LIMITS),
    ("how long is left on the pasta timer", "timer_left", "There is no pasta timer."),
    ("cancel the 7:30 alarm", "alarm_cancel", "There is no alarm at seven thirty."),
    ("what is the weather like tomorrow", "offline", OFFLINE),
    ("what's the news", "offline", OFFLINE),
    ("who won the game last night", "offline", OFFLINE),
    ("how much is bitcoin worth", "offline", OFFLINE),
    ("what's on tv tonight", "offline", OFFLINE),
    ("how's the traffic this morning", "offline", OFFLINE),
    ("search the internet for cheap flights", "offline", NOT_ONLINE),
    ("what's the newest samsung phone", "offline", LATEST),
    ("was there an earthquake in chile today", "offline", OFFLINE),  # no template: a question about the moment
    ("is my daughter back from school yet", "offline", PERSONAL),
    ("play some jazz", "offline", unable.MUSIC),  # never "Sure, playing some jazz for you"
    ("text my sister that I'm on my way", "offline", unable.CALLS),
]
"""Each request, the skill that must answer it and its whole reply."""


@pytest.fixture
def box(stand_ins: Engines, tmp_path: Path) -> Iterator[AssembledBox]:
    """The assembly with tool calls on: a request no template took would be sent to the model to route."""
    with AssembledBox(box_config(tmp_path, tool_calls=True), stand_ins, tmp_path) as opened:
        yield opened


@pytest.mark.parametrize(("said", "skill", "reply"), HONEST)
def test_a_request_the_box_cannot_do_is_answered_plainly_by_its_skill(
    box: AssembledBox, model: ScriptedModel, said: str, skill: str, reply: str
) -> None:
    result = box.ask(said)
    assert (result.outcome, result.answer) == ("answered", reply)
    assert [(e.skill, e.by, e.reply) for e in of(box.events, SkillCalled)] == [(skill, "template", reply)]
    turn = [name for name in names(box.events) if name != "RemindersChanged"]
    assert turn == ["TurnStarted", "ThinkingStarted", "SkillCalled", "AnswerFinished", "TurnEnded"]
    # A timer or alarm request makes the display look again: it is told nothing is set.
    assert all((e.timers, e.alarms) == ((), ()) for e in of(box.events, RemindersChanged))
    assert model.asked == [] and model.tool_requests == []  # never a guess: the model is not asked at all


def test_nothing_is_set_or_changed_by_an_impossible_request(box: AssembledBox) -> None:
    for said, _, _ in HONEST:
        box.ask(said)
    skills = box.parts.skills
    assert skills is not None and len(skills.reminders) == 0
    assert box.parts.sink.level == 100 and not box.parts.sink.muted


def test_an_honest_answer_may_be_spoken(box: AssembledBox, voice: ToneVoice) -> None:
    result = box.ask("is it going to rain tomorrow", speak=True)
    assert result.answer == OFFLINE
    assert [(e.spoken, e.interrupted) for e in of(box.events, SpeakingFinished)] == [(OFFLINE, False)]
    assert " ".join(voice.said) == OFFLINE  # said sentence by sentence


def test_general_questions_near_a_skill_still_go_to_the_model(box: AssembledBox, model: ScriptedModel) -> None:
    near = [QUESTION, "what causes rain", "what is the square root of a negative number", "who won the space race",
            "what should I cook tonight"]  # fmt: skip
    answers = [box.ask(question).answer for question in near]
    assert answers[0] == ANSWER
    assert answers[1:] == [f"You said: {question}" for question in near[1:]]
    assert of(box.events, SkillCalled) == []
    assert model.asked == near and model.tool_requests == []  # none names a skill's subject either
