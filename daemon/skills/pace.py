"""How fast the box speaks, as the user asks: a step slower or faster, or back to the configured pace."""

from __future__ import annotations

from typing import Final, Protocol

STEP: Final = 1.25
"""One step of Piper's length scale. Its speech grows less than the scale (two sentences by the joe voice: 1.25 made
them 15 % longer to say, 1.56 42 %, 1.95 72 %; 0.8 14 % shorter, 0.64 30 %): at 1.15 a step was 6 %, hardly heard."""
SLOWEST: Final = 1.95
"""Three steps slower than the configured pace."""
FASTEST: Final = 0.64
"""Two steps faster: the words run together beyond it."""
SLACK: Final = 0.01
"""Steps are rounded: three steps of 1.25 are 1.953, which is still three steps."""


class Paced(Protocol):
    """The voice, as the skills change its pace."""

    pace: float
    """How slowly it speaks relative to its configured pace: 1.0 as configured, above 1 slower."""


def usable(pace: object) -> bool:
    """True for a pace the box may speak at (one kept across a restart is checked again)."""
    return isinstance(pace, float | int) and FASTEST <= pace <= SLOWEST


def change(voice: Paced, action: str) -> str:
    """Change the voice's pace as asked; what the box says, at its new pace."""
    now = voice.pace
    match action:
        case "slower" if now * STEP > SLOWEST + SLACK:
            return "That's as slowly as I speak."
        case "slower":
            voice.pace = min(SLOWEST, round(now * STEP, 3))
            return "Okay, I'll speak more slowly."
        case "faster" if now / STEP < FASTEST - SLACK:
            return "That's as fast as I speak."
        case "faster":
            voice.pace = max(FASTEST, round(now / STEP, 3))
            return "Okay, I'll speak faster."
    voice.pace = 1.0
    return "Okay, I'll speak at my usual pace."
