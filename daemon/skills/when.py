"""Clock times and repeat days in what a recogniser writes ("seven thirty pm", "quarter to eight", "every weekday")."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Final

from ovos_number_parser import numbers_to_digits

_MINUTES_PER_DAY: Final = 24 * 60
_ZEROS: Final = frozenset({"oh", "o", "0"})
"""Words that say a leading zero: "seven oh five", "oh seven hundred"."""
_PAST: Final = frozenset({"past", "after"})
_TO: Final = frozenset({"to", "till", "til"})
_NAMED: Final = {"noon": (12, 0), "midnight": (0, 0)}
_UNITS: Final = frozenset({"second", "sec", "minute", "min", "hour", "hr", "day", "week", "month", "year"})
_COUNTED: Final = _UNITS | {"time", "percent", "degree", "alarm", "timer"}
"""Words (less a plural s) that make the number before them a count or a duration ("ten minutes", "2 alarms")."""
_MORNING: Final = frozenset({"morning", "mornings"})
_AFTERNOON: Final = frozenset({"afternoon", "afternoons", "evening", "evenings"})
_NIGHT: Final = frozenset({"tonight", "night", "nights"})

_DAY_NAMES: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_EVERY_DAY: Final = frozenset(range(7))
_WEEKDAYS: Final = frozenset(range(5))
_WEEKEND: Final = frozenset({5, 6})
_DAILY_AFTER_EVERY: Final = frozenset({"day", "morning", "afternoon", "evening", "night"})
_RANGE_WORDS: Final = frozenset({"to", "through", "thru", "till", "until"})
_EXCEPT: Final = re.compile(r"\b(?:except|excluding|but|apart from|other than)\b")


@dataclass(frozen=True)
class ClockTime:
    """A time of day on the 24-hour clock."""

    hour: int
    """0-23"""
    minute: int
    """0-59"""


@dataclass(frozen=True)
class _Said:
    """A time as spoken, before am/pm is settled; fields may be out of range until checked."""

    hour: int
    minute: int = 0
    before: int = 0
    """Minutes before `hour` ("ten to seven")."""
    literal: bool = False
    """Written on the 24-hour clock ("07:30", "0700", "seven hundred hours"): never moved to the afternoon."""
    bare: bool = False
    """A lone number ("at 5"), so a unit after it makes it a duration."""


def _words(text: str) -> list[str]:
    """`text` as lower-case words with number words as digits and typed forms ("7.30am") spaced like speech."""
    text = text.lower().replace("\u2019", "'")
    # NOTE: "a m" must be joined before the number parser sees it: it drops the "a" of "seven a m" ("7 m").
    text = re.sub(r"\b([ap])\.? ?m\b\.?", r"\1m", text)  # "a.m.", "p.m", "a m"
    text = re.sub(r"(\d)(am|pm)\b", r"\1 \2", text)
    text = re.sub(r"\b(\d{1,2}(?::\d{2})?) ?m\b", r"\1 am", text)  # Whisper writes "seven am" as "7m"
    text = re.sub(r"\b(\d{1,2})\.(\d{2})\b", r"\1:\2", text)
    text = re.sub(r"\bo' ?clock\b|\bo clock\b", " oclock ", text)
    # NOTE: the number parser strips ordinal suffixes ("the 5th" -> "the 5"), which would read as a time.
    text = re.sub(r"\b\d+(?:st|nd|rd|th)\b", " ordinal ", text)
    # NOTE: the number parser reads "half" and "quarter" as fractions (0.5, 0.25); name their minutes first.
    text = re.sub(r"\bhalf (?=past|after)", "30 ", text)
    text = re.sub(r"\bhalf\b", "half_", text)
    text = re.sub(r"\bquarter\b", "15", text)
    text = re.sub(r"\bmidday\b", "noon", text)
    text = re.sub(r"[^\w:\s]", " ", text)
    text = re.sub(r"(?<!\d):|:(?!\d)", " ", text)
    return str(numbers_to_digits(text, "en")).split()


def _number(word: str, *, width: int = 2) -> int | None:
    """`word` as an integer when it is 1 to `width` plain digits."""
    return int(word) if word.isascii() and word.isdigit() and len(word) <= width else None


def _hour(word: str) -> _Said | None:
    """An hour said alone, as after "past" or "to"."""
    if word in _NAMED:
        return _Said(*_NAMED[word], literal=True)
    hour = _number(word)
    return None if hour is None else _Said(hour)


def _read_at(words: list[str], i: int) -> tuple[_Said, int] | None:
    """The time starting at `words[i]` and the index after it, or None when none starts there."""
    word = words[i]
    nxt = words[i + 1] if i + 1 < len(words) else ""
    after = words[i + 2] if i + 2 < len(words) else ""
    if word in _ZEROS:  # "oh seven hundred", "zero seven thirty": a leading zero means the 24-hour clock
        if len(nxt) == 3 and (whole := _number(nxt, width=3)) is not None:
            return _Said(*divmod(whole, 100), literal=True), i + 2
        if (hour := _number(nxt, width=1)) is not None and len(after) == 2 and (minute := _number(after)) is not None:
            return _Said(hour, minute, literal=True), i + 3
    if word in _NAMED:
        return _Said(*_NAMED[word], literal=True), i + 1
    if word == "half_" and (hour := _number(nxt)) is not None:  # British "half seven" is 7:30
        return _Said(hour, 30), i + 2
    if clock := re.fullmatch(r"(\d{1,2}):(\d{2})", word):
        return _Said(int(clock[1]), int(clock[2]), literal=clock[1].startswith("0") and len(clock[1]) == 2), i + 1
    if len(word) in (3, 4) and (whole := _number(word, width=4)) is not None:
        # NOTE: "730" is how recognisers write "seven thirty"; "0700" and "seven hundred" (700) are military.
        return _Said(*divmod(whole, 100), literal=word.startswith("0") or word.endswith("00")), i + 1
    number = _number(word)
    if number is None:
        return None
    if nxt in ("minute", "minutes"):  # "ten minutes to seven"
        nxt, after, step = after, words[i + 3] if i + 3 < len(words) else "", 1
    else:
        step = 0
    # NOTE: "from 5 to 7" is a span, not 6:55.
    span = nxt in _TO and i > 0 and words[i - 1] in ("from", "between")
    if (nxt in _PAST or nxt in _TO) and not span and (hour_said := _hour(after)) is not None:
        if nxt in _PAST:
            return _Said(hour_said.hour, number, literal=hour_said.literal), i + step + 3
        return _Said(hour_said.hour, 0, before=number, literal=hour_said.literal), i + step + 3
    if (nxt in _PAST or nxt in _TO) and not span and not after:
        return None  # NOTE: "an alarm for twenty past", cut off at a pause before its hour, was set for 8 pm
    if step:
        return _Said(number, bare=True), i + 1
    if nxt in _ZEROS and (minute := _number(after, width=1)) is not None:
        return _Said(number, minute), i + 3
    if len(nxt) == 2 and (minute := _number(nxt)) is not None:
        return _Said(number, minute), i + 2
    if number == 12 and nxt in _NAMED:  # "twelve noon", "twelve midnight"
        return _Said(*_NAMED[nxt], literal=True), i + 2
    return _Said(number, bare=True), i + 1


def _part_of_day(words: list[str]) -> str | None:
    """The marker ("am", "pm", "night") of the first phrase anywhere in `words` that names a part of the day."""
    for i, word in enumerate(words):
        if word in _MORNING:
            return "am"
        if word in _AFTERNOON:
            return "pm"
        if word in _NIGHT and not (i > 0 and words[i - 1] == "good"):  # "good night, wake me at seven"
            return "night"
    return None


def _resolve(said: _Said, marker: str | None, *, adjacent: bool, waking: bool) -> ClockTime | None:
    """The 24-hour time `said` means, or None when it is impossible."""
    hour = said.hour
    if not (0 <= hour <= 23 and 0 <= said.minute <= 59 and 0 <= said.before <= 59):
        return None
    # Hours 0 and 13-23 are already on the 24-hour clock ("am"/"pm" right after one is a contradiction). For 1-12:
    # - "am"/"in the morning" keeps the morning (12 am is midnight);
    # - "pm"/"in the afternoon"/"in the evening" moves to the afternoon (12 pm stays noon);
    # - "tonight"/"at night" does the same, but 12 is midnight;
    # - with no marker, 12 is noon; someone being woken means 1-11 in the morning; otherwise 1-6 are
    #   the afternoon (13-18) and 7-11 the morning, since an alarm "at 5" is rarely 5 am.
    # A time written on the 24-hour clock ("0500", "oh five hundred", "05:00") is never moved.
    if marker and 1 <= hour <= 12:
        hour %= 12
        if marker == "pm" or (marker == "night" and hour):
            hour += 12
    elif marker and adjacent:  # "nineteen pm", "0 am"
        return None
    elif not marker and not waking and not said.literal and 1 <= hour <= 6:
        hour += 12
    total = (hour * 60 + said.minute - said.before) % _MINUTES_PER_DAY
    return ClockTime(*divmod(total, 60))


def parse_clock_time(text: str, *, waking: bool = False) -> ClockTime | None:
    """The clock time said in `text` ("seven thirty pm", "half past six", "19:05", "noon"), or None."""
    found = _first_time(_words(text))
    if found is None:
        return None
    said, marker, adjacent = found
    return _resolve(said, marker, adjacent=adjacent, waking=waking)


def names_no_half_of_day(text: str) -> bool:
    """True if the first clock time `text` says is an hour of 1-12 with no am, pm or part of the day ("at 6", "seven
    thirty"): which half of the day it means is a guess."""
    found = _first_time(_words(text))
    return found is not None and found[1] is None and not found[0].literal and 1 <= found[0].hour <= 12


def impossible_clock_time(text: str) -> str | None:
    """The time `text` says that no clock shows, as written ("25:99", "7:70", "19 pm"); None if it says none."""
    found = _first_time(_words(text))
    if found is None:
        return None
    said, marker, adjacent = found
    if (said.bare and not adjacent) or _resolve(said, marker, adjacent=adjacent, waking=False) is not None:
        return None  # a lone number ("at 25") may be anything; a time that resolves is possible
    if adjacent and marker:
        return f"{said.hour}:{said.minute:02d} {marker}" if said.minute else f"{said.hour} {marker}"
    return f"{said.before} to {said.hour}" if said.before else f"{said.hour}:{said.minute:02d}"


def _first_time(words: list[str]) -> tuple[_Said, str | None, bool] | None:
    """The first time `words` say, its am/pm (or part of the day) and whether that marker follows it directly."""
    found = _first_time_at(words)
    return found[2:] if found is not None else None


def _first_time_at(words: list[str]) -> tuple[int, int, _Said, str | None, bool] | None:
    """The first time `words` say, where it starts and ends (with an am/pm right after it), its am/pm (or part of
    the day) and whether that marker follows it directly."""
    i = 0
    while i < len(words):
        read = _read_at(words, i)
        if read is None:
            i += 1
            continue
        said, end = read
        if end < len(words) and words[end] == "oclock":
            end += 1
            said = replace(said, bare=False)
        unit = words[end] if end < len(words) else ""
        # NOTE: "seven hundred hours" and "nineteen thirty hours" are clock times; "seven hours" is a duration.
        if unit.removesuffix("s") in _COUNTED and (said.bare or unit not in ("hour", "hours")):
            i = end + 1
            continue
        if unit in ("more", "extra") and said.bare:
            i = end + 1  # NOTE: a count: "one more time but slower" was asked about as setting the clock to 1 pm
            continue
        if unit in ("am", "pm"):
            return i, end + 1, said, unit, True
        return i, end, said, _part_of_day(words), False
    return None


def clock_time_put_as(text: str, put: str) -> str | None:
    """`text` (as words, numbers in digits) with the first clock time it says written as `put`; None if it says none
    that a clock shows."""
    words = _words(text)
    found = _first_time_at(words)
    if found is None:
        return None
    start, end, said, marker, adjacent = found
    if _resolve(said, marker, adjacent=adjacent, waking=False) is None:
        return None
    return " ".join([*words[:start], put, *words[end:]])


def _day_words(text: str) -> list[str]:
    """`text` as lower-case words with "week day", "work days" and "everyday" in one spelling."""
    text = re.sub(r"[^\w\s]", " ", text.lower())
    text = re.sub(r"\b(?:week|work) ?day(s?)\b", r"weekday\1", text)
    text = re.sub(r"\bweek ends?\b", "weekends", text)
    return re.sub(r"\beveryday\b", "every day", text).split()


def _named_days(words: list[str]) -> tuple[set[int], bool]:
    """The weekdays `words` name and whether they name them as repeating."""
    days: set[int] = set()
    repeats = False
    every = any(word in ("every", "each") for word in words)
    for i, word in enumerate(words):
        before = words[i - 1] if i > 0 else ""
        if word == "daily" or (before in ("every", "each") and word in _DAILY_AFTER_EVERY):
            days |= _EVERY_DAY
            repeats = True
        elif word in ("weekday", "weekdays"):
            days |= _WEEKDAYS
            repeats = True
        elif word in ("weekend", "weekends"):
            days |= _WEEKEND
            # NOTE: "a weekend alarm at half eight" is the weekends' alarm, as "a weekday alarm" is the weekdays'
            after = words[i + 1] if i + 1 < len(words) else ""
            # and "an alarm for seven at the weekend" too (it rang once, at the next seven, on a weekday)
            at_the = before == "the" and i > 1 and words[i - 2] in ("at", "on")
            repeats = repeats or word == "weekends" or every or after in ("alarm", "alarms") or at_the
        elif (name := word.removesuffix("s")) in _DAY_NAMES:
            day = _DAY_NAMES.index(name)
            days.add(day)
            repeats = repeats or word != name or every
            last = words[i - 2] if i > 1 else ""
            if before in _RANGE_WORDS and last.removesuffix("s") in _DAY_NAMES:  # "monday to friday"
                first = _DAY_NAMES.index(last.removesuffix("s"))
                days |= {(first + n) % 7 for n in range((day - first) % 7 + 1)}
                repeats = True
    return days, repeats


def parse_days(text: str) -> frozenset[int]:
    """Weekdays a repeating alarm rings on (0 = Monday), from "every weekday", "mondays and fridays"; empty: once."""
    words = _day_words(text)
    # NOTE: "every day except sunday", "weekdays but not friday": days after the exception are taken away.
    joined = " ".join(words)
    cut = _EXCEPT.search(joined)
    kept, left_out = (joined[: cut.start()], joined[cut.end() :]) if cut else (joined, "")
    days, repeats = _named_days(kept.split())
    if not repeats:
        return frozenset()
    removed, _ = _named_days(left_out.split())
    return frozenset(days - removed)


def days_named(text: str) -> tuple[int, ...]:
    """The weekdays that name an alarm ("weekend", "monday", "weekday": its days, 0 = Monday), sorted; () if none."""
    days = parse_days(text) or parse_days(re.sub(r"\b(\w+day|weekend)\b", r"\1s", text))
    return tuple(sorted(days))


def once_day(text: str) -> int | None:
    """The one weekday `text` names for once ("on friday": 4, 0 = Monday; "this weekend": its Saturday); None if it
    names none, several, or says they repeat ("fridays", "every friday")."""
    days, repeats = _named_days(_day_words(text))
    if days == _WEEKEND and not repeats:
        return min(_WEEKEND)  # NOTE: "an alarm for 7 this weekend" rang at the next seven, a weekday: Saturday's
    return next(iter(days)) if len(days) == 1 and not repeats else None
