"""One set of phrasings is found by the comment that opens it, in lists it was added to and in lists of its own."""

from __future__ import annotations

from daemon.lab.phrase_set_eval import phrases_of, texts_of

SOURCE = """
time = [
    "what time is it",
    # A later set.
    "time please",
]

none = [
    "why is the sky blue",
    # A later set, written for clocks.
    ["what's the clock's name", {}],
]

# A later set: lists of its own.
pace = [
    "slower",
    # An eleventh set, added to it.
    "faster",
]

# Another block.
spell = [
    "spell cat",
]
"""


def test_a_set_is_its_phrases_after_the_comment_and_no_others() -> None:
    assert texts_of(SOURCE, "A later set") == {"time please", "what's the clock's name", "slower"}
    assert texts_of(SOURCE, "An eleventh set") == {"faster"}


def test_the_ninth_set_is_its_requests_and_questions() -> None:
    ninth = phrases_of("A ninth set")
    assert len(ninth) == 112 and sum(p.skill == "none" for p in ninth) == 21
    assert {"timer_pause", "timer_change", "change_it", "timer_add", "alarm_move"} <= {p.skill for p in ninth}
