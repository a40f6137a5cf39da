"""Plain answers to requests a skill understands but cannot do, and to questions the box cannot know offline."""

from __future__ import annotations

import re
from typing import Final

from daemon.skills.amounts import digits
from daemon.skills.calc import Impossible
from daemon.skills.call import SkillCall
from daemon.skills.reminders import MAX_TIMER_DAYS, MIN_TIMER_S
from daemon.skills.speech import say_number
from daemon.skills.unable import REPLIES

OFFLINE: Final = "I can't know that offline: I have no internet connection."
NOT_ONLINE: Final = (
    "I can't go online: I have no internet connection. Ask me anyway, and I'll answer from what I already know."
)
TIMER_LIMITS: Final = f"A timer has to be between {MIN_TIMER_S} second and {MAX_TIMER_DAYS} days."
VOLUME_LIMITS: Final = "Volume goes from 0 to 100 percent."
NO_TOMORROW: Final = (
    "I don't know which day tomorrow is: nothing has set my clock since I was switched on. "
    "Tell me the time first, for example: set the time to seven fifteen pm."
)
REMIND_HOW: Final = (
    "I can remind you after a while or at a time of day. Say, for example: remind me in 20 minutes to check the "
    "oven, or remind me at 6 pm to call mum."
)
"""For a reminder asked with no time the box can set it for ("remind me to take the bins out tomorrow morning"): a
promise the model made ("Sure, I'll remind you...") that nothing would keep."""
TIMER_HOW: Final = "For how long? Say, for example: set a timer for 10 minutes."
"""For a timer asked with no length ("set a timer for the eggs"), which the model echoed or promised."""
CHANGE_WHICH: Final = (
    "Which timer or alarm should I change? Say, for example: change the pasta timer to 8 minutes, or move my alarm "
    "to 7:30."
)
CHANGE_NOTHING: Final = (
    "No timers or alarms are set, so there's nothing to change. Say, for example: set a timer for 15 minutes."
)
NOTHING_TO_SNOOZE: Final = (
    "Nothing has rung lately to snooze. To be woken later, say, for example: wake me up in 10 minutes."
)
ALARM_HOW: Final = "For what time? Say, for example: set an alarm for 7 am tomorrow."
"""For an alarm asked with no time ("set an alarm for tomorrow"), once read by meaning as a question about alarms."""
UNSET_CLOCK: Final = (
    "I don't know the time: nothing has set my clock since I was switched on. "
    "Tell me, for example: set the time to seven fifteen pm."
)
PERSONAL: Final = (
    "I can't know that: I only know what you tell me, and I can't see your home, your things or your plans."
)
SUN: Final = "I can't tell: sunrise and sunset depend on where you are, and nothing tells me where I am."
DEVICES: Final = (
    "I can't do that: I'm not connected to anything in your home. Linked to Home Assistant, I could ask it."
)
LATEST: Final = (
    "I can't know what's newest, or who won last: what I learned stops a while back, and with no internet "
    "connection nothing newer reaches me."
)
"""For "what's the newest Samsung phone", "who won the last World Cup": the model named what was newest when it
learned ("the Galaxy S21", "Brazil in 2014")."""
TOPICS: Final = frozenset(
    {"weather", "sun", "news", "sport", "prices", "tv", "traffic", "travel", "opening", "online", "personal", "devices",
     "latest"}
    | REPLIES.keys()
)  # fmt: skip
"""What the offline skill is asked about (the `topic` of TalkboxOffline in sentences.yaml)."""

