"""Arbitrary bytes as audio files: a clear InputError or plausible audio, never a crash, a hang or a huge allocation."""

from __future__ import annotations

import asyncio
import faulthandler
import struct
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import example, given
from hypothesis import strategies as st

from daemon.box.audio import frames_of, open_source
from daemon.box.wavfile import read_wav
from daemon.config import Config
from daemon.errors import InputError
from daemon.events import Event, EventBus
from daemon.ports import AUDIO_RATE_HZ, Engines
from daemon.turn.keeper import TurnKeeper
from hardware.audio import MAX_FILE_S, AudioFileError, AudioInputError, WavFileSink, WavFileSource, read_audio_file
from tests.fuzzing import FUZZ

MAX_PEAK_BYTES = 64 * 1024 * 1024
HANG_S = 60.0


def wav(
    fmt: int = 1, channels: int = 1, rate: int = 16000, bits: int = 16, data: bytes = b"\0\0" * 100, **sizes: int
) -> bytes:
    """A RIFF/WAVE file whose every header field can lie."""
    block = sizes.get("block", channels * bits // 8) & 0xFFFF
    fmt_chunk = struct.pack("<HHIIHH", fmt, channels, rate, (rate * block) & 0xFFFFFFFF, block, bits)
    data_size = sizes.get("data_size", len(data)) & 0xFFFFFFFF
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt_chunk)) + fmt_chunk + b"data"
    body += struct.pack("<I", data_size) + data
    return b"RIFF" + struct.pack("<I", sizes.get("riff_size", len(body)) & 0xFFFFFFFF) + body


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    """A hang inside libsndfile or soxr kills the run with a traceback instead of blocking CI forever."""
    faulthandler.dump_traceback_later(HANG_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def check_file(path: Path) -> None:
    """The properties every reader must have for any file."""
    tracemalloc.start()
    try:
        try:
            audio = read_wav(path, AUDIO_RATE_HZ)
        except InputError as err:
            assert err.code.startswith("input-") and str(path) in err.message
        else:
            assert audio.dtype == np.int16 and audio.ndim == 1 and 0 < len(audio) <= (MAX_FILE_S + 1) * AUDIO_RATE_HZ
        try:
            mic = WavFileSource(path, realtime=False, tail_silence_s=0.0)
        except AudioInputError as err:
            assert str(path) in str(err)
        else:
            for frame in mic.frames():
                assert 0 < len(frame) <= 2 * AUDIO_RATE_HZ and len(frame) % 2 == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MAX_PEAK_BYTES


@FUZZ
@given(data=st.binary(max_size=4096), riff=st.booleans())
@example(data=b"", riff=False)
@example(data=b"RIFF", riff=False)
def test_arbitrary_bytes(tmp_path: Path, data: bytes, riff: bool) -> None:
    path = tmp_path / "mic.wav"
    path.write_bytes(b"RIFF\x24\x08\x00\x00WAVEfmt " + data if riff else data)
    check_file(path)


@FUZZ
@given(
    fmt=st.sampled_from([0, 1, 2, 3, 6, 7, 0x11, 0xFFFE, 0xFFFF]),
    channels=st.integers(0, 0xFFFF),
    rate=st.integers(0, 0xFFFFFFFF),
    bits=st.sampled_from([0, 1, 4, 8, 12, 16, 20, 24, 32, 48, 64, 0xFFFF]),
    data=st.binary(max_size=2048),
    cut=st.integers(0, 80),
    data_size=st.one_of(st.none(), st.integers(0, 0xFFFFFFFF)),
)
@example(fmt=1, channels=1, rate=1, bits=16, data=b"\1\0" * 1000, cut=80, data_size=None)  # 16000-fold upsampling
@example(fmt=1, channels=1, rate=0xFFFFFFFF, bits=16, data=b"\1\0" * 1000, cut=80, data_size=None)
@example(fmt=1, channels=1024, rate=16000, bits=16, data=b"\1\0" * 2048, cut=80, data_size=None)
@example(fmt=3, channels=1, rate=16000, bits=32, data=struct.pack("<f", float("nan")) * 100, cut=80, data_size=None)
@example(fmt=1, channels=1, rate=16000, bits=16, data=b"\1\0" * 100, cut=80, data_size=0xFFFFFFFF)
def test_lying_headers(
    tmp_path: Path, fmt: int, channels: int, rate: int, bits: int, data: bytes, cut: int, data_size: int | None
) -> None:
    sizes = {} if data_size is None else {"data_size": data_size}
    whole = wav(fmt, channels, rate, bits, data, **sizes)
    path = tmp_path / "mic.wav"
    path.write_bytes(whole if cut == 80 else whole[: 12 + cut])  # cut < 80: a truncated header
    check_file(path)


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (wav(rate=1, data=b"\1\0" * 50_000), "input-implausible"),  # was: 800 M samples, 1.6 GB, 12 s
        (wav(rate=0x7FFFFFF8, data=b"\1\0" * 1000), "input-implausible"),  # was: silently empty audio
        (wav(channels=1024, data=b"\1\0" * 10_240), "input-implausible"),
        (wav(channels=0), "input-not-wav"),
        (wav(bits=64, data=b"\0" * 800), "input-not-wav"),
        (wav()[:30], "input-not-wav"),
        (wav(data=b""), "input-empty"),
        (b"", "input-not-wav"),
    ],
    ids=["1-hz", "2-ghz", "1024-channels", "no-channels", "64-bit-pcm", "truncated-header", "no-samples", "empty"],
)
def test_absurd_files_get_a_clear_error(tmp_path: Path, content: bytes, code: str) -> None:
    path = tmp_path / "mic.wav"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        read_wav(path, AUDIO_RATE_HZ)
    assert info.value.code == code and str(path) in info.value.message


