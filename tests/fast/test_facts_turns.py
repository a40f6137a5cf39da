"""Facts inside the box's one assembly, on the stand-in engines: a country, an element, a planet, a holiday, a leap
year, a spelling or a claim to check is answered by its skill in a turn of its own, the model never asked (not even
for a tool call); the calendar goes by the box's trusted clock and says so when nothing vouches for it; a spoken
spelling request is heard, answered and said; questions near the facts but outside the data still go to the model."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from daemon.events import AnswerStartedEarly, SkillCalled, SpeakingFinished
from daemon.ports import Engines, Exchange
from daemon.skills import clock
from daemon.skills.honest import UNSET_CLOCK
from tests.fast.test_skills_in_the_box import AssembledBox, box_config, spoken_turn
from tests.harness import names, of
from tests.inprocess import ScriptedModel, ScriptedRecogniser, ToneVoice

NOW = datetime.datetime(2026, 12, 1, 12, 0).timestamp()
"""The box's clock in these tests: local noon on 1 December 2026, 24 days before Christmas."""

FACTS = [
    ("What is the capital of Spain?", "country", "The capital of Spain is Madrid."),
    ("what currency does japan use", "country", "Japan uses the Yen."),
    (
        "how many people live in italy",
        "country",
        "Italy had about 61 million people around 2014, the latest count I have.",
    ),
    ("which element has the symbol Fe", "element", "Iron is element number 26, symbol Fe."),
    ("what is the atomic number of carbon", "element", "The atomic number of carbon is 6."),
    ("what is the chemical symbol for unobtainium", "element", "I don't know an element called unobtainium."),
    ("how many moons does mars have", "planet", "Mars has 2 moons: Phobos and Deimos."),
    ("what is the largest planet", "planet", "Jupiter is the largest planet, about 143 thousand kilometres across."),
    ("what day is christmas next year", "holiday", "In 2027, Christmas Day falls on a Saturday."),
    ("how many days until christmas", "holiday", "There are 24 days until Christmas Day."),
    ("is 2028 a leap year", "leap_year", "Yes, 2028 is a leap year."),
    ("what day of the week was july the 4th 1976", "weekday", "July the fourth, 1976, was a Sunday."),
    ("count to five", "count", "1, 2, 3, 4, 5."),
    ("is ninety one a prime number", "number_fact", "No, 91 is not a prime number: it's 7 times 13."),
    ("how do you spell necessary", "spell", "Necessary is spelled N, E, C, E, S, S, A, R, Y."),
    ("is sydney the capital of australia", "claim", "No. The capital of Australia is Canberra."),
    ("does switzerland use the euro", "claim", "No. Switzerland uses the Swiss Franc."),
    ("is pluto a planet", "claim", "No, Pluto has been called a dwarf planet since 2006, not a planet."),
    ("how many elements are there", "element", "118 elements have been found and named, from hydrogen to oganesson."),
]
"""Each question, the skill that must answer it and its whole reply (by the clock at NOW)."""


@pytest.fixture
def box(stand_ins: Engines, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AssembledBox]:
    """The assembly with tool calls on (a fact no template took would go to the model to route), its clock at NOW."""
    monkeypatch.setattr(clock.BoxClock, "now", lambda self: NOW + self.offset_s)
    with AssembledBox(box_config(tmp_path, tool_calls=True), stand_ins, tmp_path) as opened:
        yield opened


@pytest.mark.parametrize(("said", "skill", "reply"), FACTS)
def test_a_fact_is_answered_by_its_skill_in_a_turn_of_its_own(
    box: AssembledBox, model: ScriptedModel, said: str, skill: str, reply: str
) -> None:
    result = box.ask(said)
    assert (result.outcome, result.answer) == ("answered", reply)
    assert [(e.skill, e.by, e.reply) for e in of(box.events, SkillCalled)] == [(skill, "template", reply)]
    assert names(box.events) == ["TurnStarted", "ThinkingStarted", "SkillCalled", "AnswerFinished", "TurnEnded"]
    assert model.asked == [] and model.tool_requests == []  # never a guess: the model is not asked at all


