"""Numbers, durations and volume levels in what a recogniser writes ("one and a half hours", "fifty percent")."""

from __future__ import annotations

import re
from typing import Final

from ovos_number_parser import numbers_to_digits

from daemon.skills.reminders import MAX_TIMER_S, MIN_TIMER_S

_UNIT_S: Final = {
    "second": 1,
    "sec": 1,
    "minute": 60,
    "min": 60,
    "hour": 3600,
    "hr": 3600,
    "day": 86400,
    "week": 7 * 86400,
    "month": 30 * 86400,
    "year": 365 * 86400,
}
_NUMBER: Final = r"-?\d+(?:\.\d+)?"
_FILLERS: Final = (
    "please", "thanks", "thank you", "for me", "now", "right now", "okay", "ok", "would you", "if you would",
    "if you don't mind",
)  # fmt: skip


def digits(text: str) -> str:
    """`text` lower-cased with its number words written as digits ("twenty five" -> "25")."""
    # NOTE: "a"/"an" before a unit is one of it; the parser leaves "a minute" and "an hour" as words.
    text = re.sub(r"(?<=[a-z0-9])-(?=[a-z])", " ", text.lower().replace(",", ""))  # "twenty-five", "10-minute"
    text = re.sub(r"\b(?:an?|one)\s+(half|quarter)\b", r"one \1", text)
    text = re.sub(r"\bn[ao]ught\b", "zero", text)  # "seven divided by nought" was the model's guess
    out = numbers_to_digits(text, "en")
    out = re.sub(r"\ban?\s+(?=(?:second|sec|minute|min|hour|hr|day|week|month|year)s?\b)", "1 ", out)
    out = re.sub(r"\ban?\s+(?=\d)", "", out)  # "a 100" was "a hundred"
    return re.sub(r"\s+", " ", out).strip()


def strip_leading_fillers(text: str) -> str:
    """`text` without the fillers that open it ("hey pasta" -> "pasta", "uh one for eight minutes" -> "one for …")."""
    return _LEADING_FILLERS.sub("", text)


_LEADING_FILLERS: Final = re.compile(r"^(?:(?:hey|um|uh|er|erm|okay|ok|so|right|oh|and|please|then)\s+)+")


def slot_text(values: dict[str, object], name: str) -> str:
    """A slot's words as matched, without the politeness a trailing wildcard swallowed."""
    return strip_fillers(str(values.get(name) or ""))


def strip_fillers(text: str) -> str:
    """Politeness a trailing wildcard swallowed ("eggs please" -> "eggs")."""
    words = text.strip(" .,!?").split()
    changed = True
    while words and changed:
        changed = False
        for filler in _FILLERS:
            n = len(filler.split())
            if " ".join(words[-n:]) == filler:
                words, changed = words[:-n], True
    return " ".join(words)


def parse_number(text: str) -> float | None:
    """The one number `text` says ("seventy", "2.5", "a hundred"), or None when it says none or several."""
    found = re.findall(_NUMBER, digits(text))
    return float(found[0]) if len(found) == 1 else None


def parse_operand(text: str) -> float | None:
    """The number `text` says and nothing more but politeness ("twenty", "3 please"), else None: "20 vision" is no
    operand of a sum."""
    said = digits(strip_fillers(text))
    return float(said) if re.fullmatch(_NUMBER, said) else None


def parse_whole(text: str) -> int | None:
    """The one whole number `text` says ("ninety one", "-7"), or None."""
    value = parse_number(text)
    return int(value) if value is not None and value == int(value) else None


def parse_duration(text: str) -> int | None:
    """Seconds in a spoken duration ("ten minutes", "an hour and a half", "1 hour 30 minutes"), or None."""
    seconds = read_duration(text)
    return seconds if seconds is not None and MIN_TIMER_S <= seconds <= MAX_TIMER_S else None


