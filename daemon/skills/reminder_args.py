"""What a reminder or a once-only alarm carries beyond its time: the note to say back, and the one day it rings on."""

from __future__ import annotations

import re
from typing import Final

from daemon.skills.call import Arg, SkillCall
from daemon.skills.when import once_day

_WHEN_SAID: Final = re.compile(
    r"\s*\b(?:(?:tomorrow|on \w+day)(?: (?:morning|afternoon|evening|night))?|today|tonight|"
    r"this (?:morning|afternoon|evening))$"
)
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
    if hour is None or not once:
        return None
    return SkillCall("alarm_set", {"hour": hour, "minute": 0, "days": (), **noted(note), **once})


def once_on(said: str) -> dict[str, Arg]:
    """The day an alarm said for once rings on: tomorrow ("tomorrow": True) or a day named ("on friday": "on": 4);
    none for one said with no day (it rings the next time its clock time comes)."""
    if re.search(r"\btomorrow\b", said):
        return {"tomorrow": True}
    day = once_day(said)
    return {"on": day} if day is not None else {}
