"""What people ask a voice box, written as it is said, with the words that must be heard to understand it."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

Split = Literal["tune", "held-out"]

KINDS: Final = ("fact", "how-why", "time", "timer", "alarm", "command", "math", "place", "general")


@dataclass(frozen=True)
class Question:
    """One spoken question."""

    text: str
    """As it is said: numbers in words ("set a timer for ten minutes")."""
    keywords: tuple[str, ...]
    """The lower-case words that must be heard for the question to be understood (2-4)."""
    kind: str
    """One of KINDS."""


def _kind(kind: str, *rows: tuple[str, str]) -> tuple[Question, ...]:
    return tuple(Question(text, tuple(words.split()), kind) for text, words in rows)


QUESTIONS: Final = (
    *_kind(
        "fact",
        ("What is the capital of France?", "capital france"),
        ("Who wrote Romeo and Juliet?", "wrote romeo juliet"),
        ("How tall is Mount Everest?", "tall mount everest"),
        ("What is the boiling point of water?", "boiling point water"),
        ("Who painted the Mona Lisa?", "painted mona lisa"),
        ("How far away is the moon?", "far moon"),
        ("What is the largest planet in our solar system?", "largest planet solar"),
        ("When did the Second World War end?", "second world war end"),
        ("Who invented the telephone?", "invented telephone"),
        ("What is the speed of light?", "speed light"),
        ("How many legs does a spider have?", "legs spider"),
        ("Who was the first person to walk on the moon?", "first walk moon"),
        ("What is the chemical symbol for gold?", "chemical symbol gold"),
        ("How old is the universe?", "old universe"),
        ("What is the smallest bone in the human body?", "smallest bone body"),
        ("Who discovered penicillin?", "discovered penicillin"),
        ("What is the longest river in the world?", "longest river world"),
        ("How many bones are in the human body?", "bones human body"),
        ("What is the hottest planet?", "hottest planet"),
        ("Who was the first president of the United States?", "first president united states"),
    ),
    *_kind(
        "how-why",
        ("Why is the sky blue?", "why sky blue"),
        ("How do airplanes stay in the air?", "airplanes stay air"),
        ("Why do we need sleep?", "why need sleep"),
        ("How does a rainbow form?", "rainbow form"),
        ("Why do cats purr?", "why cats purr"),
        ("How do vaccines work?", "vaccines work"),
        ("Why do leaves change color in the fall?", "leaves change color fall"),
        ("How does the heart pump blood?", "heart pump blood"),
        ("Why is the ocean salty?", "ocean salty"),
        ("How do bees make honey?", "bees make honey"),
        ("Why do we dream?", "why dream"),
        ("How does a fridge keep food cold?", "fridge food cold"),
        ("Why does the moon change shape?", "moon change shape"),
        ("How do I make bread?", "make bread"),
        ("Why do onions make you cry?", "onions cry"),
        ("How does a compass work?", "compass work"),
        ("Why is it hot in summer?", "hot summer"),
        ("How do I boil an egg?", "boil egg"),
        ("Why do birds fly south for the winter?", "birds south winter"),
        ("How do plants grow?", "plants grow"),
    ),
    *_kind(
        "time",
        ("What time is it?", "what time"),
        ("What is the date today?", "date today"),
        ("What day is it today?", "day today"),
        ("What time is it in Tokyo?", "time tokyo"),
        ("How long until Christmas?", "long christmas"),
        ("What year is it?", "what year"),
        ("What day of the week is it?", "day week"),
        ("How many days until the weekend?", "days weekend"),
        ("When is sunset today?", "sunset today"),
        ("What time does the sun rise tomorrow?", "sun rise tomorrow"),
        ("Is it morning or evening?", "morning evening"),
        ("What month is it?", "what month"),
        ("How many days are left in this year?", "days left year"),
        ("What is the time in London right now?", "time london now"),
        ("What day was it yesterday?", "day yesterday"),
        ("When is the next full moon?", "next full moon"),
        ("How many weeks until summer?", "weeks summer"),
        ("What time is it in New York?", "time new york"),
    ),
    *_kind(
        "timer",
        ("Set a timer for ten minutes.", "timer ten minutes"),
        ("Start a timer for five minutes.", "timer five minutes"),
        ("Set a timer for thirty seconds.", "timer thirty seconds"),
        ("Set a timer for one hour.", "timer one hour"),
        ("Timer for twenty five minutes.", "timer twenty five minutes"),
        ("Set a pasta timer for eleven minutes.", "pasta timer eleven minutes"),
        ("How much time is left on my timer?", "left timer"),
        ("Cancel the timer.", "cancel timer"),
        ("Pause the timer.", "pause timer"),
        ("Set a timer for an hour and a half.", "timer hour half"),
        ("Set a timer for forty five seconds.", "timer forty five seconds"),
        ("Add two minutes to the timer.", "add two minutes timer"),
        ("Set a timer for three minutes for the eggs.", "timer three minutes eggs"),
        ("Set one timer for five minutes and another for twelve minutes.", "timer five twelve minutes"),
        ("Stop the timer.", "stop timer"),
        ("Set a timer for ninety seconds.", "timer ninety seconds"),
        ("Set a timer for fifteen minutes.", "timer fifteen minutes"),
        ("Remind me in twenty minutes.", "remind twenty minutes"),
    ),
    *_kind(
        "alarm",
        ("Set an alarm for seven thirty tomorrow morning.", "alarm seven thirty morning"),
        ("Wake me up at six in the morning.", "wake six morning"),
        ("Set an alarm for eight o'clock.", "alarm eight"),
        ("Turn off my alarm.", "off alarm"),
        ("What alarms do I have?", "alarms have"),
        ("Cancel my alarm for tomorrow.", "cancel alarm tomorrow"),
        ("Set an alarm for a quarter past nine.", "alarm quarter past nine"),
        ("Snooze the alarm for ten minutes.", "snooze ten minutes"),
        ("Set an alarm for noon.", "alarm noon"),
        ("Wake me up at half past six.", "wake half past six"),
        ("Set an alarm for five forty five.", "alarm five forty"),
        ("Set an alarm every weekday at seven.", "alarm weekday seven"),
        ("Delete all my alarms.", "delete alarms"),
        ("Change my alarm to eight fifteen.", "change alarm eight fifteen"),
        ("Is my alarm set for tomorrow?", "alarm tomorrow"),
        ("Set an alarm called medicine for nine in the evening.", "alarm medicine nine evening"),
        ("Wake me up in two hours.", "wake two hours"),
        ("Set an alarm for ten to seven.", "alarm ten seven"),
    ),
    *_kind(
        "command",
        ("Turn the volume up.", "volume up"),
        ("Turn it down a bit.", "turn down"),
        ("Set the volume to five.", "volume five"),
        ("Louder please.", "louder please"),
        ("Mute the sound.", "mute sound"),
        ("Stop talking.", "stop talking"),
        ("Please stop.", "please stop"),
        ("Repeat that.", "repeat that"),
        ("Can you say that again?", "say again"),
        ("What did you just say?", "did say"),
        ("Forget what I said.", "forget said"),
        ("Forget our conversation.", "forget conversation"),
        ("Start over.", "start over"),
        ("Be quiet.", "be quiet"),
        ("Speak more slowly.", "speak slowly"),
        ("Volume down please.", "volume down"),
        ("Set the volume to maximum.", "volume maximum"),
        ("Never mind.", "never mind"),
        ("Cancel that.", "cancel that"),
        ("Repeat the last answer.", "repeat last answer"),
    ),
    *_kind(
        "math",
        ("What is seventeen times twenty three?", "seventeen times twenty three"),
        ("How many cups in a liter?", "cups liter"),
        ("What is twelve plus fifteen?", "twelve plus fifteen"),
        ("What is one hundred divided by four?", "hundred divided four"),
        ("What is the square root of eighty one?", "square root eighty one"),
        ("What is nine times eight?", "nine times eight"),
        ("How many ounces in a pound?", "ounces pound"),
        ("Convert fifty miles to kilometers.", "convert fifty miles kilometers"),
        ("What is twenty percent of sixty?", "twenty percent sixty"),
        ("How many seconds are in a day?", "seconds day"),
        ("What is a thousand minus three hundred and fifty?", "thousand minus three fifty"),
        ("What is two to the power of ten?", "two power ten"),
        ("How many feet in a mile?", "feet mile"),
        ("What is seventy two degrees in celsius?", "seventy two degrees celsius"),
        ("What is half of three hundred?", "half three hundred"),
        ("How many grams in a kilogram?", "grams kilogram"),
        ("What is eleven squared?", "eleven squared"),
        ("Add forty two and fifty eight.", "add forty two fifty"),
        ("What is one third of ninety?", "third ninety"),
        ("How many teaspoons in a tablespoon?", "teaspoons tablespoon"),
    ),
    *_kind(
        "place",
        ("What is the weather like in Paris?", "weather paris"),
        ("How far is it from London to Edinburgh?", "far london edinburgh"),
        ("Where is Madagascar?", "where madagascar"),
        ("What is the population of Canada?", "population canada"),
        ("What country is Mount Kilimanjaro in?", "country kilimanjaro"),
        ("Tell me about Rome.", "tell rome"),
        ("What is the capital of Australia?", "capital australia"),
        ("How big is Texas?", "big texas"),
        ("What time zone is Chicago in?", "zone chicago"),
        ("Is it raining in Seattle?", "raining seattle"),
        ("What is the tallest building in Dubai?", "tallest building dubai"),
        ("How do I get to the train station?", "train station"),
        ("What language do they speak in Switzerland?", "language switzerland"),
        ("Where is the Great Barrier Reef?", "great barrier reef"),
        ("What is the capital of Japan?", "capital japan"),
        ("How cold does it get in Alaska?", "cold alaska"),
        ("Which ocean is between America and Europe?", "ocean america europe"),
        ("What is the weather forecast for Berlin tomorrow?", "weather berlin tomorrow"),
        ("How many people live in Mexico City?", "people mexico city"),
        ("Where is the Amazon rainforest?", "amazon rainforest"),
    ),
    *_kind(
        "general",
        ("Tell me a joke.", "tell joke"),
        ("What should I cook for dinner tonight?", "cook dinner tonight"),
        ("Tell me a story about a dragon.", "story dragon"),
        ("What is your name?", "your name"),
        ("How are you today?", "how you today"),
        ("Give me a recipe for pancakes.", "recipe pancakes"),
        ("What can you do?", "what can do"),
        ("Recommend a good book.", "recommend good book"),
        ("What is the weather like today?", "weather today"),
        ("Play some music.", "play music"),
        ("Say something funny.", "say funny"),
        ("What is a good name for a dog?", "name dog"),
        ("Help me plan a birthday party.", "plan birthday party"),
        ("What should I do this weekend?", "do weekend"),
        ("Give me a fun fact.", "fun fact"),
        ("Can you help me with my homework?", "help homework"),
        ("Thank you very much.", "thank much"),
        ("Good morning.", "good morning"),
        ("What is the meaning of life?", "meaning life"),
        ("How do I say hello in Spanish?", "hello spanish"),
    ),
)
"""174 questions, 18-20 of each kind."""

QUICK_QUESTIONS: Final = 40
"""Questions in the quick set: half tune, half held-out, the kinds taken in turn."""


def split(question: Question) -> Split:
    """Which half the question belongs to, from a stable hash of its text (about half each)."""
    digest = hashlib.sha256(question.text.encode("utf-8")).digest()
    return "tune" if digest[0] % 2 == 0 else "held-out"


def tune(questions: Sequence[Question] = QUESTIONS) -> tuple[Question, ...]:
    """The questions anything may be tuned on (and the only ones tests use)."""
    return tuple(q for q in questions if split(q) == "tune")


def quick(questions: Sequence[Question] = QUESTIONS, size: int = QUICK_QUESTIONS) -> tuple[Question, ...]:
    """A smaller set for a short run: `size` questions, half from each split, the kinds taken in turn."""
    chosen: list[Question] = []
    for half, count in (("tune", size - size // 2), ("held-out", size // 2)):
        by_kind = [iter([q for q in questions if q.kind == kind and split(q) == half]) for kind in KINDS]
        taken = (q for q in itertools.chain.from_iterable(itertools.zip_longest(*by_kind)) if q is not None)
        chosen += itertools.islice(taken, count)
    return tuple(chosen)
