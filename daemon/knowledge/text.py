"""Words, titles and sentences, normalised the same way when the index is built and when a question is looked up."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

MAX_PASSAGE_CHARS: Final = 300
"""About 60 tokens: a hint for a small model, not a lecture that crowds out the conversation."""
MIN_SENTENCE_WORDS: Final = 4
"""A piece of fewer words ends in a full stop that belongs to a title or a name, not to a sentence."""
LEAD_SENTENCES: Final = 8
"""Sentences of each lead kept in the index to choose a passage from."""


def word_set(text: str) -> frozenset[str]:
    """The words of `text` (a list of words written as one string) as a set."""
    return frozenset(text.split())


_WORD: Final = re.compile(r"[a-z0-9]+")
_PARENTHESIS: Final = re.compile(r"\s*\([^)]*\)\s*$")
_ARTICLES: Final = ("the", "a", "an")
_SUFFIXES: Final = ("jr", "sr")
_ROMAN: Final = {"i": ("one", "first"), "ii": ("two", "second"), "iii": ("three", "third"), "iv": ("four", "fourth"),
                 "v": ("five", "fifth"), "vi": ("six", "sixth"), "vii": ("seven", "seventh"),
                 "viii": ("eight", "eighth")}  # fmt: skip
# NOTE: a full stop after these (or after a lone capital, an initial) does not end a sentence.
_ABBREVIATIONS: Final = word_set(
    "c ca st mr mrs ms dr jr sr no vs etc e g i approx est fl lit mt ft inc co ltd gen col lt sgt u s b d r"
)
_SENTENCE_END: Final = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def fold(text: str) -> str:
    """Lower case without accents, apostrophes dropped ("Valentine's" -> "valentines"), ampersand as "and"."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return re.sub(r"['\u2019`]", "", text).replace("&", " and ")


def words(text: str) -> list[str]:
    """The folded words of `text`; hyphens and other punctuation separate words."""
    return _WORD.findall(fold(text))


def singular(word: str) -> str:
    """A plural noun's likely singular ("volcanoes" -> "volcano", "hearts" -> "heart"); other words as they are."""
    if len(word) <= 3 or word.endswith(("ss", "us", "is", "ous")):
        return word
    for plural, one in (("ies", "y"), ("ves", "f"), ("oes", "o"), ("sses", "ss"), ("xes", "x"), ("ches", "ch")):
        if word.endswith(plural):
            return word[: -len(plural)] + one
    if word.endswith("shes"):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def aliases(title: str) -> set[str]:
    """The ways a question names the article `title`: its words, also without a (disambiguation), a leading article
    or a Jr., and a closing Roman numeral said as a number ("World War Two", "Elizabeth the Second")."""
    forms = {title, _PARENTHESIS.sub("", title)}
    names = set()
    for form in forms:
        w = words(form)
        if w and w[0] in _ARTICLES and len(w) > 1:
            names.add(" ".join(w))  # "A Christmas Carol", said whole, is not the song "Christmas carol"
            w = w[1:]
        if len(w) > 2 and w[-1] in _SUFFIXES:  # "Martin Luther King Jr." is asked about as Martin Luther King
            names.add(" ".join(w[:-1]))
        if w:
            names.add(" ".join(w))
        if len(w) > 1 and w[-1] in _ROMAN:  # "World War II" is said "World War Two"; "Elizabeth II", "the Second"
            number, ordinal = _ROMAN[w[-1]]
            names |= {" ".join((*w[:-1], number)), " ".join((*w[:-1], "the", ordinal))}
            if len(w) > 2:  # "World War II" is also the Second World War
                names.add(" ".join((ordinal, *w[:-1])))
    return names


def sentences(extract: str, limit: int = LEAD_SENTENCES) -> list[str]:
    """The first `limit` sentences of a lead paragraph."""
    found, start, piece = [], 0, 0
    for end in _SENTENCE_END.finditer(extract):
        last = extract[start : end.start()].rsplit(None, 1)[-1].rstrip(".").lower() if end.start() > start else ""
        if last.split(".")[-1] in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue
        short = len(extract[piece : end.start()].split()) < MIN_SENTENCE_WORDS
        piece = end.end()
        if short:  # "A Christmas Carol. In Prose. Being a Ghost Story of Christmas, ... is a novella"
            continue
        found.append(extract[start : end.start() + 1].strip())
        start = end.end()
        if len(found) == limit:
            return found
    if tail := extract[start:].strip():
        found.append(tail)
    return found[:limit]


def bounded(text: str, limit: int = MAX_PASSAGE_CHARS) -> str:
    """`text` cut to `limit` characters at a word boundary, marked with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"
