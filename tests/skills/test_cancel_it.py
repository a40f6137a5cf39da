""" "Cancel it": the timer or alarm a request just set or asked about is what it means; otherwise it only stops."""

from __future__ import annotations

from daemon.box.asking import SilentSink
from daemon.skills.clock import BoxClock
from daemon.skills.just_set import IT_WITHIN_S
from daemon.skills.replies import ALARM_CANCELLED
from daemon.skills.skills import Skills
from daemon.turn.volume import VolumeSink


class Boot:
    """A boot clock the test moves on."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _said(skills: Skills, text: str) -> tuple[str, str]:
    """The skill `text` reaches and its reply."""
    call = skills.route(text)
    assert call is not None, text
    return call.skill, skills.run(call).text


def _skills(boot: Boot) -> Skills:
    return Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a", now_boot=boot)


def test_cancel_it_right_after_a_timer_was_set_cancels_that_timer() -> None:
    skills = _skills(Boot())
    _said(skills, "set a timer for 10 minutes for the pasta")
    assert _said(skills, "cancel it") == ("timer_cancel", "Pasta timer cancelled.")
    assert skills.reminders.timers() == []


def test_cancel_that_after_an_alarm_was_set_cancels_that_alarm() -> None:
    skills = _skills(Boot())
    _said(skills, "set an alarm for 7 am")
    assert _said(skills, "cancel that") == ("alarm_cancel", ALARM_CANCELLED)
    assert skills.reminders.alarms() == []


def test_among_several_timers_it_is_the_one_just_asked_about() -> None:
    skills = _skills(Boot())
    _said(skills, "set a timer for 10 minutes for the pasta")
    _said(skills, "set a timer for 20 minutes for the eggs")
    _said(skills, "set a timer for 5 minutes")
    _said(skills, "how long is left on the eggs timer")
    assert _said(skills, "cancel it") == ("timer_cancel", "Eggs timer cancelled.")
    assert sorted(t.label for t in skills.reminders.timers()) == ["5 minute timer", "pasta timer"]


def test_cancel_it_with_nothing_just_spoken_of_only_stops() -> None:
    boot = Boot()
    skills = _skills(boot)
    assert _said(skills, "cancel it") == ("stop", "")
    _said(skills, "set a timer for 10 minutes for the pasta")
    _said(skills, "stop")  # a plain stop is never a cancel
    assert len(skills.reminders.timers()) == 1
    boot.now += IT_WITHIN_S + 1  # a minute on, "it" is no longer the timer
    assert _said(skills, "cancel it") == ("stop", "")
    assert len(skills.reminders.timers()) == 1
    assert _said(skills, "cancel the pasta timer") == ("timer_cancel", "Pasta timer cancelled.")  # named, as always


def test_it_is_forgotten_once_several_are_asked_about_at_once() -> None:
    skills = _skills(Boot())
    _said(skills, "set a timer for 10 minutes for the pasta")
    _said(skills, "set a timer for 20 minutes for the eggs")
    _said(skills, "how long is left on my timers")
    assert _said(skills, "cancel it") == ("stop", "")
    assert len(skills.reminders.timers()) == 2


def test_turning_an_alarm_off_just_after_it_rang_stops_it_and_keeps_its_other_days() -> None:
    boot = Boot()
    skills = _skills(boot)
    _said(skills, "set an alarm for 7:30 am every weekday")
    skills.ringing(skills.reminders.alarms()[0])
    boot.now += 40  # the button pressed, then said
    assert _said(skills, "turn off the alarm") == (
        "alarm_cancel",
        "The alarm has stopped. It is still set for seven thirty am every weekday: to remove it, say cancel the "
        "seven thirty am alarm.",
    )
    assert len(skills.reminders.alarms()) == 1
    assert _said(skills, "cancel the seven thirty am alarm") == ("alarm_cancel", ALARM_CANCELLED)
    assert skills.reminders.alarms() == []


def test_a_one_off_alarm_that_rang_is_stopped_and_no_other_alarm_is_taken_for_it() -> None:
    boot = Boot()
    skills = _skills(boot)
    _said(skills, "set an alarm for 6 am")
    _said(skills, "set an alarm for 9 pm on saturday")
    first = min(skills.reminders.alarms(), key=lambda r: r.hour)
    skills.ringing(first)
    boot.now += 40
    assert _said(skills, "switch off the alarm") == ("alarm_cancel", "The alarm has stopped.")
    assert [(r.hour, r.days) for r in skills.reminders.alarms()] == [(21, (5,))]
