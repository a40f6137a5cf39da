"""What "make it …" asks just after a timer or an alarm was set: read from its words, then resolved against that
timer or alarm (the model had promised "A timer for 15 minutes, starting now." and nothing changed)."""

from __future__ import annotations

import math
import re

from daemon.skills.amounts import digits, read_duration, read_volume
from daemon.skills.call import Arg, SkillCall
from daemon.skills.reminders import Kind, Reminder
from daemon.skills.when import names_no_half_of_day, parse_clock_time


def read(said: str) -> SkillCall | None:
    """ "Make it {said}": a length ("20 minutes"), a clock time ("7:30", "8 am") or a bare number ("15", whose unit
    is the timer's or the alarm's just set: `resolve`), or a volume ("50 percent"); None when it says none of them."""
    if re.search(r"percent|%", said) and (level := read_volume(said)) is not None:
        return SkillCall("volume", {"action": "set", "level": level})
    if (length := read_duration(said)) is not None:
        return SkillCall("change_it", {"seconds": length})
    if re.fullmatch(r"\d{1,3}", number := digits(said)):
        return SkillCall("change_it", {"number": int(number)})
    at = parse_clock_time(said)
    if at is None:
        return None
    near = {"near": True} if names_no_half_of_day(said) else {}
    return SkillCall("change_it", {"hour": at.hour, "minute": at.minute, **near})


def resolve(said: SkillCall, it: Reminder | None) -> SkillCall | None:
    """The call that changes `it` (the timer or alarm just set, or the only one held) as `said` asks: a bare number
    in the timer's unit ("make it 15" after 10 minutes) or as the alarm's hour ("745" its hour and minute); None when it
    cannot mean `it`."""
    a = said.args
    if it is None or (it.kind is Kind.TIMER and "hour" in a) or (it.kind is Kind.ALARM and "seconds" in a):
        return None
    number = _whole(a, "number")
    if it.kind is Kind.TIMER:
        seconds = _whole(a, "seconds") if "seconds" in a else number * _unit_of(number, it.seconds)
        return SkillCall("timer_change", {"seconds": seconds, "id": it.id}, said.read_as, said.by_meaning)
    hour, minute = (number, 0) if "number" in a else (_whole(a, "hour"), _whole(a, "minute"))
    if "number" in a and number >= 100:
        hour, minute = divmod(number, 100)  # NOTE: the recogniser writes "change it to 7:45" as "… to 745"
    near = bool(a.get("near")) or ("number" in a and 1 <= hour <= 12)
    at: dict[str, Arg] = {"hour": hour, "minute": minute, "id": it.id, "near": near}
    return SkillCall("alarm_move", at, said.read_as, said.by_meaning)


def _unit_of(number: int, seconds: int) -> int:
    """The unit, in seconds, a bare number changing a timer of `seconds` means: of hours, minutes and seconds, the
    one that makes the new length likest the old ("make it 2" after 90 seconds is 2 minutes, after an hour 2 hours)."""
    return min((3600, 60, 1), key=lambda unit: abs(math.log(max(number, 1) * unit / max(seconds, 1))))


def _whole(args: dict[str, Arg], name: str) -> int:
    value = args.get(name)
    return int(value) if isinstance(value, int | float | str) else 0
