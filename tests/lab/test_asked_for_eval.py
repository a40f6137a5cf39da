"""The dialogs that leave out a length or a time: the set as written, and a dialog judged by what the box sets."""

from __future__ import annotations

from daemon.lab.asked_for_eval import Dialog, dialogs, outcome

KINDS = ("timer", "alarm", "reminder", "none")


def test_the_set_has_both_halves_of_every_kind_and_each_dialog_says_what_it_sets() -> None:
    every = dialogs()
    assert len(every) == 80
    assert {(d.half, d.kind) for d in every} == {(half, kind) for half in ("tune", "held-out") for kind in KINDS}
    for d in every:
        meant = (d.seconds is not None, d.at is not None)
        assert meant == (False, False) if d.kind == "none" else sum(meant) == 1, d


def test_a_dialog_is_right_only_when_the_box_sets_what_was_meant() -> None:
    timer = Dialog("set a timer", "ten minutes", "timer", 600, None, "")
    assert outcome(timer, (timer.request, timer.answer), None)[:2] == (True, "right")
    assert outcome(timer, (timer.request, "four minutes"), None)[1] == "wrong"
    assert outcome(timer, (timer.request, "what time is it"), None)[1] == "nothing set"
    reminder = Dialog("remind me to call the dentist", "in 20 minutes", "reminder", 1200, None, "call the dentist")
    heard = ("remind me to call the endist", reminder.answer)
    assert outcome(reminder, heard, None)[1] == "right, its note as heard"
    nothing = Dialog("set a timer", "never mind", "none", None, None, "")
    assert outcome(nothing, (nothing.request, nothing.answer), None)[1] == "right"
