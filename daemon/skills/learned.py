"""What people say to a voice box, as the evaluations hold it (skill_phrases.toml, answers.toml beside this module):
the tune halves are examples for reading requests by meaning; the held-out halves are never read by the box."""

from __future__ import annotations

import functools
import hashlib
import tomllib
from pathlib import Path
from typing import Final

PHRASES_FILE: Final = Path(__file__).with_name("skill_phrases.toml")
"""Requests and general questions, each with the skill it must reach ("none": the model's) and its arguments."""
QUESTIONS_FILE: Final = Path(__file__).with_name("answers.toml")
"""Questions by kind with the answers accepted ("unknowable": only an honest answer is right)."""
UNKNOWABLE: Final = "unknowable"
UNABLE: Final = "unable"
"""answers.toml's requests the box has no means to do (play music, make a call)."""
_NOT_A_KIND: Final = "same"  # answers.toml's table of answers shared by several questions


def tuned_on(text: str) -> bool:
    """Whether a phrase or question falls in the tune half (a stable hash of its text; about half do): the half
    anything may be tuned on, the other held out."""
    return hashlib.sha256(text.encode("utf-8")).digest()[0] % 2 == 0


@functools.cache
def phrasings() -> dict[str, list[object]]:
    """skill_phrases.toml as written: each skill's entries (a sentence, or [sentence, {arguments}])."""
    with PHRASES_FILE.open("rb") as f:
        return tomllib.load(f)


@functools.cache
def questions() -> tuple[tuple[str, str], ...]:
    """answers.toml's questions and their kinds."""
    with QUESTIONS_FILE.open("rb") as f:
        tables = tomllib.load(f)
    return tuple((text, kind) for kind, table in tables.items() if kind != _NOT_A_KIND for text in table)
