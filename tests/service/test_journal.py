"""The journal: a message logged again and again is held back, and the next window says how much was."""

from __future__ import annotations

import logging

from daemon.service.journal import REPEAT_WINDOW_S, REPEATS_PER_WINDOW, RepeatFilter


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, msg, args, None)


def test_a_flood_of_one_message_is_held_back_and_counted() -> None:
    clock = Clock()
    repeats = RepeatFilter(clock)
    flood = [record("socket.accept() out of system resource") for _ in range(10_000)]
    passed = [r for r in flood if repeats.filter(r)]
    assert len(passed) == REPEATS_PER_WINDOW
    assert repeats.filter(record("a different message %s", 1))  # others are not held back
    clock.now += REPEAT_WINDOW_S
    later = record("socket.accept() out of system resource")
    assert repeats.filter(later)
    assert later.getMessage().endswith(f"(and {10_000 - REPEATS_PER_WINDOW} more like this in the last 60 s)")


def test_messages_with_different_arguments_count_as_one_kind() -> None:
    repeats = RepeatFilter(Clock())
    passed = [r for r in (record("turn %d failed", n) for n in range(100)) if repeats.filter(r)]
    assert [r.getMessage() for r in passed] == [f"turn {n} failed" for n in range(REPEATS_PER_WINDOW)]
