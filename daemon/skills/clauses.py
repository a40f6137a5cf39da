"""A request said with more than the request: a clause that sets the scene before it or gives the reason after it,
or a length or clock time corrected as it is said."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Final

from daemon import corrections
from daemon.skills.amounts import digits, duration_in, parse_duration
from daemon.skills.asked_for import completed
from daemon.skills.call import SkillCall
from daemon.skills.when import clock_time_put_as
from daemon.skills.written import normalise

_SET_OR_UNDONE: Final = frozenset(
    {
        "timer_start", "timer_cancel", "timer_pause", "timer_add", "timer_change", "alarm_set", "alarm_cancel",
        "alarm_move", "reminder_cancel", "forget", "volume", "count",
    }
)  # fmt: skip
"""Skills that set, undo or do something: what a clause beside a scene or a reason asks for ("..., cancel the timer";
"drop the volume to twenty, ..."; "let's play hide and seek, count to thirty")."""


_ANSWERED: Final = frozenset(
    {
        "time", "date", "day", "calculate", "convert", "weekday", "country", "element", "planet", "spell",
        "number_fact", "month_days", "holiday", "help", "repeat", "pace",
    }
)  # fmt: skip
"""Skills that answer what the clause asks whatever the scene says ("I'm tripling the recipe, what's 3 times 250";
"sorry, my phone's dead, have you got the time"; "how big is France, area wise")."""
_RESCOPED: Final = re.compile(r"\b(?:if|in|at|suppose|imagine|then|when|where)\b")
"""Words by which a scene may change what its question asks ("if it's 3 pm in London, what time is it"): such a
question stays the model's."""
_CORRECTING_OR_GOING_ON: Final = re.compile(
    rf"^(?:{'|'.join(corrections.MARKERS)}|but|and|or|only|except|without|with|slower|faster|louder|quieter)\b"
)
"""A clause after the first that corrects it ("what's 3 times 14, no sorry, 3 times 16") or goes on with it ("say it
again, but slower"): the first is not asked alone."""
_A_DAY: Final = re.compile(
    r"\b(?:tomorrow|today|tonight|(?:mon|tues|wednes|thurs|fri|satur|sun|week)days?|weekends?|every)\b"
)
"""A day a scene names (not "bank holiday brain"): a command beside it is read with the day, by meaning."""


def beside_the_scene(text: str, match: Callable[[str], SkillCall | None]) -> SkillCall | None:
    """A command (read by `match`) said after a clause that sets the scene, its last clause ("I already phoned him,
    cancel my reminder to call dad"; "okay, I've taken it out, you can cancel the timer"), or before one that gives
    the reason, its first ("drop the volume to twenty, the baby's asleep"), or None: only one that sets or undoes, or
    a question the skills answer whatever the scene (`_ANSWERED`) beside a scene that does not change it."""
    clauses = re.split(r"(?<!\d)[,.;](?!\d)", text.strip(" .!?"))  # NOTE: not "7.30" or "2,500"
    for command, rest in ((clauses[-1], clauses[:-1]), (clauses[0], clauses[1:])):
        clause, scene = normalise(command), normalise(" ".join(rest))
        # NOTE: a first clause the next corrects or goes on with ("say it again, but slower") is not asked alone
        goes_on = command is clauses[0] and bool(_CORRECTING_OR_GOING_ON.match(normalise(rest[0]) if rest else ""))
        # NOTE: one word beside a comma is no scene: "Umm, get rid of the 6 and alarm." is misheard, and asked about
        if len(clause.split()) < 2 or len(scene.split()) < 2 or _A_DAY.search(scene):
            continue  # NOTE: "I've got a train tomorrow, wake me at 6": the day is the scene's, read by meaning
        clause = re.sub(r"^(?:you can|now) ", "", clause)  # NOTE: "can you", "just" are the templates' own
        if (named := _SCENE_TIMER.search(scene)) is not None:
            # NOTE: "I don't need the egg timer anymore, cancel it": "it" is the timer the scene named
            clause = re.sub(r"\b(?:it|that one|that)$", f"the {named[1]} timer", clause)
        if (pointed := _amount_pointed_at(clause, scene, match)) is not None:
            return pointed
        call = match(clause)
        if call is not None and call.skill == "remind_when" and call.args.get("what") == "timer":
            # NOTE: the other clause as the answer to "For how long?" ("I need a timer for the roast, 1 hour 45"),
            # else the one length a scene says; no length said: asked how long, as when bare
            answered = completed(str(call.args.get("request", "")), "timer", scene, match)
            return answered or _timer_the_scene_times(scene) or call
        if call is not None and call.skill in _SET_OR_UNDONE:
            return call
        if call is not None and call.skill in _ANSWERED and not goes_on and not _RESCOPED.search(scene):
            return call
    return None


