"""What a channel (the serial link, the control socket) needs of the box: typed questions go through its turns."""

from __future__ import annotations

import concurrent.futures
import json
import threading
from collections.abc import Callable
from typing import Protocol

from daemon.events import Event, Trigger
from daemon.turn.run import TurnResult


class Turns(Protocol):
    """The box's turn keeper, as a channel sees it; every method may be called from any thread."""

    def ask(
        self,
        question: str,
        trigger: Trigger,
        *,
        speak: bool = False,
        on_piece: Callable[[str], None] | None = None,
        abandoned: threading.Event | None = None,
    ) -> concurrent.futures.Future[TurnResult]:
        """Queue a typed question; its answer streams to `on_piece`; the future ends with the turn."""
        ...

    def forget(self) -> None:
        """Stop whatever is happening and forget the conversation."""
        ...

    def stop_speaking(self) -> None:
        """Cut the answer under way."""
        ...


Status = Callable[[], dict[str, object]]
"""What the box is doing, as plain values (state, profile, model, ...)."""


def event_line(event: Event) -> str:
    """One event as a JSON line for a channel that follows events."""
    return dumps({"type": "event", "event": type(event).__name__, **event.fields()})


def dumps(reply: dict[str, object]) -> str:
    """One reply as a JSON line."""
    return json.dumps(reply, default=str) + "\n"