def read_duration(text: str) -> int | None:
    """Seconds in what `text` says as a duration, however long, zero or negative ("minus 5 minutes"), or None."""
    said = digits(text)
    # NOTE: fractions of a unit become a number before it: "half an hour", "a quarter of an hour" -> "0.5 hour",
    # "an hour and a half" -> "1 hour 0.5 hour".
    said = re.sub(r"\b(?:half|0\.5)\s+(?:of\s+)?(?:an?\s+|1\s+)?(minute|hour)", r"0.5 \1", said)
    said = re.sub(r"\b(?:quarter|0\.25)\s+(?:of\s+)?(?:an?\s+|1\s+)?(minute|hour)", r"0.25 \1", said)
    said = re.sub(r"\b(minute|hour)s?\s+and\s+(?:a\s+|1\s+)?(?:half|0\.5)\b", r"\1 0.5 \1", said)
    said = re.sub(r"\b(minute|hour)s?\s+and\s+(?:a\s+|1\s+)?(?:quarter|0\.25)\b", r"\1 0.25 \1", said)
    # NOTE: "an hour forty five", "two minutes thirty": the last number after a length is of the next smaller unit
    # (a timer for "one hour forty five" ran an hour, named "forty five").
    said = _NEXT_UNIT_LEFT_UNSAID.sub(lambda m: f"{m[1]} {m[2]} {_SMALLER[m[1].rstrip('s')]}", said)
    unit = rf"({_NUMBER})\s*({'|'.join(_UNIT_S)})s?\b"
    found = re.findall(unit, said)
    # NOTE: strict: words left over mean the slot held more than a duration ("3 minutes for the tea").
    rest = re.sub(rf"{unit}|\b(and|long|in|for|of|exactly|about|please)\b|-", " ", said).split()
    if not found or rest:
        return None
    return round(sum(float(number) * _UNIT_S[name] for number, name in found))


_SMALLER: Final = {"hour": "minute", "hr": "minute", "minute": "second", "min": "second"}
_NEXT_UNIT_LEFT_UNSAID: Final = re.compile(r"\b(hours?|hrs?|minutes?|mins?)\s+([1-5]?\d)\s*$")
"""A length's last number said without its unit, the next smaller one ("1 hour 45", "2 minutes 30"); not after "and",
which may begin another timer ("two timers for 5 minutes and 10")."""


_ONE_MORE: Final = (
    r"(?:another|one more|the other|(?:the|an?) (?:second|2nd|third|3rd)(?=\s+(?:one|timer)\b)"
    r"|(?:one|a|an)(?=\s+(?!(?:half|quarter|second|sec|minute|min|hour|hr|day|week)s?\b)))(?:\s+(?:one|timer))?"
)
"""A further timer named between two lengths ("… and another for 10", "… and a second one for 9", "… and a 10 minute
one"), not the article of a length ("… and an hour", "… and one hour")."""
_AND_ANOTHER: Final = re.compile(rf"\s+(?:and|then|plus)\s+{_ONE_MORE}(?:\s+(?:for|of|lasting))?\s+")
"""Between two lengths in a request for one timer: only a further one said ("5 minutes and one for 10"): "an hour
and a half", "1 hour and 30 minutes" are one length."""
_AND: Final = re.compile(
    rf"\s+(?:(?:and|then|plus)\s+)?(?:{_ONE_MORE}|1)\s+(?:for|of|lasting)\s+"
    rf"|\s+(?:and|then|plus)\s+(?!(?:a|an|one)\s+(?:half|quarter)\b)(?:{_ONE_MORE}\s+)?"
)
"""Between two lengths once several timers were asked for ("two timers, one for 5 minutes, one for 10")."""
_UNIT_SAID: Final = re.compile(rf"\b({'|'.join(_UNIT_S)})s?\b")
_A_LENGTH: Final = rf"{_NUMBER}\s*(?:{'|'.join(_UNIT_S)})s?\b"


def read_durations(text: str, several: bool = False) -> tuple[int, ...] | None:
    """The lengths of the timers `text` asks for at once ("5 minutes and another for 10"; "5 and 10 minutes" once
    `several` were asked for), or None unless it says two or more."""
    # NOTE: "one for 5 minutes and one for 10", "one 5 minutes and one 10 minutes"; "1 hour 30 minutes" is no "one".
    said = re.sub(rf"^(?:{_ONE_MORE}\s+(?:(?:for|of)\s+)?|1\s+(?:for|of)\s+)", "", text.lower())
    split = re.split(f"({(_AND if several else _AND_ANOTHER).pattern})", said)
    # NOTE: a bare number takes its unit from a length said after it ("5 and 10 minutes"), or before it only once
    # another timer was named ("10 minutes and one for 5"): "1 hour and 15" is no second timer of 15 hours.
    named = re.compile(rf"\b{_ONE_MORE}")
    parts = [(re.sub(r"\s+(?:one|timer)$", "", p), named.search(b) is not None) for b, p in _pairs(split)]
    pieces = [(piece, after_one) for part, after_one in parts for piece in _pieces(part, several)]
    found: list[int] = []
    for i, (piece, after_one) in enumerate(pieces):
        if re.fullmatch(_NUMBER, digits(piece)):
            before = [p for p, _ in pieces[:i][::-1]] if after_one else []
            units = [m[1] for other in [p for p, _ in pieces[i + 1 :]] + before if (m := _UNIT_SAID.search(other))]
            piece = f"{digits(piece)} {units[0]}" if units else piece
        seconds = read_duration(piece)
        if seconds is None:
            return None
        found.append(seconds)
    return tuple(found) if len(found) >= 2 else None


