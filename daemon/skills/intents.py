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

from daemon import corrections
from daemon.skills import chance, counting, facts, number_facts, reminder_intents, unable
from daemon.skills.amounts import read_duration, read_volume, read_volume_step, slot_text
from daemon.skills.calc import Unanswerable, work_out
from daemon.skills.call import Arg as Arg
from daemon.skills.call import SkillCall as SkillCall
from daemon.skills.clauses import asked_before_a_remark, beside_the_scene, corrected
from daemon.skills.facts import claims
from daemon.skills.facts.day_of_date import day_of_month
from daemon.skills.honest import TOPICS, is_amount, is_device, is_now, is_product, is_title
from daemon.skills.misheard import readings
from daemon.skills.money import currency_in
from daemon.skills.reminder_args import off_the_clock
from daemon.skills.speech import DAYS
from daemon.skills.units import convert
from daemon.skills.vocabulary import skill_words
from daemon.skills.when import names_no_half_of_day, parse_clock_time, parse_days
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
    # NOTE: nor "or" anywhere ("does april have 30 or 31 days" brought it back, and "set a time or for ten minutes"
    # was no longer read as "timer"): a choice's word, never one a misheard word should have been; nor "than"
    # (an alarm moved "rather than" another time brought it back), every comparison's.
    return skill_words(sentences(), leave_out=leave_out) - {"or", "than"}


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
    said = corrected(said) or said
    call = _match(said) or beside_the_scene(text, _match) or asked_before_a_remark(text, _match)
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
    # NOTE: not before a correction begun or a sentence going on ("what's 3 times 14, no", cut off at a pause, was 42)
    ends = normalise(after).split()
    if comma and len(ends) == 1 and normalise(before) and ends[0] not in corrections.ONE_WORD | _UNFINISHED:
        pieces.append(normalise(before))
    return tuple(dict.fromkeys(pieces))


@functools.lru_cache(maxsize=256)
def _misheard(said: str, pieces: tuple[str, ...]) -> SkillCall | None:
    """The skill a misheard command asks for: a piece of it, or the cheapest reading that matches a template."""
    for piece in pieces:
        if (call := _match(piece)) is not None:
            return call
    if said.rsplit(" ", 1)[-1] in _UNFINISHED:
        return None  # NOTE: "hey is today thursday or", cut off at a pause, was read as "hey is today thursday"
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


_UNFINISHED: Final = frozenset({"or", "and", "but"})
"""A last word that says more is coming: the words so far are read as heard or not at all."""
_NOT_READ_LOOSELY: Final = frozenset({"offline", "remind_when", "about", "number_fact", "weekday", "count", "claim"})
"""Skills a loose reading never reaches: a question misheard towards them (what the box cannot know, how to ask,
what it is) stays the model's; so does one whose answer is its number or date ("is 221 a prime number or", cut off at
a pause, was read without its "or"), which a word read otherwise would change without a sign."""


def _misread_slot(call: SkillCall, said: str) -> bool:
    """True if a loose reading made up what the call carries: a name ending in an article (a timer "said a"), or a
    word to spell that was not said ("spell the word", cut off at a pause, read as "spell third"), or a timer's name
    with a word not said ("cancel the last one" read as "cancel the lasts one": a timer named "lasts"), or days an
    alarm repeats on that were said once."""
    if call.skill == "spell" and str(call.args.get("word", "")) not in said.split():
        return True
    if call.skill.startswith("timer_") and not set(str(call.args.get("name", "")).split()) <= set(said.split()):
        return True
    if call.skill in ("alarm_set", "alarm_move") and call.args.get("days") and not parse_days(said):
        return True  # NOTE: "remind me on sunday at 10 am …" read as "on sundays": a weekly reminder made up
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


ASKING: Final = re.compile(
    r"(?:what|what's|why|how|who|where|when|which|whose|should|shall|is|are|am|do|does|did|was|were|has|have)\b"
)
"""How a question opens: worded near a command, it is still a question for the model ("what do people who wake up at
5 am do", "should I wake up at 6 am or 7 am"); a request opens otherwise ("could you", "I'd like", "set")."""
_CANCEL_IT: Final = re.compile(r"(let's )?cancel (it|that|this)( now| please)?")


