"""Reminders of something: "remind me in 20 minutes to check the oven" is kept and said back when it rings, and one
asked with no time the box can set is answered honestly instead of promised by the model."""

from __future__ import annotations

import datetime

import pytest

from daemon.box.asking import SilentSink
from daemon.skills import clock as clock_module
from daemon.skills.asked_for import WHEN
from daemon.skills.clock import BoxClock
from daemon.skills.honest import NO_TOMORROW, REMIND_HOW
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


@pytest.mark.parametrize(
    ("said", "skill", "reply"),
    [
        # NOTE: the model said "Sure, I'll set a reminder for you in twenty minutes." and set nothing
        (
            "I need a reminder in 20 minutes to check the oven.",
            "timer_start",
            "In 20 minutes, I'll remind you to check the oven.",
        ),
        ("set a reminder to buy milk in an hour", "timer_start", "In 1 hour, I'll remind you to buy milk."),
        ("can you set me a reminder for 6 pm to call mum", "alarm_set", "I'll remind you to call mum."),
    ],
)
def test_a_reminder_asked_for_as_a_thing_is_set(said: str, skill: str, reply: str) -> None:
    skills = _skills([1000.0])
    assert _run(skills, said)[0] == skill and _run(_skills([1000.0]), said)[1].endswith(reply)
    assert len(skills.reminders) == 1


def test_a_reminder_at_a_time_is_said_back_in_the_second_person_and_listed() -> None:
    skills = _skills([1000.0])
    skill, said = _run(skills, "Remind me to call my mum at 6 pm please.")
    assert skill == "alarm_set" and said.startswith("OK. At ") and said.endswith("I'll remind you to call your mum.")
    skill, listed = _run(skills, "what alarms do I have")
    assert skill == "alarm_list" and ", to remind you to call your mum. It rings in " in listed
    (alarm,) = skills.reminders.alarms()
    assert (alarm.hour, alarm.minute, alarm.note) == (18, 0, "call your mum")
    assert _run(skills, "cancel the alarm at 6 pm") == ("alarm_cancel", "Reminder to call your mum cancelled.")
    assert skills.reminders.alarms() == []


def test_a_reminder_for_a_part_of_a_day_at_a_clock_time_is_at_that_time_with_its_note_alone() -> None:
    # NOTE: "remind me to buy milk at 8:15 tomorrow morning" was set for 9 am, to "buy milk at 8:15"
    skills = _skills([1000.0])
    _run(skills, "remind me to buy milk at 8:15 tomorrow morning")
    _run(skills, "remind me to look at the clouds tomorrow morning")  # "at" in a note is still the note's
    assert sorted((a.hour, a.minute, a.note) for a in skills.reminders.alarms()) == [
        (8, 15, "buy milk"),
        (9, 0, "look at the clouds"),
    ]


def test_a_reminder_comes_back_after_a_restart_with_its_note() -> None:
    skills = _skills([1000.0])
    _run(skills, "remind me to take my pills in 2 hours")
    again = Reminders("boot-a")
    assert again.restore(skills.reminders.to_plain(), now_boot=1100.0, now_wall=None) == []
    assert [t.note for t in again.timers()] == ["take your pills"]


def test_a_reminder_with_no_time_the_box_can_set_is_asked_when_or_answered_with_how_to_ask() -> None:
    skills = _skills([1000.0])
    assert _run(skills, "Remind me to water the plants tonight.") == ("remind_when", "At what time tonight?")
    assert _run(skills, "remind me to call the vet") == ("remind_when", WHEN)
    assert _run(skills, "set a reminder") == ("remind_when", REMIND_HOW)  # of what, as well as when
    assert len(skills.reminders) == 0
    # a plain timer is still one
    assert _run(skills, "remind me in 5 minutes") == ("timer_start", "A timer for 5 minutes, starting now.")


