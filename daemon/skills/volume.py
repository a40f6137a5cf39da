"""The volume by voice: a step up or down, a level, mute and unmute, and how loud the box is."""

from __future__ import annotations

from typing import Protocol

from daemon.skills import honest
from daemon.skills.replies import LOUDEST, VOLUME_STEP, Reply, volume_level, volume_said


class VolumeControl(Protocol):
    """The speaker's loudness, as the skills change it."""

    level: int
    """0..100."""
    muted: bool


def change_volume(v: VolumeControl, action: str, level: object) -> Reply:
    """Do what a volume request asks (`action`: up, down, up_by or down_by `level`, set, mute, unmute, level) and
    say so."""
    if action == "mute":
        v.muted = True
        return Reply("", changed=True)
    if action == "level":
        return Reply(volume_level(v.level, v.muted))
    if action == "set" and isinstance(level, int | float) and not 0 <= level <= 100:
        return Reply(honest.VOLUME_LIMITS)
    v.muted = False
    if action == "set" and isinstance(level, int | float):
        v.level = int(level)
    elif action == "up":
        if v.level >= 100:
            return Reply(LOUDEST)
        v.level = min(100, v.level + VOLUME_STEP)
    elif action == "down":
        v.level = max(VOLUME_STEP, v.level - VOLUME_STEP)
    elif action in ("up_by", "down_by") and isinstance(level, int | float):
        if action == "up_by" and v.level >= 100:
            return Reply(LOUDEST)
        moved = v.level + int(level) if action == "up_by" else v.level - int(level)
        v.level = min(100, max(VOLUME_STEP, moved))
    return Reply(volume_said(v.level), changed=True)
