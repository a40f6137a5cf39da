"""Calendar facts: the day a holiday falls on, days until it, leap years, the date of a day ahead (holidays and the
standard library)."""

from __future__ import annotations

import calendar
import datetime
import functools
import re
from collections.abc import Mapping
from typing import Final

from daemon.skills.amounts import digits
from daemon.skills.honest import UNSET_CLOCK
from daemon.skills.speech import say_month_day, say_weekday

HOLIDAYS: Final = {
    "christmas": ("US", "Christmas Day"),
    "christmas eve": ("US", "Christmas Eve"),
    "boxing day": ("GB", "Boxing Day"),
    "new year": ("US", "New Year's Day"),
    "new year's eve": ("US", "New Year's Eve"),
    "halloween": ("US", "Halloween"),
    "valentine's day": ("US", "Valentine's Day"),
    "saint patrick's day": ("US", "Saint Patrick's Day"),
    "easter": ("US", "Easter Sunday"),
    "good friday": ("US", "Good Friday"),
    "thanksgiving": ("US", "Thanksgiving Day"),
    "mother's day": ("US", "Mother's Day"),
    "father's day": ("US", "Father's Day"),
    "independence day": ("US", "Independence Day"),
}
"""Each holiday the templates name (the `holiday` list in sentences.yaml): the calendar of the holidays package that
dates it and its name there. Only the dates come from the package; this only says where to look."""
BANK_HOLIDAY: Final = "bank holiday"
"""The next of England and Wales's bank holidays (the word is British; "the next bank holiday" names no one day)."""
ONE_COUNTRY: Final = {"US": "in the United States", "GB": "in the United Kingdom"}
"""Said before a holiday whose date is one country's (Thanksgiving, Mother's Day), and not the same everywhere."""
SAME_EVERYWHERE: Final = frozenset(
    {"christmas", "christmas eve", "new year", "new year's eve", "halloween", "valentine's day",
     "saint patrick's day", "easter", "good friday", "boxing day"}
)  # fmt: skip
"""Fixed dates, or Western Easter's: the same wherever the box is."""
FIRST_YEAR: Final = 1583
"""The first whole year of the Gregorian calendar; earlier dates would be in a calendar nobody used then."""
LAST_YEAR: Final = 9999
LEAP_YEAR: Final = 2028
"""Any year: a month other than February has as many days in every one."""


@functools.cache
def _calendar(country: str, year: int, subdiv: str | None = None) -> dict[datetime.date, str]:
    import holidays

    # NOTE: "unofficial" holds Halloween, Valentine's, Saint Patrick's, Mother's and Father's Day in the US calendar.
    categories = ("public", "unofficial") if country == "US" else ("public",)
    return dict(holidays.country_holidays(country, subdiv, years=year, categories=categories).items())


def date_of(holiday: str, year: int) -> datetime.date | None:
    """The date of `holiday` (a key of HOLIDAYS) in `year`, or None if its calendar has none that year."""
    country, name = HOLIDAYS[holiday]
    found = [day for day, names in _calendar(country, year).items() if name in names.split("; ")]
    return min(found) if found else None


def fixed_date(holiday: str) -> datetime.date | None:
    """The holiday's date (in a sample year) if its calendar gives it the same month and day every year, else None."""
    days = [date_of(holiday, year) for year in (2025, 2026, 2027, 2028)]  # weekdays and a leap year all move
    if any(day is None for day in days) or len({(d.month, d.day) for d in days if d is not None}) != 1:
        return None
    return days[0]


def read_year(said: str) -> int | None:
    """A year as typed or heard ("2028", "twenty twenty eight", "nineteen hundred"), or None."""
    words = re.sub(r"^(the )?year ", "", digits(said.strip().lower())).split()
    if len(words) == 2 and all(w.isdigit() for w in words) and 10 <= int(words[0]) <= 99 and int(words[1]) < 100:
        words = [str(int(words[0]) * 100 + int(words[1]))]  # "twenty twenty eight" is read as "20 28"
    if len(words) == 1 and (joined := _HUNDREDS_JOINED.fullmatch(words[0])):
        words = [joined.group(1) + joined.group(2)]  # NOTE: Whisper wrote "nineteen eighty five" as "190085"
    return int(words[0]) if len(words) == 1 and words[0].isdigit() else None


_HUNDREDS_JOINED: Final = re.compile(r"(1\d|20)00([1-9]\d)")
"""A year's century and its last two digits written with the hundreds between them."""


def _name(holiday: str) -> str:
    country, name = HOLIDAYS[holiday]
    return name if holiday in SAME_EVERYWHERE else f"{name} {ONE_COUNTRY[country]}"


def _year(args: Mapping[str, object], today: datetime.date | None) -> int | None:
    """The year asked about: said, or this year plus the offset said ("next year")."""
    if isinstance(args.get("year"), int):
        return int(str(args["year"]))
    return None if today is None else today.year + int(str(args.get("offset", 0)))


