"""Chance: a coin, dice and a number picked, said plainly and within the limits the box says; the model never asked
(it said "I'm sorry, but I can't flip a coin.")."""

from __future__ import annotations

import random
import re

import pytest

from daemon.box.asking import SilentSink
from daemon.skills.chance import DICE_LIMITS, NUMBER_LIMITS
from daemon.skills.clock import BoxClock
from daemon.skills.intents import match
from daemon.skills.skills import Skills
from daemon.turn.volume import VolumeSink


def _said(said: str, seed: int = 0) -> str:
    """What the box says to `said`, with its luck seeded; fails when no skill takes it."""
    call = match(said)
    assert call is not None and call.skill == "chance", f"{said!r} was routed to {call}"
    skills = Skills(
        BoxClock("system"), VolumeSink(SilentSink()), "boot-a", now_boot=lambda: 1.0, luck=random.Random(seed)
    )
    return skills.run(call).text


@pytest.mark.parametrize("said", ["flip a coin", "toss a coin for me", "heads or tails", "can you flip a coin"])
def test_a_coin_lands_on_one_side_and_both_come_up(said: str) -> None:
    sides = {_said(said, seed) for seed in range(20)}
    assert sides == {"It's heads.", "It's tails."}


@pytest.mark.parametrize(
    ("said", "count", "sides"),
    [
        ("roll a dice", 1, 6),
        ("roll the dice", 1, 6),
        ("roll two dice", 2, 6),
        ("roll a pair of dice", 2, 6),
        ("roll three six sided dice", 3, 6),
        ("roll a 20 sided die", 1, 20),
        ("roll 2 20-sided dice", 2, 20),
    ],
)
def test_dice_are_rolled_each_said_and_summed(said: str, count: int, sides: int) -> None:
    for seed in range(10):
        rolled = [int(n) for n in re.findall(r"\d+", _said(said, seed))]
        if count == 1:
            assert len(rolled) == 1 and 1 <= rolled[0] <= sides
        else:
            *each, total = rolled
            assert len(each) == count and all(1 <= n <= sides for n in each) and sum(each) == total


@pytest.mark.parametrize(
    ("said", "low", "high"),
    [
        ("pick a number between one and ten", 1, 10),
        ("pick a random number", 1, 10),
        ("can you pick a number between one and a hundred", 1, 100),
        ("give me a random number between minus five and five", -5, 5),
        ("pick a number between 10 and 1", 1, 10),
        ("choose a number from 7 to 7", 7, 7),
    ],
)
def test_a_number_is_picked_between_the_two_said(said: str, low: int, high: int) -> None:
    picked = {int(re.fullmatch(r"I picked (-?\d+)\.", _said(said, seed)).group(1)) for seed in range(30)}  # type: ignore[union-attr]
    assert picked <= set(range(low, high + 1)) and (len(picked) > 1 or low == high)


def test_beyond_the_limits_the_box_says_them() -> None:
    assert _said("roll 50 dice") == DICE_LIMITS
    assert _said("roll a 5000 sided die") == DICE_LIMITS
    assert _said("pick a number between one and a trillion") == NUMBER_LIMITS


@pytest.mark.parametrize(
    "said",
    [
        "what is the chance of getting heads",
        "how many sides does a dice have",
        "who invented dice",
        "what number am i thinking of",
        "what is a random number",
        "pick a card",
        "let's play a game",
    ],
)
def test_questions_about_chance_stay_elsewhere(said: str) -> None:
    call = match(said)
    assert call is None or call.skill != "chance"