def _pairs(split: list[str]) -> list[tuple[str, str]]:
    """re.split's parts and separators as (the separator before, the part)."""
    return list(zip(["", *split[1::2]], split[::2], strict=True))


def _pieces(part: str, several: bool) -> list[str]:
    """`part` as lengths: once several timers were asked for, "5 minutes 10 minutes" and "5 10" are two."""
    if not several:
        return [part]
    said = digits(part)
    if re.fullmatch(rf"{_NUMBER}(?:\s+{_NUMBER})+", said):
        return said.split()
    split = re.split(rf"(?<=[a-z])\s+(?={_A_LENGTH})", said)
    return split if len(split) > 1 else [part]  # NOTE: digits() twice is lossy: "1 hour and 0.5" became "1.5"


def parse_volume(text: str) -> int | None:
    """A volume level 0-100 ("fifty percent", "7 out of 10", "max"); a bare number up to 10 is out of ten."""
    level = read_volume(text)
    return level if level is not None and 0 <= level <= 100 else None


def read_volume_step(text: str) -> int | None:
    """How far the volume is to move ("by 20", "3 notches": 30), or None: a bare number up to 10 is in tenths, but
    "by 10" is ten percent, since nobody asks for a step of the whole range as ten tenths."""
    step = read_volume(text)
    return 10 if step == 100 and digits(text).strip() == "10" else step


def read_volume(text: str) -> int | None:
    """The volume level `text` says, even one outside 0-100 ("five hundred percent", "minus 5"), or None."""
    said = digits(text)
    if re.search(r"\b(max|maximum|full|loudest)\b", said):
        return 100
    if re.search(r"\b(min|minimum|lowest|quietest)\b", said):
        return 10
    if re.fullmatch(r"(?:a |one )?half|0\.5", said):
        return 50  # "half volume"
    value = parse_number(re.sub(r"\bout of 10\b", "", said))
    if value is None:
        return None
    percent = "percent" in said or "%" in said
    tenths = re.search(r"\bout of 10\b", said) or (not percent and 0 <= value <= 10)
    level = round(value * 10 if tenths else value)
    # NOTE: a level out of range is only taken when nothing else was said ("volume 500 litres" is no level).
    plain = re.fullmatch(rf"(?:level\s+)?{_NUMBER}\s*(?:percent|%|out of 10)?", said)
    return level if 0 <= level <= 100 or plain else None


NUMBER_WORD: Final = (
    r"-?\d[\d.:]*|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty"
    r"|fifty|sixty|seventy|eighty|ninety|hundred|half|quarter|noon|midnight|midday|minus"
)
"""A word that says a number or starts one, as heard or in digits."""
_DURATION_START: Final = re.compile(rf"{NUMBER_WORD}|an?")
_DURATION_END: Final = re.compile(r"(?:second|sec|minute|min|hour|hr|day|week|month|year)s?|half|quarter")
MAX_DURATION_WORDS: Final = 10
"""The most words a duration takes ("1 hour 30 minute and 15 second")."""


def duration_in(said: str) -> tuple[int, str] | None:
    """The longest run of words saying a duration, in seconds, and the words around it; None if none says one."""
    words = said.split()
    # NOTE: a duration runs from a number (or "a", a half, a quarter) to a unit (or a half): only such runs are read,
    # as said (the number parser, run twice, reads "1 hour and 0.5" as 1.5).
    starts = [i for i, w in enumerate(words) if _DURATION_START.fullmatch(w)]
    ends = [i + 1 for i, w in enumerate(words) if _DURATION_END.fullmatch(w)]
    runs = sorted(((a, b) for a in starts for b in ends if a < b <= a + MAX_DURATION_WORDS), key=lambda r: r[0] - r[1])
    for start, end in runs:
        seconds = read_duration(" ".join(words[start:end]))
        if seconds is not None:
            return seconds, " ".join([*words[:start], "|", *words[end:]])
    return None
