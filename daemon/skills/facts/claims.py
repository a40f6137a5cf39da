"""Claims checked against the data: a yes-or-no question about a country, an element or a planet, or two compared.

The model agrees with a leading question ("Is Sydney the capital of Australia?" -> "Yes, Sydney is the capital of
Australia."; "Is the symbol for gold Ag?" -> "Yes"). Each claim here is read only when every name in it is one the
data knows (a country, a currency, a language, an element, a planet); anything else stays the model's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Final

from daemon.skills.call import Arg
from daemon.skills.facts import countries, elements, sky
from daemon.skills.speech import say_about, say_number, upper_first

INTENTS: Final = frozenset(
    {"TalkboxCountryCheck", "TalkboxCountryCompare", "TalkboxElementCheck", "TalkboxPlanetCheck"}
)
"""The intents of sentences.yaml that state a claim to check."""
CLOSE: Final = 0.05
"""Two head counts nearer than this share of the larger are too close to rank from counts of around 2014."""
NOT_PLANETS: Final = {
    "the sun": "the Sun is a star",
    "sun": "the Sun is a star",
    "the moon": "the Moon is Earth's moon",
}

Read = tuple[str, dict[str, Arg]]


def read(intent: str, v: Mapping[str, object]) -> Read | None:
    """The claim an intent match states, or None when a name in it is not one the data knows."""
    about = str(v.get("about", ""))
    match intent:
        case "TalkboxCountryCheck":
            return _country_claim(about, v)
        case "TalkboxCountryCompare":
            return _countries_claim(about, v)
        case "TalkboxElementCheck":
            return _element_claim(about, v)
        case "TalkboxPlanetCheck":
            return _planet_claim(about, v)
    return None


def _countries_claim(about: str, v: Mapping[str, object]) -> Read | None:
    said = _text(v, "country"), _text(v, "other_country")
    a, b = countries.find(said[0]), countries.find(said[1])
    if a is None or b is None or a == b:
        return None
    return "claim", {"about": about, "a": a, "b": b, "a_said": said[0], "b_said": said[1], **_asked(v)}


def _element_claim(about: str, v: Mapping[str, object]) -> Read | None:
    if about == "symbol":
        said, symbol_said = _split(v, "element_then_symbol", elements.by_name)
        said, symbol_said = (said, symbol_said) if said else (_text(v, "element"), _text(v, "symbol"))
        element, symbol = elements.by_name(said), elements.read_symbol(symbol_said)
        return ("claim", {"about": about, "a": element.number, "symbol": symbol}) if element and symbol else None
    a, b = elements.by_name(_text(v, "element")), elements.by_name(_text(v, "other_element"))
    if a is None or b is None or a == b:
        return None
    return "claim", {"about": "mass", "a": a.number, "b": b.number, **_asked(v)}


def _planet_claim(about: str, v: Mapping[str, object]) -> Read | None:
    if about == "planet":
        said = _text(v, "claimed")
        known = sky.find(said) is not None or said.removeprefix("the ") in sky.DWARF_PLANETS or said in NOT_PLANETS
        return ("claim", {"about": about, "said": said}) if known else None
    if about == "size":
        a, b = sky.find(_text(v, "body")), sky.find(_text(v, "other_body"))
        if a is None or b is None or a == b:
            return None
        return "claim", {"about": about, "a": a.name, "b": b.name, **_asked(v)}
    body = sky.find(_text(v, "planet"))
    return ("claim", {"about": about, "a": body.name}) if body is not None and body in sky.PLANETS else None


def _text(v: Mapping[str, object], name: str) -> str:
    return _TAG.sub("", " ".join(str(v.get(name) or "").lower().split()))


_TAG: Final = re.compile(
    r" (?:right|isn't it|is it|aren't they|don't they|doesn't it|correct|is that (?:right|true)|am i right|yes|yeah)$"
)
"""A claim's tag ("Sydney is the capital of Australia, right?"), left at the end of the last name."""


def _split(
    v: Mapping[str, object], both: str, known: Callable[[str], object], known_last: bool = False
) -> tuple[str, str]:
    """The two names a slot holds side by side ("canada toronto"), the one `known` finds (first, or last) as long as it
    goes; ("", "") if it finds none."""
    words = _text(v, both).split()
    for cut in range(len(words) - 1, 0, -1) if not known_last else range(1, len(words)):
        first, second = " ".join(words[:cut]), " ".join(words[cut:])
        if known(second if known_last else first) is not None:
            return first, second
    return "", ""


def _asked(v: Mapping[str, object]) -> dict[str, Arg]:
    """How two things are compared: "more" (bigger, heavier, more people) or less, and asked which or yes or no."""
    return {"more": bool(v.get("more")), "which": bool(v.get("which"))}


def _country_claim(about: str, v: Mapping[str, object]) -> Read | None:
    said, claimed = _split(v, "country_then_claimed", countries.find)
    if not said:
        claimed, said = _split(v, "claimed_then_country", countries.find, known_last=True)
    if not said:
        said, claimed = _text(v, "country"), _text(v, "claimed")
    code = countries.find(said) or _by_people(_text(v, "people"))
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
            money = re.sub(r"^(?:the|a|an) ", "", _singular(_text(v, "money")))  # "do I use a euro in Norway"
            return ("claim", named | {"claimed": money}) if money and set(money.split()) <= _money_words() else None
        case "language":
            language = _text(v, "language")
            return ("claim", named | {"claimed": language}) if language in _language_names() else None
    return None


_NOT_A_PLACE: Final = frozenset(
    {"it", "this", "that", "there", "here", "he", "she", "they", "what", "which", "who", "where", "how", "why", "when"}
)
"""First words of no city: "which town is the capital of France" asks, it claims nothing."""


