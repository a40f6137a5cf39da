"""Unit conversions computed exactly by pint ("how many cups in a litre", "100 fahrenheit in celsius")."""

from __future__ import annotations

import functools
import re
import tokenize
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from daemon.skills.amounts import digits
from daemon.skills.speech import say_number

if TYPE_CHECKING:
    import pint

# Spoken unit names pint does not know, to the names it does.
_ALIASES: Final = {
    "degrees fahrenheit": "degF",
    "degree fahrenheit": "degF",
    "fahrenheit": "degF",
    "degrees celsius": "degC",
    "degree celsius": "degC",
    "degrees centigrade": "degC",
    "celsius": "degC",
    "centigrade": "degC",
    "degrees": "degC",
    "fluid ounces": "fluid_ounce",
    "fluid ounce": "fluid_ounce",
    "fl oz": "fluid_ounce",
    "kilos": "kilogram",
    "k": "kilometer",  # "how many miles is 10k": a run's length (a sum of money is no length, and fails)
    "kilo": "kilogram",
    "stones": "stone",
    "cc": "milliliter",
    "kph": "kilometer / hour",
    "kilometres per hour": "kilometer / hour",
    "kilometers per hour": "kilometer / hour",
    "miles per hour": "mile / hour",
    "uk pint": "imperial_pint",
    "british pint": "imperial_pint",
    "imperial pint": "imperial_pint",
    "uk gallon": "imperial_gallon",
    "british gallon": "imperial_gallon",
    "imperial gallon": "imperial_gallon",
    "us pint": "US_pint",
    "us gallon": "US_liquid_gallon",
}
# pint's unit names, as the box says them and reports them.
_NAMES: Final = {
    "liter": "litre",
    "milliliter": "millilitre",
    "kilometer": "kilometre",
    "meter": "metre",
    "centimeter": "centimetre",
    "millimeter": "millimetre",
    "degree_Celsius": "celsius",
    "degree_Fahrenheit": "fahrenheit",
    "fluid_ounce": "US fluid ounce",
    # NOTE: a pint, a quart and a gallon are a fifth larger in Britain than in America: which one is said.
    "pint": "US pint",
    "US_pint": "US pint",
    "quart": "US quart",
    "gallon": "US gallon",
    "US_liquid_gallon": "US gallon",
    "imperial_pint": "imperial pint",
    "imperial_gallon": "imperial gallon",
}
_PLURALS: Final = {"foot": "feet", "inch": "inches", "celsius": "degrees celsius", "fahrenheit": "degrees fahrenheit"}


_CALENDAR: Final = {
    ("year", "day"): "A year has 365 days, or 366 in a leap year.",
    ("month", "day"): "A month has 30 or 31 days, and February 28, or 29 in a leap year.",
    ("year", "week"): "A year has 52 weeks and a day, or two days in a leap year.",
}
"""What a calendar's year or month is asked in days: pint's are averages ("1 year is 365.25 days")."""


@dataclass(frozen=True)
class Conversion:
    """A converted amount."""

    value: float
    amount: float
    from_unit: str
    to_unit: str
    said_as: str = ""
    """The amount as said when it was two units ("5 feet 10 inches"), else empty."""

    def spoken(self) -> str:
        """How the box says it: "1 litre is 4.23 cups."."""
        if self.amount == 1 and (said := _CALENDAR.get((self.from_unit, self.to_unit))):
            return said
        amount = self.said_as or f"{say_number(self.amount)} {plural(self.from_unit, self.amount)}"
        return f"{amount} is {say_number(self.value)} {plural(self.to_unit, self.value)}."


@functools.cache
def registry() -> pint.UnitRegistry[float]:
    """pint's units, built once (about 0.25 s; warmed at start-up)."""
    import pint

    return pint.UnitRegistry()


def _unit(spoken: str) -> str:
    text = re.sub(r"\b(a|an|the|one|of)\b", " ", spoken.lower()).strip()
    text = " ".join(text.split())
    return _ALIASES.get(text) or _ALIASES.get(text.rstrip("s")) or text.replace(" ", "_")


def convert(amount_text: str, to_text: str) -> Conversion | None:
    """`amount_text` ("5 miles", "a litre") in the unit `to_text` ("kilometres"); None if either is not a unit."""
    import pint

    said = digits(amount_text)
    if (two := _in_two_units(said)) is not None:
        said, said_as = two
    else:
        said_as = ""
    m = re.fullmatch(r"(?:(?:an?|one)\s+)?(-?\d+(?:\.\d+)?)?\s*(.+)", said.strip())
    if m is None:
        return None
    amount = float(m[1]) if m[1] else 1.0
    ureg = registry()
    try:
        source, target = ureg.Unit(_unit(m[2])), ureg.Unit(_unit(to_text))
        value = ureg.Quantity(amount, source).to(target).magnitude
    except (pint.errors.PintError, AttributeError, TypeError, ValueError, AssertionError, tokenize.TokenError):
        return None  # NOTE: pint parses a unit as an expression: "miles (is it" left a bracket open
    return Conversion(float(value), amount, _name(str(source)), _name(str(target)), said_as)


_TWO_UNITS: Final = (
    ("foot", "inch", 12, r"(?:feet|foot|ft)", r"(?:inches|inch|in)"),
    ("stone", "pound", 14, r"(?:stones?|st)", r"(?:pounds?|lbs?)"),
    ("pound", "ounce", 16, r"(?:pounds?|lbs?)", r"(?:ounces?|oz)"),
)
"""Amounts said in a unit and the next smaller one: a height, a person's or a baby's weight."""


def _in_two_units(said: str) -> tuple[str, str] | None:
    """("70 inch", "5 feet 10 inches") for "5 foot 10", or None when `said` is not said in two units."""
    for big, small, per, big_words, small_words in _TWO_UNITS:
        m = re.fullmatch(rf"(\d+) ?{big_words} (?:and )?(\d+(?:\.\d+)?)(?: ?{small_words})?", said.strip())
        if m is not None:
            whole, part = int(m[1]), float(m[2])
            said_as = f"{say_number(whole)} {plural(big, whole)} {say_number(part)} {plural(small, part)}"
            return f"{whole * per + part:g} {small}", said_as
    return None


def _name(unit: str) -> str:
    return _NAMES.get(unit, unit.replace("_", " "))


def plural(unit: str, value: float) -> str:
    """The unit's name for `value` of it."""
    if value == 1:
        return unit
    return _PLURALS.get(unit) or (unit if unit.endswith("s") else unit + "s")