def test_a_fact_may_be_spoken_and_repeated(box: AssembledBox, model: ScriptedModel, voice: ToneVoice) -> None:
    reply = "The capital of Australia is Canberra."
    assert box.ask("what's the capital of australia", speak=True).answer == reply
    assert [(e.spoken, e.interrupted) for e in of(box.events, SpeakingFinished)] == [(reply, False)]
    assert voice.said == [reply]
    assert box.ask("say that again").answer == reply
    assert [e.skill for e in of(box.events, SkillCalled)] == ["country", "repeat"]
    assert model.asked == []


def test_the_calendar_is_honest_when_nothing_vouches_for_the_clock(
    stand_ins: Engines, tmp_path: Path, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(clock, "ntp_synchronised", lambda: False)  # no network
    monkeypatch.setattr(clock, "rtc_set_the_clock", lambda *_: False)  # no real-time clock
    box = AssembledBox(box_config(tmp_path, trust_clock="auto"), stand_ins, tmp_path)
    try:
        assert box.ask("how many days until christmas").answer == UNSET_CLOCK
        assert box.ask("what day is christmas next year").answer == UNSET_CLOCK
        assert box.ask("what day is christmas 2027").answer == "In 2027, Christmas Day falls on a Saturday."
    finally:
        box.close()
    assert [e.skill for e in of(box.events, SkillCalled)] == ["holiday", "holiday", "holiday"]
    assert model.asked == []


def test_a_spoken_spelling_request_is_heard_answered_and_said(
    stand_ins: Engines, recogniser: ScriptedRecogniser, model: ScriptedModel, voice: ToneVoice, tmp_path: Path
) -> None:
    box = spoken_turn(stand_ins, recogniser, tmp_path, "how do you spell necessary", 5)
    reply = "Necessary is spelled N, E, C, E, S, S, A, R, Y."
    assert [(e.skill, e.by, e.reply) for e in of(box.events, SkillCalled)] == [("spell", "template", reply)]
    # It only answers: its reply was ready at the pause, and sounds once the question is over.
    assert [e.question for e in of(box.events, AnswerStartedEarly)] == ["how do you spell necessary"]
    # NOTE: the voice may take the first chunk at a comma and end it as a sentence ("...spelled N."): every letter
    # is still said, in order, once.
    assert [re.findall(r"\b[A-Z]\b", e.spoken) for e in of(box.events, SpeakingFinished)] == [list("NECESSARY")]
    assert re.findall(r"\b[A-Z]\b", " ".join(voice.said)) == list("NECESSARY")
    assert model.asked == []


def test_questions_near_the_facts_but_outside_the_data_still_go_to_the_model(
    box: AssembledBox, model: ScriptedModel
) -> None:
    # NOTE: "how far is the moon" was here: the planets' distances are kept now
    near = ["what is the capital of texas", "how old is the moon", "how many legs does a spider have"]
    answers = [box.ask(question).answer for question in near]
    assert answers == [f"You said: {question}" for question in near]
    assert of(box.events, SkillCalled) == []
    assert model.asked == near and model.tool_requests == []


def test_a_facts_reply_is_part_of_the_conversation_the_model_follows_up_on(
    box: AssembledBox, model: ScriptedModel, stand_ins: Engines
) -> None:
    fact = ("What is the capital of Spain?", "The capital of Spain is Madrid.")
    assert box.ask(fact[0]).answer == fact[1]
    assert box.ask("how many people live there").answer == "You said: how many people live there"
    assert stand_ins.memory.remembered() == (
        Exchange(*fact),
        Exchange("how many people live there", "You said: how many people live there"),
    )
    assert box.ask("say that again").answer == "You said: how many people live there"
    assert len(stand_ins.memory.remembered()) == 2  # a repeat is not a new exchange
    assert box.ask("forget our conversation").answer == "Okay, I've forgotten our conversation."
    assert stand_ins.memory.remembered() == ()  # nor is the forgetting
