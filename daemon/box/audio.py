"""The box's microphone and speaker from their specs, and the microphone's frames handed to the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from pathlib import Path

from daemon.errors import InputError, TalkboxError
from daemon.ports import AudioDemand, AudioSink, AudioSource
from hardware.audio import (
    AudioInputError,
    RawStreamSource,
    SoundDeviceSink,
    SoundDeviceSource,
    WavFileSink,
    WavFileSource,
)


def is_device(spec: str) -> bool:
    """True for "alsa" or "alsa:NAME" (a device that may come and go), False for a file or a stream."""
    return spec == "alsa" or spec.startswith("alsa:")


def _device(spec: str) -> str | None:
    """The device part of "alsa" (the default device, None) or "alsa:NAME"."""
    return spec.partition(":")[2] or None


def open_source(spec: str, realtime: bool = True) -> AudioSource:
    """A microphone from a spec: a file path, "-" (raw 16 kHz s16le on stdin), or "alsa[:NAME]"."""
    try:
        if spec == "-":
            return RawStreamSource()
        if is_device(spec):
            return SoundDeviceSource(_device(spec))
        return WavFileSource(Path(spec), realtime=realtime)
    except AudioInputError as err:
        raise InputError("audio-input-unavailable", str(err)) from err


def open_sink(spec: str, rate_hz: int, realtime: bool = True) -> AudioSink:
    """A speaker from a spec: a WAV file path to write, or "alsa[:NAME]"."""
    try:
        if is_device(spec):
            return SoundDeviceSink(_device(spec), rate_hz)
        return WavFileSink(Path(spec), rate_hz, realtime=realtime)
    except (AudioInputError, OSError) as err:
        raise InputError("audio-output-unavailable", f"cannot open speaker {spec}: {err}") from err


async def frames_of(source: AudioSource, demand: AudioDemand | None = None) -> AsyncIterator[bytes]:
    """The source's blocking frames, read on a thread and handed to the event loop, as `demand` wants them."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | BaseException | None] = asyncio.Queue()

    def hand_on(item: bytes | BaseException | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: the box stopped while a read was under way
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def pump() -> None:
        try:
            for frame in source.frames(demand.audio_chunk_s if demand is not None else None):
                # NOTE: audio nobody listens to is dropped here, so the event loop sleeps on while idle.
                if demand is None or demand.wants_audio():
                    hand_on(frame)
                else:
                    demand.audio_dropped()
        except Exception as err:  # a vanished device ends the stream with its error
            hand_on(err)
        finally:
            hand_on(None)

    threading.Thread(target=pump, name="microphone", daemon=True).start()
    while (item := await queue.get()) is not None:
        if isinstance(item, BaseException):
            raise TalkboxError("audio-device-lost", f"the microphone stopped: {item}") from item
        yield item
