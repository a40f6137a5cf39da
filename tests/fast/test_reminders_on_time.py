"""A timer or an alarm that comes due rings at once in every state of the box, except over the user's own words:
an empty follow-up window and an answer under way give way to it; due while the user speaks, it rings as soon as
their answer is over and says so."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from daemon.events import (
    BargeIn,
    Event,
    ListeningEnded,
    Ringing,
    SpeakingStarted,
    SpeechStarted,
    TurnEnded,
    TurnStarted,
)
from daemon.ports import Engines
from tests.fast.script import ANSWER, QUESTION, QUICK, SPEED, WAIT_S, asked
from tests.harness import Person, later, of, run_box
from tests.inprocess import ScriptedRecogniser, ToneVoice
from tests.mic import ScriptedMic

DUE = "Your tea timer is done."
FOLLOW_UP = dataclasses.replace(QUICK, follow_up_s=2.0)


class Timer:
    """Comes due once, at the moment a test chooses, and remembers whether it rang at once."""

    def __init__(self) -> None:
        self.rang_at_once: list[bool] = []

    def due(self, who: Person) -> None:
        self.rang_at_once.append(who.keeper.ring(DUE, "tea timer"))


def due_during(
    engines: Engines, recogniser: ScriptedRecogniser, tmp_path: Path, due_on: type[Event]
) -> tuple[list[Event], list[bool]]:
    """A spoken question; a timer comes due at the first `due_on` event; the ring is stopped when heard.

    The box's events, and whether the timer rang at once.
    """
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)
    asked(mic)
    timer = Timer()
    rings: list[int] = []
    due: list[int] = []

    def script(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, due_on) and not due and _follow_up_or_not(event, due_on):
            due.append(event.turn)
            if due_on is SpeechStarted:
                timer.due(who)  # at once: the user has only begun their question
            else:
                later(0.1, lambda: timer.due(who))  # a moment into the window, or into the answer
        if isinstance(event, Ringing):
            rings.append(event.turn)
            later(0.2, who.keeper.stop_speaking)
        if isinstance(event, TurnEnded) and event.turn in rings:
            mic.end()

    events, _ = run_box(engines, mic, FOLLOW_UP, tmp_path / "out.wav", script, timeout_s=WAIT_S)
    return events, timer.rang_at_once


def _follow_up_or_not(event: Event, due_on: type[Event]) -> bool:
    return due_on is not TurnStarted or getattr(event, "trigger", "") == "follow-up"


def test_a_reminder_due_in_an_empty_follow_up_window_rings_at_once(
    stand_ins: Engines, recogniser: ScriptedRecogniser, voice: ToneVoice, tmp_path: Path
) -> None:
    events, rang_at_once = due_during(stand_ins, recogniser, tmp_path, TurnStarted)
    assert rang_at_once == [True]
    starts = [(e.turn, e.trigger) for e in of(events, TurnStarted)]
    assert starts == [(1, "wake-word"), (2, "follow-up"), (3, "reminder")]
    assert [(e.turn, e.outcome) for e in of(events, TurnEnded)] == [
        (1, "answered"),
        (2, "cancelled"),
        (3, "interrupted"),
    ]
    kinds = [type(e).__name__ for e in events if e.turn >= 2 and type(e).__name__ != "AudioLevel"]
    assert kinds[:5] == ["TurnStarted", "ListeningStarted", "ListeningEnded", "TurnStarted", "Ringing"]
    assert of(events, ListeningEnded)[-1].reason == "cancelled"  # the empty window gave way at once
    assert voice.said[-1] == DUE


def test_a_reminder_due_while_an_answer_is_spoken_cuts_it(
    stand_ins: Engines, recogniser: ScriptedRecogniser, voice: ToneVoice, tmp_path: Path
) -> None:
    events, rang_at_once = due_during(stand_ins, recogniser, tmp_path, SpeakingStarted)
    assert rang_at_once == [True]
    assert [(e.turn, e.source) for e in of(events, BargeIn)] == [(1, "reminder"), (2, "stop")]
    assert [(e.turn, e.trigger) for e in of(events, TurnStarted)] == [(1, "wake-word"), (2, "reminder")]
    assert [e.outcome for e in of(events, TurnEnded)] == ["interrupted", "interrupted"]
    assert voice.said[-1] == DUE


def test_a_reminder_due_while_the_user_speaks_rings_after_their_answer_and_says_so(
    stand_ins: Engines, recogniser: ScriptedRecogniser, voice: ToneVoice, tmp_path: Path
) -> None:
    events, rang_at_once = due_during(stand_ins, recogniser, tmp_path, SpeechStarted)
    assert rang_at_once == [False]  # the user was speaking: their question is heard and answered first
    assert of(events, BargeIn)[0].source == "stop"  # only the person's stop cut anything
    assert [(e.turn, e.trigger) for e in of(events, TurnStarted)] == [(1, "wake-word"), (2, "reminder")]
    assert [e.outcome for e in of(events, TurnEnded)] == ["answered", "interrupted"]  # no follow-up window first
    assert ANSWER.split(". ")[0] in " ".join(voice.said)
    assert voice.said[-1] == "While you were talking, your tea timer is done."


def test_reminders_due_together_ring_one_after_another(stand_ins: Engines, voice: ToneVoice, tmp_path: Path) -> None:
    mic = ScriptedMic(speed=SPEED)
    rang: list[bool] = []
    rings: list[int] = []

    def start(who: Person) -> None:
        rang.extend([who.keeper.ring(DUE, "tea timer"), who.keeper.ring("It's time: your alarm.", "alarm")])

    def script(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, Ringing):
            rings.append(event.turn)
            later(0.2, who.keeper.stop_speaking)
        if isinstance(event, TurnEnded) and len(rings) == 2 and event.turn == rings[1]:
            mic.end()

    events, _ = run_box(stand_ins, mic, FOLLOW_UP, tmp_path / "out.wav", script, timeout_s=WAIT_S, start=start)
    assert rang == [True, False]  # the second waits for the first to be stopped, then rings
    assert [e.label for e in of(events, Ringing)] == ["tea timer", "alarm"]
    assert voice.said == [DUE, "It's time: your alarm."]
