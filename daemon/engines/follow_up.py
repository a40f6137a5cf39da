"""Whether a question leans on the conversation before it ("How many people live there?") or stands on its own."""

from __future__ import annotations

import re
from typing import Final

REFERRING: Final = frozenset((
    "it", "its", "it's", "itself", "they", "them", "their", "theirs", "they're", "themselves", "he", "him", "his",
    "he's", "himself", "she", "her", "hers", "she's", "herself", "there", "that", "that's", "those", "this", "these",
    "then", "another", "other", "others", "else", "same", "more", "again", "too", "also", "former", "latter",
    "previous", "earlier", "before", "i", "i'm", "i've", "i'd", "me", "my", "mine", "myself",
))  # fmt: skip
"""Words that point back at something said before (or at the user, whose words the conversation holds)."""
NOT_REFERRING: Final = re.compile(
    r"\b(?:this|these|next|last) (?:morning|afternoon|evening|night|week|weekend|month|year|spring|summer|autumn|"
    r"fall|winter|time)\b|\b(?:is|are|was|were|will) there\b|\bthere (?:is|are|was|were)\b"
)
"""Such words when they point at the moment ("this morning") or at nothing ("is there"), not at what was said."""
ONE_OF_THEM: Final = re.compile(
    r"\bthe (?:city|town|country|place|man|woman|person|book|film|movie|song|band|team|planet|animal|river|"
    r"building|war|author|writer|singer|company|game|answer|one|ones)\b|\bwhich ones?\b|\byou (?:mean|meant|said)\b"
)
"""A thing named as the one just talked about ("What river flows through the city?")."""
CARRYING_ON: Final = ("what about", "how about", "and ", "but ", "or ", "so ", "also ", "what else")
"""Openings that carry on from the last exchange whatever follows ("And Austria?", "What about Spain?")."""
SHORT: Final = 3
"""A question of at most this many words naming nothing (no name, no number) is taken as a follow-up ("How big?",
"What's the capital?"), and so is a short "why" ("Why not Sydney?")."""


def leans_back(question: str, finished: bool = True) -> bool:
    """Whether `question` may need the conversation to be understood; if not, it is asked on its own. Words still
    being spoken (not `finished`) are not yet a short question."""
    text = " ".join(re.findall(r"[\w']+", question.replace("’", "'")))
    words = text.lower().split()
    said = " ".join(words)
    if len(words) <= 1 or f"{said} ".startswith(CARRYING_ON) or ONE_OF_THEM.search(said):
        return True
    names = any(word[0].isupper() or word[0].isdigit() for word in text.split()[1:])
    # NOTE: words still being spoken are short at first: taken as a follow-up, they had the conversation read again
    # at the first partial of every question.
    if finished and len(words) <= SHORT and (not names or words[0] == "why"):
        return True
    return any(word in REFERRING for word in NOT_REFERRING.sub(" ", said).split())
