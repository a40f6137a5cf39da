"""The turn state machine: idle -> listening -> thinking/speaking -> (follow-up) -> idle.

Pure core: it drives the engines only through `daemon.ports` and reports everything as events.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import math
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from daemon import earcons
from daemon.answer import Answer, AnswerResult
from daemon.config import ListenConfig
from daemon.endpoint import Endpointer
from daemon.errors import TalkboxError
from daemon.events import (
    AudioLevel,
    BargeIn,
    ButtonPressed,
    ButtonReleased,
    Event,
    EventBus,
    ListeningEnded,
    ListeningStarted,
    Notice,
    PartialTranscript,
    SpeakingFinished,
    SpeechStarted,
    ThinkingStarted,
    TranscriptReady,
    TurnEnded,
    TurnFailed,
    TurnStarted,
    WakeWordDetected,
)
from daemon.ports import (
    AUDIO_RATE_HZ,
    AudioSink,
    Responder,
    SpeechStream,
    SpeechToText,
    TextToSpeech,
    VoiceActivityDetector,
    WakeWordDetector,
)

_LOGGER = logging.getLogger(__name__)

STT_BATCH_S: Final = 0.09
"""Audio is handed to speech-to-text in pieces this long (fewer calls, same latency class)."""
IDLE_CHUNK_S: Final = 0.45
"""While the box only waits for the button, the microphone delivers this much at a time (and the reader drops it).

