"""Microphones and speakers: WAV files, raw stdin, and ALSA devices through sounddevice.

Wiring: any ALSA capture/playback device (USB microphone, I2S HAT, the Pi's headphone jack).
Usage:
    mic = WavFileSource(Path("question.wav"), realtime=True)
    speaker = WavFileSink(Path("answer.wav"), rate_hz=22050)
    for frame in mic.frames(): ...
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import sys
import threading
import time
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, Final

import numpy as np
import soundfile as sf
import soxr

_LOGGER = logging.getLogger(__name__)

RATE_HZ: Final = 16000
"""What every source delivers: 16 kHz mono signed 16-bit."""
CHUNK_S: Final = 0.09
"""Sources deliver 90 ms chunks (three of the 30 ms frames a VAD judges).

NOTE: measured idle CPU with nobody speaking: 30 ms chunks 1.4% of a core (push-to-talk) and 3.0% (wake
word); 90 ms chunks 0.5% and 1.6%. The price is up to 60 ms later wake-word and end-of-speech decisions.
A consumer may ask for longer chunks while it only waits for the button (see `frames(chunk_s)`).
"""
MAX_CHUNK_S: Final = 1.0
"""The longest chunk a consumer may ask for."""
SILENT_DEVICE_S: Final = 3.0
"""A capture device that delivers nothing for this long is treated as lost."""
BLOCK_S: Final = 0.02
"""Sinks play in 20 ms blocks, so a stop takes effect within one block."""


MAX_FILE_S: Final = 1800.0
"""Longest audio file read (30 min, 58 MB at 16 kHz mono); a longer one is refused before it fills memory."""
FILE_RATES_HZ: Final = (4000, 768000)
"""Sample rates a real audio file has; anything outside is a corrupt header (1 Hz would resample 16000-fold)."""
MAX_FILE_CHANNELS: Final = 32
READ_BLOCK_FRAMES: Final = 65536
"""Files are read, mixed down and resampled this many frames at a time, so memory follows the output alone."""


ChunkHint = Callable[[], float]
"""Asked before every read: how many seconds of audio the consumer wants in the next chunk."""


def chunk_samples(rate_hz: int, chunk_s: ChunkHint | None) -> int:
    """Samples to read next at `rate_hz`: what the consumer asks, within CHUNK_S..MAX_CHUNK_S."""
    wanted = chunk_s() if chunk_s is not None else CHUNK_S
    return int(rate_hz * min(max(wanted, CHUNK_S), MAX_CHUNK_S))


class AudioInputError(OSError):
    """A microphone could not be opened or read; the message names it."""


class AudioFileError(AudioInputError):
    """An audio file is missing, unreadable or implausible; `reason` is a kebab-case word for error codes."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _to_int16_mono(samples: np.ndarray) -> np.ndarray:
    """(frames, channels) float32 in -1..1 -> mono int16 (NaN, a float file's garbage, becomes silence)."""
    mono = samples.mean(axis=1) if samples.ndim == 2 else samples
    mono = np.nan_to_num(mono, nan=0.0, posinf=1.0, neginf=-1.0)
    out: np.ndarray = np.clip(np.round(mono * 32767.0), -32768, 32767).astype(np.int16)
    return out


