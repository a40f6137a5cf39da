"""Clock times and repeat days parsed from recogniser output and typed text."""

from __future__ import annotations

import pytest

from daemon.skills.when import ClockTime, clock_time_put_as, parse_clock_time, parse_days


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Digits, as typed or as some recognisers write them.
        ("7:30", (7, 30)),
        ("19:05", (19, 5)),
        ("07:30", (7, 30)),
        ("05:00", (5, 0)),
        ("12:30", (12, 30)),
        ("7.30", (7, 30)),
        ("7:30am", (7, 30)),
        ("6:45 PM", (18, 45)),
        ("7 p.m.", (19, 0)),
        ("7 am", (7, 0)),
        ("7 30", (7, 30)),
        ("730", (7, 30)),
        ("1030", (10, 30)),
        ("0700", (7, 0)),
        ("0500", (5, 0)),
        ("at 5", (17, 0)),
        # Words.
        ("seven thirty pm", (19, 30)),
        ("seven thirty five", (7, 35)),
        ("seven a m", (7, 0)),
        ("six forty-five", (18, 45)),
        ("twenty three fifty nine", (23, 59)),
        ("seven o'clock", (7, 0)),
        ("five o'clock", (17, 0)),
        ("twelve o clock", (12, 0)),
        ("seven oh five", (7, 5)),
        ("ten o five", (10, 5)),
        ("seven zero five", (7, 5)),
        ("nineteen oh five", (19, 5)),
        ("seven hundred hours", (7, 0)),
        ("oh five hundred", (5, 0)),
        ("zero seven thirty", (7, 30)),
        ("nineteen thirty hours", (19, 30)),
        ("nine hundred thirty", (9, 30)),
        # Past and to.
        ("half past six", (18, 30)),
        ("half past twelve", (12, 30)),
        ("quarter past seven", (7, 15)),
        ("a quarter to eight", (7, 45)),
        ("quarter to one", (12, 45)),
        ("ten to seven", (6, 50)),
        ("twenty five to nine", (8, 35)),
        ("ten minutes past six", (18, 10)),
        ("ten after seven", (7, 10)),
        ("quarter till eight", (7, 45)),
        ("half seven", (7, 30)),
        # Noon and midnight.
        ("noon", (12, 0)),
        ("midday", (12, 0)),
        ("twelve", (12, 0)),
        ("twelve noon", (12, 0)),
        ("midnight", (0, 0)),
        ("twelve midnight", (0, 0)),
        ("12 am", (0, 0)),
        ("12 pm", (12, 0)),
        ("five past midnight", (0, 5)),
        ("ten to midnight", (23, 50)),
        ("quarter past noon", (12, 15)),
        # Parts of the day.
        ("five in the morning", (5, 0)),
        ("nine in the evening", (21, 0)),
        ("three in the afternoon", (15, 0)),
        ("eleven thirty at night", (23, 30)),
        ("ten tonight", (22, 0)),
        ("twelve tonight", (0, 0)),
        ("at seven o'clock in the evening", (19, 0)),
        # Words around the time.
        ("wake me up at seven thirty tomorrow", (7, 30)),
        ("set an alarm for 6 45 am every weekday", (6, 45)),
        ("set the time to seven fifteen pm", (19, 15)),
        ("set an alarm for seven on the 5th", (7, 0)),
        ("set one alarm for seven", (7, 0)),
        ("i need eight hours of sleep so set an alarm for seven", (7, 0)),
        ("good night set an alarm for seven", (7, 0)),
    ],
)
def test_clock_time(text: str, expected: tuple[int, int]) -> None:
    assert parse_clock_time(text) == ClockTime(*expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("wake me at 5", (5, 0)),
        ("wake me at six thirty", (6, 30)),
        ("wake me at half past six", (6, 30)),
        ("wake me at eleven", (11, 0)),
        ("wake me at twelve", (12, 0)),
        ("wake me at 5 pm", (17, 0)),
        ("wake me at 17:00", (17, 0)),
        ("goodnight wake me at seven", (7, 0)),
    ],
)
def test_clock_time_waking(text: str, expected: tuple[int, int]) -> None:
    assert parse_clock_time(text, waking=True) == ClockTime(*expected)


@pytest.mark.parametrize(
    "text",
    [
        "what time is it",
        "set a timer for ten minutes",
        "set a 10 minute timer",
        "remind me in 2 hours",
        "in half an hour",
        "25:00",
        "7:75",
        "seven seventy five",
        "twenty four hundred",
        "nineteen pm",
        "",
    ],
)
def test_not_a_clock_time(text: str) -> None:
    assert parse_clock_time(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("every weekday", {0, 1, 2, 3, 4}),
        ("weekdays", {0, 1, 2, 3, 4}),
        ("on week days", {0, 1, 2, 3, 4}),
        ("every work day", {0, 1, 2, 3, 4}),
        ("every day", set(range(7))),
        ("everyday", set(range(7))),
        ("daily", set(range(7))),
        ("every morning", set(range(7))),
        ("weekends", {5, 6}),
        ("on weekends", {5, 6}),
        ("every weekend", {5, 6}),
        ("every monday", {0}),
        ("every monday and wednesday", {0, 2}),
        ("mondays and fridays", {0, 4}),
        ("on Sundays", {6}),
        ("monday to friday", {0, 1, 2, 3, 4}),
        ("friday through monday", {4, 5, 6, 0}),
        ("every day except sunday", {0, 1, 2, 3, 4, 5}),
        ("every day except weekends", {0, 1, 2, 3, 4}),
        ("weekdays but not friday", {0, 1, 2, 3}),
        ("set an alarm for 6 45 am every weekday", {0, 1, 2, 3, 4}),
        ("tomorrow", set()),
        ("on monday", set()),
        ("this weekend", set()),
        ("wake me at seven", set()),
        ("", set()),
    ],
)
def test_days(text: str, expected: set[int]) -> None:
    assert parse_days(text) == frozenset(expected)


def test_a_clock_time_said_anywhere_can_be_put_in_other_words() -> None:
    assert clock_time_put_as("your clock's wrong it's ten past eight in the morning", "7 am") == (
        "your clock s wrong it s 7 am in the morning"
    )
    assert clock_time_put_as("wake me at 6:45 pm please", "7 am") == "wake me at 7 am please"
    assert clock_time_put_as("wake me in ten minutes", "7 am") is None  # a duration, not a clock time
