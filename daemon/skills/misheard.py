"""Readings of a misheard command: the words the skills listen for, where the recogniser most likely slipped.

Tried only when the words as heard match no template, cheapest first, and each reading must then match a template
strictly: a loose reading never makes a command of words that are not nearly one.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from daemon.skills.sounds import SoundIndex, Sounds, phonemes, words
from daemon.skills.vocabulary import NUMBER_WORDS, UNIT_WORDS

MAX_CHANGES: Final = 2
"""Changes in one reading besides dropping its opening words: more, and a question starts to read as a command."""
MAX_COST: Final = 2.5
"""The most a reading may cost, summed over its changes (see the costs below)."""
MAX_READINGS: Final = 16
"""Readings tried for one sentence (a template match takes ~0.6 ms, x86_64); on the tune half no misheard command
was read right later than the 6th."""

ARTICLE: Final = 0.5
"""Cost of "a" for "the" and the like: the recogniser guesses these from the voice's rhythm alone."""
FILLER: Final = 0.5
"""Cost of dropping the words that open a request ("can you"), or a filler misheard ("um" written "I'm")."""
SLIP: Final = 1.0
"""Cost of a known slip between two words the templates both use ("said" for "set")."""
SOUNDS_SAME: Final = 1.0
"""Cost of a word no template uses read as one that sounds the same ("time or" for "timer")."""
SOUNDS_NEAR: Final = 1.5
"""Added cost per share of sounds that differ ("pond" for "pound": 1 + 1.5 x 0.5 / 4)."""
ENDING: Final = 0.5
"""Cost of a word's plural for its singular or the other way round, or of a word heard twice in a row."""
NUMBER: Final = 0.5
"""Cost of reading "100 and 80" as 180."""

ARTICLES: Final = {"a": ("the",), "the": ("a",), "an": ("the",), "my": ("the",)}
OPENINGS: Final = tuple(
    opening.split()
    for opening in (
        "i'm", "um", "uh", "and", "so", "oh", "how", "but", "hmm", "can you", "could you", "would you", "will you",
        "you can", "can i", "could i", "please", "tell me", "let's", "let us", "i want to", "i'd like to",
        "i would like to", "i need to", "i want you to", "go ahead and", "do you know", "okay", "ok", "now", "just",
        "no", "the", "a",
    )
)  # fmt: skip
"""First words that only open a request, or a filler or "hey" misheard ("I'm what day is today", "How can you
speak up"): hassil drops its skip words all together or not at all, so "can you tell me the date" needs "can you"
dropped alone."""
SLIPS: Final = {
    "said": ("set",),
    "sat": ("set",),
    "sit": ("set",),
    "at": ("a",),
    "that": ("at",),
    "and": ("in", "of"),
    "on": ("of",),
    "what": ("what's",),
    "times": ("timers",),  # "How many times are running?", heard on the box's own mic
    "time": ("timer", "timers"),  # "Set time for 6, 10 and 15 minutes." (one timer of 15 minutes was started)
}
"""Words a recogniser wrote for another that the templates also use, heard -> meant (from the tune half)."""
BEFORE_A_NUMBER: Final = frozenset({"what"})
"""Slips taken only before a number ("what 20% of 65"): "what day" is a question begun, not "what's day"."""
BEFORE_A_LENGTH: Final = frozenset({"time"})
"""Slips taken only before "for" and a number ("set time for 10 minutes"): "check the time for me" asks the clock."""

FUNCTION_WORDS: Final = words(
    """a an the my your our this that these those it its i i'm me you we they he she is are was were be been am do
    does did can could would will shall should may might must what what's whats which who how when where why of in
    on at to for from with by about as and or but so if then there here not no yes please some any all um uh er oh
    hey okay ok well just now hmm sorry excuse alright right thanks thank quickly talkbox"""
)
"""Words that carry little meaning alone (the templates' skip words among them): a reading must leave at least one
other word as it was heard, and never reads a word as one of these ("help me think" is not "help me thanks")."""


@dataclass(frozen=True, order=True)
class Change:
    """Words [start, end) of the sentence read as `words`."""

    cost: float
    start: int
    end: int
    words: tuple[str, ...]


def readings(said: str, vocabulary: frozenset[str]) -> Iterator[str]:
    """Other readings of normalised words, cheapest first: up to MAX_CHANGES changes (and the opening dropped),
    MAX_COST in all, MAX_READINGS of them."""
    tokens = said.split()
    changes = sorted(_changes(tokens, vocabulary))
    openings = [c for c in changes if c.start == 0 and not c.words]
    inside = [c for c in changes if c not in openings]
    groups: list[tuple[Change, ...]] = [()]
    for n in range(1, MAX_CHANGES + 1):
        groups += [g for g in itertools.combinations(inside, n) if _apart(g)]
    groups += [(o, *g) for o in openings for g in groups if _apart((o, *g))]
    costed = sorted((sum(c.cost for c in g), len(g), g) for g in groups if g)
    seen = {said}
    for cost, _, group in costed:
        if cost > MAX_COST or len(seen) > MAX_READINGS:
            return
        reading = " ".join(_apply(tokens, group))
        if reading not in seen and _keeps_content(tokens, group):
            seen.add(reading)
            yield reading


