"""What a reminder or a once-only alarm carries beyond its time: the note to say back, and the one day it rings on."""

from __future__ import annotations

import re
from typing import Final

from daemon.skills.call import Arg
from daemon.skills.when import once_day

_WHEN_SAID: Final = re.compile(r"\s*\b(?:tomorrow|today|tonight|on \w+day|this (?:morning|afternoon|evening))$")
_YOURS: Final = {"my": "your", "me": "you", "i": "you", "i'm": "you're", "myself": "yourself", "mine": "yours"}


def noted(note: str) -> dict[str, Arg]:
    """A reminder's note as an argument, said back to the person ("call my mum": "call your mum")."""
    note = _WHEN_SAID.sub("", note)  # NOTE: "call mum tomorrow" at 6 pm: the day is the alarm's, not the note's
    note = " ".join(_YOURS.get(word, word) for word in note.split())
    return {"note": note} if note else {}


def once_on(said: str) -> dict[str, Arg]:
    """The day an alarm said for once rings on: tomorrow ("tomorrow": True) or a day named ("on friday": "on": 4);
    none for one said with no day (it rings the next time its clock time comes)."""
    if re.search(r"\btomorrow\b", said):
        return {"tomorrow": True}
    day = once_day(said)
    return {"on": day} if day is not None else {}