def holiday(args: Mapping[str, object], now: float | None) -> str:
    """What the box says to "what day is Christmas next year", "when is Easter", "how many days until Halloween"."""
    key, ask = str(args["holiday"]), str(args.get("ask", "day"))
    today = datetime.date.fromtimestamp(now) if now is not None else None
    if key == BANK_HOLIDAY:
        return _next_bank_holiday(today, ask)
    said_year = isinstance(args.get("year"), int)
    if today is None and ask != "until" and not said_year and "offset" not in args:
        return _without_a_year(key, ask)
    if today is None and (ask == "until" or not said_year):
        return UNSET_CLOCK
    year = _year(args, today)
    if year is None or not FIRST_YEAR <= year <= LAST_YEAR:
        return f"I can only date holidays from {FIRST_YEAR} to {LAST_YEAR}."
    day = date_of(key, year)
    upcoming = ask == "until" or not (said_year or "offset" in args)  # "when is Easter": the next one
    if upcoming and today is not None and (day is None or day < today):
        year += 1
        day = date_of(key, year)
    name = _name(key)
    if day is None:
        return f"My calendar has no {name} in {year}."
    if ask == "until" and today is not None:
        days = (day - today).days
        if days == 0:
            return f"It's {name} today."
        return f"{name[:1].upper()}{name[1:]} is tomorrow." if days == 1 else f"There are {days} days until {name}."
    weekday = say_weekday(day)
    if ask == "day":
        when = f"a {weekday}"
    else:  # "Easter Sunday falls on March the twenty eighth", not "on Sunday, March..."
        when = say_month_day(day) if weekday in name else f"{weekday}, {say_month_day(day)}"
    # NOTE: "what day was July the fourth 1976" was told it "falls on a Sunday": a day gone by fell on it
    falls = "fell" if today is not None and day < today else "falls"
    return f"In {year}, {name} {falls} on {when}."


def _next_bank_holiday(today: datetime.date | None, ask: str) -> str:
    """ "The next bank holiday in England and Wales is Christmas Day, Friday, December the twenty fifth."."""
    if today is None:
        return UNSET_CLOCK
    ahead = sorted(
        (day, name) for year in (today.year, today.year + 1) for day, name in _calendar("GB", year, "ENG").items()
    )
    day, name = next((day, name) for day, name in ahead if day >= today)
    name = name.split("; ")[0]
    days = (day - today).days
    if days == 0:
        return f"Today is a bank holiday in England and Wales: {name}."
    if ask == "until":
        return f"The next bank holiday in England and Wales, {name}, is in {days} day{'s' * (days != 1)}."
    weekday = say_weekday(day)
    when = say_month_day(day) if weekday in name else f"{weekday}, {say_month_day(day)}"
    return f"The next bank holiday in England and Wales is {name}, {when}."


def _without_a_year(holiday: str, ask: str) -> str:
    """What the box can say of a holiday when it knows no year: its date if that never moves, and how to ask."""
    name = _name(holiday)
    named = f"{name[:1].upper()}{name[1:]}"
    fixed = fixed_date(holiday)
    how = f"name the year (for example: when is {holiday} 2027), or set my clock (set the time to seven fifteen pm)."
    if fixed is None:
        return f"{named} moves from year to year, and I don't know which year it is: {how}"
    if ask == "date":  # "when is Halloween" needs no clock: only its weekday changes
        return f"{named} is on {say_month_day(fixed)} every year."
    return f"{named} is on {say_month_day(fixed)}; its weekday depends on the year, which I don't know: {how}"


def leap_year(args: Mapping[str, object], now: float | None) -> str:
    """What the box says to "is 2028 a leap year", "is next year a leap year", "when is the next leap year"."""
    today = datetime.date.fromtimestamp(now) if now is not None else None
    year = _year(args, today)
    if year is None or (today is None and args.get("next")):
        return UNSET_CLOCK
    if args.get("next"):
        following = next(y for y in range(year + 1, year + 9) if calendar.isleap(y))
        return f"The next leap year is {following}."
    if year < FIRST_YEAR:
        # NOTE: the standard library's calendar runs the Gregorian rule backwards; people then kept the Julian one.
        was = "was" if year % 4 == 0 else "was not"
        return f"In {year} the Julian calendar made every fourth year a leap year, so {year} {was} one."
    if calendar.isleap(year):
        return f"Yes, {year} is a leap year."
    why = ": a year ending in 00 is one only if it divides by 400" if year % 100 == 0 else ""
    return f"No, {year} isn't a leap year{why}."


def month_days(args: Mapping[str, object], now: float | None) -> str:
    """What the box says to "how many days are there in February 2024", "how many days does June have"."""
    month = int(str(args["month"]))
    name = calendar.month_name[month]
    today = datetime.date.fromtimestamp(now) if now is not None else None
    year = _year(args, today) if isinstance(args.get("year"), int) or "offset" in args or month == 2 else None
    if year is None:
        if month == 2:  # no year said, and no clock to say which year it is
            return "February has 28 days, or 29 in a leap year."
        return f"{name} has {calendar.monthrange(LEAP_YEAR, month)[1]} days."
    if not FIRST_YEAR <= year <= LAST_YEAR:
        return f"I can only count the days of months from {FIRST_YEAR} to {LAST_YEAR}."
    days = calendar.monthrange(year, month)[1]
    has = "had" if today is not None and year < today.year else "has"
    return f"{name} {year} {has} {days} days."


def day_ahead(now: float, args: Mapping[str, object]) -> str:
    """ "Tomorrow is Saturday, December the fifth.", "Yesterday was Thursday, December the third.", "Tuesday is
    December the eighth." (the coming one: today if it is that day, unless "next" was said)."""
    today = datetime.date.fromtimestamp(now)
    if "on" in args:
        ahead = (int(str(args["on"])) - today.weekday()) % 7
        day = today + datetime.timedelta(days=ahead or (7 if args.get("next") else 0))
        return f"{'Today' if day == today else say_weekday(day)} is {say_month_day(day)}."
    ahead = int(str(args.get("ahead", 0)))
    day = today + datetime.timedelta(days=ahead)
    said = {-1: "Yesterday was", 1: "Tomorrow is", 2: "The day after tomorrow is"}.get(ahead, "It's")
    return f"{said} {say_weekday(day)}, {say_month_day(day)}."
