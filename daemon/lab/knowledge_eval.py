"""The encyclopedia's retrieval over the answer evaluation's questions, offline and without a model.

For each question of answers.toml: is a passage retrieved, does it hold an accepted answer (the evaluation's own
judge, over the title and the passage), and is it wrong: any passage for an unknowable question, and passages judged
off the question's subject by a person (OFF_TOPIC). Per half: tune on the tune half only, report held-out beside it.
Also the index build time (cold, into an empty models directory), its check at each later start, and lookup times.

    .venv/bin/python -m daemon.lab.knowledge_eval [--show tune|held-out|all] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from daemon.config import Config, ModelsConfig
from daemon.knowledge.lookup import Knowledge, Passage
from daemon.lab.evaluation.answers import QUESTIONS, Question, judge, split
from daemon.modelstore.select import select_knowledge
from daemon.skills import intents

HALVES: Final = ("tune", "held-out")
OFF_TOPIC: Final = {
    # tune half, judged while the matching was tuned
    ("How long does it take the Earth to go around the sun?", "Sun"),
    ("Who is known as the father of the computer?", "Computer"),
    ("Why do we have day and night?", "Night"),
    # held-out half, judged once, after the matching was tuned
    ("Who sculpted the statue of David in Florence?", "Florence"),
    ("Who wrote A Christmas Carol?", "Christmas carol"),  # since fixed: "A Christmas Carol" said whole is the book
    ("Which part of a plant makes its food?", "Food"),
    ("What element does the symbol O stand for?", "Symbol"),
    ("When is Independence Day in the United States?", "United States"),
    ("What year was the Great Fire of London?", "London"),
}
"""(question, article) pairs judged by reading them: the article is not what the question asks about."""


@dataclass(frozen=True)
class Retrieved:
    """One question looked up."""

    question: Question
    passage: Passage | None
    seconds: tuple[float, ...]
    """Each lookup's time."""
    skill: bool
    """A skill template answers it before the model sees it."""

    @property
    def answers(self) -> bool:
        """The passage holds an accepted answer."""
        text = f"{self.passage.title}: {self.passage.text}" if self.passage else ""
        return bool(text) and not self.question.honest and judge(self.question, text).outcome == "right"

    @property
    def wrong(self) -> bool:
        """A passage for a question no encyclopedia answers, or one judged off the subject."""
        if self.passage is None:
            return False
        return self.question.honest or (self.question.text, self.passage.title) in OFF_TOPIC


def built(models_dir: Path) -> tuple[Knowledge, float, float]:
    """The dev profile's encyclopedia in `models_dir`; seconds to build its index, then to check it again."""
    config = Config(models=ModelsConfig(profile="dev", dir=str(models_dir)))
    started = time.perf_counter()
    selected = select_knowledge(config)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    select_knowledge(config)
    check_s = time.perf_counter() - started
    if selected is None:
        raise SystemExit("the dev profile names no encyclopedia (models/manifest.toml: knowledge)")
    return Knowledge(selected.path), build_s, check_s


def retrieve(knowledge: Knowledge, questions: Sequence[Question], repeat: int) -> list[Retrieved]:
    """Every question looked up `repeat` times (each time kept, for the timing)."""
    rows = []
    for q in questions:
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            passage = knowledge.lookup(q.text)
            times.append(time.perf_counter() - started)
        rows.append(Retrieved(q, passage, tuple(times), intents.match(q.text) is not None))
    return rows


def tally(rows: Sequence[Retrieved]) -> dict[str, int]:
    """Counts of one half."""
    got = [r for r in rows if r.passage]
    return {
        "questions": len(rows),
        "knowable": sum(not r.question.honest for r in rows),
        "retrieved": len(got),
        "with_answer": sum(r.answers for r in got),
        "wrong": sum(r.wrong for r in got),
        "unknowable_retrieved": sum(r.question.honest for r in got),
        "no_answer_on_topic": sum(not r.answers and not r.wrong for r in got),
        "model_bound": sum(not r.skill for r in rows),
        "model_bound_retrieved": sum(not r.skill for r in got),
        "model_bound_with_answer": sum(not r.skill and r.answers for r in got),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Build, time and report."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", choices=(*HALVES, "all"), help="print each question of this half and its passage")
    parser.add_argument("--repeat", type=int, default=5, help="lookups per question for the timing (default 5)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="talkbox-knowledge-") as models:
        knowledge, build_s, check_s = built(Path(models))
        size_mb = knowledge.path.stat().st_size / 1e6
        rows = retrieve(knowledge, QUESTIONS, args.repeat)
        knowledge.close()
    ms = sorted(s * 1000 for r in rows for s in r.seconds)
    p95 = ms[int(0.95 * len(ms))]
    print(f"index: built in {build_s:.2f} s ({size_mb:.1f} MB, {knowledge.articles} articles), "
          f"checked again in {check_s * 1000:.0f} ms")  # fmt: skip
    print(f"lookup, {len(ms)} of them ({len(rows)} questions x {args.repeat}): mean {statistics.mean(ms):.2f} ms, "
          f"median {statistics.median(ms):.2f} ms, p95 {p95:.2f} ms, max {ms[-1]:.2f} ms")  # fmt: skip
    for half in HALVES:
        print(
            f"{half:>9}: "
            + ", ".join(f"{k} {v}" for k, v in tally([r for r in rows if split(r.question) == half]).items())
        )
    for r in rows:
        if args.show in (split(r.question), "all"):
            mark = "-" if r.passage is None else "wrong" if r.wrong else "answer" if r.answers else "no answer"
            where = f"{r.passage.title}: {r.passage.text}" if r.passage else ""
            print(f"{mark:>9}  {split(r.question):8} {r.question.kind:10} {r.question.text}  ->  {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
