"""The calls for a timer, an alarm or a reminder as said: the length or time, the note to say back, and the one day
a once-only alarm rings on."""

from __future__ import annotations

import datetime
import re
from typing import Final

from daemon.skills.amounts import strip_leading_fillers
from daemon.skills.call import Arg, SkillCall
from daemon.skills.when import impossible_clock_time, once_day, parse_clock_time, parse_days

_WHEN_SAID: Final = re.compile(
    r"\s*\b(?:(?:tomorrow|on \w+day)(?: (?:morning|afternoon|evening|night))?|today|tonight|"
    r"this (?:morning|afternoon|evening))$"
)
_AT_A_TIME: Final = re.compile(
    r"\bat (?:\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|half|quarter|noon|midnight)\b"
)
"""A clock time at the end of the words taken for a note: the reminder's time, left there by a template."""
_YOURS: Final = {"my": "your", "me": "you", "i": "you", "i'm": "you're", "myself": "yourself", "mine": "yours"}


def noted(note: str) -> dict[str, Arg]:
    """A reminder's note as an argument, said back to the person ("call my mum": "call your mum")."""
    note = _WHEN_SAID.sub("", note)  # NOTE: "call mum tomorrow" at 6 pm: the day is the alarm's, not the note's
    note = " ".join(_YOURS.get(word, word) for word in note.split())
    return {"note": note} if note else {}


PART_OF_DAY: Final = {"morning": 9, "afternoon": 14, "evening": 18, "night": 20}
"""The hour a reminder set for a part of a day with no clock time rings at ("tomorrow morning": 9 am); the reply
says it, so that a person who meant another hour hears which one was set."""


def part_of_day_call(part: str, note: str, said: str) -> SkillCall | None:
    """A once-only reminder at the usual hour of `part` on the day `said` names (tomorrow, a weekday)."""
    hour = PART_OF_DAY.get(part)
    once = once_on(said)
    if hour is None or not once or _AT_A_TIME.search(note):
        return None  # NOTE: "buy milk at 8" tomorrow morning is at 8, not 9 with "at 8" in its note
    return SkillCall("alarm_set", {"hour": hour, "minute": 0, "days": (), **noted(note), **once})


def once_on(said: str) -> dict[str, Arg]:
    """The day an alarm said for once rings on: tomorrow ("tomorrow": True) or a day named ("on friday": "on": 4);
    none for one said with no day (it rings the next time its clock time comes)."""
    if re.search(r"\btomorrow\b", said):
        return {"tomorrow": True}
    day = once_day(said)
    return {"on": day} if day is not None else {}


def timer_call(seconds: int, name: str, note: str = "") -> SkillCall:
    """A timer of any length said (`note`: what to remind of when it ends): the skill itself says when it is outside
    the limits."""
    # NOTE: a name is what follows its last article: "is it possible to set a" or "i want a pasta" before "timer for
    # 5 minutes" is the asking, not the name.
    name = re.split(r"\b(?:the|my|a|an)\b", f" {name.removesuffix(' timer').strip()} ")[-1].strip()
    name = strip_leading_fillers(name)  # "hey, pasta timer, …"
    name = "" if name in _NO_NAME else name  # "set another timer for 2 minutes" was "An another timer ..."
    return SkillCall("timer_start", {"seconds": seconds, **({"name": name} if name else {}), **noted(note)})


def timers_call(lengths: tuple[int, ...]) -> SkillCall:
    """Unnamed timers of `lengths` asked for at once ("two timers, one for 5 minutes and one for 10")."""
    return SkillCall("timer_start", {"seconds": lengths[0], "more": lengths[1:]})


_NO_NAME: Final = frozenset(
    {"another", "second", "new", "extra", "other", "separate", "different", "more", "next", "me", "us"}
)
"""Words before "timer" that say there is one more, or whom it is for ("a timer for me"), not what it is for."""
SNOOZE_S: Final = 9 * 60
"""A snooze said with no length: nine minutes, as alarm clocks have long done."""
WORKING_DAYS: Final = frozenset(range(5))
"""Monday to Friday, as parse_days numbers them."""


def alarm_call(skill: str, when: str, said: str, waking: bool = False, note: str = "") -> SkillCall | None:
    """The alarm call for the time `when` says and the days `said` names anywhere (`note`: what to remind of); an
    impossible time's call; None."""
    # NOTE: the days may be said anywhere ("every weekday, wake me at 7"): read them from the whole sentence;
    # several days named ("on monday, wednesday and friday") repeat as "mondays, wednesdays and fridays" would.
    days = parse_days(said) or (named if len(named := parse_days(re.sub(r"\b(\w+day)\b", r"\1s", said))) > 1 else ())
    # NOTE: an alarm every working day wakes someone: "six thirty on weekdays" is 6:30, not 18:30.
    at = parse_clock_time(when, waking=waking or set(days) == WORKING_DAYS)
    if at is None:
        return off_the_clock(skill, when)
    once = once_on(said) if not days else {}
    return SkillCall(skill, {"hour": at.hour, "minute": at.minute, "days": tuple(sorted(days)), **noted(note), **once})


def next_half(hour: int, minute: int, days: tuple[int, ...], now_wall: float | None, another_day: bool = False) -> int:
    """The hour of an alarm named without its half of the day and read as the afternoon (1-6 pm): the morning's when
    that afternoon time has passed today, since the clock shows the morning's first ("an alarm for 6:30" said at
    11 pm), and always for an alarm once on `another_day` ("6:30 tomorrow", "on Monday"), whose first is the
    morning's. An alarm on named weekdays keeps the afternoon: it has no first."""
    if days or not 13 <= hour <= 18:
        return hour
    if another_day:
        return hour - 12  # NOTE: "an alarm for tomorrow", "half past six" was 6:30 pm when asked at noon
    if now_wall is None:
        return hour
    now = datetime.datetime.fromtimestamp(now_wall)
    return hour - 12 if (now.hour, now.minute) >= (hour, minute) else hour


def off_the_clock(skill: str, when: str) -> SkillCall | None:
    """The call for a time no clock shows ("25:99"), for the skill to say so; None when no time was said."""
    said = impossible_clock_time(when)
    return SkillCall(skill, {"impossible": said}) if said is not None else None


def alarm_days(a: dict[str, Arg], wall: float | None) -> tuple[tuple[int, ...], bool]:
    """The weekdays an alarm request names and whether it rings once: "tomorrow" and "on Friday" are one day, once
    (`wall`: the trusted time now, for which day tomorrow is)."""
    days = a.get("days", ())
    found = tuple(int(d) for d in days) if isinstance(days, tuple | list) else ()
    if a.get("tomorrow") and wall is not None:
        found = ((datetime.datetime.fromtimestamp(wall).weekday() + 1) % 7,)
    elif "on" in a:
        found = (int(str(a["on"])),)
    return found, bool(a.get("tomorrow")) or "on" in a
