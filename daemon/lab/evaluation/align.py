"""Where the words of a spoken question fall: Whisper's word times, to open a pause between two of them."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Final

import numpy as np

from daemon.config import Config
from daemon.lab.evaluation.conditions import WordGaps
from daemon.lab.evaluation.voices import FloatArray
from daemon.modelstore.manifest import verify
from daemon.modelstore.select import manifest_for
from daemon.ports import AUDIO_RATE_HZ

ALIGNER: Final = "whisper-tiny-en"
"""The manifest's model that times the words (verified like every model before it is opened)."""


def whisper_word_gaps(config: Config) -> WordGaps:
    """The middle of each gap between words, as faster-whisper's word timestamps place them."""
    from faster_whisper import WhisperModel

    model_dir: Path = verify(manifest_for(config).get(ALIGNER), Path(config.models.dir).expanduser())
    model = WhisperModel(str(model_dir), device="cpu", compute_type="int8", cpu_threads=1)

    def gaps(speech: FloatArray) -> list[float]:
        audio = (speech / 32768.0).astype(np.float32)
        assert AUDIO_RATE_HZ == 16000  # Whisper's own rate
        segments, _ = model.transcribe(audio, language="en", word_timestamps=True, beam_size=1)
        words = [w for s in segments for w in (s.words or [])]
        return [(a.end + b.start) / 2 for a, b in itertools.pairwise(words)]

    return gaps
