"""What people say to the box's everyday-skill router, read from daemon/skills/skill_phrases.toml.

The box reads its tune half as examples (daemon/skills/learned.py).

The phrases are data (a few hundred sentences, each with the skill it must reach and the arguments it must carry);
the file says how they were written.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from daemon.skills.learned import PHRASES_FILE

Arg = str | int | float | bool | tuple[int, ...]


@dataclass(frozen=True)
class Phrase:
    """One thing a person says and where it must go."""

    text: str
    skill: str
    """Skill name, or "none" for a general question the language model answers."""
    args: dict[str, Arg] = field(default_factory=dict)
    """Arguments the routed call must carry (only these are compared; others may be present)."""


def _arg(value: object) -> Arg:
    """A TOML value as an argument: a list (alarm days) becomes a tuple."""
    if isinstance(value, list):
        return tuple(int(day) for day in value)
    if isinstance(value, str | int | float | bool):
        return value
    raise ValueError(f"{PHRASES_FILE.name}: an argument cannot be {value!r}")


def _phrase(skill: str, entry: object) -> Phrase:
    """One entry of a skill's list: a sentence, or [sentence, {arguments}]."""
    match entry:
        case str(text):
            return Phrase(text, skill)
        case [str(text), dict(args)]:
            return Phrase(text, skill, {str(name): _arg(value) for name, value in args.items()})
    raise ValueError(f"{PHRASES_FILE.name}: {skill}: not a phrase: {entry!r}")


def load(path: Path = PHRASES_FILE) -> tuple[Phrase, ...]:
    """Every phrase in the file, in its order, grouped by skill."""
    with path.open("rb") as f:
        skills = tomllib.load(f)
    return tuple(_phrase(skill, entry) for skill, entries in skills.items() for entry in entries)


PHRASES: Final[tuple[Phrase, ...]] = load()
