"""Where worker threads cross into the event loop: events are published, and calls run, on the loop thread."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from daemon.events import Event, EventBus


class LoopCrossing:
    """Publishes events and runs calls on one loop, from that loop or from any other thread."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self.loop: asyncio.AbstractEventLoop | None = None
        """The loop, once bound; before that, calls and events run where they are made."""

    def bind(self) -> None:
        """Cross into the running loop from now on."""
        self.loop = asyncio.get_running_loop()

    def emit(self, event: Event) -> None:
        """Publish an event (subscribers run on the loop)."""
        loop = self.loop
        if loop is not None and loop.is_running() and not _on(loop):
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody is left to hear it
                loop.call_soon_threadsafe(self._bus.emit, event)
        else:
            self._bus.emit(event)

    def call(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the loop (the button, the channels, the recogniser's and the answers' threads)."""
        loop = self.loop
        if loop is not None and not _on(loop):
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the box is gone
                loop.call_soon_threadsafe(fn)
        else:
            fn()


def _on(loop: asyncio.AbstractEventLoop) -> bool:
    """True on `loop`'s own thread, while it runs."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
