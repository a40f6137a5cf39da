"""`talkbox demo`: one complete spoken turn on the default models, with no hardware at all."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from daemon.box.root import Box, RunOptions
from daemon.cli.console import ConsoleView
from daemon.cli.wavfile import resample, write_wav
from daemon.config import Config
from daemon.ports import AUDIO_RATE_HZ, Engines, TextToSpeech
from daemon.turn.sentences import SentenceSplitter
from daemon.turn.speakable import speakable

WAKE_PHRASE: Final = "Hey Jarvis."
QUESTION: Final = "What is the capital of France?"
PAUSE_S: Final = 0.25


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


def spoken(tts: TextToSpeech, text: str) -> np.ndarray:
    """`text` in the box's own voice, as 16 kHz mono int16."""
    audio = np.frombuffer(b"".join(tts.synthesize(text)), np.int16)
    return resample(audio, tts.sample_rate_hz, AUDIO_RATE_HZ)


def speak_question(tts: TextToSpeech, path: Path, question: str = QUESTION, wake: str = WAKE_PHRASE) -> Path:
    """Record the spoken question with the box's own voice: silence, wake phrase, pause, question."""
    pause = np.zeros(int(PAUSE_S * AUDIO_RATE_HZ), np.int16)
    parts = [np.zeros(int(0.5 * AUDIO_RATE_HZ), np.int16)]
    parts += [spoken(tts, wake), pause] if wake else []
    parts += [spoken(tts, question), pause]
    write_wav(path, np.concatenate(parts), AUDIO_RATE_HZ)
    return path


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


def sequential_first_audio(engines: Engines, question: str = QUESTION, heard: str | None = None) -> float:
    """The baseline: full STT, then the full answer, then TTS of all of it; seconds to the first audio.

    `heard` makes the model answer that transcript (the one a streaming run heard), so both answer the same question.
    """
    audio = spoken(engines.tts, question)
    engines.responder.forget()
    started = time.monotonic()
    stream = engines.stt.stream()
    stream.feed(audio.tobytes())
    text = stream.finish().text
    answer = "".join(engines.responder.respond(text if heard is None else heard))
    splitter = SentenceSplitter(eager_first=False)
    sentences = [*splitter.feed(speakable(answer)), splitter.flush()]
    chunks = [b"".join(engines.tts.synthesize(s)) for s in sentences if s]
    elapsed = time.monotonic() - started
    engines.responder.forget()
    assert chunks
    return elapsed
