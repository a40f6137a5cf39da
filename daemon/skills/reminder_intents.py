"""The calls for timers, alarms and reminders as Home Assistant's intents and ours match them (intents.py)."""

from __future__ import annotations

import dataclasses
import re
from typing import Final

from daemon.skills import make_it
from daemon.skills.amounts import digits, read_duration, read_durations, slot_text, strip_leading_fillers
from daemon.skills.call import Arg, SkillCall
from daemon.skills.reminder_args import (
    SNOOZE_S,
    alarm_call,
    noted,
    part_of_day_call,
    timer_call,
    timers_call,
)
from daemon.skills.reminders import length_as_a_name
from daemon.skills.when import days_named, names_no_half_of_day, parse_clock_time

_REPLACING: Final = re.compile(r"\b(?:rather than|instead of|not)\s+(?:at\s+)?(?P<old>.+)$")
"""A clock time said as the one it replaces ("quarter past six rather than six")."""

_NOT_A_TIMER: Final = re.compile(
    r"\b(?:alarms?|reminders?|morning|evening|am|pm|o'?clock|\d+:\d+)\b"
    r"|^(?:that|this|it|at|a|to|other|last|first|next|second|third|new|old|same|previous|earlier|later|right|wrong)$"
)
"""Words that make "the … one" an alarm or a reminder, or no name ("cancel that one", "the last one": read by
meaning, which knows what was set last), not a timer's name."""

INTENTS: Final = frozenset(
    {
        "HassStartTimer",
        "TalkboxTimer",
        "TalkboxTimers",
        "TalkboxTimerAdd",
        "TalkboxSnooze",
        "TalkboxTimerPause",
        "HassPauseTimer",
        "HassUnpauseTimer",
        "HassIncreaseTimer",
        "HassDecreaseTimer",
        "TalkboxTimerChange",
        "TalkboxChangeIt",
        "HassTimerStatus",
        "TalkboxTimerLeft",
        "HassCancelTimer",
        "TalkboxTimerCancel",
        "HassCancelAllTimers",
        "TalkboxAlarmMove",
        "TalkboxAlarmSet",
        "TalkboxCancelEverything",
        "TalkboxReminderList",
        "TalkboxReminderCancel",
        "TalkboxRemindPart",
        "TalkboxRemindWhen",
        "TalkboxAlarmList",
        "TalkboxAlarmCancel",
        "TalkboxAlarmSkip",
    }
)
"""The intents of timers, alarms and reminders, read here."""

_LENGTH: Final = re.compile(r"\d|\b(second|sec|minute|min|hour|hr|day|week)s?\b")
"""A number or a unit: in a name, a length that was cut off."""
_A_BARE_NAME: Final = re.compile(r"(?!(?:put|set|start|make|get|give|on|a|an|the|my|one|two)\b)[a-z]+(?: [a-z]+)?")
"""A timer's name said alone before "timer" and its length (after any filler): a word or two, not a request's words."""
_A_TIMER_ASKED: Final = re.compile(r"\b(?:timers?|remaining|left|up|on)\b")
"""Words in what "time the …" names that make it a question of a timer, not a thing to time."""
_WH: Final = re.compile(r"(?:what|what's|why|how|who|where|when|which|whose)\b")
"""A question's opening that no request has ("is it possible to set a timer …" is one)."""
_ASKS_IN_A_NAME: Final = re.compile(r"\b(?:i|you|we|they|should|could|would|do|does|did|can|will|is|are)\b")
"""Words of a question, not of a timer's name."""
_A_MOMENT: Final = re.compile(r"(?:a|one) (?:sec|second|moment|mo|tick)")
_LENGTH_THEN_NAME: Final = re.compile(r"(.*\b(?:second|sec|minute|min|hour|hr)s?) ([a-z]+(?: [a-z]+)?)")
"""A length and a name before "timer" ("a six minute egg timer"): hassil gives two wildcards side by side to one."""
_NOT_A_NAME: Final = frozenset(
    {"and", "or", "so", "long", "more", "extra", "another", "please", "a", "an", "the", "in", "of", "to", "for", "at"}
    | {"on", "by", "with", "from", "then"}
)
"""Words that make what follows a length no name: "a 10 minute long timer"; "10 minutes and a", cut off at a pause
and read loosely as "10 minutes in a", was a timer."""
"""A moment, not a length ("hold the timer for a sec")."""


