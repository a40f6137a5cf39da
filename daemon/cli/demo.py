"""`talkbox demo`: one complete spoken turn on the default models, with no hardware at all."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from daemon.box.rehearsal import QUESTION, speak_question
from daemon.box.root import Box, RunOptions
from daemon.cli.console import ConsoleView
from daemon.config import Config
from daemon.ports import Engines


@dataclass(frozen=True)
class DemoResult:
    """Where the demo's files are and how fast the box answered."""

    question_wav: Path
    answer_wav: Path
    events: Path
    first_audio_s: float | None
    """End of speech -> first audio."""
    question_to_audio_s: float | None
    """From when the box had the question (an early answer's start, or the end of speech) -> first audio."""
    tokens_per_s: float | None


def run_demo(
    engines: Engines, config: Config, out: Path, realtime: bool = True, question: str = QUESTION
) -> DemoResult:
    """Play the spoken question into the box and record its answer, events and display frames under `out`."""
    out.mkdir(parents=True, exist_ok=True)
    mic = speak_question(engines.tts, out / "question.wav", question)
    config = dataclasses.replace(
        config,
        display=dataclasses.replace(config.display, driver="dummy"),
        button=dataclasses.replace(config.button, enabled=False),
        # NOTE: a rehearsal keeps its own state: a timer it set must not ring later on the box itself
        state=dataclasses.replace(config.state, dir=str(out / "state")),
    )
    view = ConsoleView()
    options = RunOptions(
        mic=str(mic),
        speaker=str(out / "answer.wav"),
        fast=not realtime,
        events=out / "events.jsonl",
        frames_dir=out / "frames",
        control_socket=False,
        subscribers=[view],
    )
    box = Box(config, options, engines)
    try:
        box.run()
    finally:
        box.close("Demo finished.")
    return DemoResult(
        mic,
        out / "answer.wav",
        out / "events.jsonl",
        view.latencies[0] if view.latencies else None,
        view.question_latencies[0] if view.question_latencies else None,
        view.decode_rates[0] if view.decode_rates else None,
    )
