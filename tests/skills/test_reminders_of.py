"""Reminders of something: "remind me in 20 minutes to check the oven" is kept and said back when it rings, and one
asked with no time the box can set is answered honestly instead of promised by the model."""

from __future__ import annotations

from daemon.box.asking import SilentSink
from daemon.skills.clock import BoxClock
from daemon.skills.honest import REMIND_HOW
from daemon.skills.intents import match
from daemon.skills.reminders import Reminders
from daemon.skills.skills import Skills
from daemon.turn.volume import VolumeSink


def _skills(now: list[float]) -> Skills:
    return Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a", now_boot=lambda: now[0])


def _run(skills: Skills, said: str) -> tuple[str, str]:
    call = match(said)
    assert call is not None, f"{said!r} went to the model"
    return call.skill, skills.run(call).text


def test_a_reminder_after_a_while_rings_with_what_it_was_for() -> None:
    now = [1000.0]
    skills = _skills(now)
    said = _run(skills, "Remind me in twenty minutes to check the oven.")
    assert said == ("timer_start", "OK. In 20 minutes, I'll remind you to check the oven.")
    assert _run(skills, "how long is left on the timer")[1] == "Reminder to check the oven has 20 minutes left."
    now[0] += 20 * 60
    (due,) = skills.due()
    assert skills.ringing(due) == "It's time to check the oven."
    assert skills.due() == []  # rung once


def test_a_reminder_at_a_time_is_said_back_in_the_second_person_and_listed() -> None:
    skills = _skills([1000.0])
    skill, said = _run(skills, "Remind me to call my mum at 6 pm please.")
    assert skill == "alarm_set" and said.startswith("OK. At ") and said.endswith("I'll remind you to call your mum.")
    skill, listed = _run(skills, "what alarms do I have")
    assert skill == "alarm_list" and listed.endswith(", to remind you to call your mum.")
    (alarm,) = skills.reminders.alarms()
    assert (alarm.hour, alarm.minute, alarm.note) == (18, 0, "call your mum")
    assert _run(skills, "cancel the alarm at 6 pm") == ("alarm_cancel", "Reminder to call your mum cancelled.")
    assert skills.reminders.alarms() == []


def test_a_reminder_comes_back_after_a_restart_with_its_note() -> None:
    skills = _skills([1000.0])
    _run(skills, "remind me to take my pills in 2 hours")
    again = Reminders("boot-a")
    assert again.restore(skills.reminders.to_plain(), now_boot=1100.0, now_wall=None) == []
    assert [t.note for t in again.timers()] == ["take your pills"]


def test_a_reminder_with_no_time_the_box_can_set_is_answered_honestly() -> None:
    skills = _skills([1000.0])
    for said in ("Remind me to take the bins out tomorrow morning.", "set a reminder", "remind me to call the vet"):
        assert _run(skills, said) == ("remind_when", REMIND_HOW)
    assert len(skills.reminders) == 0
    # a plain timer is still one
    assert _run(skills, "remind me in 5 minutes") == ("timer_start", "A timer for 5 minutes, starting now.")
