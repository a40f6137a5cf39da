"""Whether a command heard so far is finished: none of the usual ways of going on after a pause would change it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

from daemon.skills import intents
from daemon.skills.call import SkillCall

GOES_ON_WITH: Final = (
    "7",
    "for 7",
    "30",
    "minutes",
    "for 5 minutes",
    "for the eggs",
    "timer",
    "tomorrow",
    "in the morning",
    "on monday",
    "every day",
    "in tokyo",
    "to 5",
    "by 10",
    "percent",
)
"""Ways a spoken command often goes on after a pause: a number, a unit, a name, a day, a place, a level."""


def finished_command(text: str, same: Callable[[SkillCall, SkillCall], bool] | None = None) -> bool:
    """True if `text` is, word for word, a command of the box's own that none of the usual ways of going on
    (`GOES_ON_WITH`) would change: "what time is it", "turn it up", "never mind"; not "cancel the timer" (... "for
    the eggs") nor "set an alarm for 7" (... "30"), unless `same` says the longer command would do the same now."""
    found = _going_on(text)
    if found is None:
        return False
    call, longer = found
    return all(same is not None and same(call, other) for other in longer)


@functools.lru_cache(maxsize=256)
def _going_on(text: str) -> tuple[SkillCall, tuple[SkillCall, ...]] | None:
    """The command `text` is, word for word, and the other commands it becomes when it goes on; None if it is no
    command of the box's own."""
    said = intents.normalise(text)
    call = intents.template_match(said) if said and len(said.split()) <= intents.MAX_WORDS else None
    if call is None or call.skill == "offline":
        return None  # NOTE: "what's the weather" goes on ("... like in Paris") into a question for the model
    longer = (intents.template_match(f"{said} {more}") for more in GOES_ON_WITH)
    return call, tuple(
        o for o in longer if o is not None and (o.skill, o.args) != (call.skill, call.args) and _waited(call, o)
    )


def _waited(call: SkillCall, longer: SkillCall) -> bool:
    """Whether `call` going on to `longer` is worth waiting for after a pause."""
    # NOTE: "what time is it" may go on "... in Tokyo" and "what's the date" "... next Tuesday", but both are said
    # whole far more often: waiting held every "What time is it?" up by the whole trailing silence (1.09 s from its
    # last word, 0.5 s before).
    elsewhere = call.skill == "time" and longer.skill == "world_time"
    another_day = call.skill in ("date", "day") and not call.args and bool({"ahead", "on"} & set(longer.args))
    # NOTE: "turn it up" may go on "... to 80" as well, but a step up or down is what it nearly always is.
    to_a_level = call.skill == "volume" and call.args.get("action") in ("up", "down") and "level" in longer.args
    return not (elsewhere or another_day or to_a_level)
