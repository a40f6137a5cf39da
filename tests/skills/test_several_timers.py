"""Several timers asked for at once ("Set two timers, one for 5 minutes and one for 10 minutes." set one): each
started, or none when one of them cannot be; one length said with "and" stays one timer."""

from __future__ import annotations

import pytest

from daemon.box.asking import SilentSink
from daemon.skills.clock import BoxClock
from daemon.skills.honest import TIMER_LIMITS
from daemon.skills.reminders import MAX_REMINDERS
from daemon.skills.skills import Skills
from daemon.turn.volume import VolumeSink


def _skills() -> Skills:
    return Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a", now_boot=lambda: 1000.0)


@pytest.mark.parametrize(
    ("said", "lengths", "reply"),
    [
        (
            "Set two timers, one for 5 minutes and one for 10 minutes.",
            [300, 600],
            "Two timers, for 5 minutes and 10 minutes, starting now.",
        ),
        ("could you set timers for five, ten and fifteen minutes", [300, 600, 900], None),
        (
            "set a 45 second timer and a 2 minute timer",
            [45, 120],
            "Two timers, for 45 seconds and 2 minutes, starting now.",
        ),
        ("set one timer for fifteen minutes and another for thirty", [900, 1800], None),
        # NOTE: read loosely as a question once, then as no command: now it is the two timers it asks for
        ("Set one timer for five minutes and another for twelve minutes.", [300, 720], None),
        ("set a timer for 6 minutes and a second one for 9 minutes", [360, 540], None),
        ("Set a timer for 10 minutes and a second 1 for 15 minutes.", [600, 900], None),  # as Whisper writes it
        ("put on two timers, 30 minutes and an hour", [1800, 3600], None),
        ("Set 2 timers: 1 for 9 minutes, 1 for 14 minutes.", [540, 840], None),
        ("start a timer for an hour and another one for an hour and a half", [3600, 5400], None),
    ],
)
def test_each_timer_asked_for_at_once_is_started(said: str, lengths: list[int], reply: str | None) -> None:
    skills = _skills()
    call = skills.route(said)
    assert call is not None and call.skill == "timer_start"
    answer = skills.run(call).text
    assert sorted(t.seconds for t in skills.reminders.timers()) == sorted(lengths)
    assert answer == reply if reply is not None else answer.endswith("starting now.")


@pytest.mark.parametrize(
    ("said", "seconds"),
    [
        ("set a timer for 1 hour and 30 minutes", 5400),
        ("set a timer for an hour and a half", 5400),
        ("set a timer for a minute and a half", 90),
        ("set a timer for 5 minutes", 300),
    ],
)
def test_one_length_said_with_and_is_one_timer(said: str, seconds: int) -> None:
    skills = _skills()
    call = skills.route(said)
    assert call is not None
    skills.run(call)
    assert [t.seconds for t in skills.reminders.timers()] == [seconds]


def test_none_is_started_when_one_length_is_outside_the_limits() -> None:
    skills = _skills()
    call = skills.route("set three timers for 2 minutes, 0 minutes and 5 minutes")
    assert call is not None
    assert skills.run(call).text == TIMER_LIMITS
    assert skills.reminders.timers() == []


def test_none_is_started_when_they_do_not_all_fit() -> None:
    skills = _skills()
    for k in range(MAX_REMINDERS - 1):
        skills.reminders.timer(60 + k, "", 1000.0, 0.0)
    call = skills.route("set timers for 3 and 7 minutes")
    assert call is not None
    assert skills.run(call).text.startswith("I can't:")
    assert len(skills.reminders.timers()) == MAX_REMINDERS - 1
