"""What a timer, an alarm or a reminder was asked for without, asked for in turn and heard in the next words alone:
"Set a timer." "For how long?" "Ten minutes."; "Remind me to call mum tonight." "At what time tonight?" "At 8."."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from daemon.skills.amounts import strip_fillers
from daemon.skills.call import Arg, SkillCall

ASKED_WITHIN_S: Final = 30.0
"""How long after the box asked for a length or a time the words said alone still complete the request."""
# NOTE: as long as a misheard request waits for its yes (CONFIRM_WITHIN_S): the follow-up window is 4 s, but a user
# who missed it wakes the box again and says only the answer.

HOW_LONG: Final = "For how long?"
WHAT_TIME: Final = "For what time?"
WHEN: Final = "When should I remind you? For example: at 6 pm, or in 20 minutes."

READ_OTHERWISE: Final = frozenset({"calculate", "expression", "convert", "change_it", "timer_change", "count"})
"""Skills that read a length or a time said alone as something else ("half six": a sum; "make it 10": a change)."""

_WHEN_SAID: Final = re.compile(
    r"\b(?:tonight|this (?:morning|afternoon|evening)|(?:in|during) the (?:morning|afternoon|evening)"
    r"|(?:tomorrow|on (?:mon|tues|wednes|thurs|fri|satur|sun)day)(?: (?:morning|afternoon|evening|night))?)\b"
)
"""The day or part of it a request names without a clock time: the answer's time goes before it ("at 8 tonight")."""
_A_NOTE: Final = re.compile(r"\bremind me\b.*\b(?:to|about|that)\b")
"""A reminder of something: what it lacks is only when."""
_VAGUE: Final = re.compile(r"\b(?:next|this) (?:week|month|year)\b|\bsome ?day\b|\bone day\b")
"""A time too vague to ask the clock time for ("next week": which day is a question of its own): said how to ask."""
_LEADING: Final = re.compile(r"^(?:at|for|on|by)\s+|\s+(?:at|for|on)$")
_ANSWER_WORDS: Final = 4
"""The most words of an answer that only gives a length or a time."""
_A_VALUE: Final = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|half"
    r"|quarter|noon|midnight|minutes?|hours?|seconds?)\b"
)
"""A word only a length or a time of day has."""
_FILLER: Final = re.compile(
    r"^(?:(?:uh|um|er|erm|hmm|oh|well|so|and|okay|ok|i'll|let's|let me think|let's say|let's see|make it|maybe|just)"
    r"\b[ ,]*)+"
    r"|\b(?:uh|um|erm|like)\b ?"
)
"""Words before or inside an answer that are not the length or time itself ("uh, make it twenty minutes"); the
politeness after it is the templates' own (`amounts.strip_fillers`)."""
_A_LENGTH: Final = re.compile(r"in (?!the )")
_FROM_NOW: Final = re.compile(r"^(?!in )(.+) from now$")
_SETS: Final = {"timer": frozenset({"timer_start"}), "alarm": frozenset({"alarm_set"})}
"""The skills that complete each request; a reminder is completed by either (a length or a time of day)."""


def question(call: SkillCall) -> str | None:
    """What the box asks for a `remind_when` request it can complete from the answer alone, or None (a request
    too vague, or none to complete: it is told how to ask); asked `again`, with an example of an answer."""
    what, request = str(call.args.get("what", "")), str(call.args.get("request", ""))
    again = bool(call.args.get("again"))
    if not request or _VAGUE.search(request):
        return None
    if what == "timer":
        return f"{HOW_LONG} For example: 10 minutes." if again else HOW_LONG
    if what == "alarm":
        return f"{WHAT_TIME} For example: 7 am." if again else WHAT_TIME
    if not _A_NOTE.search(request):
        return None  # NOTE: "remind me" alone lacks what of, as well as when
    day = _WHEN_SAID.search(request)
    if day is None:
        return WHEN
    return f"At what time {_said_day(day.group(0))}?{' For example: at 8.' if again else ''}"


