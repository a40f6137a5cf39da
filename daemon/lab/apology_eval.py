"""Does the model's chance of apologising tell a question no offline box can know from one it can answer? Every
question of answers.toml the box would leave to the model (and every unknowable one) asked of it, stopped after its
first word, with the chance it gave opening with an apology; then, per line, how many of each kind reach it.

Run: `python -m daemon.lab.apology_eval [--config PATH]` (about 5 minutes with the 1.5B here).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from daemon.engines.doubt import asks_for_a_choice
from daemon.lab.doubt_eval import asked_of_the_model, print_table
from daemon.lab.evaluation import answers

LINES: Final = (0.002, 0.005, 0.01, 0.02, 0.05)


@dataclass(frozen=True)
class Opening:
    """One question and the chance the model gave opening its answer with an apology."""

    question: answers.Question
    left_to_model: bool
    """No skill takes it (an unknowable question the box answers offline is asked of the model all the same)."""
    chance: float

    @property
    def group(self) -> str:
        """ "unknowable", "choice" (a question asking for one: never made to apologise) or "knowable"."""
        if self.question.honest:
            return "unknowable"
        return "choice" if asks_for_a_choice(self.question.text) else "knowable"


def ask_all(config_path: Path | None) -> list[Opening]:
    """The apology's chance before the first word of each question the model would be asked."""
    rows = []
    for llm, question, left_to_model in asked_of_the_model(config_path):
        stop = threading.Event()
        for _ in llm.respond(question.text, stop):
            stop.set()  # NOTE: the chance is the first word's: the rest of the answer is not needed
        rows.append(Opening(question, left_to_model, llm.stats.apology_chance))
    return rows


def table(rows: Sequence[Opening], lines: Sequence[float] = LINES) -> str:
    """Per line and half: questions at or above it, of each group (held-out unknowable ones: those the box leaves to
    the model; in the tune half every unknowable one, as the box takes them all offline)."""
    out = ["line    half      knowable   choice     unknowable"]
    for line in lines:
        for half in ("tune", "held-out"):
            part = [r for r in rows if answers.split(r.question) == half]
            cells = []
            for group in ("knowable", "choice", "unknowable"):
                asked = half == "tune" or group != "unknowable"
                of = [r for r in part if r.group == group and (asked or r.left_to_model)]
                cells.append(f"{sum(r.chance >= line for r in of):>3} / {len(of):<4}")
            out.append(f"{line:<8}{half:<10}" + "  ".join(cells))
    return "\n".join(out)


def main() -> None:
    """Ask and print the table."""
    print_table(__doc__, ask_all, table)


if __name__ == "__main__":
    main()
