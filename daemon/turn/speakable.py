"""Make model output fit to be read aloud: no markdown, emoji, code or URLs."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_CODE_BLOCK: Final = re.compile(r"```.*?(```|$)", re.DOTALL)
_INLINE_CODE: Final = re.compile(r"`([^`]*)`")
_LINK: Final = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL: Final = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
_HEADING: Final = re.compile(r"^\s{0,3}#{1,6}\s*", re.MULTILINE)
_BULLET: Final = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+", re.MULTILINE)
_QUOTE: Final = re.compile(r"^\s*>\s?", re.MULTILINE)
_RULE: Final = re.compile(r"^\s*(?:[-*_]\s*){3,}$", re.MULTILINE)
_EMPHASIS: Final = re.compile(r"(\*\*|\*|~~)(?=\S)(.+?)(?<=\S)\1|(?<!\w)(__|_)(?=\S)(.+?)(?<=\S)\3(?!\w)")
_TABLE_PIPE: Final = re.compile(r"\s*\|\s*")
_SPACES: Final = re.compile(r"[ \t]+")
_SPACE_BEFORE_PUNCT: Final = re.compile(r"\s+([.,!?;:])")
_EMOJI_CATEGORIES: Final = frozenset({"So", "Cs", "Co", "Cn"})
_KEEP_SYMBOLS: Final = frozenset("°©®™€£¥$%&+=<>")


def _drop_emoji(text: str) -> str:
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if (cat in _EMOJI_CATEGORIES and ch not in _KEEP_SYMBOLS) or ch in "\u200d\ufe0f\ufe0e":
            continue
        out.append(ch)
    return "".join(out)


def speakable(text: str) -> str:
    """Strip markdown, emoji, code and URLs, keeping the words a listener needs."""
    # NOTE: a first clause cut before a word ends in a comma: kept, it tells the voice the sentence goes on.
    going_on = text.rstrip().endswith(",")
    text = _CODE_BLOCK.sub(" ", text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _URL.sub("", text)
    text = _RULE.sub("", text)
    text = _HEADING.sub("", text)
    text = _QUOTE.sub("", text)
    # A list item becomes its own sentence so the voice pauses between items.
    text = _BULLET.sub("\n", text)
    for _ in range(2):  # nested emphasis, e.g. ***bold italic***
        text = _EMPHASIS.sub(lambda m: m.group(2) or m.group(4), text)
    text = _TABLE_PIPE.sub(", ", text)
    text = _drop_emoji(text)
    lines = [_SPACES.sub(" ", ln).strip(" ,") for ln in text.splitlines()]
    sentences = [ln if ln[-1] in ".!?:;," else ln + "." for ln in lines if ln]
    joined = " ".join(sentences)
    spoken = _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", joined)).strip()
    return f"{spoken[:-1]}," if going_on and spoken.endswith(".") else spoken
