"""The skill-routing evaluation shows the router word for word beside the loose one, and what was read loosely."""

from __future__ import annotations

from pathlib import Path

from daemon.lab.evaluation import skills as evaluation
from daemon.skills import intents

TUNE = {p.text: p for p in evaluation.tune()}


def test_what_was_read_loosely_is_listed_with_whether_it_was_right() -> None:
    said = [
        (TUNE["set a timer for ten minutes"], "typed", "set a timer for ten minutes"),
        (TUNE["set a timer for ten minutes"], "flite-kal", "Set a time, or for ten minutes?"),  # heard by Whisper
        (TUNE["what is today's date"], "piper-1.00", "What is today's day?"),
    ]
    as_heard = evaluation.route_all(intents.match_as_heard, said)
    routed = evaluation.route_all(intents.match, said)
    loose = evaluation.read_loosely(routed, as_heard)
    assert [(r["heard"], r["right"]) for r in loose] == [("Set a time, or for ten minutes?", True)]
    report = {"templates, word for word": evaluation.report(as_heard), "templates": evaluation.report(routed)}
    assert report["templates, word for word"]["spoken"]["tune"]["routed_right"] == 0.0
    assert report["templates"]["spoken"]["tune"]["routed_right"] == 0.5
    lines = evaluation.table(report | {"read loosely": loose}).splitlines()
    assert lines[-1] == "read loosely, tune: 1 spoken phrases (1 right, 0 wrong)"


def test_what_the_voices_were_heard_saying_is_kept_and_routed_again_without_speaking(tmp_path: Path) -> None:
    heard = [
        (TUNE["set a timer for ten minutes"], "flite-kal", "Set a time, or for ten minutes?"),
        (TUNE["what is today's date"], "piper-1.00", "What is today's day?"),
    ]
    kept = tmp_path / "heard.jsonl"
    evaluation.keep_heard(kept, heard)
    assert evaluation.read_heard(kept, evaluation.tune()) == heard
    # a phrase since taken out of the set (or written otherwise) is not routed as if it were still in it
    assert evaluation.read_heard(kept, [TUNE["what is today's date"]]) == heard[1:]
