"""How words sound: their phonemes from the CMU pronouncing dictionary the PocketSphinx wheel ships, and how near."""

from __future__ import annotations

import functools
import logging
import math
import mmap
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Final

_LOGGER = logging.getLogger(__name__)

Phonemes = tuple[str, ...]
Sounds = Phonemes | str
"""Phonemes, or a spelling where the dictionary has no entry."""


def words(text: str) -> frozenset[str]:
    """The words of a text, as a set (for word lists written as prose)."""
    return frozenset(text.split())


VOWELS: Final = words("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW")
NEAR_CONSONANTS: Final = (
    frozenset({"P", "B"}),
    frozenset({"T", "D"}),
    frozenset({"K", "G"}),
    frozenset({"P", "T", "K"}),
    frozenset({"B", "D", "G"}),
    frozenset({"F", "V", "TH"}),
    frozenset({"TH", "DH"}),
    frozenset({"S", "Z"}),
    frozenset({"S", "SH"}),
    frozenset({"SH", "ZH"}),
    frozenset({"CH", "JH"}),
    frozenset({"M", "N", "NG"}),
    frozenset({"R", "ER"}),
    frozenset({"L", "R"}),
)
"""Consonants a recogniser takes for one another: voicing pairs, stops, fricatives, nasals, liquids."""
NEAR: Final = 0.5
"""Cost of one vowel for another, or of a consonant for a near one (the rest cost 1)."""
SOUND_SHARE: Final = 0.4
"""Two words sound alike when their phonemes differ by at most this share of the longer ("save" for "say": 1 of 3,
"to nay" for "today": 1.5 of 4); 0.34 missed "to nay" on the tune half, 0.45 read "a hurricane" as "okay"."""
SPELT_SHARE: Final = 0.25
"""Two words the dictionary lacks are alike when spelt this near ("blist" for "list"): letters say less than sounds."""
SHORTEST: Final = 3
"""Phonemes (or letters) the longer of two words needs for one to be read as the other: "sea" and "so" are too
short to tell apart, "save" and "say" are not."""
WEAK: Final = frozenset({"AH", "HH"})
"""Sounds so slight they are easily heard or lost (a schwa, an h): half the cost to add or drop."""


@functools.cache
def _dictionary() -> Path | None:
    """The CMU pronouncing dictionary inside the PocketSphinx wheel (a dependency of the box), if installed."""
    try:
        path = Path(str(resources.files("pocketsphinx").joinpath("model/en-us/cmudict-en-us.dict")))
    except ModuleNotFoundError:
        path = None
    if path is None or not path.is_file():
        _LOGGER.warning("no pronouncing dictionary: misheard words are read by their spelling alone")
        return None
    return path


@functools.lru_cache(maxsize=8192)
def phonemes(word: str) -> Phonemes | None:
    """The first pronunciation of a lower-case `word` ("wait" -> W EY T), or None if the dictionary lacks it."""
    path = _dictionary()
    if path is None or not word or " " in word:
        return None
    # NOTE: the dictionary is sorted by word, so a binary search over its bytes finds a word without holding its
    # 135,000 lines in memory (~19 MB as a dict).
    key = word.encode("utf-8") + b" "
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        low, high = 0, len(data)
        while low < high:
            middle = (low + high) // 2
            start = data.rfind(b"\n", 0, middle) + 1
            end = data.find(b"\n", start)
            line = data[start : end if end >= 0 else len(data)]
            if line.startswith(key):
                return tuple(line[len(key) :].decode("ascii").split())
            if line < key:
                low = (end if end >= 0 else len(data)) + 1
            else:
                high = start
    return None


_NEAR_PAIRS: Final = frozenset(
    (a, b) for group in (VOWELS, *NEAR_CONSONANTS, frozenset("aeiouy")) for a in group for b in group
)


def _substitution(a: str, b: str) -> float:
    if a == b:
        return 0.0
    return NEAR if (a, b) in _NEAR_PAIRS else 1.0


def _indel(sound: str) -> float:
    return NEAR if sound in WEAK else 1.0


def distance(a: Sounds, b: Sounds, within: float = math.inf) -> float:
    """Weighted edit distance between two phoneme sequences (or two spellings, letter by letter); inf past `within`."""
    previous = [0.0]
    for y in b:
        previous.append(previous[-1] + _indel(y))
    for x in a:
        row = [previous[0] + _indel(x)]
        for j, y in enumerate(b, 1):
            row.append(min(previous[j] + _indel(x), row[j - 1] + _indel(y), previous[j - 1] + _substitution(x, y)))
        if min(row) > within:
            return math.inf  # every path is already too far
        previous = row
    return previous[-1] if previous[-1] <= within else math.inf


def opening(sound: Sounds) -> str:
    """The class of a word's first sound: heard right far more often than the rest (a vowel, or a consonant group)."""
    if not sound:
        return ""
    first = sound[0]
    if first in VOWELS or first in ("a", "e", "i", "o", "u"):
        return "vowel"
    return min((min(g) for g in NEAR_CONSONANTS if first in g), default=first)


class SoundIndex:
    """Words findable by how they sound: those a recogniser may have meant when it wrote another."""

    def __init__(self, words: Iterable[str]) -> None:
        self._by_opening: dict[tuple[bool, str], list[tuple[str, Sounds]]] = {}
        for word in sorted(words):
            # NOTE: each word by its phonemes and by its letters: a heard word the dictionary lacks ("blist") is
            # compared letter by letter, never letters against phonemes.
            for sound in {phonemes(word) or word, word}:
                if len(sound) >= 2:
                    self._by_opening.setdefault((isinstance(sound, str), opening(sound)), []).append((word, sound))

    def near(self, heard: Sounds) -> list[tuple[str, float]]:
        """Words sounding like `heard`, with their distance as a share of the longer sequence (within the limit)."""
        if len(heard) < 2:
            return []
        spelt = isinstance(heard, str)
        share = SPELT_SHARE if spelt else SOUND_SHARE
        found = []
        for word, sound in self._by_opening.get((spelt, opening(heard)), []):
            longer = max(len(sound), len(heard))
            if longer < SHORTEST or NEAR * abs(len(sound) - len(heard)) > share * longer:
                continue  # too short to tell, or too many sounds more or fewer
            apart = distance(heard, sound, within=share * longer)
            if apart < math.inf:
                found.append((word, apart / longer))
        return found