def test_nan_samples_in_a_float_file_are_silence(tmp_path: Path) -> None:
    path = tmp_path / "nan.wav"
    samples = np.array([0.5, np.nan, -0.5, np.inf, -np.inf] * 3200, np.float32)
    sf.write(path, samples, AUDIO_RATE_HZ, subtype="FLOAT")
    audio = read_wav(path, AUDIO_RATE_HZ)
    assert list(audio[:5]) == [16384, 0, -16384, 32767, -32767]


def test_a_file_longer_than_the_limit_is_refused_while_reading(tmp_path: Path) -> None:
    path = tmp_path / "long.wav"
    sf.write(path, np.zeros(3 * AUDIO_RATE_HZ, np.int16), AUDIO_RATE_HZ, subtype="PCM_16")
    assert len(read_audio_file(path, max_s=3.0)) == 3 * AUDIO_RATE_HZ
    with pytest.raises(AudioFileError, match="longer than 2 s") as info:
        read_audio_file(path, max_s=2.0)
    assert info.value.reason == "too-long"


def test_an_unusable_microphone_file_is_an_input_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "mic.wav"
    path.write_bytes(wav(rate=3))
    with pytest.raises(InputError) as info:
        open_source(str(path))
    assert info.value.code == "audio-input-unavailable" and str(path) in info.value.message


def _non_speech(kind: str, seconds: float = 6.0) -> np.ndarray:
    n = int(seconds * AUDIO_RATE_HZ)
    t = np.arange(n) / AUDIO_RATE_HZ
    rng = np.random.default_rng(11)
    if kind == "empty":
        return np.zeros(0, np.int16)
    if kind == "chord":  # music-like: three steady tones
        wave = sum(np.sin(2 * np.pi * f * t) for f in (262.0, 330.0, 392.0)) / 3
    elif kind == "clicks":  # a ticking clock: loud, short, regular
        wave = np.zeros(n)
        wave[:: AUDIO_RATE_HZ // 2] = 1.0
    elif kind == "chirp":  # a sweeping whistle
        wave = np.sin(2 * np.pi * (200 + 300 * t) * t)
    else:  # loud noise bursts
        wave = rng.standard_normal(n) * (np.sin(2 * np.pi * 0.5 * t) > 0)
    return (np.clip(wave, -1, 1) * 12000).astype(np.int16)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["empty", "chord", "clicks", "chirp", "bursts"])
def test_empty_and_non_speech_audio_start_no_turn(
    kind: str, tmp_path: Path, engines: Engines, dev_config: Config
) -> None:
    path = tmp_path / f"{kind}.wav"
    sf.write(path, _non_speech(kind), AUDIO_RATE_HZ, subtype="PCM_16")
    bus, events = EventBus(), list[Event]()
    bus.subscribe(events.append)
    sink = WavFileSink(tmp_path / "answer.wav", engines.tts.sample_rate_hz, realtime=False)
    try:
        keeper = TurnKeeper(engines, sink, dev_config.listen, bus)
        asyncio.run(asyncio.wait_for(keeper.run(frames_of(WavFileSource(path, realtime=False))), 60))
    finally:
        sink.close()
    assert events == []  # not even a wake word, so no turn, no chime, nothing on the screen
