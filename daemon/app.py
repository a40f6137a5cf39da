"""The composition root: build engines, microphone and speaker from config, and run the pipeline."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from daemon.config import Config
from daemon.engines.load import load_llm, load_stt, load_tts, load_wake
from daemon.engines.vad import WebRtcVad
from daemon.errors import InputError, TalkboxError
from daemon.heap import keep_big_blocks_out_of_the_heap, return_freed_memory
from daemon.pipeline import Engines
from daemon.ports import AudioDemand, AudioSink, AudioSource
from hardware.audio import (
    AudioInputError,
    RawStreamSource,
    SoundDeviceSink,
    SoundDeviceSource,
    WavFileSink,
    WavFileSource,
)

_LOGGER = logging.getLogger(__name__)


def load_engines(config: Config, progress: Callable[[str, float], None] | None = None) -> Engines:
    """Verify and load every engine; the LLM's system prompt is evaluated before the first question."""
    report = progress or (lambda step, fraction: None)
    keep_big_blocks_out_of_the_heap()
    report("Checking and loading the language model", 0.05)
    responder = load_llm(config)
    report("Preparing the conversation", 0.45)
    responder.warm_up()
    report("Loading speech recognition", 0.55)
    stt = load_stt(config)
    report("Loading the voice", 0.75)
    tts = load_tts(config)
    report("Loading the wake word", 0.9)
    wake = load_wake(config) if config.listen.wake_word else None
    report("Opening audio", 0.97)
    vad = WebRtcVad(config.listen.vad_aggressiveness)
    # NOTE: model loading frees ~28 MB of parse buffers that glibc keeps; trimming them before the first
    # turn lowered the peak RSS over seven answers from ~700 to ~635 MB (dev profile, one run each).
    return_freed_memory()
    return Engines(stt=stt, responder=responder, tts=tts, vad=vad, wake=wake)


def _device(spec: str) -> str | None:
    """The device part of "alsa" (the default device, None) or "alsa:NAME"."""
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


async def frames_of(source: AudioSource, demand: AudioDemand | None = None) -> AsyncIterator[bytes]:
    """The source's blocking frames, read on a thread and handed to the event loop, as `demand` wants them."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | BaseException | None] = asyncio.Queue()

    def pump() -> None:
        try:
            for frame in source.frames(demand.audio_chunk_s if demand is not None else None):
                # NOTE: audio nobody listens to is dropped here, so the event loop sleeps on while idle.
                if demand is None or demand.wants_audio():
                    loop.call_soon_threadsafe(queue.put_nowait, frame)
                else:
                    demand.audio_dropped()
        except Exception as err:  # a vanished device ends the stream with its error
            loop.call_soon_threadsafe(queue.put_nowait, err)
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="microphone", daemon=True).start()
    while (item := await queue.get()) is not None:
        if isinstance(item, BaseException):
            raise TalkboxError("audio-device-lost", f"the microphone stopped: {item}") from item
        yield item