NOTE: nothing listens to that audio, and on the development machine every wake-up of a thread costs ~1-7 ms of
CPU. Idle 30 s in push-to-talk mode, side by side in one process: 90 ms chunks 3.0-4.6 % of a core, 450 ms
2.0-2.5 %, 1 s 1.3-1.9 %; then 450 ms dropped by the reader instead of handed to the event loop 0.83-1.0 %
against 1.25-1.84 % handed on. It stays below PUSH_TO_TALK_MIN_HOLD_S: the chunk being read at a press arrives
before the release can end the question, so nothing said while the button was held is lost.
"""
LEVEL_EVERY_S: Final = 0.1
PUSH_TO_TALK_MIN_HOLD_S: Final = 0.6
"""A press released sooner than this was a tap: keep listening and let silence end the question."""


class State(enum.Enum):
    """Where the box is in a turn."""

    IDLE = "idle"
    LISTENING = "listening"
    RESPONDING = "responding"


@dataclass
class _Utterance:
    """The question being heard."""

    turn: int
    stream: SpeechStream
    endpointer: Endpointer
    pending: bytearray = field(default_factory=bytearray)
    level: list[float] = field(default_factory=list)
    announced_speech: bool = False


@dataclass(frozen=True)
class Engines:
    """Everything the pipeline drives, behind its ports."""

    stt: SpeechToText
    responder: Responder
    tts: TextToSpeech
    vad: VoiceActivityDetector
    wake: WakeWordDetector | None


class Pipeline:
    """Runs turns from a microphone stream, the wake word and the button."""

    def __init__(
        self,
        engines: Engines,
        sink: AudioSink,
        config: ListenConfig,
        bus: EventBus,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._e, self._sink, self._cfg, self._bus, self._clock = engines, sink, config, bus, clock
        self.state = State.IDLE
        self._turn = 0
        self._utterance: _Utterance | None = None
        self._answer: Answer | None = None
        self._task: asyncio.Task[None] | None = None
        self._frame = bytearray()
        self._stt_pool = ThreadPoolExecutor(1, thread_name_prefix="stt")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pressed_at = 0.0
        self._source_ended = False
        self.heartbeat: Callable[[], None] | None = None
        """Called for every microphone chunk, used or dropped (the watchdog's proof that audio flows)."""
        self.last_barge_in_s = 0.0
        """Seconds from the last barge-in to silence (for benchmarks)."""

    def emit(self, event: Event) -> None:
        """Publish an event from the loop thread or any worker thread."""
        loop = self._loop
        if loop is not None and loop.is_running() and not _on_loop(loop):
            loop.call_soon_threadsafe(self._bus.emit, event)
        else:
            self._bus.emit(event)

    # -- inputs -------------------------------------------------------------------------------------------

    async def run(self, frames: AsyncIterator[bytes]) -> None:
        """Consume the microphone until it ends, then finish the turn in progress (may be called again)."""
        self._loop = asyncio.get_running_loop()
        self._stt_pool = ThreadPoolExecutor(1, thread_name_prefix="stt")  # one thread keeps audio in order
        self._source_ended = False
        try:
            async for chunk in frames:
                if self.heartbeat is not None:
                    self.heartbeat()
                self._frame += chunk
                size = self._e.vad.frame_bytes
                while len(self._frame) >= size:
                    frame, self._frame = bytes(self._frame[:size]), self._frame[size:]
                    self._on_frame(frame)
            self._source_ended = True
            if self.state is State.LISTENING:
                self._end_listening("source-ended")
            if self._task is not None:
                await self._task
        finally:
            self._stt_pool.shutdown(wait=True)

    def audio_chunk_s(self) -> float:
        """How much audio the microphone should deliver at a time now (any thread may ask)."""
        return IDLE_CHUNK_S if self._waiting_for_button() else STT_BATCH_S

    def wants_audio(self) -> bool:
        """False while only the button can start a turn (any thread may ask)."""
        return not self._waiting_for_button()

    def audio_dropped(self) -> None:
        """The microphone's reader dropped a chunk nobody wanted: it still delivers."""
        if self.heartbeat is not None:
            self.heartbeat()

    def _waiting_for_button(self) -> bool:
        return self.state is State.IDLE and not (self._e.wake is not None and self._cfg.wake_word)

    def press(self) -> None:
        """The button went down (call from any thread)."""
        self._call(self._on_press)

    def release(self) -> None:
        """The button came up (call from any thread)."""
        self._call(self._on_release)

    @property
    def hearing_speech(self) -> bool:
        """True while the user is speaking a question (any thread may read it)."""
        u = self._utterance
        return self.state is State.LISTENING and u is not None and u.endpointer.speech_started

    def forget(self) -> None:
        """Stop whatever is happening and forget the conversation (call from any thread)."""
        self._call(self._on_forget)

    def _on_forget(self) -> None:
        if self.state is State.LISTENING and self._utterance is not None:
            u, self._utterance = self._utterance, None
            self.state = State.IDLE
            self.emit(ListeningEnded(turn=u.turn, reason="cancelled", speech_s=round(u.endpointer.speech_s, 3)))
            self.emit(TurnEnded(turn=u.turn, outcome="cancelled"))
        elif self.state is State.RESPONDING:
            self._barge_in("button")
        assert self._loop is not None
        # NOTE: off the loop: the model may still be finishing its current token under its own lock.
        future = self._loop.run_in_executor(None, self._e.responder.forget)
        future.add_done_callback(lambda _: self.emit(Notice(turn=0, text="Conversation forgotten.")))

    def stop_speaking(self) -> None:
        """Cut the answer being spoken, if any (call from any thread)."""
        self._call(lambda: self._barge_in("stop") if self.state is State.RESPONDING else None)

    def _call(self, fn: Callable[[], None]) -> None:
        if self._loop is not None and not _on_loop(self._loop):
            self._loop.call_soon_threadsafe(fn)
        else:
            fn()

    def _on_press(self) -> None:
        self._pressed_at = self._clock()
        self.emit(ButtonPressed(turn=self._turn))
        if self.state is State.IDLE:
            self._start_turn("button", push_to_talk=True)
        elif self.state is State.RESPONDING:
            self._barge_in("button")
        elif self._utterance and not self._utterance.endpointer.push_to_talk:
            self._end_listening("released")

    def _on_release(self) -> None:
        held = self._clock() - self._pressed_at
        self.emit(ButtonReleased(turn=self._turn, held_s=round(held, 3)))
        if self.state is State.LISTENING and self._utterance and self._utterance.endpointer.push_to_talk:
            if held < PUSH_TO_TALK_MIN_HOLD_S:
                self._utterance.endpointer.push_to_talk = False  # a tap: silence ends the question
            else:
                self._end_listening("released")

    def _on_frame(self, frame: bytes) -> None:
        if self.state is State.LISTENING and self._utterance is not None:
            self._listen(self._utterance, frame)
        elif self._e.wake is not None and self._cfg.wake_word and self._e.wake.process(frame):
            self._e.wake.reset()
            self.emit(WakeWordDetected(turn=self._turn, phrase=self._e.wake.phrase))
            if self.state is State.RESPONDING:
                self._barge_in("wake-word", then_listen=True)
            else:
                self._start_turn("wake-word")

    # -- listening ----------------------------------------------------------------------------------------

    def _start_turn(self, trigger: str, push_to_talk: bool = False, timeout_s: float = 0.0) -> None:
        self._turn += 1
        self.state = State.LISTENING
        self.emit(TurnStarted(turn=self._turn, trigger=trigger))
        if self._cfg.chime and trigger != "follow-up":
            self._sink.play(earcons.listening(self._e.tts.sample_rate_hz), self._e.tts.sample_rate_hz)
        endpointer = Endpointer(self._cfg, push_to_talk=push_to_talk, no_speech_timeout_s=timeout_s)
        self._utterance = _Utterance(self._turn, self._e.stt.stream(), endpointer)
        self.emit(ListeningStarted(turn=self._turn, push_to_talk=push_to_talk))

    def _listen(self, u: _Utterance, frame: bytes) -> None:
        seconds = len(frame) / 2 / AUDIO_RATE_HZ
        voiced = self._e.vad.is_speech(frame)
        u.pending += frame
        u.level.append(float(np.sqrt(np.mean(np.frombuffer(frame, np.int16).astype(np.float32) ** 2))))
        if len(u.level) * seconds >= LEVEL_EVERY_S:
            rms = max(u.level)
            u.level.clear()
            self.emit(AudioLevel(turn=u.turn, dbfs=round(20 * math.log10(max(rms, 1.0) / 32768), 1)))
        if len(u.pending) >= int(STT_BATCH_S * AUDIO_RATE_HZ) * 2:
            self._feed_stt(u)
        reason = u.endpointer.update(voiced, seconds)
        if u.endpointer.speech_started and not u.announced_speech:
            u.announced_speech = True
            self.emit(SpeechStarted(turn=u.turn))
        if reason:
            self._end_listening(reason)

    def _feed_stt(self, u: _Utterance) -> None:
        chunk, u.pending = bytes(u.pending), bytearray()
        assert self._loop is not None
        future = self._loop.run_in_executor(self._stt_pool, u.stream.feed, chunk)

        def partial(f: asyncio.Future[str | None]) -> None:
            if not f.cancelled() and f.exception() is None and (text := f.result()) is not None:
                self.emit(PartialTranscript(turn=u.turn, text=text))

        future.add_done_callback(partial)

    def _end_listening(self, reason: str) -> None:
        u = self._utterance
        if u is None:
            return
        self._utterance = None
        self.state = State.RESPONDING
        self.emit(ListeningEnded(turn=u.turn, reason=reason, speech_s=round(u.endpointer.speech_s, 3)))
        if u.pending:
            self._feed_stt(u)
        assert self._loop is not None
        self._task = self._loop.create_task(self._respond(u, reason, self._clock()))

    # -- answering ----------------------------------------------------------------------------------------

    async def _respond(self, u: _Utterance, reason: str, ended_at: float) -> None:
        assert self._loop is not None
        outcome = "failed"
        result: AnswerResult | None = None
        try:
            transcript = await self._loop.run_in_executor(self._stt_pool, u.stream.finish)
            text = transcript.text.strip()
            self.emit(TranscriptReady(turn=u.turn, text=text))
            if not text or (not u.endpointer.speech_started and reason != "released"):
                outcome = "no-speech"
                if self._cfg.chime and reason == "no-speech":
                    self._sink.play(earcons.gave_up(self._e.tts.sample_rate_hz), self._e.tts.sample_rate_hz)
                return
            self.emit(ThinkingStarted(turn=u.turn, question=text))
            answer = self._answer = Answer(
                self._e.responder, self._e.tts, self._sink, self.emit, u.turn, ended_at, self._clock
            )
            result = await self._loop.run_in_executor(None, answer.run, text)
            self.emit(SpeakingFinished(turn=u.turn, spoken=result.spoken, interrupted=result.interrupted))
            outcome = "interrupted" if result.interrupted else "answered"
        except TalkboxError as err:
            self.emit(TurnFailed(turn=u.turn, code=err.code, message=err.message))
        except Exception as err:  # a failed turn is reported and the box goes back to idle
            _LOGGER.exception("turn %d failed", u.turn)
            self.emit(TurnFailed(turn=u.turn, code="turn-failed", message=str(err)))
        finally:
            if result is not None and self._answer is not None and self._answer.turn == u.turn:
                self._answer = None
            self.emit(TurnEnded(turn=u.turn, outcome=outcome))
            if self.state is State.RESPONDING:
                self.state = State.IDLE
                follow = outcome == "answered" and self._cfg.follow_up_s > 0 and not self._source_ended
                if follow:
                    self._start_turn("follow-up", timeout_s=self._cfg.follow_up_s)

    def _barge_in(self, source: str, then_listen: bool = False) -> None:
        answer = self._answer
        self.emit(BargeIn(turn=self._turn, source=source))
        self.state = State.IDLE  # the finishing task must not open a follow-up window
        if answer is not None:
            answer.cancel()
            self.last_barge_in_s = answer.silenced_at - answer.cancelled_at
        else:
            self._sink.stop()
        if then_listen:
            self._start_turn(source)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
