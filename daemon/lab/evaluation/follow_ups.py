"""Follow-up questions: a question, then one that leans on it ("When was he born?"), from follow_ups.toml."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from daemon.lab.evaluation.answers import Question, Split, compile_patterns, judge
from daemon.skills.learned import tuned_on

PAIRS_FILE: Final = Path(__file__).parents[2] / "skills" / "follow_ups.toml"
KIND: Final = "follow-up"


@dataclass(frozen=True)
class Pair:
    """A question asked first, and the follow-up whose answer is judged."""

    first: str
    then: Question

    @property
    def half(self) -> Split:
        """The follow-up's half, from a stable hash of its text."""
        return "tune" if tuned_on(self.then.text) else "held-out"


def load(path: Path = PAIRS_FILE) -> tuple[Pair, ...]:
    """Every pair in the file, in its order."""
    with path.open("rb") as f:
        rows = tomllib.load(f)["pair"]
    return tuple(
        Pair(str(r["first"]), Question(str(r["then"]), KIND, tuple(r["accepted"]), compile_patterns(r["accepted"])))
        for r in rows
    )


PAIRS: Final[tuple[Pair, ...]] = load()


@dataclass(frozen=True)
class FollowedUp:
    """One pair as answered: the first answer, the follow-up's, and whether it was asked with the conversation."""

    pair: Pair
    first_answer: str
    answer: str
    with_conversation: bool

    @property
    def right(self) -> bool:
        """The follow-up answered right."""
        return judge(self.pair.then, self.answer).outcome == "right"


def report(rows: Sequence[FollowedUp]) -> dict[str, Any]:
    """Per half: follow-ups answered right, and asked without the conversation; the tune half's mistakes."""
    halves = {}
    for half in ("tune", "held-out"):
        part = [r for r in rows if r.pair.half == half]
        halves[half] = {
            "n": len(part),
            "right": sum(r.right for r in part),
            "asked_alone": sum(not r.with_conversation for r in part),
        }
    mistakes = [
        {"first": r.pair.first, "first_answer": r.first_answer, "asked": r.pair.then.text, "answer": r.answer}
        for r in rows
        if r.pair.half == "tune" and not r.right
    ]
    return {"follow_ups": halves, "follow_up_mistakes": mistakes}


def table(result: dict[str, Any]) -> str:
    """One line per half."""
    return "\n".join(
        f"follow-ups, {half:<9} right {t['right']:>3} of {t['n']:<3} ({t['right'] / max(t['n'], 1):6.1%}); "
        f"asked without the conversation {t['asked_alone']}"
        for half, t in result["follow_ups"].items()
    )
