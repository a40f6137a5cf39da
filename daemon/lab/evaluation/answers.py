"""Is the answer right? The question set of answers.toml, each answer judged right, honest or wrong, and the report.

An answer is judged by these rules, in order (`judge`):

- *right*: an accepted pattern of the question is found in it, whatever else it says (a list of guesses that names
  the right one counts as right: the measure is lenient). Only the words are read, not whether they are sensible.
- *honest*: it says it does not or cannot know ("I don't know", "I'm not sure", "I can't know that offline", "I
  have no internet connection", "I can't check"...). On an unknowable question this is the answer wanted.
- *wrong* otherwise, and *confidently* wrong unless it hedges ("I think", "probably", "maybe"...). An empty answer
  is wrong but not confident.

Points, so that a confident wrong answer weighs worse than an honest one: right +1, honest 0 (+1 on an unknowable
question, where it is the right answer), wrong -1. The score is their mean, from -1 to +1.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import tomllib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from daemon.engines.doubt import UNSURE
from daemon.lab.evaluation.metrics import normalize, number_words
from daemon.skills import learned
from daemon.skills.learned import QUESTIONS_FILE, tuned_on

UNKNOWABLE: Final = learned.UNKNOWABLE
UNABLE: Final = learned.UNABLE
KINDS: Final = (
    "place",
    "person",
    "science",
    "number",
    "date",
    "definition",
    "spelling",
    "howwhy",
    "units",
    "claim",
    "suggest",
    UNKNOWABLE,
    UNABLE,
)
"""The kinds of question, in the file's order; UNKNOWABLE wants the honest answer, UNABLE the box's "I can't"."""
REFUSED: Final = (
    r"can't|cannot|can not|unable to|not able to|no way to|(?:don't|do not) have|have no|(?:i'm|i am) not connected|"
    r"not something i can"
)
"""An answer to a request the box has no means to do is right if it says it cannot (no promise, no pretending)."""
QUICK_QUESTIONS: Final = 60
"""Questions in the quick set: half tune, half held-out, the kinds taken in turn."""
ALL: Final = "all"
"""The kind of a row that sums up every kind."""

Split = Literal["tune", "held-out"]
Outcome = Literal["right", "honest", "wrong"]

# NOTE: read in the answer as written, lower-cased with curly apostrophes straightened; "not sure" alone is honest,
# "not sure, but I think it's Paris" too when Paris is not the answer (it said it did not know).
# "I don't have enough information to determine who scored tonight" and "I can't determine if your train is on time"
# say so too: they were read as wrong (11 of the 1.5B's 731 typed answers of docs/answers.md, 8 of them held-out).
# "I can't assist with that" refuses as "I can't help with that" does, and "I don't have that information" says it
# does not know: neither claims anything (read as confidently wrong before: 5 of 231 spoken held-out unknowable).
HONEST: Final = re.compile(
    r"\b(?:i|we) (?:do not|don't|dont|really don't) know\b|\bno idea\b|\bnot (?:sure|certain)\b|"
    r"\b(?:can't|cannot|can not|couldn't|could not|unable to|not able to|no way to|no way of) (?:really |possibly )?"
    r"(?:know|knowing|tell|say|check|checking|see|look|access|accessing|get|find|browse|search|provide|give|predict|"
    r"confirm|answer|help|assist|determine)\b|"
    r"\b(?:no|don't have|do not have|without|lack)(?: an?| any| the| that| this| enough)? "
    r"(?:access|internet|web|online|network|connection|real.?time|live|current|up.to.date|information|data|ability|"
    r"capability)\b|"
    r"\boffline\b|\bnot (?:connected|online)\b|\bas an ai\b|\bi'?m (?:just |only )?an? (?:ai|language model)\b|"
    r"\bdidn't catch that\b"  # words heard too unsurely, asked again: no answer, and no guess
)
HEDGE: Final = re.compile(
    r"\b(?:i think|i believe|i guess|i'd guess|probably|perhaps|maybe|might|possibly|likely|could be|"
    r"if i remember|if i recall|as far as i know|i'm not certain)\b"
)
_THOUSANDS: Final = re.compile(r"(?<=\d),(?=\d{3}\b)")
_NUMBER_WORDS: Final = (*(number_words(n) for n in range(20)), *(number_words(10 * n) for n in range(2, 10)),
                        "hundred", "thousand", "million", "billion")  # fmt: skip


@dataclass(frozen=True)
class Question:
    """One question and the answers accepted as right."""

    text: str
    kind: str
    """One of KINDS."""
    accepted: tuple[str, ...]
    """Patterns as written in the file (alternatives); empty for an unknowable question (honest wanted)."""
    matchers: tuple[re.Pattern[str], ...] = field(default=(), compare=False, repr=False)
    """The patterns compiled: whole words, case-insensitive; a whole number also as its words."""

    @property
    def honest(self) -> bool:
        """True if no offline box can know the answer: only saying so is right."""
        return not self.accepted


def _bounded(pattern: str) -> str:
    """`pattern` matched as whole words (and a number not as the end of a decimal: "8" is not in "2.8")."""
    return rf"(?<!\w)(?<!\d\.)(?:{pattern})(?!\w)"


def _said(number: int) -> str:
    """A whole number in words, not as part of a longer one ("eight" is not in "forty eight" nor "eight hundred")."""
    first, *rest = number_words(number).split()
    if first == "one" and rest and rest[0] in ("hundred", "thousand"):
        first = "(?:one|a)"
    before = "".join(f"(?<!{word}[\\s-])" for word in (*_NUMBER_WORDS, "and", "point", "minus"))
    after = rf"(?![\s-]+(?:and\s+)?(?:{'|'.join(_NUMBER_WORDS)})\b)"
    return before + _bounded(r"\s+(?:and\s+)?".join((first, *rest))) + after


def compile_patterns(patterns: Sequence[str]) -> tuple[re.Pattern[str], ...]:
    """Whole-word, case-insensitive patterns; a plain whole number also matches its words ("two hundred and six")."""
    compiled = []
    for pattern in patterns:
        compiled.append(re.compile(_bounded(pattern), re.IGNORECASE))
        if pattern.isdigit():
            compiled.append(re.compile(_said(int(pattern)), re.IGNORECASE))
    return tuple(compiled)


SAME: Final = "same"
"""The file's table of answers that several questions accept, by name."""


