"""Run the real turn keeper against a scripted microphone and collect every event, with a hard time limit."""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from daemon.box.audio import frames_of
from daemon.config import ButtonConfig, ListenConfig
from daemon.errors import EngineError
from daemon.events import (
    AnswerDropped,
    AnswerKept,
    AnswerStartedEarly,
    AudioLevel,
    EndJudged,
    Event,
    EventBus,
    PartialTranscript,
    TokenGenerated,
    Trigger,
)
from daemon.ports import AudioSource, Engines, LanguageModel
from daemon.turn.button import ButtonGestures
from daemon.turn.keeper import State, TurnKeeper
from daemon.turn.run import TurnResult
from hardware.audio import WavFileSink

CHATTER = (AudioLevel, PartialTranscript, TokenGenerated, EndJudged, AnswerStartedEarly, AnswerKept, AnswerDropped)
E = TypeVar("E", bound=Event)


@dataclass
class Person:
    """What a person in a test can do to the box: press its button, and watch what it is doing."""

    keeper: TurnKeeper
    button: ButtonGestures

    @property
    def state(self) -> State:
        """Where the box is in a turn."""
        return self.keeper.state

    def press(self) -> None:
        """The button goes down."""
        self.button.pressed()

    def release(self) -> None:
        """The button comes up."""
        self.button.released()


Script = Callable[[Event, Person, Any], None]


def run_box(
    engines: Engines,
    mic: AudioSource,
    config: ListenConfig,
    speaker: Path,
    script: Script | None = None,
    timeout_s: float = 60.0,
    start: Callable[[Person], None] | None = None,
    heartbeat: Callable[[], None] | None = None,
) -> tuple[list[Event], Person]:
    """Run until the mic ends; `script(event, person, mic)` reacts to events like a person would.

    `start(person)` runs on the event loop 0.1 s in, e.g. to press the button.
    """
    bus = EventBus()
    events: list[Event] = []
    bus.subscribe(events.append)
    sink = WavFileSink(speaker, engines.tts.sample_rate_hz, realtime=True)
    keeper = TurnKeeper(engines, sink, config, bus, heartbeat=heartbeat)
    person = Person(keeper, ButtonGestures(keeper, ButtonConfig(), shutdown=lambda: None))
    if script is not None:
        bus.subscribe(lambda e: script(e, person, mic))

    async def main() -> None:
        if start is not None:
            asyncio.get_running_loop().call_later(0.1, start, person)
        await asyncio.wait_for(keeper.run(frames_of(mic, keeper.listener)), timeout_s)

    try:
        asyncio.run(main())
    finally:
        mic.close()
        sink.close()
    return events, person


def later(seconds: float, fn: Callable[[], None]) -> None:
    """Call `fn` on the running loop after `seconds`."""
    asyncio.get_running_loop().call_later(seconds, fn)


def names(events: list[Event]) -> list[str]:
    """Event class names, without the high-rate chatter."""
    return [type(e).__name__ for e in events if not isinstance(e, CHATTER)]


def of(events: list[Event], kind: type[E]) -> list[E]:
    """The events of one kind."""
    return [e for e in events if isinstance(e, kind)]


class KeeperThread:
    """A turn keeper serving typed questions on an event loop of its own thread, as the box's loop does."""

    def __init__(self, engines: Engines, speaker: Path, listen: ListenConfig | None = None) -> None:
        self.events: list[Event] = []
        self.bus = EventBus()
        self.bus.subscribe(self.events.append)
        self.sink = WavFileSink(speaker, engines.tts.sample_rate_hz)
        self.keeper = TurnKeeper(engines, self.sink, listen or ListenConfig(follow_up_s=0.0, chime=False), self.bus)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="test-loop", daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(5)

    async def _start(self) -> None:
        self.keeper.start()

    def ask(self, question: str, *, speak: bool = False) -> concurrent.futures.Future[TurnResult]:
        """A typed question, as the control socket asks it."""
        return self.keeper.ask(question, Trigger.SOCKET, speak=speak)

    def close(self) -> None:
        """Finish the turn under way, refuse the waiting questions, stop the loop."""
        asyncio.run_coroutine_threadsafe(self.keeper.close(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()
        self.sink.close()

    def __enter__(self) -> KeeperThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FaultyModel:
    """The real model, made to fail (fault injection): an engine error before answering where `fails(question)`,
    and an unexpected error after the first piece where `crashes(question)`."""

    def __init__(
        self,
        model: LanguageModel,
        fails: Callable[[str], bool] = lambda q: q == "model",
        crashes: Callable[[str], bool] = lambda q: q == "crash",
    ) -> None:
        self._model, self._fails, self._crashes = model, fails, crashes

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        if self._fails(question):
            raise EngineError("llm-failed", "the model stopped")
        pieces = self._model.respond(question, cancel)
        if self._crashes(question):
            yield next(pieces)
            pieces.close()  # type: ignore[attr-defined]
            raise RuntimeError("boom")
        yield from pieces


def faulty(engines: Engines, **failures: Callable[[str], bool]) -> Engines:
    """`engines` with the model wrapped in a FaultyModel."""
    return dataclasses.replace(engines, llm=cast(LanguageModel, FaultyModel(engines.llm, **failures)))