def _a_place(said: str) -> bool:
    from daemon.skills.facts import distances

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


def answer(args: Mapping[str, object]) -> str:
    """What the box says to a claim: yes or no and what is so, or which of two things is the bigger."""
    about = str(args["about"])
    match about:
        case "capital" | "currency" | "language":
            return _country_answer(about, str(args["a"]), str(args["country"]), str(args["claimed"]))
        case "area" | "people":
            named = countries.named(str(args["a_said"])), countries.named(str(args["b_said"]))
            return _countries_compared(
                about, (str(args["a"]), str(args["b"])), named, bool(args["more"]), bool(args["which"])
            )
        case "symbol":
            return _symbol_answer(int(str(args["a"])), str(args["symbol"]))
        case "mass":
            return _masses_compared(int(str(args["a"])), int(str(args["b"])), bool(args["more"]), bool(args["which"]))
        case "planet":
            return _planet_answer(str(args["said"]))
        case "size":
            return _sizes_compared(str(args["a"]), str(args["b"]), bool(args["more"]), bool(args["which"]))
        case "closest" | "farthest" | "largest" | "smallest":
            return _planet_end(about, str(args["a"]))
    return "I can't check that."


def _country_answer(about: str, code: str, said: str, claimed: str) -> str:
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


def _countries_compared(about: str, codes: tuple[str, str], names: tuple[str, str], more: bool, which: bool) -> str:
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


def _symbol_answer(number: int, symbol: str) -> str:
    element = elements.by_number(number)
    assert element is not None
    if element.symbol == symbol:
        return f"Yes, {symbol} is the symbol for {element.name}."
    other = elements.by_symbol(symbol)
    if other is None:
        return f"The symbol for {element.name} is {element.symbol}."  # "is it the symbol for iron": no symbol said
    return f"No, the symbol for {element.name} is {element.symbol}. {symbol} is {other.name}."


def _masses_compared(a: int, b: int, more: bool, which: bool) -> str:
    first, second = elements.by_number(a), elements.by_number(b)
    assert first is not None and second is not None
    verb = "heavier" if more else "lighter"
    by_mass = sorted((first, second), key=lambda e: float(e.mass), reverse=more)
    if (densities := elements.densities(first, second)) is None:
        told, other = by_mass
        said = (
            f"{upper_first(str(told.name))} is {verb} than {other.name}, atom for atom: its atomic mass is "
            f"{say_number(round(float(told.mass), 1))} against {say_number(round(float(other.mass), 1))}."
        )
    else:
        # NOTE: "which is heavier, lead or gold" asks for its size (gold), not atom for atom (lead).
        (told, x), (other, y) = sorted(
            zip((first, second), densities, strict=True), key=lambda pair: pair[1], reverse=more
        )
        said = (
            f"{upper_first(str(told.name))} is {verb} than {other.name} for its size: {say_number(round(x, 1))} grams "
            f"a cubic centimetre against {say_number(round(y, 1))}."
        )
        if by_mass[0] is not told:
            said += f" Atom for atom, though, {by_mass[0].name} is {verb}."
    if which:
        return said
    return ("Yes, " if told is first else "No, ") + said[0].lower() + said[1:]


def _planet_answer(said: str) -> str:
    if said in NOT_PLANETS:
        return f"No, {NOT_PLANETS[said]}."
    body = sky.find(said)
    if body is not None and body in sky.PLANETS:
        place = sky.PLANETS.index(body) + 1
        return f"Yes, {body.name} is a planet, the {_ORDINALS[place]} from the Sun."
    if body is not None:
        return f"No, {body.name} is Earth's moon."
    name = said.removeprefix("the ").capitalize()
    since = " since 2006" if name == "Pluto" else ""
    return f"No, {name} has been called a dwarf planet{since}, not a planet."


_ORDINALS: Final = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def _sizes_compared(a: str, b: str, more: bool, which: bool) -> str:
    first, second = sky.find(a), sky.find(b)
    assert first is not None and second is not None
    told, other = sorted((first, second), key=lambda body: body.diameter_km, reverse=more)
    verb = "bigger" if more else "smaller"
    # NOTE: two figures tell Earth from Mars, not from Venus (13,000 against 12,000): three for widths that close.
    figures = 2 if max(first.diameter_km, second.diameter_km) > 1.15 * min(first.diameter_km, second.diameter_km) else 3
    said = (
        f"{upper_first(told.name)} is {verb} than {other.name}: about {_width(told.diameter_km, figures)} kilometres "
        f"across against {_width(other.diameter_km, figures)}."
    )
    if which:
        return said
    return ("Yes, " if told is first else "No, ") + said


def _width(km: float, figures: int) -> str:
    """A width rounded to `figures` significant figures, as a number said whole ("6,800", "12,800", "140,000")."""
    return f"{float(f'{km:.{figures}g}'):,.0f}"


def _planet_end(end: str, name: str) -> str:
    planets = sky.PLANETS
    found = {
        "closest": planets[0],
        "farthest": planets[-1],
        "largest": max(planets, key=lambda p: p.diameter_km),
        "smallest": min(planets, key=lambda p: p.diameter_km),
    }[end]
    where = {"closest": "closest planet to the Sun", "farthest": "farthest planet from the Sun"}.get(
        end, f"{end} planet"
    )
    if found.name == name:
        return f"Yes, {name} is the {where}."
    place = next(i for i, p in enumerate(planets, 1) if p.name == name)
    return f"No, {found.name} is the {where}. {name} is the {_ORDINALS[place]} from the Sun."
