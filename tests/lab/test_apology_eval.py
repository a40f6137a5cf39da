"""The apology evaluation's table: per line and half, how many questions of each group reach it."""

from __future__ import annotations

from daemon.lab.apology_eval import Opening, table
from daemon.lab.evaluation import answers


def _question(kind: str, half: str, choice: bool = False) -> answers.Question:
    """A question of answers.toml of `kind` that falls in `half` (one asking for a choice, if `choice`)."""
    from daemon.engines.doubt import asks_for_a_choice

    return next(
        q
        for q in answers.QUESTIONS
        if q.kind == kind and answers.split(q) == half and asks_for_a_choice(q.text) == choice
    )


def test_a_line_counts_the_questions_whose_apology_reached_it_per_group_and_half() -> None:
    place, idea = _question("place", "tune"), _question("suggest", "tune", choice=True)
    unknown, taken = [q for q in answers.QUESTIONS if q.kind == "unknowable" and answers.split(q) == "held-out"][:2]
    rows = [
        Opening(place, True, 0.001),
        Opening(idea, True, 0.008),
        Opening(unknown, True, 0.03),
        Opening(taken, False, 0.5),  # the box answers it offline: not counted held-out
    ]
    assert [r.group for r in rows] == ["knowable", "choice", "unknowable", "unknowable"]
    lines = table(rows, lines=(0.005, 0.05)).splitlines()
    assert lines[1].split() == ["0.005", "tune", "0", "/", "1", "1", "/", "1", "0", "/", "0"]
    assert lines[2].split() == ["0.005", "held-out", "0", "/", "0", "0", "/", "0", "1", "/", "1"]
    assert lines[4].split() == ["0.05", "held-out", "0", "/", "0", "0", "/", "0", "0", "/", "1"]
