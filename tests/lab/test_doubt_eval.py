"""The doubt evaluation's table: per line and half, which right and which confidently wrong answers it hedges."""

from __future__ import annotations

from daemon.lab.doubt_eval import Doubted, table
from daemon.lab.evaluation import answers


def _question(kind: str, half: str) -> answers.Question:
    """A question of answers.toml of `kind` that falls in `half`."""
    return next(q for q in answers.QUESTIONS if q.kind == kind and answers.split(q) == half)


def test_a_line_hedges_the_answers_whose_claim_fell_below_it() -> None:
    place = _question("place", "tune")
    sure = Doubted(place, answers.judge(place, "x"), True, ("It", " is", " Rome", "."), (-0.1, -0.1, -0.2, -0.1))
    right = Doubted(place, answers.Verdict("right"), True, ("It", " is", " Rome", "."), (-0.1, -0.1, -1.7, -0.1))
    unsure = Doubted(place, answers.Verdict("wrong", confident=True), True, ("In", " 1", "9"), (-0.1, -3.0, -0.1))
    assert [r.hedged(-1.5) for r in (sure, right, unsure)] == [False, True, True]
    lines = table([right, unsure], lines=(-1.5, -2.0)).splitlines()
    assert lines[1].split() == ["-1.5", "tune", "1", "/", "1", "1", "/", "1", "+", "0", "/", "0"]
    assert lines[3].split() == ["-2.0", "tune", "0", "/", "1", "1", "/", "1", "+", "0", "/", "0"]
