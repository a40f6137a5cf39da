"""Run the real pipeline against a scripted microphone and collect every event, with a hard time limit."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from daemon.app import frames_of
from daemon.config import ListenConfig
from daemon.events import AudioLevel, Event, EventBus, PartialTranscript, TokenGenerated
from daemon.pipeline import Engines, Pipeline
from hardware.audio import WavFileSink
from tests.mic import ScriptedMic

Script = Callable[[Event, Pipeline, Any], None]
CHATTER = (AudioLevel, PartialTranscript, TokenGenerated)


def run_box(
    engines: Engines,
    mic: ScriptedMic,
    config: ListenConfig,
    speaker: Path,
    script: Script | None = None,
    timeout_s: float = 60.0,
    start: Callable[[Pipeline], None] | None = None,
) -> tuple[list[Event], Pipeline]:
    """Run until the mic ends; `script(event, pipeline, mic)` reacts to events like a person would.

    `start(pipeline)` runs on the event loop 0.1 s in, e.g. to press the button.
    """
    bus = EventBus()
    events: list[Event] = []
    bus.subscribe(events.append)
    sink = WavFileSink(speaker, engines.tts.sample_rate_hz, realtime=True)
    pipeline = Pipeline(engines, sink, config, bus)
    if script is not None:
        bus.subscribe(lambda e: script(e, pipeline, mic))

    async def main() -> None:
        if start is not None:
            asyncio.get_running_loop().call_later(0.1, start, pipeline)
        await asyncio.wait_for(pipeline.run(frames_of(mic, pipeline)), timeout_s)

    try:
        asyncio.run(main())
    finally:
        mic.close()
        sink.close()
    return events, pipeline


def names(events: list[Event]) -> list[str]:
    """Event class names, without the high-rate chatter."""
    return [type(e).__name__ for e in events if not isinstance(e, CHATTER)]


def of(events: list[Event], kind: type[Event]) -> list[Event]:
    """The events of one kind."""
    return [e for e in events if isinstance(e, kind)]
