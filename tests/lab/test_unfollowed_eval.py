"""The evaluation of requests no skill read: each answer judged (a promise, a phone's steps, a refusal, the box's own
reply) and counted per mode and half, before and now."""

from __future__ import annotations

import pytest

from daemon.lab.unfollowed_eval import Left, judged, table
from daemon.skills.unfollowed import REPLIES


@pytest.mark.parametrize(
    ("answer", "judgement"),
    [
        ("Sure, I can set a timer for 4 minutes.", "promised"),
        ("Okay, I'll set a timer for seven minutes.", "promised"),
        ("Set an alarm for 07:45 tomorrow.", "promised"),  # the request said back
        ("I will set my clock to 9:15 AM.", "promised"),
        ("To set an alarm for midnight, you can follow these steps: 1. Open your device's settings.", "steps"),
        ("Sorry, but I can't assist with that.", "refused"),
        ("Sorry, I can't set an alarm.", "refused"),
        ("Softness is a quality that can be described as gentle.", "other"),
        (REPLIES["timer"], "told nothing was done"),
    ],
)
def test_an_answer_is_judged_by_what_it_says_was_done(answer: str, judgement: str) -> None:
    assert judged(answer) == judgement


def test_the_table_counts_the_model_s_answers_and_the_box_s_per_mode_and_half() -> None:
    promise, refusal = "Sure, I can set a timer for 4 minutes.", "Sorry, but I can't assist with that."
    rows = [
        Left(
            "set a timer for 4 mins",
            "timer_start",
            "typed",
            "held-out",
            "set a timer for 4 mins",
            promise,
            REPLIES["timer"],
        ),
        Left("stop every timer", "timer_cancel", "spoken", "held-out", "Stop every time.", refusal, refusal),
    ]
    lines = table(rows).splitlines()
    assert lines[0] == "typed held-out: 1 requests left by the routing"
    assert lines[1].endswith("{'promised': 1}") and lines[2].endswith("{'told nothing was done': 1}")
    assert lines[3] == "spoken held-out: 1 requests left by the routing"
    assert lines[4].endswith("{'refused': 1}") and lines[5].endswith("{'refused': 1}")
