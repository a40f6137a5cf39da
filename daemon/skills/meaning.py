"""Requests read by meaning: what no template matched, routed when it means what a template sentence says.

The examples are the templates' own sentences (daemon/skills/sentences.yaml and Home Assistant's), a few of each
sampled, each labelled by the matcher itself; so no second list of the skills' phrasings is kept here, only a few
requests that are the model's though worded near them (FOR_THE_MODEL).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import logging
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np

from daemon.skills import clauses, honest, intents, kept_examples, learned, reminder_intents, unable, values, written
from daemon.skills.call import SkillCall
from daemon.skills.kept_examples import Index

_LOGGER = logging.getLogger(__name__)

OFFLINE_LIKENESS: Final = 0.65
"""How alike a question must be to a question only the internet could answer now to get "I can't know that
offline": chosen on the tune half of `talkbox eval answers` (no knowable question taken from 0.65 up). Read fold
against fold within the tune half (`python -m daemon.lab.meaning_folds`), 0.55 took 166 of 194 unknowable questions
(0.65: 147) and 1 of 366 knowable and general ones; but with the whole tune half as examples it took 12 of the 404
held-out knowable and general ones (0.65: 3), so 0.65 stays (docs/answers.md)."""
COMMAND_LIKENESS: Final = 0.8
"""How alike a request must be to a command's template sentence to be that command: the lowest that takes no general
question of the tune halves of `talkbox eval skills` and `talkbox eval answers` (typed); of the spoken tune half's
requests no template took, it routes 8 right and none wrong (0.85: 7; 0.75: 10, one wrong, "what does the word mute
mean" taken)."""
READ: Final = frozenset(
    {
        "time",
        "date",
        "day",
        "timer_left",
        "timer_cancel",
        "timer_pause",
        "alarm_list",
        "alarm_cancel",
        "reminder_list",
        "reminder_cancel",
        "volume",
        "stop",
        "repeat",
        "help",
        "forget",
        "offline",
    }
)
"""Skills read by meaning whose request carries nothing to parse (no duration, time, level or name); those that carry
a value (values.LOOSE_SLOTS) are read too, their value read again from the words (values.read_values)."""
ANSWER_LIKENESS: Final = 0.75
"""How alike a request must be to a request that only answers (the time, the date, the timers or alarms held, what
the box can do) to be it: on the tune halves the general question most alike one was 0.71 ("why are alarms so loud"
as "what are alarms"), and the requests between 0.75 and 0.8 were all the box's ("how many alarms do I have", "what
sort of things can you do"); a request that acts or undoes something keeps COMMAND_LIKENESS."""
ANSWERING: Final = frozenset({"time", "date", "day", "timer_left", "alarm_list", "help"})
TODAY: Final = frozenset({"time", "date", "day"})
"""Requests answered for now: read by meaning, their words must not name another day."""
_ANOTHER_DAY: Final = re.compile(
    r"\b(?:tomorrow|yesterday|tonight|next|last|ago|from now|later|before|after|until|till|on (?:mon|tues|wednes|"
    r"thurs|fri|satur|sun)day|in \w+ (?:days?|weeks?|months?|years?))\b"
)
VALUED_LIKENESS: Final = 0.85
"""How alike a request must be to a command carrying a value once the value it says is put as the examples' own:
between the general questions of the tune halves most alike so read ("what do people who wake up at 5 am do", 0.81)
and the requests least alike that no other reading took ("your clock's wrong, it's ten past eight...", 0.90)."""
UNSURE_LIKENESS: Final = 0.6
"""Below VALUED_LIKENESS, a request this alike a command carrying a value, and not asked as a question (what, why,
how, should, is...), is asked about before it is done (*Did you mean "set a timer for 12 minutes"?*) rather than
handed to the model, which said "Sure, I can help you with that." to "I'd like a timer of twelve minutes for the
rice please"."""
PLAIN_ARGS: Final = frozenset({"topic", "all", "action", "resume"})
"""Arguments that come from the template's words, not from a slot: a meaning may carry them."""
EXAMPLES_PER_SENTENCE: Final = 6
EXPANSIONS_READ: Final = 3000
"""A template sentence's first expansions sampled from: enough to vary every alternative, few enough to be quick."""
SEED: Final = 0
FILL: Final = {
    "place": "london", "team": "arsenal", "show": "the news", "company": "apple", "road": "the motorway",
    "subject": "the election", "device": "the kitchen light", "level": "50", "when": "7 am", "duration": "5 minutes",
    "lengths": "5 minutes and one for 10 minutes",
    "timer_label": "pasta", "name": "pasta", "area": "kitchen", "floor": "upstairs", "amount": "10 dollars",
    "unit": "euros", "expression": "2 plus 2", "country": "france", "element": "gold", "symbol": "au",
    "number": "8", "year": "2030", "word": "cat",
}  # fmt: skip
"""A value for each wildcard slot, so that sentences with one can be sampled (those with a slot are dropped after)."""


class Embedder(Protocol):
    """Sentences in, one unit vector per sentence out."""

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """The sentences' embeddings, one unit-length row each."""
        ...

    def close(self) -> None:
        """Free the model."""
        ...


FOR_THE_MODEL: Final = (
    "suggest a film to watch", "recommend a good book", "give me an idea for dinner", "what should i cook tonight",
    "what game can we play", "what can i do on a rainy day", "what should i do this weekend", "tell me a joke",
    "tell me a fun fact", "what is a good name for a dog", "give me a gift idea for my mum", "what causes rain",
    "why does it thunder", "how do weather forecasts work", "what is the climate like in spain", "how do tides work",
    "what is inflation", "how does the stock market work", "who invented television", "what is a good film for kids",
    "how do buses work", "what sport is played at wimbledon", "how many players are in a football team",
    "what is a reminder", "what is an alarm clock", "what is a timer", "what is an alarm", "how does an alarm work",
    "what channel was the first on tv", "what time zone is london in", "how long does it take to boil an egg",
)  # fmt: skip
"""Requests for the language model worded like the box's own: a suggestion, a fact about the weather or the news as
a subject. Each sits among the examples with no call, so that a request nearest one of them stays the model's."""


@dataclass(frozen=True)
class Reading:
    """The template sentence nearest in meaning to what was said."""

    call: SkillCall | None
    """None: the example is one of FOR_THE_MODEL."""
    example: str
    likeness: float
    """Cosine similarity of the two sentences' embeddings, -1..1."""


def examples(seed: int = SEED) -> tuple[tuple[str, SkillCall], ...]:
    """Template sentences, a few sampled from each, with the call the matcher makes of each (only READ ones)."""
    from hassil import Intents, TextSlotList
    from hassil.sample import sample_sentence

    data = intents.sentences()
    compiled = Intents.from_dict(data)
    lists: dict[str, Any] = {**compiled.slot_lists, **{n: TextSlotList.from_strings([v]) for n, v in FILL.items()}}
    found: dict[str, SkillCall] = {}
    for intent in compiled.intents.values():
        for part in intent.data:
            rules = {**compiled.expansion_rules, **(part.expansion_rules or {})}
            for sentence in part.sentences:
                said = list(itertools.islice(_expansions(sample_sentence, sentence, lists, rules), EXPANSIONS_READ))
                # NOTE: each sentence's own draw: a template added or changed elsewhere leaves its examples as they were
                # (one shared draw re-sampled every later sentence, and moved the readings tuned on them).
                rng = random.Random(f"{seed}|{intent.name}|{sentence.text}")
                for text in rng.sample(said, min(EXAMPLES_PER_SENTENCE, len(said))):
                    call = intents.match_as_heard(text)
                    if call is not None and call.skill in values.LOOSE_SLOTS:
                        found.setdefault(" ".join(text.split()), SkillCall(call.skill))  # its value is read anew
                    elif call is not None and call.skill in READ and set(call.args) <= PLAIN_ARGS:
                        found.setdefault(" ".join(text.split()), call)
    return tuple(sorted(found.items()))


def _phrasings() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every phrasing of skill_phrases.toml: its text, the skill it must reach, the arguments it must carry."""
    for skill, entries in learned.phrasings().items():
        for entry in entries:
            match entry:
                case str(text):
                    yield text, skill, {}
                case [str(text), dict(args)]:
                    yield text, skill, args


Learned = Callable[[str], bool]
"""Which phrasings and questions of the evaluations are examples (learned.tuned_on: the tune half)."""


def phrased(learn_from: Learned = learned.tuned_on) -> tuple[tuple[str, SkillCall | None], ...]:
    """What people say to the box, from the tune half of the skills evaluation's phrases (written without looking
    at the templates; daemon/skills/skill_phrases.toml), labelled by where each must go: wordings the templates'
    own sentences do not vary enough to reach. A general question among them is an example for the model; a
    command carrying a value is none (read so, "can you leave cooked rice out for 2 hours" set a timer)."""
    held_out = _held_out(learn_from)
    found: dict[str, SkillCall | None] = {}
    for text, skill, args in _phrasings():
        said = intents.normalise(text)
        if not learn_from(text) or not said or said in held_out:
            continue
        if skill == "none":
            found.setdefault(said, None)
        elif skill in READ and set(args) <= PLAIN_ARGS:
            found.setdefault(said, SkillCall(skill, {k: v for k, v in args.items() if k in PLAIN_ARGS}))
    return tuple(sorted({**asked(learn_from), **found}.items(), key=lambda item: item[0]))


@functools.cache
def _held_out(learn_from: Learned) -> frozenset[str]:
    """Every held-out phrase and question of the evaluations, as read: none is an example, even written otherwise
    ("Stop." and "stop"), so that the held-out halves stay unseen."""
    texts = itertools.chain((text for text, _, _ in _phrasings()), (text for text, _ in learned.questions()))
    return frozenset(intents.normalise(text) for text in texts if not learn_from(text))


def asked(learn_from: Learned = learned.tuned_on) -> dict[str, SkillCall | None]:
    """What people ask a voice box, from the tune half of the answers evaluation's questions
    (daemon/skills/answers.toml): one no offline box can know is an example of the offline answer, any other an
    example for the model (a held-out question, even written otherwise, is none)."""
    held_out = _held_out(learn_from)
    found: dict[str, SkillCall | None] = {}
    for text, kind in learned.questions():
        said = intents.normalise(text)
        if not learn_from(text) or not said or said in held_out or kind == learned.UNABLE:
            continue  # NOTE: a request the box cannot do is the templates' (each topic its own reply), no example
        if kind == learned.UNKNOWABLE:
            found.setdefault(said, SkillCall("offline", {"topic": "personal" if honest.about_me(said) else "moment"}))
        else:
            found.setdefault(said, None)
    return found


def _expansions(sample: Callable[..., Iterable[str]], sentence: object, lists: object, rules: object) -> Iterator[str]:
    """A template sentence's expansions; none if hassil cannot expand it (a range it will not spell out)."""
    try:
        yield from sample(sentence, lists, rules, language="en")
    except Exception:  # NOTE: hassil raises plain errors for lists it cannot expand; such a sentence gives nothing
        return