@pytest.mark.parametrize(
    ("said", "note", "day", "hour"),
    [
        ("Remind me to take the bins out tomorrow morning.", "take the bins out", 1, 9),
        ("remind me tomorrow afternoon to call the garage", "call the garage", 1, 14),
        ("set a reminder for tomorrow evening to ring grandma", "ring grandma", 1, 18),
        ("tomorrow night remind me to lock the shed", "lock the shed", 1, 20),
    ],
)
def test_a_reminder_for_part_of_a_named_day_is_set_at_its_usual_hour_and_says_which(
    said: str, note: str, day: int, hour: int
) -> None:
    skills = _skills([1000.0])
    skill, reply = _run(skills, said)
    (alarm,) = skills.reminders.alarms()
    rings = datetime.datetime.fromtimestamp(alarm.ends_wall)
    assert skill == "alarm_set" and alarm.once and alarm.note == note
    assert (rings.date(), rings.hour, rings.minute) == (datetime.date.today() + datetime.timedelta(days=day), hour, 0)
    clock = f"{['nine', 'two', 'six', 'eight'][[9, 14, 18, 20].index(hour)]} {'am' if hour < 12 else 'pm'}"
    assert reply.startswith(f"OK. At {clock}") and reply.endswith(f"I'll remind you to {note}.")


def test_a_reminder_on_a_weekday_evening_rings_that_day() -> None:
    skills = _skills([1000.0])
    skill, reply = _run(skills, "remind me to pay the rent on friday afternoon")
    (alarm,) = skills.reminders.alarms()
    assert skill == "alarm_set" and reply.startswith("OK. At two pm on Friday")
    assert datetime.datetime.fromtimestamp(alarm.ends_wall).strftime("%a %H:%M") == "Fri 14:00"


def test_an_alarm_on_a_day_named_or_tomorrow_rings_once_on_that_day() -> None:
    skills = _skills([1000.0])
    skill, said = _run(skills, "set an alarm for 7 am on friday")
    assert (skill, said) == ("alarm_set", "Alarm set for seven am on Friday.")
    _run(skills, "remind me to call mum tomorrow at 6 pm")
    friday, tomorrow = sorted(skills.reminders.alarms(), key=lambda r: r.note)
    assert friday.once and datetime.datetime.fromtimestamp(friday.ends_wall).strftime("%a %H:%M") == "Fri 07:00"
    today = datetime.date.today()
    assert tomorrow.note == "call mum" and tomorrow.once
    rings = datetime.datetime.fromtimestamp(tomorrow.ends_wall)
    assert (rings.date(), rings.hour) == (today + datetime.timedelta(days=1), 18)
    skills.reminders.rang(friday, friday.ends_wall)
    assert skills.reminders.alarms() == [tomorrow]  # rung once, gone: no Friday after
    # came due while the box was off: said once, not kept for next week
    again = Reminders("boot-a")
    missed = again.restore(skills.reminders.to_plain(), now_boot=5.0, now_wall=tomorrow.ends_wall + 60)
    assert missed and again.alarms() == []


def test_tomorrow_with_no_clock_to_say_which_day_is_answered_honestly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock_module, "ntp_synchronised", lambda: False)
    monkeypatch.setattr(clock_module, "rtc_set_the_clock", lambda rtc=None: False)
    skills = Skills(BoxClock("auto"), VolumeSink(SilentSink()), "boot-a", now_boot=lambda: 1000.0)
    assert _run(skills, "wake me up tomorrow at 7") == ("alarm_set", NO_TOMORROW)
    assert len(skills.reminders) == 0


def test_reminders_are_listed_and_cancelled_as_reminders() -> None:
    skills = _skills([1000.0])
    assert _run(skills, "what reminders do I have") == ("reminder_list", "No reminders are set.")
    _run(skills, "remind me in 20 minutes to check the oven")
    _run(skills, "remind me to call my mum at 6 pm")
    _run(skills, "set a pasta timer for 8 minutes")  # a plain timer is no reminder
    skill, listed = _run(skills, "what reminders do I have")
    assert skill == "reminder_list" and listed.startswith("2 reminders are set: to check the oven in 20 minutes; ")
    assert listed.endswith("to call your mum at six pm.")
    skill, which = _run(skills, "cancel the reminder")
    assert skill == "reminder_cancel" and which.endswith("Which one? Or say cancel all reminders.")
    said = _run(skills, "cancel the reminder to call my mum")
    assert said == ("reminder_cancel", "Reminder to call your mum cancelled.")
    assert _run(skills, "cancel the reminder") == ("reminder_cancel", "Reminder to check the oven cancelled.")
    assert [t.name for t in skills.reminders.timers()] == ["pasta"]
    assert _run(skills, "cancel all reminders") == ("reminder_cancel", "No reminders are set.")
