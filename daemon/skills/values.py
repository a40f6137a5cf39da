"""A request read by meaning, which no template took: the value it carries (a duration, a clock time) read from
anywhere in its words, and the request with its value put in other words to be compared for its wording."""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Final

from daemon.skills.amounts import NUMBER_WORD, digits, duration_in, read_durations, strip_fillers, strip_leading_fillers
from daemon.skills.call import SkillCall
from daemon.skills.intents import normalise
from daemon.skills.reminder_args import alarm_call, timer_call, timers_call
from daemon.skills.reminder_intents import half_unnamed
from daemon.skills.reminders import say_length
from daemon.skills.speech import say_alarm, say_clock, say_list
from daemon.skills.when import clock_time_put_as, parse_clock_time

LOOSE_SLOTS: Final = frozenset({"timer_start", "alarm_set", "set_time"})
"""Commands carrying a value that a request read by meaning may be: the value is read from anywhere in its words."""
_WAKING: Final = re.compile(r"\b(?:wake|get) (?:me )?up\b|\bwake me\b")
_SAYS_A_NUMBER: Final = re.compile(rf"\b(?:{NUMBER_WORD})\b")
_NAMES_THE_CLOCK: Final = re.compile(rf"\b(?:time|clock|o'clock)\b|^(?:it's|it is|its) (?:now )?(?:{NUMBER_WORD})\b")
_ASKS: Final = re.compile(r"(?:\w+ )?(?:what|how|when|which|is|are|do|does)\b")
_MOVING: Final = re.compile(
    r"\b(?:change|move|shift|push|switch|reset|bring|reschedule|update|adjust|instead)\b.*\balarm|\balarm\b.*\binstead\b"
)
_UNDOING: Final = re.compile(
    r"^(?:\w+ ){0,2}?(?:cancel|delete|remove|get rid of|scrap|ditch|clear|erase|wipe|kill|turn off|switch off|stop)\b"
)
"""A request that opens by undoing something sets no timer or alarm ("umm get rid of the 6 and alarm" set one); a
note may undo ("set a timer to turn off the oven")."""
_NOT_A_NAME: Final = frozenset(
    {"a", "an", "the", "my", "this", "that", "next", "new", "another", "one", "long", "second", "minute", "hour"}
)
"""Words before "timer" that name no timer: "a five minute timer" was a timer named "minute"."""


def read_values(skill: str, text: str) -> SkillCall | None:
    """`skill`'s call with the value `text` says anywhere in it (a duration, a clock time), or None when it says
    none: for a request read by meaning, which no template took, so no slot holds the value."""
    said = normalise(text)
    if skill in ("timer_start", "alarm_set") and _UNDOING.search(said):
        cancelled = half_unnamed(alarm_call("alarm_cancel", said, said), said) if skill == "alarm_set" else None
        return dataclasses.replace(cancelled, read_as=said) if cancelled is not None else None
    match skill:
        case "timer_start" if (lengths := _lengths_in(said)) is not None:
            return dataclasses.replace(timers_call(lengths), read_as=said)
        case "timer_start" if _CHANGING_A_TIMER.search(digits(said)) and (found := duration_in(said)):
            # NOTE: "the chicken timer should be forty minutes not thirty, change it" started a second timer
            named = _timer_name(found[1])
            return SkillCall("timer_change", {"seconds": found[0], **({"name": named} if named else {})}, said)
        case "timer_start":
            found = duration_in(said)
            return dataclasses.replace(timer_call(found[0], _timer_name(found[1])), read_as=said) if found else None
        case "alarm_set":
            # NOTE: an alarm moved ("could you shift my alarm to half seven") is not a second one set beside it
            moved = "alarm_move" if _MOVING.search(said) else "alarm_set"
            call = alarm_call(moved, said, said, waking=bool(_WAKING.search(said)))
            # NOTE: a move is asked about at the half it names; an alarm set is the one the clock shows next (skills.py)
            call = half_unnamed(call, said) if moved == "alarm_set" else call
            return dataclasses.replace(call, read_as=said) if call is not None else None
        case "set_time":
            # NOTE: only words that name the clock and ask nothing: "less three" (list the reminders), "set a long
            # 6 am" (an alarm) and "and what six time seven" (a sum), misheard, were asked about setting the clock.
            if _NAMES_THE_CLOCK.search(said) is None or _ASKS.match(said) is not None:
                return None
            at = parse_clock_time(said)
            if at is None:
                return None
            # NOTE: the clock is asked about before it is set: the question names the time read, not an example's.
            return SkillCall(
                "set_time", {"hour": at.hour, "minute": at.minute}, f"set the clock to {at.hour}:{at.minute:02d}"
            )
    return None


_POINTED_SECONDS: Final = re.compile(r"\b([1-9])\.(\d) (?:second|sec)s?\b")


def seconds_unpointed(call: SkillCall, said: str) -> SkillCall | None:
    """A timer of a few seconds and a tenth ("a 4.5 second timer") as the whole number written with the point (45
    seconds), to be asked about; None for any other call."""
    # NOTE: the box heard "Start a 4.5 second timer." for "start a 45 second timer" and set one for 4 seconds. Nobody
    # times a tenth of a second by voice; a number said as its digits ("four five") is written so.
    found = _POINTED_SECONDS.search(said)
    if call.skill != "timer_start" or found is None or "more" in call.args:
        return None
    meant = dataclasses.replace(call, args={**call.args, "seconds": int(found[1] + found[2])})
    return dataclasses.replace(meant, read_as=asked(meant), unsure=True)