class MeaningRouter:
    """Reads a request by meaning: the nearest template sentence, taken when it is alike enough."""

    def __init__(
        self, embed: Embedder, kept_in: Sequence[Path], model_id: str, learn_from: Learned = learned.tuned_on
    ) -> None:
        """`kept_in`: where the embedded examples may have been kept before, the first one to keep them in;
        `model_id` names them (another `learn_from` needs another name)."""
        self._embed = embed
        self._texts, self._calls, self._vectors, self._valued_among = _index(embed, kept_in, model_id, learn_from)
        self.offline_likeness = OFFLINE_LIKENESS
        # NOTE: one question is routed at its pause, for an early answer and by the turn: embedded once.
        self._read = functools.lru_cache(maxsize=256)(self._nearest_said)

    def nearest(self, text: str) -> Reading | None:
        """The template sentence nearest in meaning to `text`; None for no words or too many for a command."""
        said = intents.normalise(text)
        if not said or len(said.split()) > intents.MAX_WORDS:
            return None
        return self._read(said)

    def _nearest_said(self, said: str, valued: bool = False) -> Reading:
        likeness = self._vectors @ self._embed([said])[0]
        if valued:
            likeness = np.where(self._valued_among, likeness, -1.0)
        best = int(np.argmax(likeness))
        return Reading(self._calls[best], self._texts[best], float(likeness[best]))

    def route(self, text: str) -> SkillCall | None:
        """The call `text` means, read as its nearest template sentence (`read_as`), or None (the model's)."""
        reading = self.nearest(text)
        asking = intents.ASKING.match(intents.normalise(text)) is not None
        if reading is not None and reading.likeness < COMMAND_LIKENESS and (said_as := self._as_valued(text)):
            if said_as.likeness >= VALUED_LIKENESS and not asking:
                reading = said_as
            elif said_as.likeness >= VALUED_LIKENESS:
                # NOTE: worded as a question, it is asked about, never done: "What's the time in 20 minutes?" set a
                # timer of 20 minutes
                return self._unsure(said_as, text)
            elif said_as.likeness >= UNSURE_LIKENESS and not asking:
                return self._unsure(said_as, text)
        if reading is None or reading.call is None:
            return None
        offline = reading.call.skill == "offline"
        if reading.likeness < self._likeness_needed(reading.call.skill):
            return None
        if offline and not honest.is_now(intents.normalise(text)):
            return None  # NOTE: as for the templates: "when do shops usually close" is a custom, not a question of now
        # NOTE: read as a question asked of the moment (answers.toml's): a suggestion asked "tonight" is the model's
        moment = offline and reading.call.args.get("topic") in ("moment", "personal")
        if moment and honest.is_suggestion(intents.normalise(text)):
            return None
        if offline and reading.call.args.get("topic") == "personal" and honest.about_someone_else(text):
            return None  # NOTE: "How much does it weigh?" read as "How much do I weigh?": a follow-up, the model's
        if offline and reading.call.args.get("topic") in unable.REPLIES and asking:
            return None  # NOTE: as for a command: "what's the best music to study to" is the model's, not "play music"
        if reading.call.skill in TODAY and _ANOTHER_DAY.search(intents.normalise(text)):
            return None  # NOTE: "What day is it tomorrow?" was read as the day: "Today is Saturday."
        _LOGGER.debug("read %r by meaning as %r (%.2f)", text, reading.example, reading.likeness)
        if reading.call.skill in values.LOOSE_SLOTS and asking:
            return self._unsure(reading, text)  # NOTE: "what is a timer for 5 minutes" set one
        if reading.call.skill in values.LOOSE_SLOTS:
            valued = values.read_values(reading.call.skill, text)
            return dataclasses.replace(valued, by_meaning=True) if valued is not None else None
        call = SkillCall(reading.call.skill, dict(reading.call.args), read_as=reading.example, by_meaning=True)
        return dataclasses.replace(call, read_as=values.asked(call))

    def _as_valued(self, text: str) -> Reading | None:
        """The nearest command carrying a value, read with the value `text` says put as the examples' own ("set a
        timer for the rice for 5 minutes"): an embedding weighs numbers as much as words."""
        said = intents.normalise(text)
        valued = values.value_said_as(said, FILL["duration"], FILL["when"])
        if valued is None or valued == said:
            return None
        reading = self._read(valued, True)
        return reading if reading.call is not None and reading.call.skill in values.LOOSE_SLOTS else None

    def _unsure(self, reading: Reading, text: str) -> SkillCall | None:
        """The command `text` may well mean, to be asked about before it is done; None if no value can be read."""
        assert reading.call is not None
        call = values.read_values(reading.call.skill, text)
        if call is None:
            return None
        _LOGGER.debug("read %r by meaning as %r (%.2f): to be asked about", text, reading.example, reading.likeness)
        return dataclasses.replace(call, read_as=values.asked(call), by_meaning=True, unsure=True)

    def _likeness_needed(self, skill: str) -> float:
        """How alike a request must be to an example of `skill` to be read as it."""
        if skill == "offline":
            return self.offline_likeness
        return ANSWER_LIKENESS if skill in ANSWERING else COMMAND_LIKENESS

    def close(self) -> None:
        """Free the model."""
        self._embed.close()

    @property
    def size(self) -> int:
        """How many template sentences it compares with."""
        return len(self._texts)


