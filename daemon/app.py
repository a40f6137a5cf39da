"""The composition root: build engines, microphone and speaker from config, and run the pipeline."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator
from pathlib import Path

from daemon.config import Config
from daemon.engines.load import load_llm, load_stt, load_tts, load_wake
from daemon.engines.vad import WebRtcVad
from daemon.errors import InputError, TalkboxError
from daemon.events import EventBus
from daemon.pipeline import Engines, Pipeline
from daemon.ports import AudioSink, AudioSource
from hardware.audio import (
    AudioInputError,
    RawStreamSource,
    SoundDeviceSink,
    SoundDeviceSource,
    WavFileSink,
    WavFileSource,
)

_LOGGER = logging.getLogger(__name__)


def load_engines(config: Config) -> Engines:
    """Verify and load every engine; the LLM's system prompt is evaluated before the first question."""
    responder = load_llm(config)
    responder.warm_up()
    wake = load_wake(config) if config.listen.wake_word else None
    return Engines(
        stt=load_stt(config),
        responder=responder,
        tts=load_tts(config),
        vad=WebRtcVad(config.listen.vad_aggressiveness),
        wake=wake,
    )


def _device(spec: str) -> str | None:
    """ "alsa" -> the default device; "alsa:NAME" -> the device whose name contains NAME."""
    return spec.partition(":")[2] or None


def open_source(spec: str, realtime: bool = True) -> AudioSource:
    """A microphone from a spec: a file path, "-" (raw 16 kHz s16le on stdin), or "alsa[:NAME]"."""
    try:
        if spec == "-":
            return RawStreamSource()
        if spec == "alsa" or spec.startswith("alsa:"):
            return SoundDeviceSource(_device(spec))
        return WavFileSource(Path(spec), realtime=realtime)
    except AudioInputError as err:
        raise InputError("audio-input-unavailable", str(err)) from err


def open_sink(spec: str, rate_hz: int, realtime: bool = True) -> AudioSink:
    """A speaker from a spec: a WAV file path to write, or "alsa[:NAME]"."""
    try:
        if spec == "alsa" or spec.startswith("alsa:"):
            return SoundDeviceSink(_device(spec), rate_hz)
        return WavFileSink(Path(spec), rate_hz, realtime=realtime)
    except (AudioInputError, OSError) as err:
        raise InputError("audio-output-unavailable", f"cannot open speaker {spec}: {err}") from err


async def frames_of(source: AudioSource) -> AsyncIterator[bytes]:
    """The source's blocking frames, read on a thread and handed to the event loop."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | BaseException | None] = asyncio.Queue()

    def pump() -> None:
        try:
            for frame in source.frames():
                loop.call_soon_threadsafe(queue.put_nowait, frame)
        except Exception as err:  # a vanished device ends the stream with its error
            loop.call_soon_threadsafe(queue.put_nowait, err)
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="microphone", daemon=True).start()
    while (item := await queue.get()) is not None:
        if isinstance(item, BaseException):
            raise TalkboxError("audio-device-lost", f"the microphone stopped: {item}") from item
        yield item


def run_pipeline(engines: Engines, source: AudioSource, sink: AudioSink, config: Config, bus: EventBus) -> Pipeline:
    """Run turns until the microphone ends (a file) or is closed; return the pipeline for inspection."""
    pipeline = Pipeline(engines, sink, config.listen, bus)
    try:
        asyncio.run(pipeline.run(frames_of(source)))
    finally:
        source.close()
    return pipeline
