"""A skill call: which skill, with which arguments (from the templates or the language model's tool call)."""

from __future__ import annotations

from dataclasses import dataclass, field

Arg = str | int | float | bool | tuple[int, ...]
"""A slot's value: text, a number, a yes/no, or days of the week (0 = Monday)."""
Read = tuple[str, dict[str, Arg]]
"""A skill and its arguments as a template's slots read, before they are a call."""


@dataclass(frozen=True)
class SkillCall:
    """A skill and its arguments, as the matcher or the language model's tool call chose them."""

    skill: str
    args: dict[str, Arg] = field(default_factory=dict)
    read_as: str = field(default="", compare=False)
    """The words a misheard sentence was read as to match, or the template sentence it means (empty: it matched as
    heard)."""
    by_meaning: bool = field(default=False, compare=False)
    """Read by meaning (daemon/skills/meaning.py), not matched by a template."""
    unsure: bool = field(default=False, compare=False)
    """Read by meaning but not alike enough to be done at once: asked about first (`read_as` says what)."""


def int_arg(args: dict[str, Arg], name: str) -> int:
    """The argument `name` as a whole number (0 when absent)."""
    value = args.get(name)
    return int(value) if isinstance(value, int | float | str) else 0


def float_arg(args: dict[str, Arg], name: str) -> float:
    """The argument `name` as a number (0 when absent)."""
    value = args.get(name)
    return float(value) if isinstance(value, int | float | str) else 0.0
