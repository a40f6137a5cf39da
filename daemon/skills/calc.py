"""Arithmetic computed exactly and within bounds: spoken numbers through ovos-number-parser, never a huge power."""

from __future__ import annotations

import ast
import enum
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from daemon.skills.amounts import parse_number, parse_operand
from daemon.skills.units import Conversion, convert

# NOTE: conversions moved to daemon.skills.units (this module outgrew 300 lines); still importable from here.
__all__ = ["Conversion", "Impossible", "Unanswerable", "calculate", "convert", "work_out"]

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
_SHARES: Final = {
    "half": 0.5, "a half": 0.5, "one half": 0.5, "a third": 1 / 3, "one third": 1 / 3, "a quarter": 0.25,
    "one quarter": 0.25, "a tenth": 0.1, "double": 2.0, "twice": 2.0, "triple": 3.0, "treble": 3.0,
}  # fmt: skip
"""Parts and multiples said as words: "half of 86", "a quarter of 200", "double 21"."""
_BINARY: Final[dict[type[ast.operator], Callable[[float, float], float]]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
MAX_SAID: Final = 1e15
"""A result this large is too big to say (say_number speaks whole numbers plainly below it)."""
MAX_POWER_DIGITS: Final = 300
"""A power with more digits than this is refused before it is computed (a float ends near 1e308)."""
MAX_FACTORIAL: Final = 17
"""18! is over MAX_SAID: a larger factorial is too big to say and is never computed."""


class Impossible(enum.StrEnum):
    """Why a sum the box understands has no answer it can say."""

    DIVIDE_BY_ZERO = "divide-by-zero"
    NEGATIVE_ROOT = "negative-root"
    NO_REAL_ANSWER = "no-real-answer"
    NOT_A_FACTORIAL = "not-a-factorial"
    TOO_BIG = "too-big"


@dataclass(frozen=True)
class Unanswerable:
    """A sum understood but not answered, and why."""

    why: Impossible
    number: float = 0.0
    """The number the trouble is with (the one with no real square root, or no factorial)."""


class _Cannot(Exception):
    """Raised inside the evaluation when the sum has no answer to say."""

    def __init__(self, why: Impossible, number: float = 0.0) -> None:
        super().__init__(why)
        self.unanswerable = Unanswerable(why, number)


def calculate(expression: str) -> float | None:
    """The value of a spoken sum ("seventeen times twenty three", "15 percent of 80", "square root of 81")."""
    value = work_out(expression)
    return value if isinstance(value, float) else None


def work_out(expression: str) -> float | Unanswerable | None:
    """A spoken sum's value, why it has none the box can say ("five divided by zero"), or None if it is no sum."""
    try:
        value = _work_out(expression)
    except _Cannot as cannot:
        return cannot.unanswerable
    except ZeroDivisionError:
        return Unanswerable(Impossible.DIVIDE_BY_ZERO)
    except OverflowError:
        return Unanswerable(Impossible.TOO_BIG)
    if value is not None and not (math.isfinite(value) and abs(value) < MAX_SAID):
        return Unanswerable(Impossible.TOO_BIG)
    return value


def _work_out(expression: str) -> float | None:
    said = expression.lower().replace("what's", " ").replace("%", " percent")
    said = re.sub(r"\b(equal|equals|makes?|come to|is|the)\s*$", "", said.strip(" ?.!=")).strip()
    # NOTE: Whisper writes "a thousand minus one" as "1,000-1": a hyphen between two numbers is a minus.
    said = re.sub(r"(?<=\d)-(?=\d)", " - ", said)
    said = _as_operators(re.sub(r"^(the\s+)?", "", said))
    # NOTE: a share or a root of words that are no number alone is no sum: "half a second" (and "hang on a second"
    # misheard as "half on a second") was "That's 0.5."
    if m := re.fullmatch(r"square root of (.+)", said):
        value = parse_operand(m[1])
        if value is not None and value < 0:
            raise _Cannot(Impossible.NEGATIVE_ROOT, value)
        return math.sqrt(value) if value is not None else None
    if m := re.fullmatch(rf"({'|'.join(_SHARES)})(?: of)? (.+)", said):
        whole = parse_operand(m[2])
        return _SHARES[m[1]] * whole if whole is not None else None
    if m := re.fullmatch(r"(.+?)\s*percent (?:of|tip on|tip of) (.+)", said):
        share, whole = parse_number(m[1]), parse_number(m[2])
        return share * whole / 100 if share is not None and whole is not None else None
    if (changed := _percent_change(said)) is not None:
        return changed
    # NOTE: operands are read one at a time: the number parser reads "nine minus twelve" whole as -12.
    pattern = "|".join(re.escape(words) for words, _ in _OPERATORS)
    parts = re.split(rf"(?<![a-z])({pattern})(?![a-z])", said)
    symbols = dict(_OPERATORS)
    terms: list[str] = []
    numbers = 0
    for i, part in enumerate(parts):
        if i % 2:
            terms.append(symbols[part].strip())
            continue
        part = part.strip()
        if not part and i == 0 and len(parts) > 1 and parts[1] == "minus":
            continue  # a leading "minus four": the sign of the first number
        term = _term(part)
        if term is None:
            return None  # something other than a sum: the language model answers it
        terms.append(term[0])
        numbers += 2 if term[1] else 1
    if numbers < 2:
        return None  # a lone number is not a sum ("minus forty in fahrenheit" is not one either)
    try:
        return _evaluate(ast.parse(" ".join(terms), mode="eval").body)
    except (SyntaxError, ValueError):
        return None


_PERCENT_OFF: Final = re.compile(
    r"(?P<share>.+?)\s*percent off (?:of )?(?P<whole>.+)|(?P<w>.+?) with (?P<s>.+?)\s*percent off"
)
_PERCENT_ON: Final = re.compile(r"(?P<whole>.+?) (?P<sign>plus|add|and|minus|less|take away) (?P<share>.+?)\s*percent")


def _percent_change(said: str) -> float | None:
    """An amount with a share taken off or added ("20 percent off 50 pounds", "50 plus 10 percent"), or None."""
    # NOTE: "50 minus 20 percent" was read as 50 - 20; "20 percent off 50 pounds" went to the model ("$10").
    if m := _PERCENT_OFF.fullmatch(said):
        share, whole, sign = parse_number(m["share"] or m["s"]), parse_number(m["whole"] or m["w"]), -1
    elif m := _PERCENT_ON.fullmatch(said):
        share, whole = parse_number(m["share"]), parse_number(m["whole"])
        sign = -1 if m["sign"] in ("minus", "less", "take away") else 1
    else:
        return None
    return None if share is None or whole is None else whole * (1 + sign * share / 100)


_COMMANDED: Final = (
    ("add|sum", ("and", "to", "plus"), "{0} plus {1}"),
    ("multiply", ("by", "and", "times"), "{0} times {1}"),
    ("divide", ("by",), "{0} divided by {1}"),
    ("divide", ("into",), "{1} divided by {0}"),
    ("subtract|take away|take", ("from",), "{1} minus {0}"),
)
"""A sum said as a command ("add twelve and thirty", "subtract 4 from 10"): its verb, the words that may join its
two numbers, and the same sum said with an operator."""


def _as_operators(said: str) -> str:
    """A sum said as a command, said with its operator instead; anything else as it is."""
    for verb, joins, with_operator in _COMMANDED:
        if (m := re.fullmatch(rf"(?:{verb}) (.+)", said)) is None:
            continue
        words = m[1].split()
        # NOTE: a number may hold the joining word itself ("add one hundred and five and two"): each joining word is
        # tried, and the first that leaves a number on both sides is taken.
        for i, word in enumerate(words[1:-1], start=1):
            # NOTE: "take 18 away from 50": the verb's own "away" is no part of the number
            first, second = " ".join(words[:i]).removesuffix(" away"), " ".join(words[i + 1 :])
            if word in joins and parse_number(first) is not None and parse_number(second) is not None:
                return with_operator.format(first, second)
    return said


def _term(part: str) -> tuple[str, bool] | None:
    """One operand as Python ("(17.0)", "(3.0 ** 2)", a factorial worked out) and whether it is a sum by itself."""
    power = ""
    if m := re.fullmatch(r"(.+?)\s+(squared|cubed)", part):
        part, power = m[1], " ** 2" if m[2] == "squared" else " ** 3"
    if m := re.fullmatch(r"(?:the\s+)?factorial of (.+)|(.+?)\s+factorial", part):
        n = parse_number(m[1] or m[2])
        if n is None:
            return None
        if n < 0 or n != int(n):
            raise _Cannot(Impossible.NOT_A_FACTORIAL, n)
        if n > MAX_FACTORIAL:
            raise _Cannot(Impossible.TOO_BIG)
        return f"({float(math.factorial(int(n)))!r}{power})", True
    # NOTE: strictly a number: "what is 20-20 vision" was worked out as 20 - 20 ("That's 0.").
    value = parse_operand(part)
    return None if value is None else (f"({value!r}{power})", bool(power))


def _evaluate(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        return _BINARY[type(node.op)](left, right)
    raise ValueError("not a sum")


def _check_power(base: float, exponent: float) -> None:
    """Refuse a power before computing it when it has no real value or too many digits."""
    if base == 0 and exponent < 0:
        raise _Cannot(Impossible.DIVIDE_BY_ZERO)
    if base < 0 and exponent != int(exponent):
        raise _Cannot(Impossible.NO_REAL_ANSWER)
    if base != 0 and exponent * math.log10(abs(base)) > MAX_POWER_DIGITS:
        raise _Cannot(Impossible.TOO_BIG)
