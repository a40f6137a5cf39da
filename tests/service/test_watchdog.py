"""The watchdog is fed by progress: a stalled stage stops the pings, whatever the other threads do."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from daemon.config import ListenConfig
from daemon.events import Event, Outcome, ThinkingStarted, TokenGenerated, TurnEnded
from daemon.ports import Engines, LanguageModel
from daemon.service.notify import Notifier
from daemon.service.watchdog import ProgressWatchdog
from tests.conftest import Speech
from tests.harness import FaultyModel, Person, run_box
from tests.mic import ScriptedMic


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_silent_stage_withholds_pings_until_it_progresses() -> None:
    sent: list[str] = []
    clock = Clock()
    dog = ProgressWatchdog(Notifier(send=sent.append), 1.0, clock)
    dog(ThinkingStarted(turn=1, question="q"))
    clock.now = 80.0
    assert dog.tick() and sent == ["WATCHDOG=1"]  # the first token may take a while
    clock.now = 100.0
    assert not dog.tick() and dog.stalled() == "llm (100 s without progress)"
    dog(TokenGenerated(turn=1, text="x"))
    assert dog.tick()
    clock.now = 120.0
    assert not dog.tick()  # 20 s between two tokens is a hang
    dog(TurnEnded(turn=1, outcome=Outcome.FAILED))
    assert dog.tick() and sent.count("WATCHDOG=1") == 3


STALL_S = 3.0


class StallingModel(FaultyModel):
    """The real model, stuck for a while before its first token: no tokens, no exceptions."""

    def __init__(self, model: LanguageModel) -> None:
        super().__init__(model)
        self.stalled: list[float] = []
        """When each answer began to stall."""

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        self.stalled.append(time.monotonic())
        time.sleep(STALL_S)
        yield from super().respond(question, cancel)


def test_a_hung_engine_stops_the_pings_and_audio_alone_does_not_mask_it(
    engines: Engines, speech: Speech, tmp_path: Path
) -> None:
    pings: list[float] = []
    dog = ProgressWatchdog(
        Notifier(send=lambda m: pings.append(time.monotonic())),
        0.1,
        budgets={"audio": 1.0, "stt": 2.0, "llm-first": 0.5, "llm": 0.5, "tts": 3.0},
    )
    engines.memory.forget()
    model = StallingModel(engines.llm)
    stalling = dataclasses.replace(engines, llm=cast(LanguageModel, model))
    mic = ScriptedMic()
    mic.say(speech("Hey Jarvis."))
    mic.say(speech("What is the capital of France?", tail_s=1.0))

    def watch(event: Event, person: Person, mic: ScriptedMic) -> None:
        dog(event)
        if isinstance(event, TurnEnded):
            mic.end()

    run_box(
        stalling,
        mic,
        ListenConfig(trailing_silence_s=0.5, follow_up_s=0.0, chime=False),
        tmp_path / "o.wav",
        watch,
        start=lambda person: dog.start(),
        heartbeat=lambda: dog.beat("audio"),  # the microphone keeps flowing all along
    )
    dog.stop()
    # NOTE: from when the answer began, which may be before the question ended (an early answer at the pause): timed
    # from ThinkingStarted, a loaded host let the stall end inside the window.
    began = model.stalled[0]
    during = [t for t in pings if began + 0.8 < t < began + STALL_S - 0.2]
    after = [t for t in pings if t > model.stalled[-1] + STALL_S + 0.2]
    assert during == []  # the LLM made no progress: no pings, so systemd would restart us
    assert len(after) >= 3  # and they resume once it progresses again