@dataclass(frozen=True)
class Asked:
    """A request asked about, the words it was said in (normalised), and when it was asked (boot clock)."""

    request: str
    what: str
    at: float

    def again(self, answer: str) -> SkillCall | None:
        """The request asked about again, with an example, when `answer` (normalised) looks meant for it but does not
        complete it ("5": minutes, or seconds?); None for other words (a question for the model)."""
        if len(answer.split()) > _ANSWER_WORDS or not _A_VALUE.search(answer):
            return None
        # NOTE: the model, asked "5" after "For how long?", would say a timer was set
        args: dict[str, Arg] = {"request": self.request, "again": True}
        return SkillCall("remind_when", {**args, "what": self.what} if self.what else args)

    def completed(self, answer: str, match: Callable[[str], SkillCall | None]) -> SkillCall | None:
        """The request with `answer` (normalised words said alone) as its length or time, as `match` reads it whole;
        None if no way of putting them together makes the request asked about."""
        return completed(self.request, self.what, answer, match)


def completed(request: str, what: str, answer: str, match: Callable[[str], SkillCall | None]) -> SkillCall | None:
    """`request` (asking for `what`: "timer", "alarm", or "" for a reminder) with `answer` as its length or time, as
    `match` reads the two said as one sentence; None if no way of putting them together makes that request."""
    wanted = _SETS.get(what, frozenset({"alarm_set", "timer_start"}))
    # NOTE: "45 minutes from now" is "in 45 minutes" before "now" is taken for politeness
    answer = strip_fillers(_FROM_NOW.sub(r"in \1", _FILLER.sub("", answer).strip()))
    if not _A_VALUE.search(answer):
        return None  # NOTE: "That's how it went." (misheard) was read loosely as an alarm at 1 pm
    calls = (match(whole) for whole in _wholes(request, answer, what))
    found = [c for c in calls if c is not None and c.skill in wanted and (what or "note" in c.args)]
    # NOTE: words read as heard before any read as others ("timer at twenty minutes" was read loosely)
    return min(found, key=lambda c: bool(c.read_as)) if found else None


def _wholes(request: str, answer: str, what: str) -> list[str]:
    """The ways `request` and `answer` may be said as one sentence, the likeliest first."""
    asked, said = _WHEN_SAID.search(request), _WHEN_SAID.search(answer)
    found = said or asked
    day = found.group(0) if found else ""
    # NOTE: the clock time before the day: "remind me to call mum tonight at 8" reads 8 as the morning's
    before = _LEADING.sub("", _WHEN_SAID.sub("", request).strip()) if asked else request
    time = _LEADING.sub("", _WHEN_SAID.sub("", answer).strip()) if said else _LEADING.sub("", answer)
    wholes = [f"{request} {answer}"] if _A_LENGTH.match(answer) else []  # "in 20 minutes", not "in the morning"
    wholes += [f"{before} at {time} {day}".strip(), f"{before} for {time} {day}".strip(), f"{request} {answer}"]
    # NOTE: asked in words no template goes on from ("can you time something for me", "timer"): said plainly
    plainly = {"timer": f"set a timer for {time}", "alarm": f"set an alarm for {time} {day}".strip()}
    if what == "timer" and (named := _FOR_WHAT.search(request)):
        wholes.append(f"set a timer for {time} for {named[1]}")  # NOTE: "a timer for the roast" … "2 hours": its name
    return [*wholes, plainly[what]] if what in plainly else wholes


_FOR_WHAT: Final = re.compile(r"\bfor ((?:the|my|our|some) [a-z]+(?: [a-z]+)?)$")
"""What a timer asked for without a length is for ("set a timer for the roast")."""


def _said_day(day: str) -> str:
    """`day` as said back, its weekday's name capitalised ("on Friday")."""
    return re.sub(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", lambda m: m.group(0).capitalize(), day)
