"""Whether an encyclopedia may answer a question at all: not about the one asking, the box, now, or sums."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from daemon.knowledge.text import fold, word_set, words

# Asking politely is not asking about oneself: "do you know", "can you tell me about" are taken off before the check.
_POLITE: Final = re.compile(
    r"^(?:(?:hey|ok|okay|so|and|um|uh|well|please|quick question)\W+)*"
    r"(?P<asking>(?:(?:do|did) you (?:happen to )?know(?: (?:if|whether|that))?\W+"
    r"|(?:(?:can|could|would|will) you )?(?:please )?(?:tell|remind) (?:me|us)(?: (?:more )?about)?\W+"
    r"(?=about|the|who|what|when|where|why|how|which)"
    r"|(?:(?:can|could|would|will) you )?(?:please )?(?:tell|remind) (?:me|us)(?: (?:more )?about)\W+"
    r"|(?:(?:can|could|would|will) you )?(?:please )?(?:explain|describe)(?: to (?:me|us))?\W+"
    r"|what do you know about\W+"
    r"|i (?:want|would like|d like) to know(?: about)?\W+|i wonder(?: (?:if|whether))?\W+))?"
)
_POLITE_END: Final = re.compile(r"(?:\W+(?:for me|please))+\W*$")
_CONTRACTED: Final = re.compile(r"\b(what|who|where|when|how|that|it|there|here)['\u2019]s\b", re.IGNORECASE)
PERSONAL: Final = word_set("i me my mine myself im ive you your yours yourself youre youve youll youd")
"""About the one asking or the box: no encyclopedia knows (unless the word is in a title: "Clovis I", "land mine")."""
NOW: Final = word_set(
    "today tonight tomorrow yesterday now nowadays currently current latest newest recent recently upcoming next "
    "todays tonights tomorrows yesterdays weather forecast raining snowing headlines news traffic trending score "
    "scores"
)
"""What is happening now or will happen: the corpus is a snapshot, it cannot say."""
_NOW_PHRASE: Final = re.compile(
    r"\b(?:this|last|coming) (?:morning|afternoon|evening|night|week|weekend|month|season)s?\b"
    r"|\bat the moment\b|\bthese days\b|^(?:\w+ )?will\b"
)
MAX_WORDS: Final = 40
"""A longer question is not a simple one about one article (and its lookup would no longer take a millisecond)."""
QUESTION_WORDS: Final = word_set(
    "what who whom whose when where why how which is are was were do does did can could will would should has have"
)
"""A question begins with one of these; "set a timer", "tell me a joke", "play some music" are not questions."""
SPELLING: Final = word_set("spell spelled spelt spelling")
"""How a word is written: no article says."""
_NUMBER: Final = (
    r"(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million)"
)
_SUM: Final = re.compile(
    rf"\b{_NUMBER} (?:plus|minus|times|divided by|multiplied by|over) (?:a |an )?{_NUMBER}\b"
    rf"|\b{_NUMBER} (?:squared|cubed)\b|\b(?:square|cube) root of\b|\b{_NUMBER} percent of\b|\bconvert\b"
)
"""Arithmetic and conversions ("eleven times eleven"): "times" is not the article Time."""


@dataclass(frozen=True)
class Plain:
    """A question's folded words without its polite opening and ending, and whether it asks anything at all."""

    words: tuple[str, ...]
    asks: bool
    """It is asked (a question mark, a question word, "tell me about"), not ordered ("set a timer")."""


def plain(question: str) -> Plain:
    """`question` without its polite opening ("do you know", "tell me about") and ending ("please")."""
    text = fold(_CONTRACTED.sub(r"\1 is", " ".join(question.split()))).strip()
    asks = text.endswith("?")
    text = text.strip(" ?!.")
    polite = _POLITE.match(text)
    asks = asks or bool(polite and polite.group("asking"))
    said = tuple(words(_POLITE_END.sub("", text[polite.end() if polite else 0 :])))
    return Plain(said, asks or bool(said and said[0] in QUESTION_WORDS))


def refusal(said: Plain) -> str:
    """Why no passage may be given for a question of these words ("" if one may)."""
    said_words = set(said.words)
    if not said.words:
        return "nothing asked"
    if not said.asks:
        return "not a question"
    if len(said.words) > MAX_WORDS:
        return "too long"
    if NOW & said_words or _NOW_PHRASE.search(" ".join(said.words)):
        return "about now or the future"
    if SPELLING & said_words:
        return "about spelling"
    if _SUM.search(" ".join(said.words)):
        return "a sum or a conversion"
    return ""
