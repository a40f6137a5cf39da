"""Which sentences are home commands: Home Assistant's own intents and sentences, with the home's own names.

The box's skills come first (`Skills.route`); what is left and parses as, say, HassTurnOff on "the kitchen lights"
goes to Home Assistant as text. The names are the ones Assist knows, so a sentence taken here is one Home
Assistant can read too.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any, Final

from daemon.home.names import HomeNames
from daemon.skills.call import SkillCall
from daemon.skills.intents import HA_INTENTS, MAX_WORDS, normalise

_LOGGER = logging.getLogger(__name__)

SKILL: Final = "home"
LEFT_OUT: Final = HA_INTENTS | {
    "HassIncreaseTimer",
    "HassDecreaseTimer",
    "HassPauseTimer",
    "HassUnpauseTimer",
    "HassRespond",
    "HassBroadcast",
    "HassMediaSearchAndPlay",
}
"""Intents never sent: the box's own (clock, timers), and those that take any words at all ("play …", "broadcast
…") and would swallow questions for the model."""


@functools.cache
def _intents() -> Any:
    """Home Assistant's English home intents, compiled once (about 0.1 s)."""
    from hassil import Intents
    from home_assistant_intents import get_intents

    data = get_intents("en")
    if data is None:
        raise RuntimeError("home-assistant-intents has no English sentences")
    data = dict(data, intents={name: i for name, i in data["intents"].items() if name not in LEFT_OUT})
    return Intents.from_dict(data)


class HomeCommands:
    """Recognises home commands for one home's names (immutable: swapped whole when the names change)."""

    def __init__(self, names: HomeNames) -> None:
        from hassil import TextSlotList

        started = time.monotonic()
        self.names = names
        # NOTE: the same (name, value, context) triples as Home Assistant's own agent builds, so `requires_context`
        # ("set the {name} to 50 %" only for lights) and `excludes_context` judge them as it would.
        entities = [
            (e.name, e.name, {"domain": e.domain} | ({"device_class": e.device_class} if e.device_class else {}))
            for e in names.entities
        ]
        # NOTE: one question's words are routed by the judge at its pause, by an early answer and by the turn:
        # matched once (2-5 ms a sentence here), as the skills' templates are.
        self._recognised = functools.lru_cache(maxsize=256)(self._recognise)
        self._lists = {
            "name": TextSlotList.from_tuples(entities, allow_template=False),
            "area": TextSlotList.from_strings(list(names.areas), allow_template=False),
            "floor": TextSlotList.from_strings(list(names.floors), allow_template=False),
        }
        self.recognise("turn on the light")  # NOTE: the first match builds hassil's caches (~70 ms): not in a turn
        _LOGGER.debug("home commands for %d names built in %.3f s", len(entities), time.monotonic() - started)

    def recognise(self, text: str) -> SkillCall | None:
        """The home command `text` is, as a call of the "home" skill, or None."""
        said = normalise(text)
        if not said or len(said.split()) > MAX_WORDS or not self.names:
            return None
        call = self._recognised(said)
        return SkillCall(call.skill, dict(call.args)) if call is not None else None

    def _recognise(self, said: str) -> SkillCall | None:
        """The best match of normalised words (hassil)."""
        from hassil import recognize_best

        result = recognize_best(said, _intents(), slot_lists=self._lists, language="en")  # type: ignore[arg-type]
        if result is None:
            return None
        slots = {name: str(e.value) for name, e in result.entities.items() if isinstance(e.value, str | int | float)}
        return SkillCall(SKILL, {"intent": result.intent.name, **slots})
