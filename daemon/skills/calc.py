"""Arithmetic and unit conversions computed exactly: spoken numbers through ovos-number-parser, units through pint."""

from __future__ import annotations

import ast
import functools
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from daemon.skills.amounts import digits, parse_number

if TYPE_CHECKING:
    import pint

# Spoken operators, longest first so "multiplied by" wins over "by".
_OPERATORS: Final = (
    ("to the power of", "**"),
    ("multiplied by", "*"),
    ("divided by", "/"),
    ("take away", "-"),
    ("added to", "+"),
    ("times", "*"),
    ("plus", "+"),
    ("minus", "-"),
    ("over", "/"),
    ("x", "*"),
    ("+", "+"),
    ("*", "*"),
    ("×", "*"),
    ("/", "/"),
    ("÷", "/"),
    (" - ", "-"),
)
_BINARY: Final[dict[type[ast.operator], Callable[[float, float], float]]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
MAX_EXPONENT: Final = 100
"""A larger power is refused: "nine to the power of nine to the power of nine" would not finish."""


def calculate(expression: str) -> float | None:
    """The value of a spoken sum ("seventeen times twenty three", "15 percent of 80", "square root of 81")."""
    said = expression.lower().replace("what's", " ").replace("%", " percent")
    said = re.sub(r"\b(equal|equals|makes?|come to|is|the)\s*$", "", said.strip(" ?.!=")).strip()
    said = re.sub(r"^(the\s+)?", "", said)
    if m := re.fullmatch(r"square root of (.+)", said):
        value = parse_number(m[1])
        return math.sqrt(value) if value is not None and value >= 0 else None
    if m := re.fullmatch(r"(.+?)\s*percent of (.+)", said):
        share, whole = parse_number(m[1]), parse_number(m[2])
        return share * whole / 100 if share is not None and whole is not None else None
    # NOTE: operands are read one at a time: the number parser reads "nine minus twelve" whole as -12.
    pattern = "|".join(re.escape(words) for words, _ in _OPERATORS)
    parts = re.split(rf"(?<![a-z])({pattern})(?![a-z])", said)
    symbols = dict(_OPERATORS)
    terms: list[str] = []
    for i, part in enumerate(parts):
        if i % 2:
            terms.append(symbols[part].strip())
            continue
        part = part.strip()
        if not part and i == 0 and len(parts) > 1 and parts[1] == "minus":
            continue  # a leading "minus four": the sign of the first number
        power = ""
        if m := re.fullmatch(r"(.+?)\s+(squared|cubed)", part):
            part, power = m[1], " ** 2" if m[2] == "squared" else " ** 3"
        value = parse_number(part)
        if value is None:
            return None  # something other than a sum: the language model answers it
        terms.append(f"({value!r}{power})")
    if len(terms) < 2 and not any("**" in t for t in terms):
        return None  # a lone number is not a sum
    try:
        return _evaluate(ast.parse(" ".join(terms), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
        return None


def _evaluate(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ValueError("exponent too large")
        return _BINARY[type(node.op)](left, right)
    raise ValueError("not a sum")


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
    "kilo": "kilogram",
    "stones": "stone",
    "cc": "milliliter",
    "kph": "kilometer / hour",
    "kilometres per hour": "kilometer / hour",
    "kilometers per hour": "kilometer / hour",
    "miles per hour": "mile / hour",
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
    "fluid_ounce": "fluid ounce",
}
_PLURALS: Final = {"foot": "feet", "inch": "inches", "celsius": "degrees celsius", "fahrenheit": "degrees fahrenheit"}


@dataclass(frozen=True)
class Conversion:
    """A converted amount."""

    value: float
    amount: float
    from_unit: str
    to_unit: str

    def spoken(self) -> str:
        """How the box says it: "1 litre is 4.23 cups."."""
        return f"{say_number(self.amount)} {plural(self.from_unit, self.amount)} is {say_number(self.value)} " + (
            f"{plural(self.to_unit, self.value)}."
        )


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
    m = re.fullmatch(r"(?:(?:an?|one)\s+)?(-?\d+(?:\.\d+)?)?\s*(.+)", said.strip())
    if m is None:
        return None
    amount = float(m[1]) if m[1] else 1.0
    ureg = registry()
    try:
        source, target = ureg.Unit(_unit(m[2])), ureg.Unit(_unit(to_text))
        value = ureg.Quantity(amount, source).to(target).magnitude
    except (pint.errors.PintError, AttributeError, TypeError, ValueError, AssertionError):
        return None
    return Conversion(float(value), amount, _name(str(source)), _name(str(target)))


def _name(unit: str) -> str:
    return _NAMES.get(unit, unit.replace("_", " "))


def plural(unit: str, value: float) -> str:
    """The unit's name for `value` of it."""
    if value == 1:
        return unit
    return _PLURALS.get(unit) or (unit if unit.endswith("s") else unit + "s")


def say_number(value: float) -> str:
    """A result as the box says it: whole numbers plainly, others to at most two decimals (three figures)."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    digits_after = 2 if abs(value) >= 1 else 3
    text = f"{value:.{digits_after}f}".rstrip("0").rstrip(".")
    return text if text not in ("0", "-0") else f"{value:.2g}"