def read_audio_file(path: Path, rate_hz: int = RATE_HZ, max_s: float = MAX_FILE_S) -> np.ndarray:
    """Any file libsndfile reads (WAV, FLAC, OGG...) as mono int16 at `rate_hz`; AudioFileError says why not."""
    if not path.exists():
        raise AudioFileError("missing", f"{path} does not exist")
    if path.is_dir():
        raise AudioFileError("invalid", f"{path} is a directory, not an audio file")
    if not os.access(path, os.R_OK):  # libsndfile reports this only as "System error"
        raise AudioFileError("unreadable", f"cannot read {path}: permission denied")
    try:
        f = sf.SoundFile(str(path))
    except sf.LibsndfileError as err:
        raise AudioFileError("not-wav", f"{path} is not a readable audio file ({err.error_string})") from err
    except (OSError, RuntimeError) as err:
        raise AudioFileError("unreadable", f"cannot read {path}: {err}") from err
    with f:
        rate, channels = int(f.samplerate), int(f.channels)
        low, high = FILE_RATES_HZ
        if not (low <= rate <= high and 1 <= channels <= MAX_FILE_CHANNELS):
            raise AudioFileError(
                "implausible",
                f"{path} claims {rate} Hz and {channels} channels (a corrupt header?): "
                f"audio files have {low}..{high} Hz and 1..{MAX_FILE_CHANNELS} channels",
            )
        resampler = soxr.ResampleStream(rate, rate_hz, 1, dtype="int16") if rate != rate_hz else None
        pieces, frames = [], 0
        try:
            # NOTE: the header's length is not trusted: frames are counted as they are read.
            for block in f.blocks(READ_BLOCK_FRAMES, dtype="float32", always_2d=True):
                frames += len(block)
                if frames > max_s * rate:
                    raise AudioFileError("too-long", f"{path} is longer than {max_s:.0f} s: split it")
                mono = _to_int16_mono(block)
                pieces.append(resampler.resample_chunk(mono) if resampler else mono)
        except (sf.LibsndfileError, RuntimeError) as err:
            raise AudioFileError("unreadable", f"{path} cannot be read to its end ({err})") from err
    if frames == 0:
        raise AudioFileError("empty", f"{path} holds no audio")
    if resampler is not None:
        pieces.append(resampler.resample_chunk(np.zeros(0, np.int16), last=True))
    audio: np.ndarray = np.concatenate(pieces).astype(np.int16)
    return audio


