"""A typed question answered here with no box running: a turn with no microphone, through the one assembly.

So `talkbox ask` without a box answers as the box does: the skills, the clock the box trusts, the volume and the
conversation it keeps (its state directory), the turn's events. Reminders are kept but not rung here: the box rings
them (or says they were due) when it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from daemon.box.assembly import assembled
from daemon.config import Config
from daemon.events import Event, EventBus, Trigger
from daemon.ports import AudioSink, Engines
from daemon.service.eventlog import EventLog
from daemon.turn.run import TurnResult
from hardware.audio import WavFileSink


class SilentSink:
    """A speaker that hears nothing: the answer is only read (no `--wav`)."""

    def play(self, pcm: bytes, rate_hz: int, on_start: Callable[[], None] | None = None) -> None:
        """Drop the audio; it 'starts' at once."""
        if on_start is not None:
            on_start()

    def stop(self) -> float:
        """Nothing sounds."""
        return 1.0

    def wait(self, timeout: float | None = None) -> bool:
        """Everything has played."""
        return True

    def close(self) -> None:
        """Nothing to release."""


def ask_here(
    config: Config,
    engines: Engines,
    question: str,
    *,
    wav: Path | None = None,
    events: Path | None = None,
    on_piece: Callable[[str], None] | None = None,
    subscribers: tuple[Callable[[Event], None], ...] = (),
) -> TurnResult:
    """Answer `question` in a turn of its own (spoken into `wav` if given); its result once the turn has ended."""
    speaker: AudioSink = (
        WavFileSink(wav, engines.tts.sample_rate_hz, realtime=False) if wav is not None else SilentSink()
    )
    with contextlib.ExitStack() as stack:
        stack.callback(speaker.close)
        bus = EventBus()
        if events is not None:
            bus.subscribe(stack.enter_context(EventLog(events)))
        for subscriber in subscribers:
            bus.subscribe(subscriber)

        async def main() -> TurnResult:
            state_dir = Path(config.state.dir)
            async with assembled(config, engines, speaker, bus, state_dir=state_dir, reminders=False) as parts:
                asked = parts.keeper.ask(question, Trigger.COMMAND, speak=wav is not None, on_piece=on_piece)
                return await asyncio.wrap_future(asked)

        return asyncio.run(main())