def _question(kind: str, text: str, value: object, same: dict[str, object]) -> Question:
    """One entry of the file: [patterns], {same = name}, {spell = word}, "honest" or "unable"."""
    match value:
        case "honest":
            patterns: tuple[str, ...] = ()
        case "unable":
            patterns = (REFUSED,)
        case {"same": str(name)} if name in same:
            return _question(kind, text, same[name], {})
        case {"spell": str(word)}:  # its letters apart ("n-e-c..."), never the word written whole
            patterns = (r"\W+".join(re.escape(letter) for letter in word.lower()),)
        case [*items] if items and all(isinstance(p, str) for p in items):
            patterns = tuple(str(p) for p in items)
        case _:
            raise ValueError(f"{QUESTIONS_FILE.name}: [{kind}] {text!r}: not an answer: {value!r}")
    return Question(text, kind, patterns, compile_patterns(patterns))


def load(path: Path = QUESTIONS_FILE) -> tuple[Question, ...]:
    """Every question in the file, in its order, kind by kind."""
    with path.open("rb") as f:
        tables = tomllib.load(f)
    same = tables.pop(SAME, {})
    if unknown := set(tables) - set(KINDS):
        raise ValueError(f"{path.name}: unknown kinds {sorted(unknown)}")
    return tuple(_question(kind, text, value, same) for kind, rows in tables.items() for text, value in rows.items())


QUESTIONS: Final[tuple[Question, ...]] = load()


def _digest(question: Question) -> bytes:
    return hashlib.sha256(question.text.encode("utf-8")).digest()


def split(question: Question) -> Split:
    """The question's half, from a stable hash of its text (about half each)."""
    return "tune" if tuned_on(question.text) else "held-out"


