"""A question spoken in the box's own voice, and the sequential baseline: for the demo, the lab and the tests."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Final

import numpy as np

from daemon.box.wavfile import resample, write_wav
from daemon.ports import AUDIO_RATE_HZ, Engines, TextToSpeech
from daemon.turn.sentences import SentenceSplitter
from daemon.turn.speakable import speakable

WAKE_PHRASE: Final = "Hey Jarvis."
QUESTION: Final = "What do plants need to grow?"
"""The demo's question: one for the language model (a capital would be answered by the facts, a skill)."""
PAUSE_S: Final = 0.25


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


def sequential_first_audio(engines: Engines, question: str = QUESTION, heard: str | None = None) -> float:
    """The baseline: full STT, then the full answer, then TTS of all of it; seconds to the first audio.

    `heard` makes the model answer that transcript (the one a streaming run heard), so both answer the same question.
    """
    audio = spoken(engines.tts, question)
    engines.memory.forget()
    started = time.monotonic()
    stream = engines.stt.stream()
    stream.feed(audio.tobytes())
    text = stream.finish().text
    answer = "".join(engines.llm.respond(text if heard is None else heard))
    splitter = SentenceSplitter(eager_first=False)
    sentences = [*splitter.feed(speakable(answer)), splitter.flush()]
    chunks = [b"".join(engines.tts.synthesize(s)) for s in sentences if s]
    elapsed = time.monotonic() - started
    engines.memory.forget()
    assert chunks
    return elapsed
