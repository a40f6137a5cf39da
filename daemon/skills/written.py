"""A sentence as the matcher reads it: the recogniser's way of writing things (digits, symbols, punctuation, a name
it is addressed to) made plain."""

from __future__ import annotations

import re
from typing import Final


def normalise(text: str) -> str:
    """What the matcher reads: lower case, typographic quotes made plain, end punctuation dropped."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    # NOTE: a recogniser writes "three pounds" as "£3" (and "5 dollars" as "$5"): a weight or a sum of money.
    text = re.sub(r"£ ?(\d+(?:\.\d+)?)", r"\1 pounds", text)
    text = re.sub(r"\$ ?(\d+(?:\.\d+)?)", r"\1 dollars", text)
    # NOTE: Whisper writes a quick "for" before a number as "4" ("set an alarm 4 6 tomorrow morning" was set for 4).
    text = re.sub(r"\b(alarm|timer|reminder|up|me) 4 (?=\d)", r"\1 for ", text)
    # NOTE: or joined to the time after it ("set an alarm 4645mm on weekends" for six forty five): no hour is 46
    text = _FOR_JOINED.sub(r"\1 for \2", text)
    # NOTE: and "one" as "1" after "another" ("... and a second 1 for 15 minutes" was one timer named "second 1").
    text = _ANOTHER_ONE.sub(r"\1 one", text)
    # NOTE: and "a m" after a time as "mm" ("set an alarm for 6.45mm" was set for 6 PM): no length in a clock's words
    if _CLOCK_WORDS.search(text):
        text = _TIME_MM.sub(r"\1 am", text)
        # NOTE: and "three" before a time's minutes as "free" ("an alarm for free 20pm" was "20 pm isn't a time").
        text = _FREE_HOUR.sub("three ", text)
        # NOTE: and "quarter past two" as "quarter pass to" (an alarm for it was set for 3 pm): "past to" says no time
        text = re.sub(r"\b(quarter|half) pass(?:ed)?\b", r"\1 past", text)
        # NOTE: "No wait. Have past six." on the box's own mic; "Have passed six." heard again with timestamps
        text = _HAVE_PAST.sub("half past", text)
        text = re.sub(r"\b(quarter|half) past to\b", r"\1 past two", text)
    # NOTE: Whisper writes a name ending in s as a possessive now and then ("Is Mars' bigger than Earth?").
    text = re.sub(r"(?<=\ws)'(?=\s|$)", "", text)
    text = re.sub(r"\bun-(?=mute)", "un", text)  # "un-mute": one word to the templates
    # NOTE: a countdown is the timer ("cancel the countdown", "pause the countdown", read by meaning as "stop the
    # countdown", was cancelled): one word to every timer template. Not "a countdown from ten", which counts.
    text = re.sub(r"\b(the|my|a|that|this) count ?down\b(?! (?:from|to)\b)", r"\1 timer", text)
    # NOTE: "when's easter this year", "how's 'definitely' spelt": a template's "is" said short ("how long's left on
    # the pasta timer"). Not "who's" or "what's": templates say those as they are ("who's won", "what's the time").
    text = re.sub(r"\b(when|where|how|how long|how much)'s\b", r"\1 is", text)
    text = _QUOTED.sub("", text)  # "how do you spell 'rhythm'": the word, not its quotation marks
    text = re.sub(r"[!?;\"]", " ", text)
    text = re.sub(r"(?<!\d)[.,:](?!\d)", " ", text)  # keep "7.30", "7:30" and "2.5", drop sentence punctuation
    return _ADDRESS.sub("", " ".join(text.split()), count=1)


_QUOTED: Final = re.compile(r"(?:(?<=\s)|^)'(?=\w)|(?<=\w)'(?=\s|$)")
"""A single quotation mark at either end of a word (its possessive "s'" was read before)."""
_HAVE_PAST: Final = re.compile(
    r"\bhave pas(?:t|s|sed)(?= (?:\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midnight)\b)"
)
_ANOTHER_ONE: Final = re.compile(
    r"\b(another|second|other|third) 1\b(?! (?:second|minute|hour|day|week|month|year)s?\b)"
)
"""One more of something, its "one" written as a digit: not one more minute."""
_FOR_JOINED: Final = re.compile(r"\b(alarm|up|me) 4((?:[1-9]|1[0-2])[0-5]\d)(?=\s|$|mm\b| ?[ap]\.? ?m\b)")
"""A "for" written as a 4 joined to a time of three or four digits ("4645": for 6:45), which alone is no time."""
_CLOCK_WORDS: Final = re.compile(r"\b(?:alarm|wake|clock|time|remind)")
_TIME_MM: Final = re.compile(r"\b((?:[1-9]|1[0-2])[.:]?[0-5]\d) ?mm\b")
"""A time of the morning whose "a m" was written as millimetres."""
_FREE_HOUR: Final = re.compile(r"\bfree (?=[0-5]\d(?: ?[ap]\.? ?m\b|$| (?:in|on|tomorrow|today|tonight|every)\b))")
"""Three o'clock's "three" heard as "free", before the minutes of a time: not before a length ("free 20 minutes")."""
_ADDRESS: Final = re.compile(
    r"^(?:(?:hey|ok|okay|hi) (?:google|siri|alexa|jarvis|talkbox|talk box|computer|mycroft|nabu)"
    r"|alexa|siri|jarvis|talkbox|talk box|mycroft) (?=\S)"
)
"""Whom a request is addressed to, by habit or the box's own wake phrase said again ("OK Google, what time is it?",
"Alexa, set a timer..."): not part of it. Only before words: "Alexa" alone, or "Siri's voice", stays."""
