"""Cut a stream of generated text into sentences the voice can start on while the model keeps writing."""

from __future__ import annotations

import re
from typing import Final

ABBREVIATIONS: Final = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "jr",
        "sr",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "a.m",
        "p.m",
        "u.s",
        "u.k",
        "no",
        "approx",
        "fig",
        "dept",
        "est",
        "inc",
        "ltd",
        "co",
        "mt",
    ]
)
MAX_SENTENCE_CHARS: Final = 160
"""A run of text without an end mark is spoken once it grows this long, cut at a comma or space."""
FIRST_CLAUSE_MIN_WORDS: Final = 6
"""The first sentence may be cut at a comma after this many words, so the voice starts sooner."""

_END: Final = re.compile(r"([.!?…]+[\"')\]]*)(\s+)")
_LIST_ITEM: Final = re.compile(r"\n\s*(?:[-*•]|\d+[.)])\s+")


class SentenceSplitter:
    """Feed text pieces in, get whole sentences out as soon as they are complete."""

    def __init__(self, max_chars: int = MAX_SENTENCE_CHARS, eager_first: bool = True) -> None:
        self._buf = ""
        self._max = max_chars
        self._eager = eager_first
        self._emitted = 0

    def _is_boundary(self, text: str, end: int) -> bool:
        """True if the end mark just before `end` closes a sentence (not an abbreviation or initial)."""
        word = re.search(r"(\S+)$", text[:end])
        token = word.group(1).rstrip(".!?…\"')]").lower() if word else ""
        if text[end - 1] == "." and (token in ABBREVIATIONS or re.fullmatch(r"[a-z]", token)):
            return False
        following = text[end:].lstrip()
        # "3. 5" or "e.g. the" continue; a new sentence starts with a capital, digit, quote or list mark.
        return not following or not following[0].islower()

    def _take(self, upto: int) -> str:
        sentence, self._buf = self._buf[:upto].strip(), self._buf[upto:]
        return sentence

    def feed(self, piece: str) -> list[str]:
        """Add generated text; return the sentences it completed."""
        self._buf += piece
        out: list[str] = []
        while True:
            sentence = self._next()
            if sentence is None:
                return out
            if sentence:
                out.append(sentence)
                self._emitted += 1

    def _next(self) -> str | None:
        text = self._buf
        item = _LIST_ITEM.search(text)
        for match in _END.finditer(text):
            if item and item.start() < match.start():
                break
            if self._is_boundary(text, match.end(1)):
                return self._take(match.end(1))
        if item:
            return self._take(item.start()) if item.start() > 0 else self._drop(item.end())
        if "\n\n" in text:
            return self._take(text.index("\n\n") + 1)
        if self._eager and self._emitted == 0:
            for comma in re.finditer(r"[,;:] ", text):
                if len(text[: comma.start()].split()) >= FIRST_CLAUSE_MIN_WORDS:
                    return self._take(comma.start() + 1)
        if len(text) > self._max:
            cut = max(text.rfind(", ", 0, self._max), text.rfind("; ", 0, self._max))
            cut = cut + 1 if cut > self._max // 3 else text.rfind(" ", 0, self._max)
            return self._take(cut if cut > 0 else self._max)
        return None

    def _drop(self, upto: int) -> str:
        """Discard a list marker at the start of the buffer."""
        self._buf = self._buf[upto:]
        return ""

    def flush(self) -> str:
        """The unfinished remainder, once generation has ended."""
        rest, self._buf = self._buf.strip(), ""
        return rest
