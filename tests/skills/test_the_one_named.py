""" "The pasta one" is the pasta timer; an alarm said "rather than" another time moves that one: none set twice."""

from __future__ import annotations

import pytest

from daemon.box.asking import SilentSink
from daemon.skills.clock import BoxClock
from daemon.skills.intents import match
from daemon.skills.meaning import MeaningRouter
from daemon.skills.skills import Skills
from daemon.turn.volume import VolumeSink


def _skills() -> Skills:
    return Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a")


def _said(skills: Skills, text: str) -> tuple[str, str]:
    """The skill `text` reaches and its reply."""
    call = skills.route(text)
    assert call is not None, text
    return call.skill, skills.run(call).text


def _reaches(said: str, skill: str, args: dict[str, object]) -> None:
    """`said` is matched to `skill`, carrying `args`."""
    call = match(said)
    assert call is not None and call.skill == skill, call
    assert {name: call.args.get(name) for name in args} == args, call


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


@pytest.mark.parametrize(
    ("said", "skill", "args"),
    [
        ("reduce the timer by two minutes", "timer_add", {"seconds": 120, "take_off": True}),
        ("change the timer from 10 to 15 minutes", "timer_change", {"seconds": 900}),
        ("switch the timer to twenty minutes instead of fifteen", "timer_change", {"seconds": 1200}),
        ("what's seven divided by nought", "calculate", {"impossible": "divide-by-zero"}),
        ("what's nought point five times 4", "calculate", {"value": 2.0}),
        ("is it the 14th today or the 15th", "date", {}),
        ("set an alarm for seven am at the weekend", "alarm_set", {"hour": 7, "days": (5, 6)}),
        ("wake me at 8 on the weekend", "alarm_set", {"hour": 8, "days": (5, 6)}),
        ("set an alarm for 7 this weekend", "alarm_set", {"hour": 7, "days": (), "on": 5}),
        ("how many minutes have I got left on the tea timer", "timer_left", {"name": "tea"}),
        ("could you cancel the alarm I set for eight thirty in the morning", "alarm_cancel", {"hour": 8, "minute": 30}),
    ],
)
def test_a_change_said_beside_what_it_changes_is_read_as_a_change(
    said: str, skill: str, args: dict[str, object]
) -> None:
    _reaches(said, skill, args)


@pytest.mark.parametrize(
    ("said", "lengths"),
    [
        ("I need a five minute timer and a twenty minute timer", (300, 1200)),
        ("hey can you do two timers for me, one for 4 minutes and one for 11 minutes", (240, 660)),
        ("um set two timers uh one for eight minutes and one for sixteen", (480, 960)),
    ],
)
def test_two_timers_read_by_meaning_are_two(router: MeaningRouter, said: str, lengths: tuple[int, ...]) -> None:
    call = router.route(said)
    assert call is not None and call.skill == "timer_start", call
    more = call.args.get("more", ())
    assert isinstance(more, tuple) and (call.args["seconds"], *more) == lengths, call
    assert "name" not in call.args, call  # "a five minute timer" was a timer named "minute"


def test_is_it_the_weekend_names_no_day_of_the_month() -> None:
    call = match("is it the weekend today")
    assert call is None or call.skill != "date", call


@pytest.mark.parametrize(
    ("said", "skill", "args"),
    [
        ("i'm tripling the recipe, what's 3 times 250", "calculate", {"value": 750.0}),
        ("there's six of us and the bill's 93 quid, what's 93 divided by 6", "calculate", {"value": 15.5}),
        ("sorry my phone's dead, have you got the time", "time", {}),
        ("sorry, bank holiday brain, what day is today", "day", {}),
        ("how big is france, area wise", "country", {"fact": "area"}),
        ("what's 3 times 14, no sorry, 3 times 16", "calculate", {"value": 48.0}),
        ("my recipe says 1 pound of flour, how many grams is that", "convert", {"value": 453.59, "unit": "gram"}),
        ("a marathon's 26.2 miles, what's that in kilometres", "convert", {"value": 42.16, "unit": "kilometre"}),
        ("repeat that a bit slower", "repeat", {"pace": "slower"}),
    ],
)
def test_a_question_the_skills_answer_beside_a_scene_is_answered(
    said: str, skill: str, args: dict[str, object]
) -> None:
    _reaches(said, skill, args)


@pytest.mark.parametrize("said", ["if it's 3 pm in london, what time is it", "I'm in tokyo, what time is it"])
def test_a_scene_that_changes_the_question_leaves_it_to_the_model(said: str) -> None:
    assert match(said) is None


def test_a_reminder_on_one_sunday_is_not_made_weekly() -> None:
    call = match("remind me on sunday at 10 am to call mum")
    assert call is not None and call.skill == "alarm_set", call
    assert call.args["days"] == () and call.args["on"] == 6, call


def test_a_timer_said_as_a_change_of_the_running_one_is_read_by_meaning_as_a_change(router: MeaningRouter) -> None:
    call = router.route("the chicken timer should be forty minutes not thirty, change it")
    assert call is not None and call.skill == "timer_change", call
    assert call.args == {"seconds": 2400, "name": "chicken"}, call
