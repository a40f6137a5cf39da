"""Counting aloud: "count to ten", "count down from five", "count from 10 to 20"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from daemon.skills.amounts import parse_whole
from daemon.skills.call import SkillCall

INTENTS: Final = frozenset({"TalkboxCount"})
MOST: Final = 100
"""The most numbers said in one count: a hundred take about a minute to say."""
LIMIT: Final = 10_000
"""The largest number counted from or to."""
TOO_LONG: Final = f"That's too long a count: I say at most {MOST} numbers at a time, up to {LIMIT:,}."
# NOTE: the model counted "One, two, ... nine." when asked to count to ten.


def read(values: Mapping[str, object]) -> SkillCall | None:
    """The count a template match asks for (down from a number ends at one), or None when a number in it is none."""
    down = bool(values.get("down"))
    start = parse_whole(str(values["start"])) if "start" in values else 1
    end = parse_whole(str(values["end"])) if "end" in values else 1 if down else None
    if start is None or end is None:
        return None
    return SkillCall("count", {"start": start, "end": end})


def answer(args: Mapping[str, object]) -> str:
    """The numbers from start to end, in either direction, or the limits when asked beyond them."""
    start, end = int(str(args["start"])), int(str(args["end"]))
    if abs(end - start) >= MOST or max(abs(start), abs(end)) > LIMIT:
        return TOO_LONG
    step = 1 if end >= start else -1
    return ", ".join(str(n) for n in range(start, end + step, step)) + "."
