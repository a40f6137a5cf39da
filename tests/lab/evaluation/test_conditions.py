"""Each condition makes a real audio file that the box's own reader turns into 16 kHz mono speech."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from daemon.config import Config
from daemon.lab.evaluation.align import whisper_word_gaps
from daemon.lab.evaluation.conditions import (
    CONDITIONS,
    LEAD_S,
    TAIL_S,
    Condition,
    halves,
    noisy,
    paused_in_one_breath,
)
from daemon.lab.evaluation.corpus import tune
from daemon.lab.evaluation.noises import babble, hum, music, rms, white_noise
from daemon.lab.evaluation.voices import ESPEAK_VOICES, Int16Array, dbfs
from hardware.audio import read_audio_file

QUESTION = tune()[1].text
VOICE = ESPEAK_VOICES[0]
FORMATS = {
    "clean-16k": (16000, 1, "PCM_16"),
    "stereo-48k": (48000, 2, "PCM_24"),
    "phone-8k": (8000, 1, "ULAW"),
    "pcm-8bit": (16000, 1, "PCM_U8"),
    "noise-20db": (16000, 1, "PCM_16"),
    "noise-10db": (16000, 1, "PCM_16"),
    "noise-5db": (16000, 1, "PCM_16"),
    "pauses": (16000, 1, "PCM_16"),
}


def quiet_gaps_s(audio: Int16Array, below_dbfs: float = -50.0) -> list[float]:
    """Lengths of the quiet stretches between sounds, in 10 ms frames."""
    frames = audio[: len(audio) // 160 * 160].reshape(-1, 160).astype(np.float64)
    loud = np.sqrt(np.mean(frames**2, axis=1)) >= dbfs(below_dbfs)
    edges = np.flatnonzero(np.diff(loud.astype(np.int8)))
    # Between a fall (loud -> quiet) and the next rise: a gap inside the speech.
    falls = [e for e in edges if loud[e]]
    rises = [e for e in edges if not loud[e]]
    return [(min(r for r in rises if r > f) - f) / 100 for f in falls if any(r > f for r in rises)]


def test_every_condition_is_named_and_has_a_format() -> None:
    assert [c.name for c in CONDITIONS] == list(FORMATS)


@pytest.mark.parametrize("condition", CONDITIONS, ids=lambda c: c.name)
def test_each_condition_reads_back_as_16k_mono(condition: Condition, tmp_path: Path) -> None:
    data = condition.make(VOICE.render, QUESTION, np.random.default_rng(1))
    info = sf.info(io.BytesIO(data))
    assert (info.samplerate, info.channels, info.subtype) == FORMATS[condition.name]
    path = tmp_path / f"{condition.name}.wav"
    path.write_bytes(data)
    audio = read_audio_file(path)
    assert audio.dtype == np.int16 and audio.ndim == 1
    assert len(audio) / 16000 == pytest.approx(info.duration, abs=0.01)
    spoken = len(VOICE.render(QUESTION)) / 16000
    extra = 0.5 if condition.name == "pauses" else 0.0
    assert len(audio) / 16000 >= spoken + LEAD_S + TAIL_S + extra - 0.01
    assert rms(audio) > dbfs(-35.0)  # the speech came through


def test_a_condition_makes_the_same_file_from_the_same_seed() -> None:
    for condition in CONDITIONS:
        made = [condition.make(VOICE.render, QUESTION, np.random.default_rng(7)) for _ in range(2)]
        assert made[0] == made[1], condition.name


@pytest.mark.parametrize("snr_db", [20.0, 10.0, 5.0])
def test_noise_is_mixed_at_the_signal_to_noise_ratio_asked(snr_db: float) -> None:
    speech = VOICE.render(QUESTION)
    mixed = noisy(speech, snr_db, np.random.default_rng(3))
    around = np.concatenate([mixed[: int(LEAD_S * 16000)], mixed[-int(TAIL_S * 16000) :]])  # noise alone
    measured = 20 * np.log10(rms(speech) / rms(around))
    assert measured == pytest.approx(snr_db, abs=1.5)


def test_a_question_is_cut_in_two_at_the_word_boundary_nearest_its_middle() -> None:
    assert halves("Set a timer for ten minutes.") == ("Set a timer for", "ten minutes.")
    assert halves("What is seventeen times twenty three?") == ("What is seventeen", "times twenty three?")
    assert halves("Never mind.") == ("Never", "mind.")
    assert halves("Stop.") == ("Stop.", "")


def test_the_pause_lasts_half_a_second_or_more(tmp_path: Path) -> None:
    gaps = {}
    for condition in CONDITIONS[0], CONDITIONS[-1]:
        path = tmp_path / f"{condition.name}.wav"
        path.write_bytes(condition.make(VOICE.render, QUESTION, np.random.default_rng(2)))
        gaps[condition.name] = max(quiet_gaps_s(read_audio_file(path)), default=0.0)
    # 0.5-0.9 s of pause, and the few tens of milliseconds each half keeps around its words.
    assert 0.5 <= gaps["pauses"] <= 1.0
    assert gaps["clean-16k"] < 0.3


@pytest.mark.parametrize("make", [white_noise, hum, music, babble], ids=lambda f: f.__name__)
def test_each_non_speech_sound_has_the_length_and_level_asked(make) -> None:  # type: ignore[no-untyped-def]
    audio = make(2.5, level_dbfs=-28.0)
    assert audio.dtype == np.int16 and len(audio) == 40000
    assert 20 * np.log10(rms(audio) / 32767) == pytest.approx(-28.0, abs=0.1)
    assert np.std(audio[:8000]) > 0 and np.std(audio[-8000:]) > 0  # sounding from start to end


def test_random_sounds_follow_their_seed() -> None:
    for make in (white_noise, music, babble):
        assert np.array_equal(make(1.0, seed=4), make(1.0, seed=4))
        assert not np.array_equal(make(1.0, seed=4), make(1.0, seed=5))


@pytest.mark.parametrize("mains_hz", [50.0, 60.0])
def test_hum_sounds_at_the_mains_frequency(mains_hz: float) -> None:
    audio = hum(1.0, mains_hz=mains_hz)
    spectrum = np.abs(np.fft.rfft(audio))
    assert np.argmax(spectrum) == pytest.approx(mains_hz, abs=1)  # 1 s of audio: one bin per hertz


@pytest.mark.slow
def test_a_pause_in_one_breath_opens_between_the_words_of_one_saying(dev_config: Config, tmp_path: Path) -> None:
    gaps = whisper_word_gaps(dev_config)
    said = VOICE.render(QUESTION).astype(np.float64)
    between = gaps(said)
    assert len(between) == len(QUESTION.split()) - 1  # a gap between every two words
    assert all(0.0 < a < b < len(said) / 16000 for a, b in itertools.pairwise(between))
    path = tmp_path / "one-breath.wav"
    path.write_bytes(paused_in_one_breath(gaps)(VOICE.render, QUESTION, np.random.default_rng(2)))
    audio = read_audio_file(path)
    assert 0.5 <= max(quiet_gaps_s(audio)) <= 1.0
    # The saying is the same, only parted: no word was cut or lost.
    assert len(audio) / 16000 == pytest.approx(len(said) / 16000 + LEAD_S + TAIL_S + 0.7, abs=0.21)