def _call(intent: str, v: dict[str, object], said: str) -> SkillCall | None:
    """The skill call an intent match means, or None when its slots do not parse."""
    match intent:
        case "HassGetCurrentTime" | "TalkboxTime" | "TalkboxDayPart":
            return SkillCall("time")
        case "TalkboxDate" if "weekday" in v:
            on = DAYS.index(str(v["weekday"]).capitalize())
            return SkillCall("date", {"on": on, "next": True} if "next" in said.split() else {"on": on})
        case "TalkboxDate" if "month_day" in v:
            days = [day_of_month(slot_text(v, slot)) for slot in ("month_day", "other_month_day") if slot in v]
            return SkillCall("date") if all(days) else None  # NOTE: "is it the weekend today" names no day
        case "TalkboxDate" if v.get("year"):
            return SkillCall("date", {"year": True})
        case "TalkboxDate" if "ahead" in v:
            return SkillCall("date", {"ahead": int(str(v["ahead"]))})
        case "HassGetCurrentDate" | "TalkboxDate":
            return SkillCall("date")
        case "TalkboxDay":
            return SkillCall("day")
        case reminder if reminder in reminder_intents.INTENTS:
            return reminder_intents.read(reminder, v, said)
        case "TalkboxTimeAhead":
            ahead = read_duration(slot_text(v, "duration"))
            return SkillCall("time", {"ahead_s": ahead}) if ahead is not None and ahead > 0 else None
        case "TalkboxTimeUntil":
            at = parse_clock_time(slot_text(v, "when"))
            if at is None:
                return None  # NOTE: "how long until my alarm goes off", "... christmas": no clock time
            near = {"near": True} if names_no_half_of_day(slot_text(v, "when")) else {}
            return SkillCall("time", {"until_hour": at.hour, "until_minute": at.minute, **near})
        case "TalkboxVolume" if v.get("action") in ("up_by", "down_by"):
            if re.match(r"(to|at) ", slot_text(v, "level")):
                return None  # NOTE: "volume down to 30 percent" is a level to set, not a step of 30
            step = read_volume_step(slot_text(v, "level"))
            return SkillCall("volume", {"action": str(v["action"]), "level": step}) if step else None
        case "TalkboxVolume":
            action = str(v.get("action", ""))
            if action != "set":
                return SkillCall("volume", {"action": action})
            level = read_volume(slot_text(v, "level"))
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
            return calc_call(work_out(slot_text(v, "expression")), currency_in(slot_text(v, "expression")))
        case "TalkboxConvert":
            conversion = convert(slot_text(v, "amount"), slot_text(v, "unit"))
            if conversion is None:
                return None
            args: dict[str, Arg] = {"value": round(conversion.value, 2), "unit": conversion.to_unit}
            args |= {"amount": conversion.amount, "from_unit": conversion.from_unit}
            return SkillCall("convert", args | ({"said_as": conversion.said_as} if conversion.said_as else {}))
        case "TalkboxSetTime":
            at = parse_clock_time(slot_text(v, "when"))
            if at is None:
                return off_the_clock("set_time", slot_text(v, "when"))
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
        amount = slot_text(v, "amount")
        if not is_amount(amount) or convert(amount, slot_text(v, "currency")) is not None:
            return None  # "how much is 5 kilos in pounds" is a conversion, not an exchange rate
    return SkillCall("offline", {"topic": topic})


def warm_up() -> float:
    """Build the templates and the sounds of their words now (the first match otherwise costs ~0.3 s)."""
    started = time.monotonic()
    for sentence in ("what time is it", "set a timer for ten minutes", "what is two plus two", "a litre in cups"):
        match(sentence)
    match("said a time or for ten minutes")  # a misheard one: the words' sounds are looked up once
    return time.monotonic() - started