class WavFileSource:
    """A recorded microphone: any audio file, converted to 16 kHz mono and paced in real time (or faster)."""

    def __init__(self, path: Path, realtime: bool = True, speed: float = 1.0, tail_silence_s: float = 1.0) -> None:
        try:
            audio = read_audio_file(path)
        except AudioFileError as err:
            if err.reason != "empty":
                raise AudioFileError(err.reason, f"cannot use microphone file: {err}") from err
            audio = np.zeros(0, np.int16)  # an empty recording is a silent microphone
        # NOTE: a file ends abruptly; trailing silence lets end-of-speech detection see the pause a person makes.
        self._audio = np.concatenate([np.asarray(audio, np.int16), np.zeros(int(tail_silence_s * RATE_HZ), np.int16)])
        self._realtime, self._speed = realtime, speed
        self._closed = threading.Event()

    @property
    def duration_s(self) -> float:
        """Length of the audio, including the added trailing silence."""
        return len(self._audio) / RATE_HZ

    def frames(self, chunk_s: ChunkHint | None = None) -> Iterator[bytes]:
        """Yield chunks as long as `chunk_s()` asks (90 ms by default); in real time each once it is all "heard"."""
        started = time.monotonic()
        i = 0
        while i < len(self._audio) and not self._closed.is_set():
            step = chunk_samples(RATE_HZ, chunk_s)
            if self._realtime:
                # NOTE: as a device does, at the chunk's end: handed on at its start, a long idle chunk would
                # carry audio from after a press that the reader then drops as unwanted.
                delay = started + min(i + step, len(self._audio)) / RATE_HZ / self._speed - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            yield self._audio[i : i + step].tobytes()
            i += step

    def close(self) -> None:
        """Stop early."""
        self._closed.set()

    def __enter__(self) -> WavFileSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RawStreamSource:
    """Raw signed 16-bit little-endian PCM from a stream (e.g. stdin from `arecord -f S16_LE`)."""

    def __init__(self, stream: BinaryIO | None = None, rate_hz: int = RATE_HZ, channels: int = 1) -> None:
        self._stream = stream or sys.stdin.buffer
        self._rate, self._channels = rate_hz, channels
        self._closed = threading.Event()

    def frames(self, chunk_s: ChunkHint | None = None) -> Iterator[bytes]:
        """Yield 16 kHz mono audio, one read as long as `chunk_s()` asks (90 ms by default), until the stream ends."""
        resampler = soxr.ResampleStream(self._rate, RATE_HZ, 1, dtype="int16") if self._rate != RATE_HZ else None
        while not self._closed.is_set():
            data = self._stream.read(chunk_samples(self._rate, chunk_s) * 2 * self._channels)
            if not data:
                return
            pcm = np.frombuffer(data[: len(data) - len(data) % (2 * self._channels)], "<i2")
            mono = pcm.reshape(-1, self._channels).mean(axis=1).astype(np.int16) if self._channels > 1 else pcm
            yield (resampler.resample_chunk(mono) if resampler else mono).astype(np.int16).tobytes()

    def close(self) -> None:
        """Stop after the current read."""
        self._closed.set()

    def __enter__(self) -> RawStreamSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SoundDeviceSource:
    """An ALSA capture device via sounddevice, at the device's own rate, converted to 16 kHz mono."""

    def __init__(self, device: str | int | None = None, rate_hz: int | None = None, channels: int = 1) -> None:
        import sounddevice as sd

        try:
            info = sd.query_devices(device, "input")
        except (ValueError, sd.PortAudioError) as err:
            raise AudioInputError(f"no microphone {device!r}: {err}; see `talkbox devices`") from err
        self.name = str(info["name"])
        self._rate = int(rate_hz or info["default_samplerate"])
        self._channels = channels
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=200)
        self._block = int(self._rate * CHUNK_S)
        self._closed = threading.Event()
        # NOTE: blocking reads, no PortAudio callback: a cffi callback needs write+execute memory, which the
        # service's MemoryDenyWriteExecute forbids (seen on aarch64: MemoryError at the first stream).
        self._stream = sd.RawInputStream(
            device=device, samplerate=self._rate, channels=channels, dtype="int16", blocksize=self._block
        )

    def _read_loop(self, chunk_s: ChunkHint | None) -> None:
        """Read the device on its own thread, so a device that stops delivering cannot block the consumer."""
        import sounddevice as sd

        while not self._closed.is_set():
            try:
                data, _overflowed = self._stream.read(chunk_samples(self._rate, chunk_s))
            except (sd.PortAudioError, OSError):
                return  # frames() notices the silence and reports the device lost
            # NOTE: if the consumer stalls, drop audio rather than let the device's buffer overrun.
            with contextlib.suppress(queue.Full):
                self._queue.put_nowait(bytes(data))

    def frames(self, chunk_s: ChunkHint | None = None) -> Iterator[bytes]:
        """Yield 16 kHz mono audio, as long a chunk as `chunk_s()` asks (90 ms by default), until closed."""
        resampler = soxr.ResampleStream(self._rate, RATE_HZ, 1, dtype="int16") if self._rate != RATE_HZ else None
        reader = threading.Thread(target=self._read_loop, args=(chunk_s,), name="microphone", daemon=True)
        self._stream.start()
        reader.start()
        try:
            while True:
                try:
                    data = self._queue.get(timeout=SILENT_DEVICE_S)
                except queue.Empty:
                    # NOTE: an unplugged USB microphone may simply stop delivering rather than fail.
                    raise AudioInputError(f"no audio from {self.name} for {SILENT_DEVICE_S:.0f} s") from None
                if data is None:
                    return
                pcm = np.frombuffer(data, "<i2")
                if self._channels > 1:
                    pcm = pcm.reshape(-1, self._channels).mean(axis=1).astype(np.int16)
                yield (resampler.resample_chunk(pcm) if resampler else pcm).astype(np.int16).tobytes()
        finally:
            self._closed.set()
            reader.join(timeout=2 * MAX_CHUNK_S + 1.0)  # a read returns within a block; a dead device may not
            if not reader.is_alive():  # closing under a blocked read is not safe in PortAudio
                self._stream.close()

    def close(self) -> None:
        """Stop capturing."""
        self._closed.set()
        self._queue.put(None)

    def __enter__(self) -> SoundDeviceSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Player:
    """The playback thread every sink shares: a queue of chunks written in 20 ms blocks."""

    def __init__(self, rate_hz: int, write: Callable[[bytes], None], realtime: bool) -> None:
        self.rate_hz = rate_hz
        self._write, self._realtime = write, realtime
        self._queue: queue.Queue[tuple[int, bytes, Callable[[], None] | None] | None] = queue.Queue()
        self._generation = 0  # bumped by stop(): anything queued or playing from before is dropped
        self._idle = threading.Event()
        self._idle.set()
        self._lock = threading.Lock()
        self._current = (0, 0)  # (samples played, samples total) of the chunk sounding now
        self._thread = threading.Thread(target=self._run, name="playback", daemon=True)
        self._thread.start()

    def play(self, pcm: bytes, rate_hz: int, on_start: Callable[[], None] | None = None) -> None:
        if rate_hz != self.rate_hz:
            pcm = np.asarray(soxr.resample(np.frombuffer(pcm, "<i2"), rate_hz, self.rate_hz), np.int16).tobytes()
        with self._lock:
            self._idle.clear()
            self._queue.put((self._generation, pcm, on_start))

    def stop(self) -> float:
        with self._lock:
            self._generation += 1
            played, total = self._current
        self._idle.wait(timeout=1.0)
        return played / total if total else 1.0

    def wait(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)

    def close(self) -> None:
        self.stop()
        self._queue.put(None)
        self._thread.join(timeout=2.0)

    def _run(self) -> None:
        block = int(self.rate_hz * BLOCK_S) * 2
        while (item := self._queue.get()) is not None:
            generation, pcm, on_start = item
            if generation == self._generation:
                self._play_one(generation, pcm, on_start, block)
            with self._lock:
                if self._queue.empty():
                    self._current = (0, 0)
                    self._idle.set()

    def _play_one(self, generation: int, pcm: bytes, on_start: Callable[[], None] | None, block: int) -> None:
        total = len(pcm) // 2
        self._current = (0, total)
        if on_start:
            on_start()
        started = time.monotonic()
        for i in range(0, len(pcm), block):
            if generation != self._generation:
                return
            self._write(pcm[i : i + block])
            self._current = (min(len(pcm), i + block) // 2, total)
            if self._realtime:
                delay = started + (i + block) / 2 / self.rate_hz - time.monotonic()
                if delay > 0:
                    time.sleep(delay)


class _PlayerSink:
    """The speaker interface over a playback thread; subclasses say where the blocks go."""

    _player: _Player

    def play(self, pcm: bytes, rate_hz: int, on_start: Callable[[], None] | None = None) -> None:
        """Queue mono int16 audio; `on_start` runs when it begins to sound."""
        self._player.play(pcm, rate_hz, on_start)

    def stop(self) -> float:
        """Silence within a block; return the fraction of the interrupted chunk played (1.0 if none was)."""
        return self._player.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until all queued audio has played."""
        return self._player.wait(timeout)


class WavFileSink(_PlayerSink):
    """A speaker that records into a WAV file; in real time it also takes as long as a speaker would."""

    def __init__(self, path: Path, rate_hz: int, realtime: bool = True) -> None:
        self.path = path
        # NOTE: the file is opened first: wave.open() of a path that cannot be created leaves a half-made writer
        # whose finalizer prints a traceback after the real error.
        self._file = path.open("wb")
        self._wav = wave.open(self._file, "wb")  # noqa: SIM115 (closed by close(), after the playback thread)
        self._wav.setnchannels(1)
        self._wav.setsampwidth(2)
        self._wav.setframerate(rate_hz)
        self._player = _Player(rate_hz, self._wav.writeframes, realtime)

    def close(self) -> None:
        """Finish the file."""
        self._player.close()
        self._wav.close()
        self._file.close()

    def __enter__(self) -> WavFileSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SoundDeviceSink(_PlayerSink):
    """An ALSA playback device via sounddevice."""

    def __init__(self, device: str | int | None = None, rate_hz: int = 22050) -> None:
        import sounddevice as sd

        try:
            self._stream = sd.RawOutputStream(
                device=device, samplerate=rate_hz, channels=1, dtype="int16", blocksize=int(rate_hz * BLOCK_S)
            )
            self._stream.start()
        except (ValueError, sd.PortAudioError) as err:
            raise AudioInputError(f"cannot open speaker {device!r}: {err}; see `talkbox devices`") from err
        self._player = _Player(rate_hz, self._stream.write, realtime=False)  # the device paces writes

    def close(self) -> None:
        """Close the device."""
        self._player.close()
        self._stream.close()

    def __enter__(self) -> SoundDeviceSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
