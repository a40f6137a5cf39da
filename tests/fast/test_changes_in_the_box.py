"""Changing what is set, through the box's one assembly on the stand-in engines: "make it 15" after a timer changes
that timer (the model promised "A timer for 15 minutes, starting now." and nothing changed), a paused timer is shown
paused and never rings, and "say that again slower" says the last reply again at a slower pace."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from daemon.events import RemindersChanged, Ringing, SkillCalled
from daemon.ports import Engines
from tests.fast.test_skills_in_the_box import AssembledBox, box_config
from tests.harness import of
from tests.inprocess import ScriptedModel


@pytest.fixture
def box(stand_ins: Engines, tmp_path: Path) -> Iterator[AssembledBox]:
    with AssembledBox(box_config(tmp_path), stand_ins, tmp_path) as opened:
        yield opened


def test_make_it_15_after_a_timer_changes_that_timer_and_the_model_is_never_asked(
    box: AssembledBox, model: ScriptedModel
) -> None:
    box.ask("Set a timer for 10 minutes.")
    result = box.ask("Make it 15.")
    assert (result.outcome, result.answer) == ("answered", "Your timer is now 15 minutes, starting now.")
    assert [e.skill for e in of(box.events, SkillCalled)] == ["timer_start", "timer_change"]
    assert model.asked == []
    skills = box.parts.skills
    assert skills is not None and [t.seconds for t in skills.reminders.timers()] == [900]
    box.until(lambda: of(box.events, RemindersChanged)[-1].timers[0][1] > 600, "the display told of 15 minutes")


def test_a_paused_timer_is_shown_paused_and_does_not_ring(box: AssembledBox) -> None:
    box.ask("Set a timer for 3 seconds for the tea.")
    assert box.ask("Pause the tea timer.").answer.startswith("The tea timer is paused")
    box.until(lambda: of(box.events, RemindersChanged)[-1].paused, "the display told of the paused timer")
    changed = of(box.events, RemindersChanged)[-1]
    assert changed.timers == () and [label for label, _ in changed.paused] == ["tea timer"]
    time.sleep(3.5)  # NOTE: past when it was due
    assert box.ask("How long is left on the tea timer?").answer.startswith("Tea timer is paused with")
    assert of(box.events, Ringing) == []  # NOTE: it was due 3 s after it was set; paused, it waited
    box.ask("Resume the tea timer.")
    box.until(lambda: of(box.events, Ringing), "the resumed timer rang")


def test_say_that_again_slower_repeats_the_last_reply_more_slowly(box: AssembledBox, stand_ins: Engines) -> None:
    first = box.ask("What is 12 times 13?")
    again = box.ask("Say that again slower.")
    assert again.answer == first.answer == "That's 156."
    assert stand_ins.tts.pace > 1.0  # type: ignore[attr-defined]
