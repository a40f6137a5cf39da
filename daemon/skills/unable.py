"""Requests the box has no means to do (play music, make a call, order, take a picture): what it says instead."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

MUSIC: Final = (
    "I can't play music, radio, podcasts or videos: I have none stored, and no internet connection to stream them."
)
CALLS: Final = (
    "I can't make calls or send messages: I have no phone line and no internet connection. "
    "I can remind you to, though: say, remind me in ten minutes to call mum."
)
LISTS: Final = "I can't keep lists yet. I can remind you of something, though: say, remind me at 5 pm to buy milk."
ORDERS: Final = (
    "I can't order, buy, book or pay for anything: I have no internet connection. "
    "I can remind you to, though: say, remind me at 5 pm to book a table."
)
PICTURES: Final = "I can't take, record or show pictures or videos: I have no camera, and my display only shows words."
DIRECTIONS: Final = "I can't give directions: I have no maps, and nothing tells me where I am."
GADGETS: Final = "I can't reach your phone or other gadgets: I'm connected only to my own microphone and speaker."
UPDATE: Final = (
    "I can't update myself: I have no internet connection. Flashing a newer talkbox image onto my SD card updates me."
)
LANGUAGES: Final = (
    "I speak only English: my voice is an English one. I can tell you how a phrase is said, though: ask, for "
    "example, how do you say thank you in French?"
)
REPLIES: Final = {
    "music": MUSIC,
    "calls": CALLS,
    "lists": LISTS,
    "orders": ORDERS,
    "pictures": PICTURES,
    "directions": DIRECTIONS,
    "gadgets": GADGETS,
    "update": UPDATE,
    "languages": LANGUAGES,
}
"""What the box says, by the `topic` of the TalkboxOffline templates that ask it (sentences.yaml)."""


def _is_language(said: str) -> bool:
    """True if `said` names a language other than English (ISO 639, through pycountry)."""
    import pycountry

    try:
        return str(pycountry.languages.lookup(said).name) != "English"
    except LookupError:
        return False


# NOTE: "play" takes any words after it ("play Bohemian Rhapsody"), so a game the model can play by talking ("play
# twenty questions with me", "let's play a game") stays the model's.
_GAMES: Final = re.compile(
    r"\b(games?|questions|quiz|trivia|riddles?|i spy|chess|draughts|checkers|cards|rock paper scissors|hangman|"
    r"tag|pretend|along|dead|fair|a joke|tricks?|a trick|with me|with us|hide and seek|hide-and-seek|peekaboo|"
    r"peek-a-boo|simon says|charades|would you rather|word association)\b"
)
_MUSIC: Final = re.compile(
    r"\b(music|songs?|tunes?|tracks?|playlists?|albums?|radio|station|podcasts?|audiobooks?|jazz|rock|pop|"
    r"classical|blues|reggae|rap|hip hop|country|folk|metal|soul|disco|techno|opera|lullab(y|ies)|carols|"
    r"white noise|noise|sounds)\b"
)
# NOTE: "call me Sam" names the user, "call it a day" is no call, "ring the alarm" is the box's own.
_NO_CALL: Final = re.compile(r"^(me|it|that|this|them|us|him|her|the alarm|the timer|the bell)\b(?! a (taxi|cab))")
_NO_ORDER: Final = re.compile(
    r"\b(numbers|words|letters|names|alphabetical(ly)?|smallest|largest|biggest|attention|respects?|tribute|"
    r"compliments?|time|forward|a visit)\b"
)
_NO_DIRECTIONS: Final = re.compile(r"\b(stars?|planets?|galaxy|galaxies|moon|sun|black hole|universe)\b")

_GUARDS: Final[dict[str, Callable[[str], bool]]] = {
    "language": _is_language,
    "media": lambda said: _GAMES.search(said) is None,
    "music": lambda said: _MUSIC.search(said) is not None,
    "person": lambda said: _NO_CALL.search(said) is None,
    "goods": lambda said: _NO_ORDER.search(said) is None,
    "destination": lambda said: _NO_DIRECTIONS.search(said) is None,
}
"""Per wildcard slot of these templates: whether the words it took still make the request one the box cannot do."""


def asks_it(slots: dict[str, object]) -> bool:
    """True if every wildcard slot of a cannot-do template holds words that make it that request, not a game, a
    name or a question the model can answer."""
    return all(check(str(slots[name]).strip().lower()) for name, check in _GUARDS.items() if name in slots)


def is_music(slot: str) -> bool:
    """True if a device command's "device" is music ("put on some jazz"): no device, and the box has none to play."""
    return _MUSIC.search(slot.strip().lower()) is not None
