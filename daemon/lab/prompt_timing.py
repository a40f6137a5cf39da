"""How long a question's prompt takes to read before its first token, from the states the box leaves the model in."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Generator
from typing import Final, cast

from daemon.lab.turn_timing import warm_up
from daemon.ports import Engines, Exchange

SKILL_EXCHANGES: Final = (
    Exchange("Set a timer for ten minutes for the pasta.", "A pasta timer for 10 minutes, starting now."),
    Exchange("What is fifteen percent of eighty?", "That's 12."),
    Exchange("What is the capital of Portugal?", "The capital of Portugal is Lisbon."),
)
"""Three exchanges the skills had before a question for the model: remembered, though the model never saw them."""


def _first_token_s(engines: Engines, question: str, prepare: Callable[[], object]) -> float:
    """Seconds of prompt before the first token of `question`, once `prepare` has set the model's state."""
    prepare()
    stream = cast(Generator[str, None, None], engines.llm.respond(question))
    next(stream, None)
    stream.close()  # stop after the first piece: only the prompt is timed
    engines.memory.forget()
    return engines.llm.stats.prompt_s


def _after_skills(engines: Engines, read_ahead: bool) -> None:
    """The state after three skills' exchanges: read ahead as the turn does (the user's pause given), or not."""
    warm_up(engines)
    engines.memory.remember(SKILL_EXCHANGES)
    if read_ahead:
        engines.llm.read_history().result()


def first_token_effects(engines: Engines, question: str, repeats: int = 3) -> dict[str, dict[str, float]]:
    """Medians, alternated: the system prompt evaluated at start (warm) or not (cold); after skills' exchanges, the
    conversation read ahead or not."""
    states: dict[str, dict[str, Callable[[], object]]] = {
        "system_prompt": {"warm_s": lambda: warm_up(engines), "cold_s": engines.llm.cool_down},
        "after_skills": {
            "read_s": lambda: _after_skills(engines, True),
            "unread_s": lambda: _after_skills(engines, False),
        },
    }
    times: dict[str, dict[str, list[float]]] = {probe: {key: [] for key in keys} for probe, keys in states.items()}
    for _ in range(repeats):
        for probe, keys in states.items():
            for key, prepare in keys.items():
                times[probe][key].append(_first_token_s(engines, question, prepare))
    return {probe: {key: statistics.median(v) for key, v in ts.items()} for probe, ts in times.items()}