def read(intent: str, v: dict[str, object], said: str) -> SkillCall | None:
    """The skill call a timer's, alarm's or reminder's intent match means, or None when its slots do not parse."""
    match intent:
        case _ if v.get("one") and _names_no_timer(str(_named(v).get("name", ""))):
            return None  # NOTE: "cancel the seven o'clock one", "the alarm one" name no timer
        case "HassStartTimer" | "TalkboxTimer" if read_duration(re.sub(r"\b(?:the|my)\b", "", slot_text(v, "name"))):
            return None  # NOTE: a length is no name: "set a 45 second timer and a 2 minute", cut off, is no timer yet
        case "HassStartTimer" if "conversation_command" not in v:
            seconds = sum(_number(v, k) * s for k, s in _UNIT_S)
            return timer_call(round(seconds), slot_text(v, "name"))
        case "TalkboxTimer" if _A_MOMENT.fullmatch(slot_text(v, "duration")):
            return None  # NOTE: "hold the timer for a sec" is no timer of one second; nor is "wait a second"
        case "TalkboxTimer" if v.get("bare") and not _A_BARE_NAME.fullmatch(
            strip_leading_fillers(slot_text(v, "name"))
        ):
            return None
        case "TalkboxTimer" if _WH.match(slot_text(v, "name")):
            return None  # NOTE: "what is a timer for 5 minutes" asks, and its name is no name: no timer was asked for
        case "TalkboxTimer":
            said_length, name = slot_text(v, "duration"), slot_text(v, "name")
            duration = read_duration(said_length)
            if duration is None and not name and (named := _LENGTH_THEN_NAME.fullmatch(said_length)):
                said_length, name = named.groups()
                duration = None if _NOT_A_NAME.intersection(name.split()) else read_duration(said_length)
            return timer_call(duration, name, slot_text(v, "note")) if duration is not None else None
        case "TalkboxTimers":
            lengths = read_durations(slot_text(v, "lengths"), several=bool(v.get("several")))
            return timers_call(lengths) if lengths is not None else None
        case "TalkboxTimerAdd":
            added = read_duration(re.sub(r"\b(more|extra) ", "", slot_text(v, "duration")))  # "10 more minutes"
            off = {"take_off": True} if v.get("take_off") else {}
            return SkillCall("timer_add", {"seconds": added, **off, **_named(v)}) if added is not None else None
        case "TalkboxSnooze":
            snooze = read_duration(slot_text(v, "duration")) if v.get("duration") else SNOOZE_S
            return _snoozed(timer_call(snooze, "", "wake up")) if snooze is not None else None
        case "TalkboxTimerPause" | "HassPauseTimer" | "HassUnpauseTimer":
            resume = bool(v.get("resume")) or intent == "HassUnpauseTimer"
            return SkillCall("timer_pause", {"resume": resume, **_which(v)})
        case "HassIncreaseTimer" | "HassDecreaseTimer":
            change = round(sum(_number(v, unit) * s for unit, s in _UNIT_S))
            off = {"take_off": True} if intent == "HassDecreaseTimer" else {}
            return SkillCall("timer_add", {"seconds": change, **off, **_named(v)}) if change else None
        case "TalkboxTimerChange":
            length = read_duration(slot_text(v, "duration"))
            return SkillCall("timer_change", {"seconds": length, **_named(v)}) if length is not None else None
        case "TalkboxChangeIt":
            return make_it.read(slot_text(v, "change_to"))
        case "HassTimerStatus" | "TalkboxTimerLeft" if _named(v).get("name") in ("alarm", "next alarm"):
            return SkillCall("alarm_list")  # NOTE: "how long until my alarm goes off" asks of the alarm
        case "HassTimerStatus" | "TalkboxTimerLeft" if _ASKS_IN_A_NAME.search(str(_named(v).get("name", ""))):
            return None  # NOTE: "how long on the beach should I stay" asks no timer
        case "HassTimerStatus" | "TalkboxTimerLeft":
            return SkillCall("timer_left", _named(v))
        case "HassCancelTimer" | "TalkboxTimerCancel":
            return SkillCall("timer_cancel", _which(v))
        case "HassCancelAllTimers":
            return SkillCall("timer_cancel", {"all": True})
        case "TalkboxAlarmMove":
            call = half_unnamed(alarm_call("alarm_move", slot_text(v, "when"), said), slot_text(v, "when"))
            at = parse_clock_time(slot_text(v, "alarm_from")) if v.get("alarm_from") else None
            if call is None or at is None or "hour" not in call.args:
                return call if not v.get("alarm_from") else None
            moved: dict[str, Arg] = {"from_hour": at.hour, "from_minute": at.minute}
            if names_no_half_of_day(slot_text(v, "alarm_from")):
                moved["from_near"] = True  # "move the 7 alarm to 8": the alarm at 7 am or 7 pm
            return dataclasses.replace(call, args={**call.args, **moved})
        case "TalkboxAlarmSet" if (replaced := _REPLACING.search(slot_text(v, "when"))) and parse_clock_time(
            replaced["old"]
        ):
            return None  # NOTE: "make my alarm quarter past six rather than six" moves it (TalkboxAlarmMove)
        case "TalkboxAlarmSet":
            waking, note = bool(v.get("waking")), slot_text(v, "note")
            return half_unnamed(alarm_call("alarm_set", slot_text(v, "when"), said, waking, note), slot_text(v, "when"))
        case "TalkboxCancelEverything":
            return SkillCall("cancel_what", {"named": slot_text(v, "named")} if v.get("named") else {})
        case "TalkboxReminderList":
            return SkillCall("reminder_list")
        case "TalkboxReminderCancel":
            # NOTE: "clear all reminder" (Whisper's singular) named a reminder "all"; "the dentist's reminder" is the
            # dentist one
            note = re.sub(r"'s$", "", slot_text(v, "note"))
            every = v.get("all") or note in _EVERY
            return SkillCall("reminder_cancel", {"all": True} if every else noted(note))
        case "TalkboxRemindPart":
            return part_of_day_call(slot_text(v, "part"), slot_text(v, "note"), said)
        case "TalkboxRemindWhen" if v.get("what") == "timer" and _LENGTH.search(digits(slot_text(v, "name"))):
            return None  # "set a timer for ten minutes" is a timer (a number or a unit in the name: a length, cut off)
        case "TalkboxRemindWhen" if v.get("what") == "timer" and _A_TIMER_ASKED.search(slot_text(v, "name")):
            return None  # NOTE: "time remaining on my timer" asks what is left, and names no timer to time
        case "TalkboxRemindWhen":
            # NOTE: no time or length it could be set for: asked for (daemon/skills/asked_for.py), with the words
            # the answer completes
            return SkillCall("remind_when", {**({"what": str(v["what"])} if v.get("what") else {}), "request": said})
        case "TalkboxAlarmList":
            return SkillCall("alarm_list")
        case "TalkboxAlarmCancel":
            if v.get("all"):
                return SkillCall("alarm_cancel", {"all": True})
            if not v.get("when"):
                return SkillCall("alarm_cancel")
            call = alarm_call("alarm_cancel", slot_text(v, "when"), said)
            # NOTE: "cancel the weekend alarm" names the alarm by its days, not its time
            days = days_named(slot_text(v, "when")) if call is None else ()
            return SkillCall("alarm_cancel", {"days": days}) if days else half_unnamed(call, slot_text(v, "when"))
        case "TalkboxAlarmSkip":
            return SkillCall("alarm_skip")
    return None


