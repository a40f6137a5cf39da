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
MAX_SENTENCE_CHARS: Final = 100
"""A run of text without an end mark is spoken once it grows this long, cut at a comma or space."""
# NOTE: Piper's memory grows with the audio of one synthesis (~20 MB per second at 22 kHz) and onnxruntime's
# arena keeps the largest: over seven answers, cutting at 100 instead of 160 characters (~5.5 s instead of
# ~8.5 s of speech) lowered the peak RSS from ~634 to ~584 MB. Most spoken sentences are shorter anyway.
LONGEST_SENTENCE: Final = (
    "Summer comes when your half of the Earth leans towards the Sun and its light falls more steeply."
)
"""As long as a piece of text the splitter passes to the voice gets."""
LONG_NUMBERS: Final = (
    "It is 123456789012 or 234567890123 or 345678901234 or 456789012345 or 567890123456 or 678901234567."
)
"""As many characters, but read out as 36 s of speech: the voice cuts it into runs of bounded length."""
FIRST_CLAUSE_MIN_WORDS: Final = 3
"""The first sentence may be cut at a comma, semicolon or colon after this many words, so the voice starts sooner."""
FIRST_CLAUSE_MIN_WORDS_AT_CONJUNCTION: Final = 4
"""... or before a word that opens a clause or a phrase ("because", "which", "and", "for", "to", ...) after this many.

NOTE: the voice synthesizes a chunk whole before it plays any of it, so the first chunk's length is paid in full
before the first sound, and every token of it first: at a Pi 5's ~10 tokens/s the median first chunk of 11 tokens
cost 1.1 s before any sound. Words that open a phrase let a long first sentence start after three to six words;
"of" is not one ("the capital | of France" is no phrase to stop at). A clause cut before a word ends in a comma, as a
sentence going on does (Piper's phonemes carry it): it was given a full stop, "Vaccines work by introducing a
weakened.", as if the answer ended there. "and" and "or" join words more often than clauses, but not cutting before
them left first chunks of a whole sentence (14 tokens, ~1 s more here before the first sound). "that" is not one
either: it is as often the word a refusal goes on with ("Sorry, I can't know, | that offline.", "I can't provide, |
that information."); without it the 1.5B's first chunks of its 731 typed answers of docs/answers.md grew by 0.2
tokens on average (the median alike, 12).
"""
_ANSWER_WORD: Final = re.compile(r"(?:yes|no),(?= )", re.IGNORECASE)
"""An answer's first word that answers a yes-or-no question: spoken on its own, as the first chunk.

NOTE: it is the answer, and the rest of the sentence only backs it up: "No, the heart is on the left side of the body."
waited for its 12 tokens (~0.5 s on one core beside the recogniser's final pass) before the first sound. Other short
openings are not cut ("Sorry," or "Well," alone says nothing yet).
"""
SHORT_TOKEN_CHARS: Final = 4
"""A period after a word this short, followed by a lower-case word, may be an unknown abbreviation ("vol. two")."""

_END: Final = re.compile(r"([.!?…]+[\"')\]]*)(\s+)")
_CLAUSE: Final = re.compile(
    r"[,;:] |\s(?=(?:because|which|where|when|while|but|although|since|whereas|and|so|or|with|if|as|for|to|by"
    r"|from|during|after|before|until|without|through)\s)",
    re.IGNORECASE,
)
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
        # "e.g. the" or "vol. two" continue; a new sentence starts with a capital, digit, quote or list mark,
        # except that a small model answering a lower-case transcript often writes "properly. it helps".
        if not following:
            return False  # the next token decides (it usually brings its own leading space); flush() ends it
        if not following[0].islower():
            return True
        return text[end - 1] != "." or (len(token) > SHORT_TOKEN_CHARS and token.isalpha())

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
                end = match.end(1)
                # NOTE: a reply that comes whole (a skill's) is cut where the same words streamed would have been.
                clause = _first_clause(text[:end]) if self._eager and self._emitted == 0 else 0
                return self._take_clause(clause) if clause else self._take(end)
        if item:
            return self._take(item.start()) if item.start() > 0 else self._drop(item.end())
        if "\n\n" in text:
            return self._take(text.index("\n\n") + 1)
        if self._eager and self._emitted == 0 and (cut := _first_clause(text)):
            return self._take_clause(cut)
        if len(text) > self._max:
            cut = max(text.rfind(", ", 0, self._max), text.rfind("; ", 0, self._max))
            cut = cut + 1 if cut > self._max // 3 else text.rfind(" ", 0, self._max)
            return self._take(cut if cut > 0 else self._max)
        return None

    def _take_clause(self, upto: int) -> str:
        """The first clause, ending in a comma if it was cut before a word: the sentence goes on."""
        clause = self._take(upto)
        return clause if clause[-1] in ",;:" else f"{clause},"

    def _drop(self, upto: int) -> str:
        """Discard a list marker at the start of the buffer."""
        self._buf = self._buf[upto:]
        return ""

    def flush(self) -> str:
        """The unfinished remainder, once generation has ended."""
        rest, self._buf = self._buf.strip(), ""
        return rest


def _first_clause(text: str) -> int:
    """Where the first clause of an answer may be cut off for the voice, or 0 if it may not be yet."""
    if answer := _ANSWER_WORD.match(text):
        return answer.end()
    for match in _CLAUSE.finditer(text):
        punctuation = not match.group().isspace()
        need = FIRST_CLAUSE_MIN_WORDS if punctuation else FIRST_CLAUSE_MIN_WORDS_AT_CONJUNCTION
        if len(text[: match.start()].split()) >= need:
            return match.start() + 1 if punctuation else match.start()
    return 0
