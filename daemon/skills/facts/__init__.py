"""Facts the box knows exactly, from the data packages it keeps: countries, elements, planets, calendars, spelling,
the distance between two cities.

A fact the data lacks is not guessed. Where the question is plainly about the data (an element's symbol, a known
country's capital) the box says it does not have it; where the words may name something the data does not cover
(the capital of Texas, the population of London, the symbol for peace) the question is left to the language model,
which may know it: the templates here only decide that it is one of these facts once the slot parses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from daemon.skills.amounts import strip_fillers
from daemon.skills.call import Arg, Read
from daemon.skills.facts import (
    calendar_facts,
    claims,
    countries,
    day_of_date,
    distances,
    elements,
    sky,
    spelling,
    world_clock,
)
from daemon.skills.honest import UNSET_CLOCK

SKILLS: Final = frozenset(
    {
        "country",
        "element",
        "planet",
        "holiday",
        "leap_year",
        "month_days",
        "spell",
        "world_time",
        "weekday",
        "distance",
        "claim",
    }
)
INTENTS: Final = frozenset(
    {
        "TalkboxCountry",
        "TalkboxCountryRank",
        "TalkboxElement",
        "TalkboxElementTable",
        "TalkboxElementSymbol",
        "TalkboxElementNumber",
        "TalkboxPlanet",
        "TalkboxHoliday",
        "TalkboxLeapYear",
        "TalkboxMonthDays",
        "TalkboxSpell",
        "TalkboxWorldTime",
        "TalkboxWeekday",
        "TalkboxDistance",
        *claims.INTENTS,
    }
)
"""The intents of sentences.yaml that ask for a fact."""


def _text(values: Mapping[str, object], name: str) -> str:
    return strip_fillers(str(values.get(name) or ""))


def read(intent: str, v: Mapping[str, object], said: str = "") -> Read | None:
    """The fact skill and its arguments an intent match asks for (`said`: the words matched), or None when its slot
    names no such thing."""
    fact = str(v.get("fact", ""))
    if intent in claims.INTENTS:
        return claims.read(intent, v)
    match intent:
        case "TalkboxCountry":
            said = _text(v, "country")
            code = countries.find(said)
            return ("country", {"fact": fact, "code": code, "country": said}) if code else None
        case "TalkboxCountryRank":
            rank, continent = str(v.get("rank", "")), str(v.get("continent", ""))
            code = countries.ranked(rank, continent)
            named: dict[str, Arg] = {"fact": rank, "code": code, "country": countries.spoken_name(code)}
            return "country", named | ({"continent": continent} if continent else {})
        case "TalkboxElement":
            said = _text(v, "element")
            element = elements.by_name(said)
            if element is None and not v.get("surely"):
                return None  # "the symbol for peace": no element, and maybe no chemistry at all
            return "element", {"fact": fact, "said": said, **({"number": element.number} if element else {})}
        case "TalkboxElementTable":
            return "element", {"fact": fact, "said": ""}
        case "TalkboxElementSymbol":
            symbol = elements.read_symbol(_text(v, "symbol"))
            if symbol is None:
                return None
            element = elements.by_symbol(symbol)
            if element is None and v.get("bare"):
                return None  # NOTE: "which element is tin": a word, not a symbol no element has
            return "element", {"fact": "name", "said": symbol, **({"number": element.number} if element else {})}
        case "TalkboxElementNumber":
            number = elements.read_number(_text(v, "number"))
            if number is None:
                return None
            element = elements.by_number(number)
            return "element", {"fact": "name", "said": str(number), **({"number": number} if element else {})}
        case "TalkboxPlanet":
            body = sky.find(str(v.get("planet") or v.get("body") or ""))
            if fact in ("moons", "size", "distance") and body is None:
                return None
            return "planet", {"fact": fact, **({"planet": body.name} if body is not None else {})}
        case "TalkboxHoliday" | "TalkboxLeapYear" | "TalkboxMonthDays":
            return _calendar(intent, v)
        case "TalkboxSpell":
            word = spelling.read_word(_text(v, "word"))
            return ("spell", {"word": word}) if word is not None else None
        case "TalkboxWorldTime":
            place, zones = world_clock.zones_of(_text(v, "city"))
            return ("world_time", {"place": place, "zones": " ".join(zones)}) if zones else None
        case "TalkboxWeekday":
            return _weekday(_text(v, "on_date"), str(v.get("weekday", "")).capitalize(), said)
        case "TalkboxDistance":
            places = distances.find(_text(v, "from_place")), distances.find(_text(v, "to_place"))
            return ("distance", {"from": places[0][0], "to": places[1][0]}) if places[0] and places[1] else None
    return None


def _calendar(intent: str, v: Mapping[str, object]) -> Read | None:
    args: dict[str, Arg] = {}
    if "year" in v:
        year = calendar_facts.read_year(_text(v, "year"))
        if year is None:
            return None  # "is it a leap year or not": no year said
        args["year"] = year
    if "year_offset" in v:
        args["offset"] = int(str(v["year_offset"]))
    if intent == "TalkboxLeapYear":
        return "leap_year", args | ({"next": True} if v.get("next") else {})
    if intent == "TalkboxMonthDays":
        return "month_days", args | {"month": int(str(v["month"]))}
    return "holiday", args | {"holiday": str(v["holiday"]), "ask": str(v.get("ask", "day"))}


def _weekday(on_date: str, weekday: str, said: str) -> Read | None:
    date = day_of_date.read_date(on_date)
    if date is None:
        return None  # "what day was I born on if I was born in the spring": no date
    day, month, year = date
    args: dict[str, Arg] = {"day": day, "month": month, "tense": day_of_date.tense_of(said)}
    return "weekday", args | ({"year": year} if year is not None else {}) | ({"asked": weekday} if weekday else {})


def answer(skill: str, args: Mapping[str, object], wall: Callable[[], float | None]) -> str:
    """What the box says for a fact skill's call; `wall` is the time now if the box's clock is trusted."""
    said = str(args.get("said", ""))
    match skill:
        case "country":
            return countries.answer(
                str(args["code"]), str(args["fact"]), str(args["country"]), str(args.get("continent", ""))
            )
        case "element":
            number = args.get("number")
            element = elements.by_number(number) if isinstance(number, int) else None
            return elements.answer(str(args["fact"]), element, said)
        case "planet":
            return sky.answer(str(args["fact"]), sky.find(str(args.get("planet", ""))))
        case "holiday":
            return calendar_facts.holiday(args, wall())
        case "leap_year":
            return calendar_facts.leap_year(args, wall())
        case "month_days":
            return calendar_facts.month_days(args, wall())
        case "spell":
            return spelling.answer(str(args["word"]))
        case "weekday":
            return day_of_date.answer(args, wall())
        case "distance":
            a, b = distances.find(str(args["from"])), distances.find(str(args["to"]))
            return distances.answer(a, b) if a is not None and b is not None else "I don't know where that is."
        case "claim":
            return claims.answer(args)
        case "world_time":
            return world_clock.answer(str(args["place"]), tuple(str(args["zones"]).split()), wall()) or UNSET_CLOCK
    return "I don't know that."
