"""The chemical elements: symbols, atomic numbers and atomic masses, from periodictable (all 118 named elements)."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Final

from daemon.skills.amounts import parse_number
from daemon.skills.speech import say_letters, say_number, upper_first

if TYPE_CHECKING:
    from periodictable.core import Element

BRITISH: Final = {"aluminium": "aluminum", "sulphur": "sulfur", "caesium": "cesium"}
"""British spellings of element names; periodictable spells them as IUPAC's American English does."""


@functools.cache
def _table() -> tuple[Element, ...]:
    """The named elements, hydrogen to oganesson (periodictable's element 0 is the neutron)."""
    import periodictable

    return tuple(e for e in periodictable.elements if e.number > 0)


def by_name(said: str) -> Element | None:
    """The element `said` names ("gold", "aluminium"), or None."""
    name = " ".join(said.lower().split()).removeprefix("the element ").removeprefix("element ")
    name = BRITISH.get(name, name)
    return next((e for e in _table() if e.name == name), None)


def read_symbol(said: str) -> str | None:
    """A chemical symbol as typed or heard ("Fe", "f e", "F.E."), or None when it cannot be one."""
    letters = re.sub(r"[\s.]", "", said)
    return letters[:1].upper() + letters[1:].lower() if re.fullmatch(r"[A-Za-z]{1,3}", letters) else None


def by_symbol(symbol: str) -> Element | None:
    """The element whose symbol is `symbol`, or None."""
    return next((e for e in _table() if e.symbol == symbol), None)


def read_number(said: str) -> int | None:
    """An atomic number as said ("79", "twenty six"), or None when it is no whole number."""
    number = parse_number(said.removeprefix("number "))
    return int(number) if number is not None and number == int(number) else None


def by_number(number: int) -> Element | None:
    """The element with atomic number `number`, or None."""
    return next((e for e in _table() if e.number == number), None)


def densities(*of: Element) -> tuple[float, ...] | None:
    """Each element's density at room temperature, g/cm³; None if one has none (a gas: its figure is the liquid's)."""
    found = []
    for element in of:
        caveat = str(getattr(element, "density_caveat", "") or "")
        if element.density is None or caveat.startswith("T=") or caveat == "unavailable":
            return None
        found.append(float(element.density))
    return tuple(found)


def _said_name(element: Element, said: str) -> str:
    """The element's name as the user said it, if they used a British spelling of it."""
    asked = said.lower().strip()
    return asked if BRITISH.get(asked) == element.name else str(element.name)


def answer(fact: str, element: Element | None, said: str) -> str:
    """What the box says to `fact` about `element`, or that no element answers to what was said."""
    if fact in TABLE_FACTS:
        return _table_answer(fact)
    if element is None:
        return _unknown(fact, said)
    name = _said_name(element, said)
    match fact:
        case "symbol":
            symbol = str(element.symbol)
            spelled = f", spelled {say_letters(symbol)}" if len(symbol) > 1 else ""
            return f"The chemical symbol for {name} is {symbol}{spelled}."
        case "number":
            return f"The atomic number of {name} is {element.number}."
        case "mass":
            return f"The atomic mass of {name} is {say_number(float(element.mass))}."
        case "name":
            return f"{upper_first(name)} is element number {element.number}, symbol {element.symbol}."
    return f"I don't know that about {name}."


TABLE_FACTS: Final = frozenset({"count", "heaviest", "lightest"})
"""What is asked of the whole table rather than of one element."""
HEAVIEST_IN_NATURE: Final = 92
"""Uranium: the heaviest element found in nature in more than traces; every heavier one is made."""


def _table_answer(fact: str) -> str:
    table = _table()
    first, last = table[0], table[-1]
    match fact:
        case "count":
            return f"{len(table)} elements have been found and named, from {first.name} to {last.name}."
        case "heaviest":
            natural = by_number(HEAVIEST_IN_NATURE)
            assert natural is not None
            return (
                f"The heaviest element known is {last.name}, element {last.number}, which has only ever been made "
                f"in a laboratory. The heaviest found in nature is {natural.name}, element {natural.number}."
            )
    return f"The lightest element is {first.name}, element {first.number}."


def _unknown(fact: str, said: str) -> str:
    """The plain answer when no element answers: the table holds every element named so far."""
    last = _table()[-1]
    if fact == "name" and read_number(said) is not None:
        return f"No element has atomic number {said}: the known ones go up to {last.number}, {last.name}."
    if fact == "name":
        return f"No element has the symbol {said}."
    return f"I don't know an element called {said}."
