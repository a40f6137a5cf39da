"""Every voice says a question as 16 kHz int16 speech at the same level, never over pure digital silence."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from daemon.config import Config
from daemon.lab.evaluation.corpus import tune
from daemon.lab.evaluation.voices import (
    ESPEAK_VOICES,
    FLITE_VOICES,
    PEAK_DBFS,
    VOICES,
    Int16Array,
    Voice,
    dbfs,
    piper_voice,
    piper_voices,
)

QUESTION = tune()[0].text


def assert_speech(audio: Int16Array) -> None:
    """Speech of a plausible length, peak at PEAK_DBFS, over a noise floor that is never exactly zero for long."""
    assert audio.dtype == np.int16 and audio.ndim == 1
    assert 0.8 < len(audio) / 16000 < 6.0
    assert int(np.max(np.abs(audio.astype(np.int32)))) == pytest.approx(dbfs(PEAK_DBFS), rel=0.01)  # the floor adds
    zero_runs = np.diff(np.flatnonzero(audio != 0))
    assert zero_runs.max() < 20  # a -70 dBFS floor: at most a few samples round to zero in a row


@pytest.mark.parametrize("voice", ESPEAK_VOICES, ids=lambda v: v.name)
def test_each_espeak_voice_renders(voice: Voice) -> None:
    assert_speech(voice.render(QUESTION))


@pytest.mark.skipif(shutil.which("flite") is None, reason="Flite is not installed (apt-get install flite)")
@pytest.mark.parametrize("voice", FLITE_VOICES, ids=lambda v: v.name)
def test_each_flite_voice_renders(voice: Voice) -> None:
    assert_speech(voice.render(QUESTION))
    assert voice in VOICES


def test_a_rendering_is_the_same_every_time() -> None:
    voice = ESPEAK_VOICES[0]
    assert np.array_equal(voice.render(QUESTION), voice.render(QUESTION))


def test_the_box_voice_renders(tts) -> None:  # type: ignore[no-untyped-def]
    assert_speech(piper_voice(tts).render(QUESTION))


def test_the_box_voice_speaks_at_three_rates(dev_config: Config) -> None:
    voices = piper_voices(dev_config)
    assert [v.name for v in voices] == ["piper-0.85", "piper-1.00", "piper-1.20"]
    lengths = [len(v.render(QUESTION)) for v in voices]
    assert lengths[0] < lengths[1] < lengths[2]