def _apart(changes: tuple[Change, ...]) -> bool:
    """True if no two changes touch the same words."""
    spans = sorted((c.start, c.end) for c in changes)
    return all(a_end <= b_start for (_, a_end), (b_start, _) in itertools.pairwise(spans))


def _keeps_content(tokens: list[str], changes: tuple[Change, ...]) -> bool:
    """True if a word that carries meaning is left as heard: a reading may mend a sentence, not replace it."""
    # NOTE: "what is data" read as "what is date" changed the only word that meant anything.
    changed = {i for c in changes for i in range(c.start, c.end)}
    return any(i not in changed and token not in FUNCTION_WORDS for i, token in enumerate(tokens))


def _apply(tokens: list[str], changes: tuple[Change, ...]) -> list[str]:
    out = list(tokens)
    for c in sorted(changes, key=lambda c: -c.start):  # from the end, so earlier spans keep their places
        out[c.start : c.end] = c.words
    return out


def _changes(tokens: list[str], vocabulary: frozenset[str]) -> Iterator[Change]:
    """Every single change worth trying."""
    for i, token in enumerate(tokens):
        for meant in ARTICLES.get(token, ()):
            yield Change(ARTICLE, i, i + 1, (meant,))
        # NOTE: never the last word ("can you spell that" is not "spell at").
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token in BEFORE_A_LENGTH:
            following = tokens[i + 2] if following == "for" and i + 2 < len(tokens) else ""
        if following and (
            token not in BEFORE_A_NUMBER | BEFORE_A_LENGTH or following[0].isdigit() or following in NUMBER_WORDS
        ):
            for meant in SLIPS.get(token, ()):
                yield Change(SLIP, i, i + 1, (meant,))
        if token not in vocabulary:
            # NOTE: never a number word beside a number: "50 cents times 3" read as "50 six times 3" was 168.
            beside = [t for t in tokens[i - 1 : i] + tokens[i + 1 : i + 2] if t[:1].isdigit() or t in NUMBER_WORDS]
            for meant, cost in sounds_like(token, vocabulary):
                if not (beside and meant in NUMBER_WORDS):
                    yield Change(cost, i, i + 1, (meant,))
        # NOTE: two words run together only when one is no template's ("can solve" -> "cancel"): two words the
        # templates both use were heard as said ("set one" is not "stop", "of three" is not "over").
        pair = tokens[i : i + 2]
        if len(pair) == 2 and not (pair[0] in vocabulary and pair[1] in vocabulary):
            for meant, cost in sounds_like(" ".join(pair), vocabulary):
                yield Change(cost, i, i + 2, (meant,))
        if token.isalpha() and len(token) > 3 and token not in UNIT_WORDS:
            # NOTE: "what's my alarms", "five cube": the recogniser's ear for a final s is poor. Units keep theirs:
            # pint reads them either way, and "degree" (of a circle) is not "degrees" (of heat).
            other = token[:-1] if token.endswith("s") else token + ("d" if token.endswith("e") else "s")
            if other in vocabulary and other not in FUNCTION_WORDS:
                yield Change(ENDING, i, i + 1, (other,))
        if i and token == tokens[i - 1]:
            yield Change(ENDING, i, i + 1, ())  # "quieter quieter": a word heard twice
        if re.fullmatch(r"[1-9]00 and [1-9]\d?", " ".join(tokens[i : i + 3])):
            # "100 and 80": how a recogniser writes "one hundred and eighty"
            yield Change(NUMBER, i, i + 3, (str(int(token) + int(tokens[i + 2])),))
    for opening in OPENINGS:
        # NOTE: two words must be left: "and mute" may well have been "unmute".
        if tokens[: len(opening)] == opening and len(tokens) > len(opening) + 1:
            yield Change(FILLER, 0, len(opening), ())


@functools.lru_cache(maxsize=4096)
def sounds_like(heard: str, vocabulary: frozenset[str]) -> tuple[tuple[str, float], ...]:
    """Words of `vocabulary` that sound like `heard` (a word, or two run together), each with its cost."""
    if not heard.replace(" ", "").isalpha():
        return ()
    parts = [phonemes(word) for word in heard.split()]
    sound: Sounds = tuple(p for part in parts if part for p in part) if all(parts) else heard.replace(" ", "")
    near = _index(vocabulary).near(sound)
    return tuple((word, SOUNDS_SAME + SOUNDS_NEAR * share) for word, share in near if word != heard)


@functools.cache
def _index(vocabulary: frozenset[str]) -> SoundIndex:
    # NOTE: no word is read as a small one ("a hurricane" as "ok"): that would be dropping it, and the slips
    # between small words are the known ones above.
    return SoundIndex(vocabulary - FUNCTION_WORDS)
