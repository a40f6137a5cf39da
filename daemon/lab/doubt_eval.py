"""Does the model's doubt tell a wrong answer from a right one? Every question of answers.toml the box would leave to
the model (and every unknowable one) asked of it greedily, each answer judged and its claims' log-probabilities
kept; then, per line, the right answers and the confidently wrong ones that line would hedge, tune and held-out.

Run: `python -m daemon.lab.doubt_eval [--config PATH]` (about 30 minutes with the 1.5B here).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from daemon.config.file import load as load_config
from daemon.engines.doubt import Doubt
from daemon.lab.answers_eval import greedy
from daemon.lab.evaluation import answers
from daemon.lab.meaning_folds import by_meaning
from daemon.ports import LanguageModel

LINES: Final = (-1.0, -1.5, -2.0, -2.5)
Rows = TypeVar("Rows")


@dataclass(frozen=True)
class Doubted:
    """One question's greedy answer from the model, judged, with its tokens and their log-probabilities."""

    question: answers.Question
    verdict: answers.Verdict
    left_to_model: bool
    """No skill takes it (an unknowable question the box answers offline is asked of the model all the same)."""
    pieces: tuple[str, ...]
    logprobs: tuple[float, ...]

    def hedged(self, below: float) -> bool:
        """Whether the box would say it is unsure of this answer at `below`."""
        doubt = Doubt(below, self.question.text)
        for piece, logprob in zip(self.pieces, self.logprobs, strict=False):
            doubt.feed(piece, logprob)
        return doubt.unsure


def asked_of_the_model(config_path: Path | None) -> Iterator[tuple[LanguageModel, answers.Question, bool]]:
    """Each question of answers.toml the box would leave to the model, and every unknowable one (whether the box
    leaves it to the model too), with the greedy model to ask, its conversation forgotten."""
    from daemon.engines.load import load_llm, load_meaning

    config = greedy(load_config(config_path))
    llm, router = load_llm(config), load_meaning(config)
    read = by_meaning(router) if router is not None else (lambda _: None)
    try:
        for question in answers.QUESTIONS:
            call = read(question.text)
            if call is not None and not question.honest:
                continue  # a skill answers it: the model never comes into it
            llm.conversation.forget()
            yield llm, question, call is None
    finally:
        llm.close()
        if router is not None:
            router.close()


def ask_all(config_path: Path | None) -> list[Doubted]:
    """The model's answers (its own stream of pieces, one a token) to the questions it would be asked."""
    rows = []
    for llm, question, left_to_model in asked_of_the_model(config_path):
        pieces = tuple(llm.respond(question.text))
        verdict = answers.judge(question, "".join(pieces))
        rows.append(Doubted(question, verdict, left_to_model, pieces, tuple(llm.stats.token_logprobs)))
    return rows


def table(rows: Sequence[Doubted], lines: Sequence[float] = LINES) -> str:
    """Per line and half: right answers hedged; confidently wrong ones hedged (knowable, and unknowable ones the box
    leaves to the model; in the tune half every unknowable one, as the box takes them all offline)."""
    out = ["line   half      right hedged   confidently wrong hedged: knowable + unknowable"]
    for below in lines:
        for half in ("tune", "held-out"):
            part = [r for r in rows if answers.split(r.question) == half]
            right = [r for r in part if r.verdict.outcome == "right"]
            known = [r for r in part if not r.question.honest and r.verdict.confident]
            unknown = [r for r in part if r.question.honest and r.verdict.confident]
            if half == "held-out":
                unknown = [r for r in unknown if r.left_to_model]
            hedged = [sum(r.hedged(below) for r in group) for group in (right, known, unknown)]
            out.append(
                f"{below:<7}{half:<10}{hedged[0]:>4} / {len(right):<8}{hedged[1]:>4} / {len(known)} + "
                f"{hedged[2]} / {len(unknown)}"
            )
    return "\n".join(out)


def print_table(about: str | None, ask: Callable[[Path | None], Rows], show: Callable[[Rows], str]) -> None:
    """The command line of the model's evaluations: `--config PATH`; ask, then print the table."""
    parser = argparse.ArgumentParser(description=about.splitlines()[0] if about else None)
    parser.add_argument("--config", type=Path, default=None)
    print(show(ask(parser.parse_args().config)))


def main() -> None:
    """Ask, judge and print the table."""
    print_table(__doc__, ask_all, table)


if __name__ == "__main__":
    main()
