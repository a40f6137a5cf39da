"""Piper speaks sentence by sentence into real audio."""

from __future__ import annotations

import numpy as np


def test_one_chunk_per_sentence_of_real_speech(tts) -> None:  # type: ignore[no-untyped-def]
    chunks = list(tts.synthesize("The capital of France is Paris. It is a lovely city! Shall we go?"))
    assert len(chunks) == 3
    assert tts.sample_rate_hz == 22050
    for chunk in chunks:
        audio = np.frombuffer(chunk, np.int16)
        seconds = len(audio) / tts.sample_rate_hz
        assert 0.8 < seconds < 4.0
        assert np.abs(audio.astype(np.int32)).max() > 3000  # speech, not silence


def test_synthesis_is_lazy_so_the_first_sentence_comes_first(tts) -> None:  # type: ignore[no-untyped-def]
    stream = tts.synthesize("One. Two. Three. Four.")
    first = next(stream)
    assert len(first) > 0
    stream.close()  # a barge-in stops it without synthesizing the rest


def test_the_voice_plans_no_memory_pattern_per_sentence_length() -> None:
    from daemon.config import TtsConfig
    from daemon.engines.tts import session_options

    options = session_options(TtsConfig(threads=1))
    assert not options.enable_mem_pattern  # every sentence has a new shape: a pattern per shape only piles up
    assert options.intra_op_num_threads == 1 and options.inter_op_num_threads == 1
