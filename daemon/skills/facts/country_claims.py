"""Claims about countries checked against their data: a capital, a currency, a language; two countries compared by
size or by people. A claim is read only when the country, the money or the language is one the data knows."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Final

from daemon.skills.call import Arg, Read
from daemon.skills.facts import countries, distances
from daemon.skills.facts.claim_slots import asked, split, text
from daemon.skills.speech import say_about, upper_first

CLOSE: Final = 0.05
"""Two head counts nearer than this share of the larger are too close to rank from counts of around 2014."""


def read_compared(about: str, v: Mapping[str, object]) -> Read | None:
    """Two countries compared by `about` ("area", "people"), or None unless both are countries the data knows."""
    said = text(v, "country"), text(v, "other_country")
    a, b = countries.find(said[0]), countries.find(said[1])
    if a is None or b is None or a == b:
        return None
    return "claim", {"about": about, "a": a, "b": b, "a_said": said[0], "b_said": said[1], **asked(v)}


def read_claim(about: str, v: Mapping[str, object]) -> Read | None:
    """A claim of a country's `about` ("capital", "currency", "language"), or None unless the data knows its names."""
    said, claimed = split(v, "country_then_claimed", countries.find)
    if not said:
        claimed, said = split(v, "claimed_then_country", countries.find, known_last=True)
    if not said:
        said, claimed = text(v, "country"), text(v, "claimed")
    code = countries.find(said) or _by_people(text(v, "people"))
    if code is None:
        return None
    named: dict[str, Arg] = {"about": about, "a": code, "country": said or countries.spoken_name(code)}
    match about:
        case "capital":
            # NOTE: "is the capital of France beautiful" names no city: a claimed capital said last must be a place
            # the data knows; said first ("is Lyon the capital of France") it can only be a place.
            words = claimed.split()
            if not 0 < len(words) <= 4 or words[0] in _NOT_A_PLACE or (v.get("known_place") and not _a_place(claimed)):
                return None
            return "claim", named | {"claimed": claimed}
        case "currency":
            money = re.sub(r"^(?:the|a|an) ", "", _singular(text(v, "money")))  # "do I use a euro in Norway"
            return ("claim", named | {"claimed": money}) if money and set(money.split()) <= _money_words() else None
        case "language":
            language = text(v, "language")
            return ("claim", named | {"claimed": language}) if language in _language_names() else None
    return None


_NOT_A_PLACE: Final = frozenset(
    {"it", "this", "that", "there", "here", "he", "she", "they", "what", "which", "who", "where", "how", "why", "when"}
)
"""First words of no city: "which town is the capital of France" asks, it claims nothing."""


def _a_place(said: str) -> bool:
    # NOTE: "Ho Chi Minh City" is the tz database's Ho Chi Minh.
    names = (said, said.removesuffix(" city"))
    return any(distances.find(n) is not None or countries.find_capital(n) is not None for n in names)


def _singular(money: str) -> str:
    return " ".join(re.sub(r"(?<=[a-z]{3})s$", "", word) for word in money.split())


@functools.cache
def _money_words() -> frozenset[str]:
    """Every word of the name of a currency some country uses ("swiss", "franc", "pound", "sterling")."""
    codes = {str(c) for code in countries.codes() for c in countries.currencies(code)}
    return frozenset(w for c in codes for w in countries.currency_name(c).lower().split()) | {"us"}


@functools.cache
def _language_names() -> frozenset[str]:
    """The name of every language some country's main languages include."""
    return frozenset(name.lower() for code in countries.codes() for name in countries.languages(code))


@functools.cache
def _demonyms() -> dict[str, str]:
    """The people of a country as named ("mexicans", "the swiss"), to its ISO code; one two countries share is left
    out."""
    found: dict[str, set[str]] = {}
    for code in countries.codes():
        if demonym := countries.demonym(code).lower():
            for said in (demonym, f"{demonym}s", f"the {demonym}", f"the {demonym}s", f"{demonym} people"):
                found.setdefault(said, set()).add(code)
    return {said: next(iter(codes)) for said, codes in found.items() if len(codes) == 1}


def _by_people(said: str) -> str | None:
    return _demonyms().get(said) if said else None


def answer_claim(args: Mapping[str, object]) -> str:
    """What the box says to a claim about one country."""
    about, code, said, claimed = (str(args[k]) for k in ("about", "a", "country", "claimed"))
    name = countries.named(said)
    if about == "capital":
        capitals = [countries.key(c) for c in re.split(r"[,/]", countries.capital(code)) if c.strip()]
        if countries.key(claimed) in capitals or countries.key(claimed).split()[0] in capitals:
            return f"Yes, {countries.named(claimed)} is the capital of {name}."
        # NOTE: no "no" to a name that may be no city at all ("Is narrow be the capital of Kenya?", Nairobi misheard).
        return ("No. " if _a_place(claimed) else "") + countries.answer(code, "capital", said)
    if about == "currency":
        names = [countries.currency_name(c) for c in countries.currencies(code)]
        if any(set(claimed.split()) <= set(n.lower().split()) for n in names):
            return "Yes. " + countries.answer(code, "currency", said)
        return "No. " + countries.answer(code, "currency", said)
    spoken = countries.languages(code)
    if any(claimed in (s.lower(), s.lower().split()[-1]) for s in spoken):
        if len(spoken) == 1:
            return f"Yes, {upper_first(claimed)} is the main language of {name}."
        return f"Yes, {upper_first(claimed)} is one of the main languages of {name}. " + countries.answer(
            code, "languages", said
        )
    # NOTE: not a bare "no": many people anywhere speak English; the data lists a country's main languages only.
    return f"{upper_first(claimed)} is not one of the main languages of {name}. " + countries.answer(
        code, "languages", said
    )


def answer_compared(args: Mapping[str, object]) -> str:
    """What the box says to two countries compared."""
    about, codes = str(args["about"]), (str(args["a"]), str(args["b"]))
    names = countries.named(str(args["a_said"])), countries.named(str(args["b_said"]))
    more, which = bool(args["more"]), bool(args["which"])
    field = "area" if about == "area" else "population"
    (a, b), (first, second) = codes, (countries.figure(codes[0], field), countries.figure(codes[1], field))
    if first is None or second is None:
        return "I don't have both figures to compare."
    if about == "people" and {a, b} == {"IN", "CN"}:
        now, since = countries.MOST_PEOPLE_SINCE
        said = f"{countries.spoken_name(now)} has more people, by the United Nations' estimate since {since}."
        told = now if more else ({a, b} - {now}).pop()
        return said if which else ("Yes. " if told == a else "No. ") + said
    if about == "people" and abs(first - second) < CLOSE * max(first, second):
        return (
            f"{names[0]} and {names[1]} are close: about {_amount(first)} people against {_amount(second)}, in the "
            f"latest counts I have, from around {countries.POPULATION_YEAR}."
        )
    order = [(first, names[0]), (second, names[1])]
    order.sort(reverse=more)
    (x, told), (y, other) = order
    if about == "people":
        verb = "has more people than" if more else "has fewer people than"
        year = countries.POPULATION_YEAR
        counts = f"about {_amount(x)} against {_amount(y)}, in the latest counts I have, from around {year}"
    else:
        verb = "is larger than" if more else "is smaller than"
        counts = f"about {_amount(x)} square kilometres against {_amount(y)}"
    said = f"{told} {verb} {other}: {counts}."
    if which:
        return said
    return ("Yes, " if told == names[0] else "No, ") + said


def _amount(value: float) -> str:
    return say_about(value).removeprefix("about ")