def half_unnamed(call: SkillCall | None, when: str) -> SkillCall | None:
    """`call` marked `near` when `when` names no half of the day: an alarm cancelled is then the one at either half
    ("cancel the 7 alarm"), an alarm moved goes to the half nearer its own ("move my 7 am alarm to 6")."""
    if call is None or "hour" not in call.args or not names_no_half_of_day(when):
        return call
    return dataclasses.replace(call, args={**call.args, "near": True})


def _number(values: dict[str, object], name: str) -> float:
    """A number slot's value; 0 when it was not said."""
    value = values.get(name)
    return float(value) if isinstance(value, int | float | str) and value != "" else 0.0


def _snoozed(call: SkillCall) -> SkillCall:
    """A snooze's reminder to wake up, marked as one: with nothing rung lately the skill says so instead."""
    return dataclasses.replace(call, args={**call.args, "snooze": True})


_UNIT_S: Final = (("hours", 3600), ("minutes", 60), ("seconds", 1))
_EVERY: Final = frozenset({"every", "each", "all", "all the", "all my", "both", "both the"})


def _names_no_timer(name: str) -> bool:
    """True if "the {name} one" is no timer's name: an alarm's or a reminder's, a clock time's, or a pointing word's."""
    return bool(_NOT_A_TIMER.search(name)) or parse_clock_time(name) is not None


def _named(v: dict[str, object]) -> dict[str, Arg]:
    """The timer named, by its name or by the length it was set for; nothing when none was named."""
    name = re.sub(r"^(the|my|a|an)\s+|'s$", "", slot_text(v, "name").removesuffix(" timer"))  # "the baby's timer"
    # NOTE: Home Assistant's "cancel the {start_minutes} minute timer" names a timer by the length it was set for
    length = sum(float(str(v.get(f"start_{unit}") or 0)) * s for unit, s in _UNIT_S)
    if not name and length:
        name = length_as_a_name(length)
    return {"name": name} if name else {}


def _which(v: dict[str, object]) -> dict[str, Arg]:
    """All the timers, or the one named; "every" heard as a name is all ("cancel a every timer": Whisper's "a")."""
    if v.get("all"):
        return {"all": True}
    named = _named(v)
    return {"all": True} if named.get("name") in _EVERY else named
