"""Sums of money: the currency a sum is said in ("15 percent of 80 dollars"), and an amount said in it."""

from __future__ import annotations

import re
from typing import Final

from daemon.skills.speech import say_number

CURRENCIES: Final = {
    "dollars": ("dollar", "cents", "cent"),
    "pounds": ("pound", "pence", "penny"),
    "euros": ("euro", "cents", "cent"),
    "yen": ("yen", "", ""),
    "rupees": ("rupee", "paise", "paisa"),
    "pesos": ("peso", "centavos", "centavo"),
    "francs": ("franc", "centimes", "centime"),
}
"""Each currency's name, one of it, and its hundredth (none for the yen)."""
_SAID_AS: Final = {"bucks": "dollars", "buck": "dollars", "quid": "pounds"} | {
    one: many for many, (one, _, _) in CURRENCIES.items()
}
_CURRENCY: Final = re.compile(rf"\b({'|'.join(sorted({*CURRENCIES, *_SAID_AS}, key=len, reverse=True))})\b")


def currency_in(expression: str) -> str:
    """The one currency `expression` names ("80 dollars" -> "dollars"), or "" when it names none or several."""
    named = {_SAID_AS.get(word, word) for word in _CURRENCY.findall(expression.lower())}
    return named.pop() if len(named) == 1 else ""


def say_money(value: float, currency: str) -> str:
    """`value` in `currency` as people say it: "12 dollars", "1 pound", "26 dollars and 67 cents", "1500 yen"."""
    one, hundredths, hundredth = CURRENCIES[currency]
    whole, cents = divmod(round(abs(value) * 100), 100)
    if currency == "pounds" and cents:
        return f"{say_number(value)} pounds"  # NOTE: pounds may be a weight: "12.5 pounds" is right either way
    if not hundredths:
        whole, cents = round(abs(value)), 0
    sign = "minus " if value < 0 and (whole or cents) else ""
    said = f"{say_number(whole)} {one if whole == 1 else currency}"
    if cents and not whole:
        return f"{sign}{cents} {hundredth if cents == 1 else hundredths}"
    return f"{sign}{said} and {cents} {hundredth if cents == 1 else hundredths}" if cents else f"{sign}{said}"
