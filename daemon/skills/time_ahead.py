"""The clock read ahead: what time it will be after a while, and how long until a time of day."""

from __future__ import annotations

import datetime

from daemon.skills.reminders import say_length
from daemon.skills.speech import DAYS, say_clock


def _day_of(at: datetime.datetime, now: datetime.datetime) -> str:
    """ "" for today, " tomorrow", or " on Tuesday" within the week ahead."""
    days = (at.date() - now.date()).days
    return "" if days == 0 else " tomorrow" if days == 1 else f" on {DAYS[at.weekday()]}"


def ahead(now: float, seconds: int) -> str:
    """What the box says to "what time will it be in `seconds`"."""
    start = datetime.datetime.fromtimestamp(now).astimezone()
    at = datetime.datetime.fromtimestamp(now + seconds).astimezone()
    return f"In {say_length(seconds)}, it will be {say_clock(at.hour, at.minute)}{_day_of(at, start)}."


def until(now: float, hour: int, minute: int, near: bool = False) -> str:
    """What the box says to "how long until `hour`:`minute`" (the next time the clock shows it; `near`: no half of
    the day was said, so whichever of the two comes first)."""
    start = datetime.datetime.fromtimestamp(now).astimezone()
    hours = (hour % 12, hour % 12 + 12) if near else (hour,)
    coming = []
    for h in hours:
        at = start.replace(hour=h, minute=minute, second=0, microsecond=0)
        coming.append(at if at >= start.replace(second=0, microsecond=0) else at + datetime.timedelta(days=1))
    at = min(coming)
    left = max(0, round((at - start).total_seconds() / 60) * 60)
    # NOTE: "until midnight" is tonight's, which the calendar calls tomorrow
    when = say_clock(at.hour, at.minute) + ("" if (at.hour, at.minute) == (0, 0) else _day_of(at, start))
    return f"It's {say_length(left)} until {when}." if left else f"It's {when} now."
