"""A decoder's loops cut from its transcript: a sentence begun again, a phrase said over and over."""

from __future__ import annotations

import re
from typing import Final

LOOPED_PHRASE_WORDS: Final = 12
"""The longest phrase said again and again in a row that is taken for a decoding loop and kept once."""
# NOTE: Whisper base looped a whole unpunctuated question on 2 of 672 tune clips ("Wake me up at 6 in the morning
# Wake me up at 6 in the morning Wake me up at 6 in"), 28 of its 575 word errors; no question repeats 7-12 words.


def without_restart(text: str) -> str:
    """Cut a second sentence that starts the first one again (the decoder's way of looping on a short window)."""
    sentences = re.split(r"(?<=[.?!])\s+", text)
    opening = re.sub(r"[^a-z ]", "", sentences[0].lower()).split()
    first = set(opening)
    for i, sentence in enumerate(sentences[1:], 1):
        words = re.sub(r"[^a-z ]", "", sentence.lower()).split()
        again = len(words) >= 2 and opening[: len(words)] == words  # it began the first sentence once more
        if first and (again or len(set(words) & first) >= 0.6 * len(first)):
            return " ".join(sentences[:i])
    return without_repeats(text)


def without_repeats(text: str) -> str:
    """Say a phrase the decoder looped on once ("come again, come again, come again, come" -> "come again,").

    A phrase of two to LOOPED_PHRASE_WORDS words said twice or more in a row, or a word said three times, is kept
    once; a trailing part of one more repetition is dropped too.
    """
    tokens = text.split()
    bare = [re.sub(r"[^a-z0-9']", "", t.lower()) for t in tokens]
    kept: list[str] = []
    i = 0
    while i < len(tokens):
        for n in range(1, LOOPED_PHRASE_WORDS + 1):  # the shortest looped phrase: "a b a b a b" is "a b" three times
            gram = bare[i : i + n]
            j = i + n
            while len(gram) == n and bare[j : j + n] == gram:
                j += n
            repeats = (j - i) // n
            if repeats >= (3 if n == 1 else 2):
                tail = bare[j : j + n]
                if tail and j + len(tail) == len(bare) and gram[: len(tail)] == tail:
                    j = len(bare)  # the start of one more repetition, cut off by the end of the audio
                kept += tokens[i : i + n]
                i = j
                break
        else:
            kept.append(tokens[i])
            i += 1
    return " ".join(kept)


def looped(text: str) -> bool:
    """True for a transcript that mostly repeats itself ("what is what is what is")."""
    words = text.lower().split()
    return len(words) >= 3 and len(set(words)) <= len(words) / 2