# NOTE: a place or team in an offline template makes it a question about now, unless it names another time or a
# place nobody reports on: "the weather in spain in april" is the climate, "the score of the 1966 final" history,
# "when do shops usually close" a custom, "the weather on mars" astronomy, "did you win today" no team at all.
_NOT_NOW: Final = re.compile(
    r"\b(1[0-9]{3}|20[0-9]{2}|usually|normally|typically|generally|on average|ever|first|last century|history|"
    r"historically|climate|in (january|february|march|april|may|june|july|august|september|october|november|"
    r"december|spring|summer|autumn|fall|winter)|(january|february|march|april|june|july|august|september|"
    r"october|november|december)|spring|summer|autumn|winter|"
    r"mars|venus|jupiter|saturn|mercury|neptune|uranus|pluto|the moon|the sun|space|planets?)\b"
)
_PRONOUNS: Final = frozenset({"i", "you", "we", "he", "she", "it", "they", "me", "us", "this", "that", "there"})


BOX_OWN: Final = re.compile(r"\b(timers?|alarms?|volume|sound|clock|time|yourself|you|it|this|that|them)\b")
"""Things a device command may name that are the box's own (a timer, the volume) or no device at all."""


PLACES: Final = re.compile(
    r"(local |nearest )?(supermarket|bakery|shop|store|pharmacy|chemist|bank|library|post office|restaurant|cafe|"
    r"pub|bar|museum|gym|swimming pool|pool|mall|market|takeaway|petrol station|gas station|hospital|park|zoo)s?"
)
"""Places whose opening hours are asked about ("is the bakery open?"): the offline question, not a door."""


_PRODUCT: Final = re.compile(
    r"\b(phones?|smartphones?|iphones?|ipads?|tablets?|laptops?|computers?|macs?|macbooks?|imacs?|watch(es)?|"
    r"smartwatch(es)?|kindles?|e-?readers?|consoles?|playstations?|xbox(es)?|switch|cars?|models?|versions?|"
    r"updates?|releases?|editions?|films?|movies?|albums?|songs?|singles?|books?|novels?|games?|series|"
    r"episodes?|sequels?|chips?|processors?|cameras?|drones?|headphones|earbuds|airpods|tvs?|televisions?|"
    r"gadgets?|operating systems?|browsers?|apps?|software|firmware|"
    # NOTE: a maker or a series named alone is its newest product ("what's the newest Tesla" reached the model)
    r"teslas?|toyotas?|fords?|bmws?|audis?|galaxy|pixels?|android|ios|windows|nintendo|samsung|apple|"
    r"call of duty|fifa|zelda|mario|pokemon|pokémon|grand theft auto|gta|assassin's creed|marvel)\b"
)
_TITLE: Final = re.compile(r"\b(champions?|title holders?|record holders?|holders?|winners?)\b")


def is_product(slot: str) -> bool:
    """True if what is asked the newest of is a thing made or released again and again (a phone, a film, a version),
    not a fact that stays ("the most recent ice age", "the latest time to plant potatoes")."""
    said = slot.strip().lower()
    return len(said.split()) <= 5 and _PRODUCT.search(said) is not None and _NOT_NOW.search(digits(said)) is None


def is_title(slot: str) -> bool:
    """True if "the current ..." names a champion or a winner (who holds it changes), not an office or a thing."""
    said = slot.strip().lower()
    return len(said.split()) <= 6 and _TITLE.search(said) is not None and _NOT_NOW.search(digits(said)) is None


def is_device(slot: str) -> bool:
    """True if a device command names something in the home: not the box's own timer or volume, nor a pronoun,
    nor a shop whose opening hours are asked about."""
    said = slot.strip().lower()
    return bool(said) and len(said.split()) <= 4 and BOX_OWN.search(said) is None and PLACES.fullmatch(said) is None


def is_now(slot: str) -> bool:
    """True if a place, team or show said in an offline template leaves the question about now."""
    said = slot.strip().lower()
    return bool(said) and said not in _PRONOUNS and _NOT_NOW.search(digits(said)) is None


def is_amount(slot: str) -> bool:
    """True if `slot` says an amount of something ("10 dollars", "a pound"), as an exchange rate's question does."""
    return re.fullmatch(r"(?:an?|one|-?\d+(?:\.\d+)?)(?:\s+\w+){1,2}", digits(slot)) is not None


