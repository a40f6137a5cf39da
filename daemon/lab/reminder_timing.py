"""How late a due timer sounds in each state of the box, through its own assembly on the real engines (the bench).

Idle, an empty follow-up window, an answer being spoken: from the moment the timer is due to its first sound.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import wave
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

from daemon.box.assembly import assembled
from daemon.box.audio import frames_of
from daemon.config import Config
from daemon.events import BargeSource, Event, EventBus, Ringing, SkillCalled, Trigger, TurnEnded
from daemon.ports import AUDIO_RATE_HZ, Engines
from daemon.turn.keeper import State, TurnKeeper
from hardware.audio import WavFileSink, WavFileSource

TIMER_S: Final = 2
"""Each timer's length: long enough for the state it should come due in to be under way."""
STORY: Final = "Tell me a long story about a brave dragon."
"""An answer that is still being spoken when the timer comes due."""
WAIT_S: Final = 60.0
STATES: Final = ("idle", "follow_up_window", "answer_under_way")
"""The states timed, in the report's order."""


class _NotedSink:
    """A speaker (a WAV file in real time) that notes when each piece of audio begins to sound."""

    def __init__(self, path: Path, rate_hz: int) -> None:
        self._sink = WavFileSink(path, rate_hz)
        self.sounded: list[float] = []

    def play(self, pcm: bytes, rate_hz: int, on_start: Callable[[], None] | None = None) -> None:
        """Queue audio; note when it begins to sound."""

        def started() -> None:
            self.sounded.append(time.monotonic())
            if on_start is not None:
                on_start()

        self._sink.play(pcm, rate_hz, started)

    def stop(self) -> float:
        """Silence now."""
        return self._sink.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Until everything queued has played."""
        return self._sink.wait(timeout)

    def close(self) -> None:
        """Finish the file."""
        self._sink.close()


def reminder_delays(engines: Engines, config: Config, out: Path) -> dict[str, float]:
    """Seconds from a timer's due moment to its first sound: idle, in an empty follow-up window, over an answer."""
    out.mkdir(parents=True, exist_ok=True)
    silent = out / "silent-room.wav"
    with wave.open(str(silent), "wb") as room:
        room.setnchannels(1)
        room.setsampwidth(2)
        room.setframerate(AUDIO_RATE_HZ)
        room.writeframes(bytes(2 * AUDIO_RATE_HZ * 60))
    listen = dataclasses.replace(config.listen, follow_up_s=30.0, chime=False)
    config = dataclasses.replace(config, listen=listen)
    sink = _NotedSink(out / "reminders.wav", engines.tts.sample_rate_hz)
    events: list[tuple[float, Event]] = []
    bus = EventBus()
    bus.subscribe(lambda event: events.append((time.monotonic(), event)))
    source = WavFileSource(silent)

    async def main() -> dict[str, float]:
        async with assembled(config, engines, sink, bus, state_dir=out / "state") as box:
            keeper = box.keeper
            hearing = asyncio.create_task(keeper.hear(frames_of(source, keeper.listener)))
            try:
                return {
                    "idle": await _timed(keeper, events, sink, None),
                    "follow_up_window": await _timed(keeper, events, sink, _empty_window),
                    "answer_under_way": await _timed(keeper, events, sink, _telling_a_story),
                }
            finally:
                source.close()
                await hearing

    try:
        return asyncio.run(main())
    finally:
        sink.close()
        engines.memory.forget()


async def _empty_window(keeper: TurnKeeper) -> None:
    keeper.listen(Trigger.FOLLOW_UP, timeout_s=30.0)  # as after a spoken answer: open, and nobody speaks


async def _telling_a_story(keeper: TurnKeeper) -> None:
    keeper.ask(STORY, Trigger.SOCKET, speak=True)


async def _timed(
    keeper: TurnKeeper,
    events: list[tuple[float, Event]],
    sink: _NotedSink,
    meanwhile: Callable[[TurnKeeper], Awaitable[None]] | None,
) -> float:
    """Set a timer, put the box in a state, and time the ring's first sound after the timer was due; stop it."""
    seen = len(events)
    await asyncio.wrap_future(keeper.ask(f"set a timer for {TIMER_S} seconds", Trigger.SOCKET))
    set_at = next(at for at, e in events[seen:] if isinstance(e, SkillCalled) and e.skill == "timer_start")
    if meanwhile is not None:
        await meanwhile(keeper)
    rang_at, ring = await _until(events, seen, lambda e: isinstance(e, Ringing))
    sound = await _until_sound(sink, rang_at)
    keeper.barge_in(BargeSource.STOP)
    await _until(events, seen, lambda e: isinstance(e, TurnEnded) and e.turn == ring.turn)
    while keeper.state is not State.IDLE:  # the cut answer's turn may still be ending
        await asyncio.sleep(0.05)
    return sound - (set_at + TIMER_S)


async def _until(events: list[tuple[float, Event]], seen: int, wanted: Callable[[Event], bool]) -> tuple[float, Event]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for at, event in events[seen:]:
            if wanted(event):
                return at, event
        await asyncio.sleep(0.01)
    raise TimeoutError("the reminder never rang")


async def _until_sound(sink: _NotedSink, after: float) -> float:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if later := [at for at in sink.sounded if at >= after]:
            return later[0]
        await asyncio.sleep(0.01)
    raise TimeoutError("the reminder never sounded")
