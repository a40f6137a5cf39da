"""The words the skills listen for: every literal word of the routed templates, their lists, numbers and units."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from daemon.skills.sounds import words

NUMBER_WORDS: Final = words(
    """zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
    seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million
    half quarter first second third point minus"""
)
UNIT_WORDS: Final = words(
    """metre metres meter meters centimetre centimetres centimeter centimeters millimetre millimetres millimeter
    millimeters kilometre kilometres kilometer kilometers inch inches foot feet yard yards mile miles gram grams
    kilogram kilograms kilo kilos pound pounds ounce ounces stone stones ton tons tonne tonnes litre litres liter
    liters millilitre millilitres milliliter milliliters cup cups pint pints quart quarts gallon gallons
    tablespoon tablespoons teaspoon teaspoons fluid degree degrees celsius fahrenheit centigrade kelvin acre acres
    hectare hectares hour hours minute minutes second seconds day days week weeks"""
)
"""Everyday units as people say them (pint knows far more, but these are what a kitchen or a journey needs)."""
CLOCK_WORDS: Final = words(
    """am pm noon midnight morning afternoon evening night tonight tomorrow today weekday weekdays weekend weekends
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
    saturdays sundays"""
)
CALC_WORDS: Final = words(
    """plus minus times multiplied divided by over add added take away squared cubed square root factorial power
    percent of"""
)
"""The words of a sum (daemon.skills.calc), which the templates leave to a wildcard."""
_WORD: Final = re.compile(r"[a-z][a-z']*")
_OPTIONAL_ENDING: Final = re.compile(r"([a-z']+)\[([a-z']+)\]")


def template_words(sentences: Mapping[str, Any]) -> frozenset[str]:
    """Every word the intents in `sentences` (hassil's dict form) say literally, with their rules and lists."""
    rules: Mapping[str, str] = sentences.get("expansion_rules", {})
    lists: Mapping[str, Any] = sentences.get("lists", {})
    texts = [
        text
        for intent in sentences.get("intents", {}).values()
        for data in intent.get("data", [])
        for text in data.get("sentences", [])
    ]
    words: set[str] = set()
    seen_rules: set[str] = set()
    seen_lists: set[str] = set()
    while texts:
        text = texts.pop().lower()
        for rule in re.findall(r"<([^<>]+)>", text):
            if rule not in seen_rules and rule in rules:
                seen_rules.add(rule)
                texts.append(rules[rule])
        for name in re.findall(r"\{([^{}:]+)(?::[^{}]*)?\}", text):
            if name not in seen_lists:
                seen_lists.add(name)
                texts.extend(_list_texts(lists.get(name, {})))
        text = re.sub(r"<[^<>]*>|\{[^{}]*\}", " ", text)
        # NOTE: "timer[s]" says "timer" and "timers": both are words a recogniser writes.
        words.update(m[1] + m[2] for m in _OPTIONAL_ENDING.finditer(text))
        words.update(_WORD.findall(re.sub(r"[\[\]()|]", " ", text)))
    words.update(_WORD.findall(" ".join(sentences.get("skip_words", [])).lower()))
    # NOTE: "what('s| is)" leaves a stray "s"; no single letter but these is a word.
    return frozenset(w for w in words if len(w) > 1 or w in ("a", "i", "x"))


def _list_texts(slot_list: Mapping[str, Any]) -> Iterable[str]:
    """The words a listed slot may say (a wildcard or a range says none of its own)."""
    for value in slot_list.get("values", []):
        yield str(value.get("in", "")) if isinstance(value, dict) else str(value)


def skill_words(sentences: Mapping[str, Any], leave_out: frozenset[str] = frozenset()) -> frozenset[str]:
    """Everything a command to the box may say: its templates' words (but the intents left out), numbers, units,
    sums, days and times."""
    kept = dict(sentences, intents={k: v for k, v in sentences.get("intents", {}).items() if k not in leave_out})
    return template_words(kept) | NUMBER_WORDS | UNIT_WORDS | CALC_WORDS | CLOCK_WORDS