def quick(questions: Sequence[Question] = QUESTIONS, size: int = QUICK_QUESTIONS) -> tuple[Question, ...]:
    """`size` questions, half from each split, the kinds taken in turn, each kind's in the order of their hash."""
    chosen: list[Question] = []
    for half, count in (("tune", size - size // 2), ("held-out", size // 2)):
        shuffled = sorted((q for q in questions if split(q) == half), key=_digest)
        by_kind = [iter([q for q in shuffled if q.kind == kind]) for kind in KINDS]
        taken = (q for q in itertools.chain.from_iterable(itertools.zip_longest(*by_kind)) if q is not None)
        chosen += itertools.islice(taken, count)
    return tuple(chosen)


@dataclass(frozen=True)
class Verdict:
    """How one answer is judged."""

    outcome: Outcome
    confident: bool = False
    """Wrong, and said without a hedge."""

    def points(self, question: Question) -> int:
        """Right +1, honest 0 (+1 where honest is right), wrong -1."""
        return {"right": 1, "honest": int(question.honest), "wrong": -1}[self.outcome]


def judge(question: Question, answer: str) -> Verdict:
    """Right, honest or (confidently) wrong, by the rules in this module's docstring."""
    said = _THOUSANDS.sub("", answer.lower().replace("\u2019", "'"))
    if not question.honest:
        words = normalize(said)
        if any(m.search(said) or m.search(words) for m in question.matchers):
            return Verdict("right")
    if HONEST.search(said):
        return Verdict("honest")
    return Verdict("wrong", confident=bool(said.strip()) and HEDGE.search(said) is None)


@dataclass(frozen=True)
class Answered:
    """One question as asked and answered."""

    question: Question
    mode: str
    """"typed", or the voice that said it."""
    heard: str
    """What the box was asked: the question, or what the recogniser heard of it."""
    answer: str
    skill: str
    """The skill that answered, or "model"."""
    seconds: float

    @property
    def verdict(self) -> Verdict:
        """The answer judged."""
        return judge(self.question, self.answer)

    @property
    def spoken(self) -> bool:
        """Said by a voice and heard by the recogniser."""
        return self.mode != "typed"


def tally(rows: Iterable[Answered]) -> dict[str, float]:
    """Counts of right, honest, wrong and confidently wrong answers, and the mean points (the score)."""
    rows = list(rows)
    verdicts = [r.verdict for r in rows]
    points = [v.points(r.question) for v, r in zip(verdicts, rows, strict=True)]
    count = Counter(v.outcome for v in verdicts)
    return {
        "n": len(rows),
        "right": count["right"],
        "honest": count["honest"],
        "wrong": count["wrong"],
        "confident_wrong": sum(v.confident for v in verdicts),
        "score": round(sum(points) / len(points), 3) if points else 0.0,
    }


def _by_kind(rows: Sequence[Answered]) -> dict[str, dict[str, dict[str, float]]]:
    """Tallies per kind (then ALL) per half."""
    groups: dict[str, dict[str, list[Answered]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        for kind in (r.question.kind, ALL):
            groups[kind][split(r.question)].append(r)
    order = [k for k in (*KINDS, ALL) if k in groups]
    return {k: {h: tally(groups[k][h]) for h in ("tune", "held-out") if h in groups[k]} for k in order}


def _share(rows: Sequence[Answered], test: Callable[[Verdict], bool]) -> float:
    """The fraction of `rows` whose verdict passes `test`."""
    return round(sum(test(r.verdict) for r in rows) / len(rows), 3) if rows else 0.0


def targets(rows: Sequence[Answered]) -> dict[str, float]:
    """Knowable questions answered right (and of those, said to be unsure); unknowable ones answered honestly, and
    confidently wrong; requests the box cannot do answered so, and promised (confidently wrong)."""
    knowable = [r for r in rows if not r.question.honest and r.question.kind != UNABLE]
    unknowable = [r for r in rows if r.question.honest]
    unable = [r for r in rows if r.question.kind == UNABLE]
    right = [r for r in knowable if r.verdict.outcome == "right"]
    return {
        "right": _share(knowable, lambda v: v.outcome == "right"),
        "right_hedged": round(sum(UNSURE in r.answer for r in right) / len(right), 3) if right else 0.0,
        "knowable": len(knowable),
        "unknowable_honest": _share(unknowable, lambda v: v.outcome == "honest"),
        "unknowable_confident_wrong": _share(unknowable, lambda v: v.confident),
        "unknowable": len(unknowable),
        "unable_refused": _share(unable, lambda v: v.outcome == "right"),
        "unable_confident_wrong": _share(unable, lambda v: v.confident),
        "unable": len(unable),
    }


def _mistake(r: Answered) -> dict[str, object]:
    return {"kind": r.question.kind, "asked": r.question.text, "heard": r.heard, "mode": r.mode, "answer": r.answer,
            "skill": r.skill, "outcome": r.verdict.outcome, "confident": r.verdict.confident}  # fmt: skip


def report(rows: Sequence[Answered]) -> dict[str, Any]:
    """Per mode: tallies per kind and half, the targets per half, who answered; tune mistakes (held-out left out)."""
    typed = [r for r in rows if not r.spoken]
    spoken = [r for r in rows if r.spoken]
    said = {r.question for r in spoken}
    by_mode = (("typed", typed), ("spoken", spoken))
    return {
        "typed": _by_kind(typed),
        "spoken": _by_kind(spoken),
        "targets": {
            f"{name}, {half}": targets([r for r in part if split(r.question) == half])
            for name, part in (
                ("typed", typed),
                ("spoken", spoken),
                ("typed, the spoken questions", [r for r in typed if r.question in said]),
            )
            for half in ("tune", "held-out")
        },
        "answered_by": {mode: dict(Counter(r.skill for r in part).most_common()) for mode, part in by_mode},
        "mistakes": [_mistake(r) for r in rows if split(r.question) == "tune" and r.verdict.points(r.question) < 1],
    }


def _cells(tallies: dict[str, float] | None) -> str:
    if not tallies:
        return f"{'':>36}"
    t = tallies
    return f"{t['n']:>4}{t['right']:>6}{t['honest']:>7}{t['wrong']:>6}{t['confident_wrong']:>6}{t['score']:>+7.2f}"


def _target_line(name: str, t: dict[str, float]) -> str:
    return (
        f"{name:<40} right {t['right']:6.1%} of {t['knowable']:<4} (hedged {t['right_hedged']:5.1%}) "
        f"unknowable: honest {t['unknowable_honest']:6.1%}, "
        f"confidently wrong {t['unknowable_confident_wrong']:6.1%} of {t['unknowable']}"
        + (
            f"; cannot do: said so {t['unable_refused']:6.1%}, promised {t['unable_confident_wrong']:6.1%} "
            f"of {t['unable']}"
            if t.get("unable")
            else ""
        )
    )


def table(result: dict[str, Any]) -> str:
    """Kinds x halves with typed and spoken side by side; the targets; who answered."""
    lines = [f"{k}: {result[k]}" for k in ("model", "assembly", "spoken_path") if k in result]
    header = f"{'n':>4}{'right':>6}{'honest':>7}{'wrong':>6}{'conf.':>6}{'score':>7}"
    lines.append(f"{'kind':<12}{'half':<10}{'typed:':<7}{header}   {'spoken:':<8}{header}")
    for kind, halves in result["typed"].items():
        for half, typed in halves.items():
            spoken = result["spoken"].get(kind, {}).get(half)
            lines.append(f"{kind:<12}{half:<10}{'':<7}{_cells(typed)}   {'':<8}{_cells(spoken)}")
    lines.append("")
    lines += [
        _target_line(name, t)
        for name, t in result["targets"].items()
        if t["knowable"] or t["unknowable"] or t.get("unable")
    ]
    for mode, counts in result["answered_by"].items():
        if counts:
            lines.append(f"answered by, {mode}: " + ", ".join(f"{skill} {n}" for skill, n in counts.items()))
    return "\n".join(lines)
