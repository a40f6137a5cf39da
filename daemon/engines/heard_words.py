"""The words of a hearing: bare, compared with another hearing's (a guess that only adds words before or after
what was heard, a last sentence that only begins a correction), and spread over the audio."""

from __future__ import annotations

import re
from typing import Final

from daemon import corrections
from daemon.ports import Word

_LEFT_HANGING: Final = re.compile(rf"[.?!,] (?:(?:{'|'.join(corrections.PAUSING + corrections.MARKERS)}) )+$")
"""A transcript's last sentence that only begins to correct the one before ("... in the morning. No wait.")."""
# NOTE: Whisper, told to write no timestamps, sometimes ends the transcript there: "Set an alarm for seven. Sorry."
# (Piper, 0.6-0.8 s before "Eight."; "... no wait, half past six" as Piper said it 2 of 3 times), and the box acted
# on the first value. Told to write timestamps, it goes on to the next sentence; asked so only then, or when the quick
# decode of the same audio heard more (0.32 s more at the median, on 43 of 798 clips of corrections and remarks).


def left_hanging(text: str) -> bool:
    """Whether a transcript's last sentence only begins to correct the one before it."""
    return _LEFT_HANGING.search(text.lower().rstrip(".?!, ") + " ") is not None


def bare(text: str) -> tuple[str, ...]:
    """A transcript's words, lower case, without punctuation."""
    return tuple(re.findall(r"[a-z0-9']+", text.lower()))


def adds_to(heard: tuple[str, ...], guess: tuple[str, ...]) -> bool:
    """Whether `guess` is what was heard said again, or with words put before all of it: a language model favours
    a question's usual opening ("What is the baby asleep?") over what was said."""
    if len(heard) > 1 and len(guess) >= 1.5 * len(heard):
        return True
    return len(guess) > len(heard) and guess[len(guess) - len(heard) :] == heard


def adds_words(heard: tuple[str, ...], more: tuple[str, ...]) -> bool:
    """Whether `more` is all of `heard` and other words after it."""
    # NOTE: a last word said again is the decoder's ("Wake me up at 7, no wait. 8. 8."), not more words heard; a quick
    # decode's loop ("What time is it? What time is it?") would cost a decode for nothing.
    added = more[len(heard) :]
    return bool(added) and more[: len(heard)] == heard and added != heard[-len(added) :]


def spread(text: str, seconds: float) -> tuple[Word, ...]:
    """The bare words of a transcript, each given a share of the audio by its length (Whisper gives no times)."""
    said = bare(text)
    total = sum(len(w) + 1 for w in said) or 1
    words, at = [], 0.0
    for word in said:
        share = seconds * (len(word) + 1) / total
        words.append(Word(word, round(at, 3), round(at + share, 3), 1.0))
        at += share
    return tuple(words)