def _digest(model: str) -> str:
    """What the examples depend on: the templates, the code and libraries that expand, sample and match them, the
    model."""
    from importlib import metadata, resources

    ours = resources.files("daemon.skills").joinpath("sentences.yaml").read_bytes()
    made_by = [metadata.version(p) for p in ("hassil", "home-assistant-intents")]
    recipe = (
        f"{model}|{made_by}|{SEED}|{EXAMPLES_PER_SENTENCE}|{EXPANSIONS_READ}|{sorted(READ)}|{sorted(values.LOOSE_SLOTS)}"
        f"|{FILL}|{FOR_THE_MODEL}"
    )
    # how they are matched and sampled
    code = b"".join(
        Path(f).read_bytes()
        for f in (intents.__file__, clauses.__file__, reminder_intents.__file__, written.__file__, __file__)
    )
    ours += learned.PHRASES_FILE.read_bytes() + learned.QUESTIONS_FILE.read_bytes()  # the phrasings people use
    return hashlib.sha256(recipe.encode("utf-8") + ours + code).hexdigest()[:16]


def _index(
    embed: Callable[[Sequence[str]], np.ndarray], kept_in: Sequence[Path], model: str, learn_from: Learned
) -> Index:
    """The labelled, embedded examples, kept as made the same way before (`_digest`), else made and kept."""

    def made() -> tuple[list[tuple[str, SkillCall | None]], frozenset[str]]:
        sampled, learned_from = examples(), phrased(learn_from)
        known = {text for text, _ in sampled}
        labelled: list[tuple[str, SkillCall | None]] = [
            *sampled,
            *((text, None) for text in FOR_THE_MODEL),
            *((text, call) for text, call in learned_from if text not in known),
        ]
        return labelled, frozenset(text for text, _ in learned_from)

    return kept_examples.kept_or_made(embed, kept_in, f"examples-{_digest(model)}.npz", made)
