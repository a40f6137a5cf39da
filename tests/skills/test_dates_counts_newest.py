"""The day of the week of any date, counting aloud, and what is newest: answered exactly, or honestly not at all."""

from __future__ import annotations

import datetime

import pytest

from daemon.skills import counting
from daemon.skills.honest import LATEST
from daemon.skills.intents import match
from tests.skills.test_facts import _said, _skills


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("what day of the week was july the 4th 1976", "July the fourth, 1976, was a Sunday."),  # the model: Monday
        ("What day was the 1st of January 2000?", "January the first, 2000, was a Saturday."),
        ("what day was november twenty second nineteen sixty three", "November the twenty second, 1963, was a Friday."),
        ("which day is the twenty ninth of february 2032", "February the twenty ninth, 2032, will be a Sunday."),
        # Whisper's "on" for a quick "of", twice:
        ("Which day on the week is the 29th on February 2032?", "February the twenty ninth, 2032, will be a Sunday."),
        ("what day will the 1st of january 2050 fall on", "January the first, 2050, will be a Saturday."),
        ("what day of the week was the sixth of june nineteen forty four", "June the sixth, 1944, was a Tuesday."),
        ("what day is the 3rd of march", "March the third, 2027, will be a Wednesday."),  # the next one, by the clock
        ("what day is december the first", "December the first, 2026, is a Tuesday."),  # today's
        ("was the 5th of november 1955 a saturday", "Yes: November the fifth, 1955, was a Saturday."),
        ("was the 5th of november 1955 a monday", "No: November the fifth, 1955, was a Saturday."),
        (
            "what day of the week is the 29th of february 2031",
            "There is no February the twenty ninth in 2031: it isn't a leap year.",
        ),
        ("what day was the 31st of april 2001", "April has no 31st."),
        ("what day of the week was the 1st of may 1066", "I can only say the day of dates from 1583 to 9999."),
    ],
)  # fmt: skip
def test_the_weekday_of_a_date_is_the_calendars_in_the_right_tense(said: str, reply: str) -> None:
    assert _said(said) == ("weekday", reply)


def test_without_a_clock_a_date_with_its_year_is_answered_and_one_without_asks_for_the_year() -> None:
    unset = _skills(trusted=False)
    assert _said("what day will the 4th of july 2076 be", unset)[1] == "July the fourth, 2076, will be a Saturday."
    assert _said("what day is the 3rd of march", unset)[1].startswith("Its weekday depends on the year")


@pytest.mark.parametrize(
    "said",
    ["what happened on the fourth of july 1776", "what day comes after tuesday", "what day was i born on if i was "
     "born in the spring", "what day is it", "why are there seven days in a week"],
)  # fmt: skip
def test_questions_near_a_date_that_ask_no_weekday_are_not_the_calendars(said: str) -> None:
    call = match(said)
    assert call is None or call.skill != "weekday"


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("count to ten", "1, 2, 3, 4, 5, 6, 7, 8, 9, 10."),  # the model stopped at nine
        ("can you count down from five", "5, 4, 3, 2, 1."),
        ("give me a countdown from three", "3, 2, 1."),
        ("count from 10 to 14", "10, 11, 12, 13, 14."),
        ("count to a million", counting.TOO_LONG),
    ],
)
def test_counting_says_every_number_once_within_its_limits(said: str, reply: str) -> None:
    assert _said(said) == ("count", reply)
    assert len(_said("count to a hundred")[1].split(", ")) == counting.MOST


@pytest.mark.parametrize("said", ["how do you count in french", "count me in", "does that count", "count sheep"])
def test_count_in_other_senses_is_not_counting_aloud(said: str) -> None:
    assert match(said) is None


@pytest.mark.parametrize(
    "said",
    [
        "What's the newest Samsung phone?",  # the model: "the Galaxy S21"
        "what is the latest version of android",
        "Who won the last World Cup?",  # the model: "Brazil in 2014"
        "what's the most recent star wars film",
        "which games console is the newest",
        "who is the reigning wimbledon champion",
        "how much does the latest iphone cost",
        "What's the newest Tesla?",  # a maker or a series named alone
        "what's the latest call of duty",
    ],
)
def test_what_is_newest_or_who_won_last_is_answered_honestly(said: str) -> None:
    assert _said(said) == ("offline", LATEST)


@pytest.mark.parametrize(
    "said",
    [
        "what was the first iphone",
        "who was the last emperor of china",
        "when was the last ice age",
        "what's the latest time to plant potatoes",
        "who won the 1966 world cup",
        "who is the current president of france",  # an office, not a title won: the model's
        "what is the newest state in america",
        "how do i update my phone to the latest version",
        "what is the newest element",
        "what did apple release first",
    ],
)
def test_history_and_things_that_stay_are_not_taken_as_newest(said: str) -> None:
    call = match(said)
    assert call is None or (call.skill, call.args.get("topic")) != ("offline", "latest")


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("how many days are in a year", "A year has 365 days, or 366 in a leap year."),  # pint: 365.25
        ("how many days in a month", "A month has 30 or 31 days, and February 28, or 29 in a leap year."),
    ],
)
def test_a_calendar_year_in_days_is_the_calendars_not_an_average(said: str, reply: str) -> None:
    assert _said(said) == ("convert", reply)


def test_the_clock_decides_the_tense() -> None:
    later = _skills(datetime.datetime(2031, 1, 1, 9))
    assert _said("what day is the 29th of february 2028", later)[1] == "February the twenty ninth, 2028, was a Tuesday."
