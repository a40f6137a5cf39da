"""The day of the week a date falls on ("what day was July the fourth 1976"), from the standard library's calendar."""

from __future__ import annotations

import calendar
import datetime
import re
from collections.abc import Mapping
from typing import Final

from daemon.skills.facts.calendar_facts import FIRST_YEAR, LAST_YEAR, read_year
from daemon.skills.speech import say_month_day, say_weekday

MONTHS: Final = {name.lower(): n for n, name in enumerate(calendar.month_name) if name} | {
    "jan": 1, "feb": 2, "aug": 8, "sept": 9, "oct": 10, "nov": 11, "dec": 12
}  # fmt: skip
_MONTH: Final = re.compile(r"\b(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b")
LEAP: Final = 2028
"""A leap year, to name any day of a month (February the 29th too) before the year is known."""
_FIRSTS: Final = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
    "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
)  # fmt: skip
_ONES: Final = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS: Final = (
    "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"
)  # fmt: skip
DAY_NUMBERS: Final = (
    {word: n for n, word in enumerate(_FIRSTS, 1)}
    | {word: n for n, word in enumerate(_ONES, 1)}
    | {word: n for n, word in enumerate(_TEENS, 10)}
    | {"twentieth": 20, "twenty": 20, "thirtieth": 30, "thirty": 30}
    | {f"twenty {w}": 20 + n for n, w in enumerate(_FIRSTS[:9], 1)}
    | {f"twenty {w}": 20 + n for n, w in enumerate(_ONES, 1)}
    | {"thirty first": 31, "thirty one": 31}
)
"""A day of the month as said: "fourth", "twenty ninth", "twelve" (the recogniser also writes "4th" or "4")."""


def _day(words: list[str]) -> int | None:
    said = " ".join(w for w in words if w != "the").replace("-", " ")
    if (m := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?", said)) is not None:
        return int(m[1])
    return DAY_NUMBERS.get(said)


def day_of_month(said: str) -> int | None:
    """The day of a month `said` names alone ("fifth", "the 14th", "twenty first"), or None."""
    day = _day(said.lower().split())
    return day if day is not None and 1 <= day <= 31 else None


def read_date(said: str) -> tuple[int, int, int | None] | None:
    """(day, month, year or None) of a date as said ("july the fourth 1976", "the 1st of january 2000", "12 may
    1985", "the fourteenth of february twenty twenty eight"), or None if it is no date."""
    text = " ".join(re.sub(r"[,.]", " ", said.lower()).split())
    found = _MONTH.search(text)
    if found is None:
        return None
    month = MONTHS[found[1]]
    before = text[: found.start()].split()
    if before and before[-1] in ("of", "on"):  # "the 29th on February": Whisper's "on" for a quick "of"
        before.pop()
    after = text[found.end() :].split()
    if before:  # "the fourth of july [1976]"
        day = _day(before)
        rest = " ".join(after)
        year = read_year(rest) if rest else None
        return (day, month, year) if day is not None and (year is not None or not rest) else None
    for k in range(1, min(4, len(after)) + 1):  # "july the fourth [1976]": the day's words, then the year's
        day, rest = _day(after[:k]), " ".join(after[k:])
        if day is not None and (not rest or (year := read_year(rest)) is not None):
            return day, month, year if rest else None
    return None


def tense_of(said: str) -> str:
    """How the question asks: of the past ("was"), the future ("will") or either ("is")."""
    words = set(said.lower().split())
    return "was" if words & {"was", "did"} else "will be" if "will" in words else "is"


def answer(args: Mapping[str, object], now: float | None) -> str:
    """What the box says to "what day of the week was July the fourth 1976", or "was it a Saturday"."""
    day, month = int(str(args["day"])), int(str(args["month"]))
    if not 1 <= day <= calendar.monthrange(LEAP, month)[1]:
        return f"{calendar.month_name[month]} has no {_ordinal(day)}."
    named = say_month_day(datetime.date(LEAP, month, day))
    today = datetime.date.fromtimestamp(now) if now is not None else None
    if "year" in args:
        year = int(str(args["year"]))
    elif today is not None:  # "what day is the 3rd of March": the next one
        year = today.year if (month, day) >= (today.month, today.day) else today.year + 1
    else:
        return (
            f"Its weekday depends on the year, and I don't know which year it is: name the year (for example: what "
            f"day is {named} 2030), or set my clock (set the time to seven fifteen pm)."
        )
    if not FIRST_YEAR <= year <= LAST_YEAR:
        return f"I can only say the day of dates from {FIRST_YEAR} to {LAST_YEAR}."
    if day > calendar.monthrange(year, month)[1]:
        return f"There is no {named} in {year}: it isn't a leap year."
    date = datetime.date(year, month, day)
    tense = str(args.get("tense", "is"))
    if today is not None:
        tense = "was" if date < today else "is" if date == today else "will be"
    weekday = say_weekday(date)
    said = f"{named}, {year}, {tense} a {weekday}."
    asked = str(args.get("asked", ""))
    return f"{'Yes' if asked == weekday else 'No'}: {said}" if asked else said


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"
