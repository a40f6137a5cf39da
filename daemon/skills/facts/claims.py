"""Claims checked against the data: a yes-or-no question about a country, an element or a planet, or two compared.

The model agrees with a leading question ("Is Sydney the capital of Australia?" -> "Yes, Sydney is the capital of
Australia."; "Is the symbol for gold Ag?" -> "Yes"). Each claim here is read only when every name in it is one the
data knows (a country, a currency, a language, an element, a planet); anything else stays the model's. The
countries' claims are country_claims.py's; the elements' and the planets' are here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from daemon.skills.call import Read
from daemon.skills.facts import country_claims, elements, sky
from daemon.skills.facts.claim_slots import asked, split, text
from daemon.skills.speech import say_number, upper_first

INTENTS: Final = frozenset(
    {"TalkboxCountryCheck", "TalkboxCountryCompare", "TalkboxElementCheck", "TalkboxPlanetCheck"}
)
"""The intents of sentences.yaml that state a claim to check."""
NOT_PLANETS: Final = {"sun": "the Sun is a star"}
"""What is asked of as a planet and is none, besides the Moon (sky.find) and the dwarf planets."""


def read(intent: str, v: Mapping[str, object]) -> Read | None:
    """The claim an intent match states, or None when a name in it is not one the data knows."""
    about = str(v.get("about", ""))
    match intent:
        case "TalkboxCountryCheck":
            return country_claims.read_claim(about, v)
        case "TalkboxCountryCompare":
            return country_claims.read_compared(about, v)
        case "TalkboxElementCheck":
            return _element_claim(about, v)
        case "TalkboxPlanetCheck":
            return _planet_claim(about, v)
    return None


def _element_claim(about: str, v: Mapping[str, object]) -> Read | None:
    if about == "symbol":
        said, symbol_said = split(v, "element_then_symbol", elements.by_name)
        said, symbol_said = (said, symbol_said) if said else (text(v, "element"), text(v, "symbol"))
        element, symbol = elements.by_name(said), elements.read_symbol(symbol_said)
        return ("claim", {"about": about, "a": element.number, "symbol": symbol}) if element and symbol else None
    a, b = elements.by_name(text(v, "element")), elements.by_name(text(v, "other_element"))
    if a is None or b is None or a == b:
        return None
    return "claim", {"about": "mass", "a": a.number, "b": b.number, **asked(v)}


def _planet_claim(about: str, v: Mapping[str, object]) -> Read | None:
    if about == "planet":
        said = text(v, "claimed")
        name = said.removeprefix("the ")
        known = sky.find(said) is not None or name in sky.DWARF_PLANETS or name in NOT_PLANETS
        return ("claim", {"about": about, "said": said}) if known else None
    if about == "orbit":
        mover, centre = sky.in_orbit(text(v, "orbiter")), sky.in_orbit(text(v, "centre"))
        if mover is None or centre is None or mover == centre:
            return None
        return "claim", {"about": about, "a": mover.name, "b": centre.name}
    if about == "size":
        a, b = sky.find(text(v, "body")), sky.find(text(v, "other_body"))
        if a is None or b is None or a == b:
            return None
        return "claim", {"about": about, "a": a.name, "b": b.name, **asked(v)}
    body = sky.find(text(v, "planet"))
    return ("claim", {"about": about, "a": body.name}) if body is not None and body in sky.PLANETS else None


def answer(args: Mapping[str, object]) -> str:
    """What the box says to a claim: yes or no and what is so, or which of two things is the bigger."""
    about = str(args["about"])
    match about:
        case "capital" | "currency" | "language":
            return country_claims.answer_claim(args)
        case "area" | "people":
            return country_claims.answer_compared(args)
        case "symbol":
            return _symbol_answer(int(str(args["a"])), str(args["symbol"]))
        case "mass":
            return _masses_compared(int(str(args["a"])), int(str(args["b"])), bool(args["more"]), bool(args["which"]))
        case "planet":
            return _planet_answer(str(args["said"]))
        case "size":
            return _sizes_compared(str(args["a"]), str(args["b"]), bool(args["more"]), bool(args["which"]))
        case "orbit":
            mover, centre = sky.in_orbit(str(args["a"])), sky.in_orbit(str(args["b"]))
            assert mover is not None and centre is not None
            return sky.orbit_answer(mover, centre)
        case "closest" | "farthest" | "largest" | "smallest":
            return _planet_end(about, str(args["a"]))
    return "I can't check that."


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
    if (not_one := NOT_PLANETS.get(said.removeprefix("the "))) is not None:
        return f"No, {not_one}."
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