@functools.lru_cache(maxsize=256)  # NOTE: one question is routed at its pause, for its early answer and by the turn
def value_said_as(said: str, duration: str, clock_time: str) -> str | None:
    """`said` with the duration or clock time it says put as `duration` or `clock_time`, or None if it says neither:
    so that a request is compared with others for its wording, not for its numbers."""
    if not _SAYS_A_NUMBER.search(said):
        return None
    if (found := duration_in(said)) is not None:
        return found[1].replace("|", duration)
    return clock_time_put_as(said, clock_time)


_TIMERS_FOR: Final = re.compile(r"\btimer(s?)\b(?: please)?(?: (?:for|of|lasting))? (.+)")
_CHANGING_A_TIMER: Final = re.compile(r"\btimer\b.*\b(?:change it|should be|instead of|rather than|not \d+)\b")
"""A timer's length said as a change of the one running, not a timer to start beside it."""
_FOR_WHOM: Final = re.compile(r"^(?:for )?(?:me|us)\s+")
"""Whom timers asked for are for, said before their lengths ("two timers for me, one for 4 minutes …")."""
_TIMER_AND_TIMER: Final = re.compile(r"\btimer\b.* and (?:a|an|another|one) .*\btimer\b")


def _lengths_in(said: str) -> tuple[int, ...] | None:
    """The lengths of several timers asked for at once, said after "timers" ("… two timers one for 5 minutes and one
    for 10 minutes"), or None."""
    found = _TIMERS_FOR.search(said)
    if found is None:
        return None
    # NOTE: "two timers for me, one for 4 minutes and …", "two timers uh one for eight minutes …" were one timer
    lengths = read_durations(strip_leading_fillers(_FOR_WHOM.sub("", strip_fillers(found[2]))), several=bool(found[1]))
    if lengths is None and _TIMER_AND_TIMER.search(said) and (first := re.search(r"\d", digits(said))):
        # NOTE: "a five minute timer and a twenty minute timer": each length said before its "timer"
        lengths = read_durations(strip_fillers(digits(said)[first.start() :]), several=True)
    return lengths


def _timer_name(around: str) -> str:
    """A timer's name in the words around its duration: "for the rice", "a tea timer"; else none."""
    for pattern in (r"\bfor (?:the|my) ([a-z]+)\b", r"\b([a-z]+) timer\b"):
        found = re.search(pattern, around)
        if found and found[1] not in _NOT_A_NAME:
            return found[1]
    return ""


def asked(call: SkillCall) -> str:
    """The request `call` makes, in words a confirmation can ask about ("set a timer for 12 minutes for the rice")."""
    a = call.args
    match call.skill:
        case "timer_start" if isinstance(more := a.get("more"), tuple):
            return f"set timers for {say_list([say_length(s) for s in (_whole(a['seconds']), *more)])}"
        case "timer_start":
            name = f" for the {a['name']}" if a.get("name") else ""
            note = f" to remind you to {a['note']}" if a.get("note") else ""
            return f"set a timer for {say_length(_whole(a['seconds']))}{name}{note}"
        case "alarm_set" if "hour" in a:
            days = a.get("days", ())
            once = (_whole(a["on"]),) if "on" in a else ()
            at = say_alarm(
                _whole(a["hour"]), _whole(a["minute"]), once or (days if isinstance(days, tuple) else ()), bool(once)
            )
            when = " tomorrow" if a.get("tomorrow") else ""
            note = f" to remind you to {a['note']}" if a.get("note") else ""
            return f"set an alarm for {at}{when}{note}"
        case "alarm_move" if "hour" in a:
            return f"move the alarm to {say_alarm(_whole(a['hour']), _whole(a['minute']), ())}"
        case "set_time" if "hour" in a:
            return f"set the time to {say_alarm(_whole(a['hour']), _whole(a['minute']), ())}"
        case "volume" if a.get("action") == "set" and "level" in a:
            return f"set the volume to {_whole(a['level'])} percent"
        case "timer_pause":
            return f"{'resume' if a.get('resume') else 'pause'} {'all timers' if a.get('all') else 'the timer'}"
        case "alarm_cancel" if "hour" in a:
            return f"cancel the {say_clock(_whole(a['hour']), _whole(a['minute']), half=not a.get('near'))} alarm"
        case "timer_cancel" | "alarm_cancel" | "reminder_cancel" if a.get("all"):
            return f"cancel all {_THINGS[call.skill]}s"
        case "timer_cancel" | "alarm_cancel" | "reminder_cancel" if not set(a) - {"all"}:
            return f"cancel the {_THINGS[call.skill]}"
    # NOTE: read by meaning, a request's nearest example may share no word with it ("louder, I can't hear you" is
    # nearest "i can't hear you"): asked about in the words that do it
    return _PLAIN.get((call.skill, str(a.get("action", ""))), call.read_as)


_THINGS: Final = {"timer_cancel": "timer", "alarm_cancel": "alarm", "reminder_cancel": "reminder"}
_PLAIN: Final = {
    ("volume", "up"): "turn it up",
    ("volume", "down"): "turn it down",
    ("volume", "mute"): "mute",
    ("volume", "unmute"): "unmute",
    ("forget", ""): "forget our conversation",
    ("pace", "slower"): "speak more slowly",
    ("pace", "faster"): "speak faster",
    ("pace", "normal"): "speak at your usual pace",
}
"""A request with nothing to fill in, in words the templates read as it."""


def _whole(value: object) -> int:
    """An argument as a whole number (0 if it is none)."""
    return int(value) if isinstance(value, int | float) else 0
