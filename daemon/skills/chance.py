"""Chance: a coin flipped, dice rolled, a number picked between two, each said plainly."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Final

from daemon.skills.amounts import parse_whole
from daemon.skills.call import SkillCall

INTENTS: Final = {"TalkboxCoin": "coin", "TalkboxDice": "dice", "TalkboxPick": "number"}
"""The templates' intents (sentences.yaml) and what each asks for."""
MAX_DICE: Final = 10
MAX_SIDES: Final = 1000
MAX_NUMBER: Final = 10**9
"""The largest number picked: a longer one is no longer said in one breath."""
PICK_FROM: Final = (1, 10)
"""The numbers picked between when none are said ("pick a number")."""
DICE_LIMITS: Final = f"I can roll 1 to {MAX_DICE} dice, each with 2 to {MAX_SIDES} sides."
NUMBER_LIMITS: Final = "I can pick numbers up to a billion either side of zero."

_COUNTS: Final = {"a": 1, "an": 1, "one": 1, "the": 1}
"""Words for one die; two to ten are the templates' `dice` list (sentences.yaml)."""


def _whole(text: object) -> int | None:
    """A whole number said ("twenty", "6"), or None."""
    said = str(text or "").strip().lower()
    if said in _COUNTS:
        return _COUNTS[said]
    return parse_whole(said)


def read(intent: str, values: dict[str, object]) -> SkillCall | None:
    """The chance call a template match means, or None when a number in it is none."""
    what = INTENTS[intent]
    if what == "coin":
        return SkillCall("chance", {"what": "coin"})
    if what == "dice":
        count = _whole(values.get("count", 1))
        sides = _whole(values.get("sides", 6))
        if count is None or sides is None:
            return None
        return SkillCall("chance", {"what": "dice", "count": count, "sides": sides})
    low, high = (_whole(values.get(name, default)) for name, default in (("low", PICK_FROM[0]), ("high", PICK_FROM[1])))
    if low is None or high is None:
        return None
    return SkillCall("chance", {"what": "number", "low": min(low, high), "high": max(low, high)})


def answer(args: Mapping[str, object], rng: random.Random) -> str:
    """What the box says: the coin's side, the dice, the number; or the limits when asked beyond them."""
    match args.get("what"):
        case "coin":
            return f"It's {rng.choice(('heads', 'tails'))}."
        case "dice":
            count, sides = int(str(args["count"])), int(str(args["sides"]))
            if not (1 <= count <= MAX_DICE and 2 <= sides <= MAX_SIDES):
                return DICE_LIMITS
            rolled = [rng.randint(1, sides) for _ in range(count)]
            if count == 1:
                return f"You rolled {rolled[0]}."
            return f"You rolled {', '.join(map(str, rolled[:-1]))} and {rolled[-1]}: {sum(rolled)} in all."
        case _:
            low, high = int(str(args["low"])), int(str(args["high"]))
            if max(abs(low), abs(high)) > MAX_NUMBER:
                return NUMBER_LIMITS
            return f"I picked {rng.randint(low, high)}."
