"""What a sentence asks for, by Home Assistant's intent matcher (hassil) over its English sentences and ours.

When no template matches the words as heard, the likeliest readings of a misheard command are tried (misheard.py).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import logging
import re
import time
from importlib import resources
from typing import Any, Final

from daemon.skills import chance, counting, facts, make_it, number_facts, unable
from daemon.skills.amounts import digits, read_duration, read_durations, read_volume, strip_fillers
from daemon.skills.calc import Unanswerable, work_out
from daemon.skills.call import Arg as Arg
from daemon.skills.call import SkillCall as SkillCall
from daemon.skills.facts import claims
from daemon.skills.honest import TOPICS, is_amount, is_device, is_now, is_product, is_title
from daemon.skills.misheard import readings
from daemon.skills.money import currency_in
from daemon.skills.reminder_args import (
    SNOOZE_S,
    alarm_call,
    noted,
    off_the_clock,
    part_of_day_call,
    timer_call,
    timers_call,
)
from daemon.skills.reminders import length_as_a_name
from daemon.skills.speech import DAYS
from daemon.skills.units import convert
from daemon.skills.vocabulary import skill_words
from daemon.skills.when import days_named, names_no_half_of_day, parse_clock_time
from daemon.skills.written import normalise as normalise

_LOGGER = logging.getLogger(__name__)


FALSE_START_WORDS: Final = 3
"""Words a recogniser may write before the command, as a sentence of their own ("Exc excuse me. What's the time?")."""
MAX_WORDS: Final = 24
"""A longer sentence is a question for the language model, never a command (and hassil's cost grows with it)."""


HA_INTENTS: Final = frozenset(
    {
        "HassGetCurrentTime",
        "HassGetCurrentDate",
        "HassStartTimer",
        "HassTimerStatus",
        "HassCancelTimer",
        "HassCancelAllTimers",
        "HassPauseTimer",
        "HassUnpauseTimer",
        "HassIncreaseTimer",
        "HassDecreaseTimer",
        "HassNevermind",
    }
)
"""Home Assistant's intents the box answers itself (`_call`); with ours (Talkbox...), the only ones matched."""


@functools.cache
def sentences() -> dict[str, Any]:
    """Home Assistant's English sentences for the intents the box routes, ours merged over them (hassil's dict)."""
    import yaml
    from hassil import merge_dict
    from home_assistant_intents import get_intents

    data = get_intents("en")
    if data is None:
        raise RuntimeError("home-assistant-intents has no English sentences")
    ours = yaml.safe_load(resources.files("daemon.skills").joinpath("sentences.yaml").read_text(encoding="utf-8"))
    merge_dict(data, ours)
    # NOTE: HA's lights, covers, media... never become a call here; leaving them out made matching 4x faster
    # (2.3 -> 0.6 ms a sentence, x86_64) with the same matches, which is what lets misheard readings be tried.
    data["intents"] = {
        name: intent for name, intent in data["intents"].items() if name.startswith("Talkbox") or name in HA_INTENTS
    }
    return data


@functools.cache
def skill_vocabulary() -> frozenset[str]:
    """The words a misheard command is read again towards."""
    # NOTE: no loose reading is taken for the offline topics, so their words ("late", "race") are not the skills';
    # nor for chance, whose "or" ("heads or tails") kept "set a time or for ten minutes" from reading as "timer";
    # nor for the questions about the box itself ("is this a person or a computer"), nor for counting aloud or a
    # number's facts; nor for the distance between two places, whose words ("between", "apart") are everyone's; nor
    # for a claim to check, whose "or" and "than" are every comparison's, nor for the periodic table as a whole.
    leave_out = frozenset(
        {"TalkboxOffline", "TalkboxAbout", "TalkboxDistance", "TalkboxDayPart", "TalkboxElementTable"}
        | {*chance.INTENTS, *counting.INTENTS, *number_facts.INTENTS, *claims.INTENTS}
    )
    return skill_words(sentences(), leave_out=leave_out)


@functools.cache
def _intents() -> object:
    """The routed intents, compiled once (about 10 ms)."""
    from hassil import Intents

    return Intents.from_dict(sentences())


@functools.cache
def _slot_lists() -> dict[str, object]:
    from hassil import TextSlotList

    # NOTE: HA's sentences name devices, areas and floors; the box has none, but the lists must exist.
    return {name: TextSlotList.from_strings([]) for name in ("name", "area", "floor")}


def match(text: str) -> SkillCall | None:
    """The skill `text` asks for, even misheard, or None when it is a question for the language model."""
    said = normalise(text)
    if not said or len(said.split()) > MAX_WORDS:
        return None
    # NOTE: one question is routed by the judge at its pause, before an early answer and by the turn; the words
    # are the same each time, so they are matched once (hassil took 3-4 ms a sentence here, x86_64), and so are
    # their misheard readings (4.5 ms at the median for a general question, which no template takes).
    call = _match(said)
    if call is None or call.args.get("topic") == "devices":
        # NOTE: "set my room to 30%" is a device only if it is no misheard request of the box's own ("set volume to
        # 30%"): a device the box cannot reach is the weakest reading.
        call = _misheard(said, _pieces(text)) or call
    return SkillCall(call.skill, dict(call.args), call.read_as) if call is not None else None


def match_as_heard(text: str) -> SkillCall | None:
    """The skill `text` asks for word for word (no misheard word read as another), or None."""
    said = normalise(text)
    call = _match(said) if said and len(said.split()) <= MAX_WORDS else None
    return SkillCall(call.skill, dict(call.args)) if call is not None else None


def template_match(said: str) -> SkillCall | None:
    """The best template match of words already normalised (matched once, then remembered)."""
    return _match(said)


def _pieces(text: str) -> tuple[str, ...]:
    """The part of what was heard that may be the whole command, normalised, when the rest looks like noise.

    The sentence after a false start ("It's not. That's enough."); the first sentence when the next starts it again
    (the decoder looping: "How many cups in a litre? How many cu"); the words before a last comma followed by one
    word only ("That's enough, not").
    """
    # NOTE: never between digits: Whisper writes 3.5 as "3. 5", which is no false start.
    parts = re.split(r"(?<=[.?!])(?<!\d\.)\s+|(?<=\d\.)\s+(?=\D)", text.strip())
    sentences = [p for p in (normalise(p) for p in parts) if p]
    pieces = []
    if len(sentences) > 1 and sum(len(p.split()) for p in sentences[:-1]) <= FALSE_START_WORDS:
        pieces.append(sentences[-1])
    if len(sentences) > 1 and all(p.split()[0] == sentences[0].split()[0] for p in sentences[1:]):
        pieces.append(sentences[0])
    before, comma, after = text.rpartition(",")
    if comma and len(normalise(after).split()) == 1 and normalise(before):
        pieces.append(normalise(before))
    return tuple(dict.fromkeys(pieces))


@functools.lru_cache(maxsize=256)
def _misheard(said: str, pieces: tuple[str, ...]) -> SkillCall | None:
    """The skill a misheard command asks for: a piece of it, or the cheapest reading that matches a template."""
    for piece in pieces:
        if (call := _match(piece)) is not None:
            return call
    words = skill_vocabulary()
    for reading in itertools.chain.from_iterable(readings(text, words) for text in (said, *pieces)):
        # NOTE: a question about the news or the weather misheard is still best left to the model (which says
        # what it can); only commands and the facts the box keeps are worth reading loosely.
        if (
            (call := _match(reading)) is not None
            and call.skill not in _NOT_READ_LOOSELY
            and not _misread_slot(call, said)
        ):
            _LOGGER.debug("heard %r, read as %r", said, reading)
            return dataclasses.replace(call, read_as=reading)
    return None


_NOT_READ_LOOSELY: Final = frozenset({"offline", "remind_when", "about", "number_fact", "weekday", "count", "claim"})
"""Skills a loose reading never reaches: a question misheard towards them (what the box cannot know, how to ask,
what it is) stays the model's; so does one whose answer is its number or date ("is 221 a prime number or", cut off at
a pause, was read without its "or"), which a word read otherwise would change without a sign."""


def _misread_slot(call: SkillCall, said: str) -> bool:
    """True if a loose reading made up what the call carries: a name ending in an article (a timer "said a"), or a
    word to spell that was not said ("spell the word", cut off at a pause, read as "spell third")."""
    if call.skill == "spell" and str(call.args.get("word", "")) not in said.split():
        return True
    return any(isinstance(v, str) and v.split()[-1:] in (["a"], ["an"], ["the"]) for v in call.args.values())


@functools.lru_cache(maxsize=512)
def _match(said: str) -> SkillCall | None:
    """The best template match of normalised words."""
    from hassil import recognize_all

    calls: list[tuple[tuple[bool, bool, int, int], SkillCall]] = []
    for result in recognize_all(said, _intents(), slot_lists=_slot_lists(), language="en"):  # type: ignore[arg-type]
        entities = {name: e for name, e in result.entities.items()}
        values = {name: e.value for name, e in entities.items()}
        wild = [e for e in entities.values() if e.is_wildcard]
        call = _call(result.intent.name, values, said)
        if call is not None:
            # NOTE: hassil's own preference: fewer wildcards, then less text left to a wildcard; a reminder with no
            # time last ("remind me to {note}" also takes "remind me to call mum at 6 pm"); what cannot be done or
            # known offline after any skill ("can you pay with euros in Poland" is a claim, not a payment).
            offline = call.skill == "offline"
            rank = (call.skill == "remind_when", offline, len(wild), sum(len(str(e.text)) for e in wild))
            calls.append((rank, call))
    return min(calls, key=lambda c: c[0])[1] if calls else None


def _text(values: dict[str, object], name: str) -> str:
    return strip_fillers(str(values.get(name) or ""))


_LENGTH: Final = re.compile(r"\d|\b(second|sec|minute|min|hour|hr|day|week)s?\b")
ASKING: Final = re.compile(
    r"(?:what|what's|why|how|who|where|when|which|whose|should|shall|is|are|am|do|does|did|was|were|has|have)\b"
)
"""How a question opens: worded near a command, it is still a question for the model ("what do people who wake up at
5 am do", "should I wake up at 6 am or 7 am"); a request opens otherwise ("could you", "I'd like", "set")."""
_WH: Final = re.compile(r"(?:what|what's|why|how|who|where|when|which|whose)\b")
"""A question's opening that no request has ("is it possible to set a timer …" is one)."""
_A_MOMENT: Final = re.compile(r"(?:a|one) (?:sec|second|moment|mo|tick)")
_CANCEL_IT: Final = re.compile(r"(let's )?cancel (it|that|this)( now| please)?")


def _call(intent: str, v: dict[str, object], said: str) -> SkillCall | None:
    """The skill call an intent match means, or None when its slots do not parse."""
    match intent:
        case "HassGetCurrentTime" | "TalkboxTime" | "TalkboxDayPart":
            return SkillCall("time")
        case "TalkboxDate" if "weekday" in v:
            on = DAYS.index(str(v["weekday"]).capitalize())
            return SkillCall("date", {"on": on, "next": True} if "next" in said.split() else {"on": on})
        case "TalkboxDate" if v.get("year"):
            return SkillCall("date", {"year": True})
        case "TalkboxDate" if "ahead" in v:
            return SkillCall("date", {"ahead": int(str(v["ahead"]))})
        case "HassGetCurrentDate" | "TalkboxDate":
            return SkillCall("date")
        case "TalkboxDay":
            return SkillCall("day")
        case "HassStartTimer" | "TalkboxTimer" if read_duration(re.sub(r"\b(?:the|my)\b", "", _text(v, "name"))):
            return None  # NOTE: a length is no name: "set a 45 second timer and a 2 minute", cut off, is no timer yet
        case "HassStartTimer" if "conversation_command" not in v:
            seconds = sum(_number(v, k) * s for k, s in (("hours", 3600), ("minutes", 60), ("seconds", 1)))
            return timer_call(round(seconds), _text(v, "name"))
        case "TalkboxTimer" if _A_MOMENT.fullmatch(_text(v, "duration")):
            return None  # NOTE: "hold the timer for a sec" is no timer of one second; nor is "wait a second"
        case "TalkboxTimer" if _WH.match(_text(v, "name")):
            return None  # NOTE: "what is a timer for 5 minutes" asks, and its name is no name: no timer was asked for
        case "TalkboxTimer":
            duration = read_duration(_text(v, "duration"))
            return timer_call(duration, _text(v, "name"), _text(v, "note")) if duration is not None else None
        case "TalkboxTimers":
            lengths = read_durations(_text(v, "lengths"), several=bool(v.get("several")))
            return timers_call(lengths) if lengths is not None else None
        case "TalkboxTimerAdd":
            added = read_duration(re.sub(r"\b(more|extra) ", "", _text(v, "duration")))  # "10 more minutes"
            off = {"take_off": True} if v.get("take_off") else {}
            return SkillCall("timer_add", {"seconds": added, **off, **_named(v)}) if added is not None else None
        case "TalkboxSnooze":
            snooze = read_duration(_text(v, "duration")) if v.get("duration") else SNOOZE_S
            return _snoozed(timer_call(snooze, "", "wake up")) if snooze is not None else None
        case "TalkboxTimerPause" | "HassPauseTimer" | "HassUnpauseTimer":
            resume = bool(v.get("resume")) or intent == "HassUnpauseTimer"
            return SkillCall("timer_pause", {"resume": resume, **_which(v)})
        case "HassIncreaseTimer" | "HassDecreaseTimer":
            change = round(sum(_number(v, unit) * s for unit, s in _UNIT_S))
            off = {"take_off": True} if intent == "HassDecreaseTimer" else {}
            return SkillCall("timer_add", {"seconds": change, **off, **_named(v)}) if change else None
        case "TalkboxTimerChange":
            length = read_duration(_text(v, "duration"))
            return SkillCall("timer_change", {"seconds": length, **_named(v)}) if length is not None else None
        case "TalkboxChangeIt":
            return make_it.read(_text(v, "change_to"))
        case "HassTimerStatus" | "TalkboxTimerLeft" if _named(v).get("name") in ("alarm", "next alarm"):
            return SkillCall("alarm_list")  # NOTE: "how long until my alarm goes off" asks of the alarm
        case "HassTimerStatus" | "TalkboxTimerLeft":
            return SkillCall("timer_left", _named(v))
        case "HassCancelTimer" | "TalkboxTimerCancel":
            return SkillCall("timer_cancel", _which(v))
        case "HassCancelAllTimers":
            return SkillCall("timer_cancel", {"all": True})
        case "TalkboxAlarmMove":
            call = alarm_call("alarm_move", _text(v, "when"), said)
            if call is not None and names_no_half_of_day(_text(v, "when")):
                call = dataclasses.replace(call, args={**call.args, "near": True})  # the half of the alarm moved
            at = parse_clock_time(_text(v, "alarm_from")) if v.get("alarm_from") else None
            if call is None or at is None or "hour" not in call.args:
                return call if not v.get("alarm_from") else None
            return dataclasses.replace(call, args={**call.args, "from_hour": at.hour, "from_minute": at.minute})
        case "TalkboxAlarmSet":
            return alarm_call("alarm_set", _text(v, "when"), said, waking=bool(v.get("waking")), note=_text(v, "note"))
        case "TalkboxCancelEverything":
            return SkillCall("cancel_what", {"named": _text(v, "named")} if v.get("named") else {})
        case "TalkboxReminderList":
            return SkillCall("reminder_list")
        case "TalkboxReminderCancel":
            return SkillCall("reminder_cancel", {"all": True} if v.get("all") else noted(_text(v, "note")))
        case "TalkboxRemindPart":
            return part_of_day_call(_text(v, "part"), _text(v, "note"), said)
        case "TalkboxRemindWhen" if v.get("what") == "timer" and _LENGTH.search(digits(_text(v, "name"))):
            return None  # "set a timer for ten minutes" is a timer (a number or a unit in the name: a length, cut off)
        case "TalkboxRemindWhen":
            # NOTE: no time or length it could be set for: said how to ask
            return SkillCall("remind_when", {"what": str(v["what"])} if v.get("what") else {})
        case "TalkboxAlarmList":
            return SkillCall("alarm_list")
        case "TalkboxAlarmCancel":
            if v.get("all"):
                return SkillCall("alarm_cancel", {"all": True})
            if not v.get("when"):
                return SkillCall("alarm_cancel")
            call = alarm_call("alarm_cancel", _text(v, "when"), said)
            # NOTE: "cancel the weekend alarm" names the alarm by its days, not its time
            days = days_named(_text(v, "when")) if call is None else ()
            return SkillCall("alarm_cancel", {"days": days}) if days else call
        case "TalkboxAlarmSkip":
            return SkillCall("alarm_skip")
        case "TalkboxTimeAhead":
            ahead = read_duration(_text(v, "duration"))
            return SkillCall("time", {"ahead_s": ahead}) if ahead is not None and ahead > 0 else None
        case "TalkboxTimeUntil":
            at = parse_clock_time(_text(v, "when"))
            if at is None:
                return None  # NOTE: "how long until my alarm goes off", "... christmas": no clock time
            near = {"near": True} if names_no_half_of_day(_text(v, "when")) else {}
            return SkillCall("time", {"until_hour": at.hour, "until_minute": at.minute, **near})
        case "TalkboxVolume" if v.get("action") in ("up_by", "down_by"):
            if re.match(r"(to|at) ", _text(v, "level")):
                return None  # NOTE: "volume down to 30 percent" is a level to set, not a step of 30
            step = read_volume(_text(v, "level"))
            return SkillCall("volume", {"action": str(v["action"]), "level": step}) if step else None
        case "TalkboxVolume":
            action = str(v.get("action", ""))
            if action != "set":
                return SkillCall("volume", {"action": action})
            level = read_volume(_text(v, "level"))
            if level == 11 and re.search(r"\bup\b", said) and not re.search(r"percent|%", said):
                level = 100  # NOTE: "turn it up to eleven" is the idiom for as loud as it goes, not 11 of 100
            return SkillCall("volume", {"action": "set", "level": level}) if level is not None else None
        case "TalkboxStop" | "HassNevermind":
            # NOTE: "cancel it" may mean the timer or alarm just set or asked about (skills.py resolves "it").
            return SkillCall("stop", {"action": "cancel"} if _CANCEL_IT.fullmatch(said) else {})
        case "TalkboxRepeat":
            return SkillCall("repeat", {"pace": str(v["pace"])} if v.get("pace") else {})
        case "TalkboxHelp":
            return SkillCall("help")
        case "TalkboxForget":
            return SkillCall("forget")
        case "TalkboxConfirm":
            return SkillCall("confirm")
        case "TalkboxDecline":
            return SkillCall("decline")
        case "TalkboxCalc":
            return calc_call(work_out(_text(v, "expression")), currency_in(_text(v, "expression")))
        case "TalkboxConvert":
            conversion = convert(_text(v, "amount"), _text(v, "unit"))
            if conversion is None:
                return None
            args: dict[str, Arg] = {"value": round(conversion.value, 2), "unit": conversion.to_unit}
            return SkillCall("convert", args | {"amount": conversion.amount, "from_unit": conversion.from_unit})
        case "TalkboxSetTime":
            at = parse_clock_time(_text(v, "when"))
            if at is None:
                return off_the_clock("set_time", _text(v, "when"))
            return SkillCall("set_time", {"hour": at.hour, "minute": at.minute})
        case "TalkboxPace":
            return SkillCall("pace", {"action": str(v["action"])})
        case "TalkboxAbout":
            return SkillCall("about", {k: str(v[k]) for k in ("topic", "form", "thing", "assistant") if k in v})
        case "TalkboxOffline" if str(v.get("topic")) in TOPICS:
            return _offline(str(v["topic"]), v)
        case "TalkboxCount":
            return counting.read(v)
        case "TalkboxNumberFact":
            return number_facts.read(v)
        case chancy if chancy in chance.INTENTS:
            return chance.read(chancy, v)
        case fact if fact in facts.INTENTS:
            found = facts.read(fact, v, said)
            return SkillCall(*found) if found is not None else None
    return None


def calc_call(value: float | Unanswerable | None, currency: str = "") -> SkillCall | None:
    """The call for a worked-out sum: its value (in `currency`, when it was said in one), or why it has none the box
    can say; None when it is no sum."""
    if isinstance(value, Unanswerable):
        return SkillCall("calculate", {"impossible": str(value.why), "number": value.number})
    in_money = {"currency": currency} if currency else {}
    return SkillCall("calculate", {"value": value, **in_money}) if value is not None else None


def _offline(topic: str, v: dict[str, object]) -> SkillCall | None:
    """The offline skill, unless a slot makes it a question about another time or a unit conversion."""
    if topic == "devices" and unable.is_music(str(v.get("device", ""))):
        return SkillCall("offline", {"topic": "music"})
    if topic == "devices":  # a template naming the appliance itself ("start the dishwasher") needs no check
        named = "device" not in v or is_device(str(v["device"]))
        return SkillCall("offline", {"topic": topic}) if named else None
    if topic in unable.REPLIES:
        return SkillCall("offline", {"topic": topic}) if unable.asks_it(v) else None
    if ("product" in v and not is_product(str(v["product"]))) or ("title" in v and not is_title(str(v["title"]))):
        return None
    slots = [str(v[name]) for name in ("place", "team", "show", "company", "road", "subject") if name in v]
    if not all(is_now(slot) for slot in slots):
        return None
    if "amount" in v:
        amount = _text(v, "amount")
        if not is_amount(amount) or convert(amount, _text(v, "currency")) is not None:
            return None  # "how much is 5 kilos in pounds" is a conversion, not an exchange rate
    return SkillCall("offline", {"topic": topic})


def _number(values: dict[str, object], name: str) -> float:
    value = values.get(name)
    return float(value) if isinstance(value, int | float | str) and value != "" else 0.0


def _snoozed(call: SkillCall) -> SkillCall:
    """A snooze's reminder to wake up, marked as one: with nothing rung lately the skill says so instead."""
    return dataclasses.replace(call, args={**call.args, "snooze": True})


_UNIT_S: Final = (("hours", 3600), ("minutes", 60), ("seconds", 1))
_EVERY: Final = frozenset({"every", "each", "all", "all the", "all my", "both", "both the"})


def _named(v: dict[str, object]) -> dict[str, Arg]:
    name = re.sub(r"^(the|my|a|an)\s+", "", _text(v, "name").removesuffix(" timer"))
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


def warm_up() -> float:
    """Build the templates and the sounds of their words now (the first match otherwise costs ~0.3 s)."""
    started = time.monotonic()
    for sentence in ("what time is it", "set a timer for ten minutes", "what is two plus two", "a litre in cups"):
        match(sentence)
    match("said a time or for ten minutes")  # a misheard one: the words' sounds are looked up once
    return time.monotonic() - started
