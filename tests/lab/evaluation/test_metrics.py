"""Transcripts are scored on normalised words: numbers said either way count the same, errors are counted by word."""

from __future__ import annotations

import pytest

from daemon.lab.evaluation.metrics import (
    edit_distance,
    keyword_recall,
    keywords_heard,
    normalize,
    number_words,
    ordinal_words,
    time_words,
    word_error_rate,
    word_errors,
)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Set a timer for 10 minutes.", "set a timer for ten minutes"),
        ("Wake me up at 7:30, please!", "wake me up at seven thirty please"),
        ("50% of 1,250", "fifty percent of one thousand two hundred fifty"),
        ("the 21st, the 40th and the 3rd", "the twenty first the fortieth and the third"),
        ("7:05 or 12:00", "seven oh five or twelve o'clock"),
        ("pi is 3.14", "pi is three point one four"),
        ("What's the COLOUR of a litre?", "what's the color of a liter"),
        ("Rock-and-roll  'quoted'   words", "rock and roll quoted words"),
        ("", ""),
    ],
)
def test_text_is_normalised_to_spoken_words(text: str, said: str) -> None:
    assert normalize(text) == said


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (0, "zero"),
        (13, "thirteen"),
        (40, "forty"),
        (99, "ninety nine"),
        (100, "one hundred"),
        (105, "one hundred five"),
        (1000, "one thousand"),
        (2023, "two thousand twenty three"),
        (9999, "nine thousand nine hundred ninety nine"),
        (12345, "one two three four five"),
    ],
)
def test_numbers_are_said_in_words(n: int, words: str) -> None:
    assert number_words(n) == words


def test_ordinals_and_times_are_said_as_people_say_them() -> None:
    assert [ordinal_words(n) for n in (1, 2, 3, 5, 9, 12, 20, 23, 100)] == [
        "first",
        "second",
        "third",
        "fifth",
        "ninth",
        "twelfth",
        "twentieth",
        "twenty third",
        "one hundredth",
    ]
    assert time_words(10, 15) == "ten fifteen"
    assert time_words(6, 0) == "six o'clock"


def test_word_errors_count_substitutions_deletions_and_insertions() -> None:
    assert edit_distance(["a", "b", "c"], ["a", "b", "c"]) == 0
    assert edit_distance(["a", "b", "c"], ["a", "x", "c"]) == 1  # one substitution
    assert edit_distance(["a", "b", "c"], ["a", "c"]) == 1  # one deletion
    assert edit_distance(["a", "b", "c"], ["a", "b", "c", "d"]) == 1  # one insertion
    assert edit_distance(["a", "b", "c"], []) == 3
    assert word_errors("What is the capital of France?", "what is capital of the france") == (2, 6)
    assert word_error_rate("Set a timer for 10 minutes", "set a timer for ten minutes") == 0.0
    assert word_error_rate("turn it up", "turn it up up up up") == 1.0
    assert word_error_rate("turn it up", "") == 1.0
    assert word_error_rate("", "") == 0.0 and word_error_rate("", "noise") == 1.0


def test_key_word_recall_is_the_share_of_key_words_heard() -> None:
    keywords = ("timer", "ten", "minutes")
    assert keywords_heard(keywords, "set a time for 10 minutes") == ("ten", "minutes")
    assert keyword_recall(keywords, "set a time for 10 minutes") == pytest.approx(2 / 3)
    assert keyword_recall(keywords, "Set a TIMER for ten minutes!") == 1.0
    assert keyword_recall(keywords, "") == 0.0
