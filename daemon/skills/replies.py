"""What the skills say word for word, whatever the box holds: the stock replies the voice keeps ahead."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from daemon.skills import asked_for, honest


@dataclass(frozen=True)
class Reply:
    """What a skill says, and whether the turn should then stop quietly."""

    text: str
    changed: bool = False
    """Timers, alarms, the volume or the clock changed: the state file should be saved."""


VOLUME_STEP: Final = 10
"""Percent a "turn it up" or "turn it down" moves the volume."""
NO_TIMERS: Final = "No timers are running."
NO_ALARMS: Final = "No alarms are set."
NO_REMINDERS: Final = "No reminders are set."
NOTHING_SET: Final = "There's nothing to cancel: no timers, alarms or reminders are set."
ALL_REMINDERS_CANCELLED: Final = "All reminders cancelled."
LOUDEST: Final = "That's as loud as I go."
FORGOTTEN: Final = "Okay, I've forgotten our conversation."
OKAY: Final = "Okay."
ALARM_CANCELLED: Final = "Alarm cancelled."
ALL_ALARMS_CANCELLED: Final = "All alarms cancelled."
ALL_TIMERS_CANCELLED: Final = "All timers cancelled."


def volume_said(level: int) -> str:
    """What the box says of a volume it was set to."""
    return f"Volume {level}."


def volume_level(level: int, muted: bool) -> str:
    """What the box says asked how loud it is, or can go."""
    if muted:
        return f"I'm muted. Say unmute, and I'll speak at volume {level}, of 0 to 100."
    return f"My volume is {level}, of 0 to 100." if level < 100 else "My volume is 100: as loud as I go."


STOCK_REPLIES: Final = (
    NO_TIMERS,
    NO_ALARMS,
    NO_REMINDERS,
    ALL_REMINDERS_CANCELLED,
    LOUDEST,
    FORGOTTEN,
    OKAY,
    ALARM_CANCELLED,
    ALL_ALARMS_CANCELLED,
    ALL_TIMERS_CANCELLED,
    honest.UNSET_CLOCK,
    honest.VOLUME_LIMITS,
    asked_for.HOW_LONG,
    asked_for.WHAT_TIME,
    *(volume_said(level) for level in range(VOLUME_STEP, 101, VOLUME_STEP)),
)
"""Replies the skills give word for word whatever the box holds (every volume a step reaches): voiced ahead."""