_MOMENT: Final = re.compile(
    r"\b(now|right now|at the moment|currently|at present|so far|yet|today|tonight|this (morning|afternoon|evening|"
    r"week|weekend|year|season)|tomorrow|yesterday|last night|next week|next weekend)('s)?\b"
)
_ASKED: Final = re.compile(
    r"(what|what's|whats|who|who's|whos|where|where's|when|when's|which|how|how's|is|are|was|were|did|does|do|has|"
    r"have|had|will|any|anything)\b"
)
# NOTE: what a question about a moment may still be that the box or its model can answer: a request for an idea
# ("what should I cook tonight"), a word to the box itself ("how are you today"), the calendar and the clock (which
# the templates answer when they know the wording; unknown wordings stay the model's).
_NOT_OF_THE_MOMENT: Final = re.compile(
    r"\b(should|shall|could|can|suggest|recommend|ideas?|you|your|yourself|how (do|does|would) (i|we)|time|date|"
    r"what (day|year|month)|"
    r"how (many|much) (days|weeks|hours|minutes|time)|how long (until|till|to|before)|until|till|christmas|easter|"
    r"halloween|new year|holidays?|birthday)\b"
)
_ME: Final = re.compile(r"\b(i|i'm|i've|i'd|my|me|mine|myself)\b")


_SUGGESTION: Final = re.compile(r"\b(suggest|recommend|ideas?|what (should|shall|could|can) (i|we))\b")


def is_suggestion(said: str) -> bool:
    """Whether a question asks for an idea ("what should I watch tonight"): the model's, whenever it is for."""
    return _SUGGESTION.search(said) is not None


def about_me(said: str) -> bool:
    """Whether a question is about the one asking ("my", "I")."""
    return _ME.search(said) is not None


_SOMEONE_ELSE: Final = re.compile(r"\b(?:it|its|he|she|him|her|his|they|them|their)\b", re.IGNORECASE)


def about_someone_else(said: str) -> bool:
    """Whether a question is about someone or something named before ("how tall is she"), not the one asking."""
    return not about_me(said) and _SOMEONE_ELSE.search(said) is not None


def of_the_moment(said: str) -> SkillCall | None:
    """The offline answer to a question about what is happening now, today or yesterday that no template took:
    only the internet or the user could know it ("was there an earthquake today", "is my son home yet")."""
    if _ASKED.match(said) is None or _MOMENT.search(said) is None or _NOT_OF_THE_MOMENT.search(said):
        return None
    if not is_now(said):
        return None  # "what was the weather like on mars yesterday": no news reports it
    return SkillCall("offline", {"topic": "personal" if about_me(said) else "moment"})


_OFFLINE_REPLIES: Final = {
    "online": NOT_ONLINE, "personal": PERSONAL, "sun": SUN, "devices": DEVICES, "latest": LATEST, **REPLIES
}  # fmt: skip


def offline(topic: str) -> str:
    """What the box says to a question only the internet could answer now, or to a request it has no means to do."""
    return _OFFLINE_REPLIES.get(topic, OFFLINE)


def off_the_clock(said: str) -> str:
    """What the box says to a time no clock shows."""
    return f"{said} isn't a time on the clock."


def on_the_clock(hour: int, minute: int) -> bool:
    """True if hour:minute is a time of day on the 24-hour clock."""
    return 0 <= hour <= 23 and 0 <= minute <= 59


def no_answer(why: str, number: float) -> str:
    """What the box says to a sum it understands but cannot answer."""
    match why:
        case Impossible.DIVIDE_BY_ZERO:
            return "I can't divide by zero."
        case Impossible.NEGATIVE_ROOT:
            return f"Minus {say_number(-number)} has no real square root."
        case Impossible.NOT_A_FACTORIAL:
            return "Only whole numbers from zero up have a factorial."
        case Impossible.TOO_BIG:
            return "That number is too big for me to say."
    return "That has no real answer."
