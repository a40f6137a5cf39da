"""Scores for a transcript: text normalised the same way on both sides, word error rate, key words heard."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

_ONES: Final = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
    *("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"),
)
_TENS: Final = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORDINALS: Final = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}
_SPELLINGS: Final = {
    "litre": "liter",
    "litres": "liters",
    "metre": "meter",
    "metres": "meters",
    "kilometre": "kilometer",
    "kilometres": "kilometers",
    "colour": "color",
    "centre": "center",
}
"""British spellings a recogniser may write, as the American ones the corpus (and cmudict) use."""

_THOUSANDS: Final = re.compile(r"(?<=\d),(?=\d{3}\b)")
_TIME: Final = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_PERCENT: Final = re.compile(r"(\d+(?:\.\d+)?)\s*%")
_ORDINAL: Final = re.compile(r"\b(\d+)(st|nd|rd|th)\b")
_DECIMAL: Final = re.compile(r"\b(\d+)\.(\d+)\b")
_INTEGER: Final = re.compile(r"\d+")
_NOT_WORD: Final = re.compile(r"[^\w']+|_")


def number_words(n: int) -> str:
    """0..9999 as said in American English ("one thousand two hundred five"); longer numbers digit by digit."""
    if n < 0:
        return f"minus {number_words(-n)}"
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f" {_ONES[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_ONES[hundreds]} hundred" + (f" {number_words(rest)}" if rest else "")
    if n < 10000:
        thousands, rest = divmod(n, 1000)
        return f"{_ONES[thousands]} thousand" + (f" {number_words(rest)}" if rest else "")
    return " ".join(_ONES[int(d)] for d in str(n))


def ordinal_words(n: int) -> str:
    """1st -> "first", 23rd -> "twenty third", 40th -> "fortieth"."""
    *head, last = number_words(n).split()
    if last in _ORDINALS:
        last = _ORDINALS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return " ".join([*head, last])


def time_words(hours: int, minutes: int) -> str:
    """7:30 -> "seven thirty", 7:05 -> "seven oh five", 7:00 -> "seven o'clock"."""
    if minutes == 0:
        return f"{number_words(hours)} o'clock"
    if minutes < 10:
        return f"{number_words(hours)} oh {number_words(minutes)}"
    return f"{number_words(hours)} {number_words(minutes)}"


def _decimal(match: re.Match[str]) -> str:
    return f"{number_words(int(match[1]))} point {' '.join(_ONES[int(d)] for d in match[2])}"


def normalize(text: str) -> str:
    """Lower case, no punctuation, numbers written as digits said in words, one space between words."""
    text = _THOUSANDS.sub("", text.lower())
    text = _TIME.sub(lambda m: f" {time_words(int(m[1]), int(m[2]))} ", text)
    text = _PERCENT.sub(r" \1 percent ", text)
    text = _ORDINAL.sub(lambda m: f" {ordinal_words(int(m[1]))} ", text)
    text = _DECIMAL.sub(lambda m: f" {_decimal(m)} ", text)
    text = _INTEGER.sub(lambda m: f" {number_words(int(m[0]))} ", text)
    words = (word.strip("'") for word in _NOT_WORD.sub(" ", text).split())
    return " ".join(_SPELLINGS.get(word, word) for word in words if word)


def edit_distance(reference: Sequence[str], hypothesis: Sequence[str]) -> int:
    """Substitutions + deletions + insertions that turn `reference` into `hypothesis` (Levenshtein, by word)."""
    previous = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        current = [i]
        for j, hyp in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ref != hyp)))
        previous = current
    return previous[-1]


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(errors, words in the reference), both texts normalised: summed over a set they give its error rate."""
    ref, hyp = normalize(reference).split(), normalize(hypothesis).split()
    return edit_distance(ref, hyp), len(ref)


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(S + D + I) / N over normalised words; 0 or 1 for an empty reference (nothing or something heard)."""
    errors, words = word_errors(reference, hypothesis)
    return errors / words if words else float(bool(errors))


def keywords_heard(keywords: Sequence[str], hypothesis: str) -> tuple[str, ...]:
    """The key words that are words of the normalised hypothesis."""
    heard = set(normalize(hypothesis).split())
    return tuple(word for word in keywords if word in heard)


def keyword_recall(keywords: Sequence[str], hypothesis: str) -> float:
    """Fraction of the key words present in the hypothesis (1.0 when there are none)."""
    return len(keywords_heard(keywords, hypothesis)) / len(keywords) if keywords else 1.0


def p90(values: Sequence[float], empty: float = float("nan")) -> float:
    """The 90th percentile as the evaluations report it (the value at 0.9 of the way, rounded down), or `empty`."""
    ordered = sorted(values)
    return ordered[int(0.9 * (len(ordered) - 1))] if ordered else empty
