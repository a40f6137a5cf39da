"""How late a due timer sounds in each state of the box, through its own assembly on the real engines (the bench).

Idle, an empty follow-up window, an answer being spoken: from the moment the timer is due to its first sound.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar

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
T = TypeVar("T")
WAIT_S: Final = 60.0
STATES: Final = ("idle", "follow_up_window", "answer_under_way")
"""The states timed, in the report's order."""


class _NotedSink(WavFileSink):
    """A speaker (a WAV file in real time) that notes when each piece of audio begins to sound."""

    def __init__(self, path: Path, rate_hz: int) -> None:
        super().__init__(path, rate_hz)
        self.sounded: list[float] = []

    def play(self, pcm: bytes, rate_hz: int, on_start: Callable[[], None] | None = None) -> None:
        """Queue audio; note when it begins to sound."""

        def started() -> None:
            self.sounded.append(time.monotonic())
            if on_start is not None:
                on_start()

        super().play(pcm, rate_hz, started)


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


def _empty_window(keeper: TurnKeeper) -> None:
    keeper.listen(Trigger.FOLLOW_UP, timeout_s=30.0)  # as after a spoken answer: open, and nobody speaks


def _telling_a_story(keeper: TurnKeeper) -> None:
    keeper.ask(STORY, Trigger.SOCKET, speak=True)


async def _timed(
    keeper: TurnKeeper,
    events: list[tuple[float, Event]],
    sink: _NotedSink,
    meanwhile: Callable[[TurnKeeper], None] | None,
) -> float:
    """Set a timer, put the box in a state, and time the ring's first sound after the timer was due; stop it."""
    seen = len(events)
    await asyncio.wrap_future(keeper.ask(f"set a timer for {TIMER_S} seconds", Trigger.SOCKET))
    # NOTE: awaited, not looked up: the event may reach the list after the ask is done (once, it had not).
    started = await _until(
        lambda: _first(events[seen:], lambda e: isinstance(e, SkillCalled) and e.skill == "timer_start"), "the timer"
    )
    set_at = started[0]
    if meanwhile is not None:
        meanwhile(keeper)
    rang_at, ring = await _until(lambda: _first(events[seen:], lambda e: isinstance(e, Ringing)), "the ring")
    sound = await _until(lambda: next((at for at in sink.sounded if at >= rang_at), None), "the ring's sound")
    keeper.barge_in(BargeSource.STOP)
    await _until(lambda: _first(events[seen:], lambda e: isinstance(e, TurnEnded) and e.turn == ring.turn), "its end")
    await _until(lambda: keeper.state is State.IDLE or None, "an idle box")  # a cut answer's turn may still be ending
    return sound - (set_at + TIMER_S)


def _first(events: list[tuple[float, Event]], wanted: Callable[[Event], bool]) -> tuple[float, Event] | None:
    return next(((at, e) for at, e in events if wanted(e)), None)


async def _until(found: Callable[[], T | None], what: str) -> T:
    """What `found()` returns once it is not None, checked every 10 ms."""
    deadline = time.monotonic() + WAIT_S
    while (value := found()) is None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} never came")
        await asyncio.sleep(0.01)
    return value
