""" "The pasta one" is the pasta timer; an alarm said "rather than" another time moves that one: none set twice."""

from __future__ import annotations

from daemon.box.asking import SilentSink
from daemon.skills.clock import BoxClock
from daemon.skills.intents import match
from daemon.skills.skills import Skills
from daemon.turn.volume import VolumeSink


def _skills() -> Skills:
    return Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a")


def _said(skills: Skills, text: str) -> tuple[str, str]:
    """The skill `text` reaches and its reply."""
    call = skills.route(text)
    assert call is not None, text
    return call.skill, skills.run(call).text


def _timers(skills: Skills) -> list[tuple[str, int]]:
    return sorted((t.label, round(t.seconds)) for t in skills.reminders.timers())


def test_the_pasta_one_changed_is_the_pasta_timer_not_a_second_one() -> None:
    skills = _skills()
    _said(skills, "set a pasta timer for 10 minutes")
    _said(skills, "set an egg timer for 4 minutes")
    assert _said(skills, "change the pasta one to nine minutes")[0] == "timer_change"
    assert _timers(skills) == [("egg timer", 240), ("pasta timer", 540)]
    assert _said(skills, "cancel the egg one") == ("timer_cancel", "Egg timer cancelled.")
    assert _timers(skills) == [("pasta timer", 540)]


def test_the_pasta_one_is_paused_and_asked_about() -> None:
    skills = _skills()
    _said(skills, "set a pasta timer for 10 minutes")
    assert _said(skills, "pause the pasta one")[0] == "timer_pause"
    assert skills.reminders.timers()[0].paused
    skill, text = _said(skills, "how long is left on the pasta one")
    assert skill == "timer_left" and "10 minutes" in text, text


def test_a_pointing_word_or_a_clock_time_before_one_names_no_timer() -> None:
    for said in (
        "cancel that one",
        "cancel the last one",
        "cancel the other one",
        "cancel the seven o'clock one",
        "stop the alarm one",
        "change that one to 5 minutes",
    ):
        call = match(said)
        assert call is None or not call.skill.startswith("timer_"), (said, call)


def test_an_alarm_said_rather_than_another_time_moves_it() -> None:
    skills = _skills()
    _said(skills, "set an alarm for 6 am")
    skill, text = _said(skills, "can you make my alarm quarter past six rather than six")
    assert skill == "alarm_move", text
    assert [(a.hour, a.minute) for a in skills.reminders.alarms()] == [(6, 15)]
    assert _said(skills, "wake me at 7 instead of quarter past 6")[0] == "alarm_move"
    assert [(a.hour, a.minute) for a in skills.reminders.alarms()] == [(7, 0)]


def test_with_no_alarm_to_move_the_one_asked_for_is_set() -> None:
    skills = _skills()
    skill, text = _said(skills, "set my alarm for seven not eight thirty")
    assert skill == "alarm_move" and text.startswith("There was no alarm to change, so I set one."), text
    assert [(a.hour, a.minute) for a in skills.reminders.alarms()] in ([(7, 0)], [(19, 0)])


def test_moving_from_a_time_no_alarm_has_says_so_and_changes_nothing() -> None:
    skills = _skills()
    _said(skills, "set an alarm for 6 am")
    assert _said(skills, "make my alarm 7 am rather than 5 am") == ("alarm_move", "There is no alarm at five am.")
    assert [(a.hour, a.minute) for a in skills.reminders.alarms()] == [(6, 0)]
