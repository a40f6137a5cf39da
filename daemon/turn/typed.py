"""Typed questions that wait, in order, for the turn under way to end."""

from __future__ import annotations

import collections
import concurrent.futures
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from daemon.errors import TalkboxError
from daemon.events import Trigger
from daemon.turn.run import TurnResult

MAX_WAITING: Final = 8
"""Typed questions that may wait for the turn under way; one more is refused as busy."""


@dataclass
class Typed:
    """A typed question waiting for its turn; `future` ends with the turn's result."""

    text: str
    trigger: Trigger
    speak: bool
    on_piece: Callable[[str], None] | None
    abandoned: threading.Event
    future: concurrent.futures.Future[TurnResult] = field(default_factory=concurrent.futures.Future)
    confidence: float | None = None
    """A question heard by a recogniser apart from the box (the evaluations): its confidence in the words."""


class TypedQueue:
    """At most MAX_WAITING typed questions, oldest first; each one refused is told why through its future."""

    def __init__(self) -> None:
        self._waiting: collections.deque[Typed] = collections.deque()

    def __bool__(self) -> bool:
        return bool(self._waiting)

    def add(self, typed: Typed) -> bool:
        """Queue `typed`; False (and its future told the box is busy) if too many already wait."""
        if len(self._waiting) >= MAX_WAITING:
            message = f"the box is busy: {MAX_WAITING} questions are already waiting"
            typed.future.set_exception(TalkboxError("turn-busy", message))
            return False
        self._waiting.append(typed)
        return True

    def next(self) -> Typed | None:
        """The oldest question whose asker is still there; those who left are cancelled on the way."""
        while self._waiting:
            typed = self._waiting.popleft()
            if not typed.abandoned.is_set():
                return typed
            typed.future.cancel()
        return None

    def refuse_all(self, error: TalkboxError) -> None:
        """End every waiting question with `error` (the box is stopping)."""
        while self._waiting:
            self._waiting.popleft().future.set_exception(error)