def _amount_pointed_at(clause: str, scene: str, match: Callable[[str], SkillCall | None]) -> SkillCall | None:
    """A conversion of the one amount the scene says, asked of "that" ("my recipe says 1 pound of flour, how many
    grams is that"; "a marathon's 26.2 miles, what's that in kilometres"), or None."""
    if not _POINTING.search(clause):
        return None  # NOTE: before reading the scene's numbers, which is the dearer step
    amounts = _AN_AMOUNT.findall(digits(scene))
    if len(amounts) != 1:
        return None
    call = match(_POINTING.sub(" ".join(amounts[0]), clause, count=1))
    return call if call is not None and call.skill == "convert" else None


_POINTING: Final = re.compile(r"\b(?:that|it)\b")
_AN_AMOUNT: Final = re.compile(r"(-?\d+(?:\.\d+)?) ([a-z]+)")
"""A number and the word after it: an amount, if the conversion asked of it reads it as one."""

_SCENE_TIMER: Final = re.compile(r"\b(?:the|my|that) ((?:\w+ )?\w+) timer\b")
"""A timer a scene names by what it times ("the egg timer")."""

_GOES_ON: Final = re.compile(r"(?:in|from|to|at|on|for|of|by|and|or|but|with|without|than)\b|.*\d")
"""A remark after a question that is its own words going on ("What time is it? In Tokyo."), not a remark."""


def asked_before_a_remark(text: str, match: Callable[[str], SkillCall | None]) -> SkillCall | None:
    """A question one of the skills answers (read by `match`), asked before a remark that is no command ("What is
    the capital of Italy? I always forget."), or None."""
    question, _, remark = text.partition("?")
    remark = normalise(remark)
    if len(remark.split()) < 2 or "?" in text[len(question) + 1 :] or _GOES_ON.match(remark):
        return None
    call = match(normalise(question))
    return call if call is not None and match(remark) is None else None


_LENGTH_SAID: Final = re.compile(r"\b(\d+(?:\.\d+)?) (?:more |extra )?((?:second|minute|hour)s?)\b")


def _timer_the_scene_times(scene: str) -> SkillCall | None:
    """A timer for the one length the scene says ("the kids can have 20 more minutes on the tablet, set a timer"),
    or None when it says none or several."""
    lengths = _LENGTH_SAID.findall(digits(scene))
    seconds = parse_duration(" ".join(lengths[0])) if len(lengths) == 1 else None
    return SkillCall("timer_start", {"seconds": seconds}) if seconds is not None else None


_CORRECTION: Final = re.compile(
    rf"(?P<first>.+?) (?:(?:{'|'.join(corrections.MARKERS + corrections.SETTING)}) )+(?P<then>.+)"
)
_NUMBER: Final = re.compile(r"\b\d+(?:[.:]\d+)?\b")
_ON_THE_CLOCK: Final = re.compile(
    r"\b(?:alarm|wake|remind|at|clock|o'clock|am|pm|morning|afternoon|evening|night|tonight|tomorrow|noon)\b"
)


@functools.lru_cache(maxsize=256)  # NOTE: one question is routed at its pause, for its early answer and by the turn
def corrected(said: str) -> str | None:
    """`said` with the length, clock time or number it corrects put in place of the first ("a timer for five minutes
    no sorry seven minutes", "an alarm for six in the morning no wait half past six", "the volume to 30 no 40"), or
    None if it corrects none."""
    found = _CORRECTION.fullmatch(said)
    if found is None:
        return None
    first, then = found["first"], found["then"].rstrip(".")  # NOTE: "half past 6.": a digit keeps its full stop
    length = duration_in(then)
    if length is not None and length[1] == "|" and (run := duration_in(first)) is not None:
        return run[1].replace("|", then)
    # NOTE: the half of the day the first named is kept: "six in the morning, no, half past six" is 6:30 am
    if _ON_THE_CLOCK.search(first) and clock_time_put_as(then, "|") == "|":
        return clock_time_put_as(first, then)
    # NOTE: a bare number is put for the last number said before, which keeps its unit: "the volume to 30, no, 40";
    # "a timer for 10 minutes, actually, 15"; "5 plus 3, no wait, 4" (read as clock times, the 5 was corrected)
    number, before = digits(then), digits(first)
    if number.isdigit() and (numbers := list(_NUMBER.finditer(before))):  # NOTE: not "half", which is 0.5
        return before[: numbers[-1].start()] + number + before[numbers[-1].end() :]
    return None
