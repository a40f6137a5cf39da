"""Spelling a word letter by letter, as the recogniser wrote it down (or as it was typed)."""

from __future__ import annotations

import re
from typing import Final

from daemon.skills.amounts import strip_fillers
from daemon.skills.speech import say_letters

_NOT_WORDS: Final = frozenset({"it", "that", "this", "them", "those", "these", "something", "anything", "out"})
"""What a request to spell says when the word is elsewhere ("spell that"): it is left to the language model, which
has the conversation."""


def read_word(said: str) -> str | None:
    """The one word to spell in what the slot took ("the word necessary for me"), or None."""
    word = strip_fillers(re.sub(r"^the word\s+", "", said.strip().lower()))
    word = re.sub(r"\s+(for me|correctly|properly|please)$", "", word).strip(" '\"")
    # NOTE: one word only: "spell out the steps", "how do you spell check", "how do you spell your name" are
    # sentences about spelling, not a word to spell out.
    if word in _NOT_WORDS or not re.fullmatch(r"[a-z]+(?:['-][a-z]+)*", word):
        return None
    return word


def answer(word: str) -> str:
    """ "Necessary is spelled N, E, C, E, S, S, A, R, Y." """
    return f"{word[:1].upper()}{word[1:]} is spelled {say_letters(word)}."
