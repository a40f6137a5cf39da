"""The question set: what people ask a voice box, as it is said, split once and for all into tune and held-out."""

from __future__ import annotations

from collections import Counter

from daemon.lab.evaluation.corpus import KINDS, QUESTIONS, Question, quick, split, tune
from daemon.lab.evaluation.metrics import normalize


def test_there_are_enough_questions_of_every_kind() -> None:
    assert len(QUESTIONS) >= 160
    assert len({q.text for q in QUESTIONS}) == len(QUESTIONS)
    kinds = Counter(q.kind for q in QUESTIONS)
    assert set(kinds) == set(KINDS) and min(kinds.values()) >= 15


def test_questions_are_written_as_said_with_their_key_words() -> None:
    for q in QUESTIONS:
        assert not any(c.isdigit() for c in q.text), q  # numbers in words, as spoken
        assert 2 <= len(q.keywords) <= 4, q
        words = normalize(q.text).split()
        assert all(k == k.lower() and k in words for k in q.keywords), q


def test_the_split_is_stable_and_about_half_each() -> None:
    halves = Counter(split(q) for q in QUESTIONS)
    assert set(halves) == {"tune", "held-out"}
    assert 0.4 <= halves["tune"] / len(QUESTIONS) <= 0.6
    # The same text always falls on the same side, whatever its kind or keywords, in every process.
    assert split(Question("What is the capital of France?", ("x", "y"), "general")) == "held-out"
    assert split(Question("How do airplanes stay in the air?", (), "fact")) == "tune"
    assert all(split(q) == "tune" for q in tune())


def test_the_quick_set_takes_half_from_each_split_and_every_kind() -> None:
    chosen = quick()
    assert len(chosen) == 40 and len(set(chosen)) == 40
    assert Counter(split(q) for q in chosen) == {"tune": 20, "held-out": 20}
    assert {q.kind for q in chosen} == set(KINDS)
    assert quick() == chosen
