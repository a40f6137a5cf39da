"""Listening: microphone frames in; the wake word while no question is heard, then one utterance through
voice activity detection, the endpoint and speech-to-text. It decides nothing about turns."""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final

import numpy as np

from daemon.config import ListenConfig
from daemon.events import (
    AudioLevel,
    EndJudged,
    EndReason,
    Event,
    ListeningEnded,
    ListeningStarted,
    PartialTranscript,
    SpeechStarted,
    WakeWordDetected,
)
from daemon.ports import AUDIO_RATE_HZ, Engines, Transcript
from daemon.turn.endpoint import Endpointer
from daemon.turn.heard import Ended, Heard, Paused, Resumed, Utterance, WakeHeard

_LOGGER = logging.getLogger(__name__)

STT_BATCH_S: Final = 0.09
"""Audio is handed to speech-to-text in pieces this long (fewer calls, same latency class)."""
IDLE_CHUNK_S: Final = 0.45
"""While nothing listens (no question, no wake word), the microphone delivers this much at a time, dropped unread.

NOTE: nothing listens to that audio, and on the development machine every wake-up of a thread costs ~1-7 ms of
CPU. Idle 30 s in push-to-talk mode, side by side in one process: 90 ms chunks 3.0-4.6 % of a core, 450 ms
2.0-2.5 %, 1 s 1.3-1.9 %; then 450 ms dropped by the reader instead of handed to the event loop 0.83-1.0 %
against 1.25-1.84 % handed on. It stays below the button's shortest hold-to-talk: the chunk being read at a
press arrives before the release can end the question, so nothing said while the button was held is lost.
"""
LEVEL_EVERY_S: Final = 0.1
SPECULATE_LEAD_S: Final = 0.5
"""At a pause the answer starts this long before the silence that ends the question (unclear: 1.0 s, unfinished:
1.5 s), held silent until then (`TurnKeeper` discards it unheard if the user goes on). At a pause judged finished it
starts at once."""
JUDGE_AFTER_S: Final = 0.12
"""A pause this long has its words judged (a finished question ends sooner); shorter gaps come between words."""


def hands_over(pending: int, voiced: bool, speech_started: bool) -> bool:
    """Whether audio not yet heard (`pending` samples, `voiced` if any frame of it was) goes to speech-to-text now."""
    # NOTE: silence after speech is not fed on its own: the words are heard at the pause (judged, and kept for the
    # transcript), and decoding silence again and again took the CPU an early answer needs. A partial decoded on the
    # silence after the last word kept the recogniser busy when the pause came, which then heard the same words
    # again ("What time is it?" judged 0.19 s later). Speech that resumes hands it that audio first.
    return pending >= int(STT_BATCH_S * AUDIO_RATE_HZ) and (voiced or not speech_started)


class Listener:
    """Consumes the microphone on the event loop; hands over what it heard (`Heard`), decides nothing about turns."""

    def __init__(
        self,
        engines: Engines,
        config: ListenConfig,
        emit: Callable[[Event], None],
        hand_over: Callable[[Heard], None],
        call: Callable[[Callable[[], None]], None],
        *,
        heartbeat: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        judge: Callable[[str], bool | None] | None = None,
        on_partial: Callable[[str], None] | None = None,
    ) -> None:
        self._e, self._cfg, self._emit, self._clock = engines, config, emit, clock
        self._judge = judge if config.predict_end else None
        self._on_partial = on_partial
        """Told the words of each partial transcript, on the loop (a skill's reply is prepared from them)."""
        # NOTE: giving way: the pause's words, waiting to be judged, are newer than any partial's.
        self._prefill = functools.partial(engines.llm.prefill, give_way=True) if config.prefill else None
        self._speculates = config.speculate
        self._prefilling = False  # one at a time: a partial that arrives meanwhile waits for the next
        self._hand_over, self._call, self._heartbeat = hand_over, call, heartbeat  # `call`: onto the loop
        self._utterance: Utterance | None = None
        self._frame = bytearray()
        self._stt_pool: ThreadPoolExecutor | None = None
        self._llm_pool: ThreadPoolExecutor | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def wake_word_on(self) -> bool:
        """True when the wake word starts turns (and interrupts answers)."""
        return self._e.wake is not None and self._cfg.wake_word

    @property
    def wake_phrase(self) -> str:
        """The wake phrase, or "" when only the button starts a turn."""
        return self._e.wake.phrase if self._e.wake is not None and self._cfg.wake_word else ""

    @property
    def listening(self) -> bool:
        """True while an utterance is open (any thread may read it)."""
        return self._utterance is not None

    @property
    def hearing_speech(self) -> bool:
        """True while the user is speaking a question (any thread may read it)."""
        u = self._utterance
        return u is not None and u.endpointer.speech_started

    @property
    def push_to_talk(self) -> bool:
        """True while the open utterance ends only when the button comes up."""
        u = self._utterance
        return u is not None and u.endpointer.push_to_talk

    # -- the microphone -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Bind to the running loop; one STT thread keeps the audio in order."""
        self._loop = asyncio.get_running_loop()
        if self._stt_pool is None:
            self._stt_pool = ThreadPoolExecutor(1, thread_name_prefix="stt")
        if self._llm_pool is None:
            self._llm_pool = ThreadPoolExecutor(1, thread_name_prefix="prefill")

    def close(self) -> None:
        """Stop the STT thread once it has finished its work."""
        for pool in (self._stt_pool, self._llm_pool):
            if pool is not None:
                pool.shutdown(wait=True)
        self._stt_pool = self._llm_pool = None

    async def hear(self, frames: AsyncIterator[bytes]) -> None:
        """Consume a microphone until it ends; an utterance still open then ends as "source-ended"."""
        self._frame.clear()
        async for chunk in frames:
            if self._heartbeat is not None:
                self._heartbeat()
            self._frame += chunk
            size = self._e.vad.frame_bytes
            while len(self._frame) >= size:
                frame, self._frame = bytes(self._frame[:size]), self._frame[size:]
                self._on_frame(frame)
        if self._utterance is not None:
            self.end(EndReason.SOURCE_ENDED)

    def audio_chunk_s(self) -> float:
        """How much audio the microphone should deliver at a time now (any thread may ask)."""
        return STT_BATCH_S if self.wants_audio() else IDLE_CHUNK_S

    def wants_audio(self) -> bool:
        """False while the audio would be thrown away: no question is heard and no wake word listened for."""
        return self._utterance is not None or self.wake_word_on

    def audio_dropped(self) -> None:
        """The microphone's reader dropped a chunk nobody wanted: it still delivers."""
        if self._heartbeat is not None:
            self._heartbeat()

    def _on_frame(self, frame: bytes) -> None:
        u = self._utterance
        if u is not None:
            self._listen(u, frame)
        elif self.wake_word_on and self._e.wake is not None and self._e.wake.process(frame):
            self._e.wake.reset()
            self._hand_over(WakeHeard())

    # -- one utterance ------------------------------------------------------------------------------------

    def wake_word_heard(self, turn: int) -> None:
        """Announce the wake phrase (the owner decides what it means)."""
        assert self._e.wake is not None
        self._emit(WakeWordDetected(turn=turn, phrase=self._e.wake.phrase))

    def open(self, turn: int, push_to_talk: bool = False, timeout_s: float = 0.0) -> None:
        """Start hearing the question of `turn`."""
        endpointer = Endpointer(self._cfg, push_to_talk=push_to_talk, no_speech_timeout_s=timeout_s)
        self._e.vad.reset()
        self._utterance = Utterance(turn, self._e.stt.stream(), endpointer)
        self._emit(ListeningStarted(turn=turn, push_to_talk=push_to_talk))

    def until_silence(self) -> None:
        """The button was only tapped: the question ends at the pause instead of at the release."""
        if self._utterance is not None:
            self._utterance.endpointer.push_to_talk = False

    def end(self, reason: EndReason) -> None:
        """Stop hearing now and hand the utterance to the owner (which asks for its transcript)."""
        u = self._utterance
        if u is None:
            return
        self._utterance = None
        u.ended_at = self._clock()
        waited = u.endpointer.silence_s if reason is EndReason.SILENCE else 0.0
        u.last_voice_at = u.ended_at - waited
        self._emit(
            ListeningEnded(
                turn=u.turn,
                reason=reason,
                speech_s=round(u.endpointer.speech_s, 3),
                after_last_voice_s=round(waited, 3),
            )
        )
        if reason is EndReason.SILENCE and u.endpointer.silence_s >= JUDGE_AFTER_S:
            u.pending.clear()  # the pause after the last word: silence, its start already heard
        if u.pending:
            self._feed_stt(u)
        self._hand_over(Ended(u, reason))

    def drop(self, reason: EndReason) -> Utterance | None:
        """Stop hearing without a transcript (the question was cancelled); the dropped utterance, if any."""
        u, self._utterance = self._utterance, None
        if u is not None:
            self._emit(ListeningEnded(turn=u.turn, reason=reason, speech_s=round(u.endpointer.speech_s, 3)))
            assert self._loop is not None and self._stt_pool is not None
            # NOTE: ended anyway, after the audio already handed over: a recogniser may hold one decoder for all.
            self._loop.run_in_executor(self._stt_pool, u.stream.finish)
        return u

    def judged_words(self, u: Utterance, pause: int) -> str | None:
        """The words heard at pause number `pause` to judge it, unless judged unfinished; None if not judged yet."""
        judged = u.judged
        if judged is not None and judged[0] == pause and u.endpointer.judgement is not False and judged[1].strip():
            return judged[1]
        return None

    async def words_so_far(self, u: Utterance, pause: int) -> str:
        """What the user said before pause number `pause` (on the STT thread, in order with the audio)."""
        assert self._loop is not None and self._stt_pool is not None
        if (judged := self.judged_words(u, pause)) is not None:
            # NOTE: judged finished or unclear: the answer starts on these words now, while the final pass hears them
            # again on the STT thread (a core of its own); the keeper keeps the answer only if the words stay the
            # same. Waiting for the final pass held the answer to "How do vaccines work?" (unclear) up by 0.16 s.
            return judged

        def work() -> str:
            return u.stream.settle(final=True)

        return await self._loop.run_in_executor(self._stt_pool, work)

    async def transcript(self, u: Utterance, settled: Callable[[str], bool] | None = None) -> Transcript:
        """The utterance's final transcript, after all of its audio (on the STT thread, in order); or the words
        judged finished at the pause it ended in, when `settled` says hearing them again could change nothing."""
        assert self._loop is not None and self._stt_pool is not None
        judged = u.judged
        at_end = judged is not None and judged[0] == u.endpointer.pauses and bool(u.endpointer.judgement)
        if settled is not None and judged is not None and at_end and judged[1].strip() and settled(judged[1]):
            # NOTE: the final pass, begun at the pause, still runs: the next utterance's audio waits for it.
            return Transcript(judged[1])
        # NOTE: when nothing was said after the last pause, its final pass (made while the pause went on) is the
        # transcript: the stream returns it without decoding again.
        return await self._loop.run_in_executor(self._stt_pool, u.stream.finish)

    def _listen(self, u: Utterance, frame: bytes) -> None:
        seconds = len(frame) / 2 / AUDIO_RATE_HZ
        voiced = self._e.vad.is_speech(frame)
        u.pending += frame
        u.pending_voiced = u.pending_voiced or voiced
        u.level.append(float(np.sqrt(np.mean(np.frombuffer(frame, np.int16).astype(np.float32) ** 2))))
        if len(u.level) * seconds >= LEVEL_EVERY_S:
            rms = max(u.level)
            u.level.clear()
            self._emit(AudioLevel(turn=u.turn, dbfs=round(20 * math.log10(max(rms, 1.0) / 32768), 1)))
        if hands_over(len(u.pending) // 2, u.pending_voiced, u.endpointer.speech_started):
            self._feed_stt(u)
        reason = u.endpointer.update(voiced, seconds)
        if u.endpointer.speech_started and not u.announced_speech:
            u.announced_speech = True
            self._emit(SpeechStarted(turn=u.turn))
        if reason is not None:
            self.end(reason)
            return
        e = u.endpointer
        if u.speculated_pause >= 0 and e.pauses != u.speculated_pause:
            u.speculated_pause = -1  # the user went on: the early answer is not theirs
            self._hand_over(Resumed(u))
        if self._judge is not None and self._pause_to_judge(u):
            self._ask_judgement(u)
        self._speculate(u)

    def _pause_to_speculate(self, u: Utterance) -> bool:
        """A pause judged finished, or any other long enough that the question will probably end at it."""
        e = u.endpointer
        if not e.speech_started or e.push_to_talk or u.speculated_pause >= 0 or e.silence_s < JUDGE_AFTER_S:
            return False
        if self._cfg.predict_end and e.judgement is True:
            return True
        return e.silence_s >= max(JUDGE_AFTER_S, e.wait_s - SPECULATE_LEAD_S)

    def _prefill_words(self, text: str) -> None:
        """Evaluate the words heard so far into the model's cache while the user still speaks (on the LLM's own
        thread, so the recogniser never waits for it); at the end only the rest is left to evaluate."""
        if self._prefill is None or self._prefilling or not text.strip() or self._utterance is None:
            return
        assert self._loop is not None
        self._prefilling = True
        prefill = self._prefill

        def done(f: asyncio.Future[float]) -> None:
            self._prefilling = False
            if not f.cancelled() and (err := f.exception()) is not None:
                _LOGGER.debug("prefill failed: %s", err)

        self._loop.run_in_executor(self._llm_pool, prefill, text).add_done_callback(done)

    async def surprise(self, text: str) -> float | None:
        """The model's mean log-probability per token of `text` where it would be asked (LanguageModel.surprise), on
        the thread that prefills the words: no other thread is started for it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._llm_pool, self._e.llm.surprise, text)

    def _pause_to_judge(self, u: Utterance) -> bool:
        e = u.endpointer
        return e.speech_started and not e.push_to_talk and e.silence_s >= JUDGE_AFTER_S and u.judged_pause != e.pauses

    def _ask_judgement(self, u: Utterance) -> None:
        """Hear the words up to this pause now and judge them, on the STT thread (in order with the audio)."""
        u.judged_pause = pause = u.endpointer.pauses
        if u.pending_voiced:
            # NOTE: only audio with voice in it: a partial decoded on the last words is then the pause's words as
            # they are (no decode again over the same words and 0.12 s more silence: 0.2-0.27 s here).
            self._feed_stt(u)
        assert self._loop is not None and self._stt_pool is not None and self._judge is not None
        judge = self._judge

        def work() -> tuple[str, bool | None]:
            # NOTE: judged on the quick decode, as the rule was tuned (`talkbox eval endpoint`): the final pass's
            # punctuation made more unfinished halves look finished. The final pass's words follow, for the
            # transcript, while the pause goes on.
            text = u.stream.settle()
            complete = judge(text) if text.strip() else None
            self._call(lambda: self._judged(u, pause, text, complete))
            # NOTE: the stream keeps this final pass: when nothing follows the pause, `finish` returns it at once.
            u.stream.settle(final=True)
            return text, complete

        def judged(f: asyncio.Future[tuple[str, bool | None]]) -> None:
            if f.cancelled() or f.exception() is not None:
                return
            text, complete = f.result()
            self._emit(EndJudged(turn=u.turn, text=text, complete=complete))

        self._loop.run_in_executor(self._stt_pool, work).add_done_callback(judged)

    def _judged(self, u: Utterance, pause: int, text: str, complete: bool | None) -> None:
        """Record the words and judgement of a pause (on the loop, together); a finished question's answer starts at
        once."""
        u.judged = (pause, text)
        u.endpointer.judge(pause, complete)
        # NOTE: not at the next frame: the question judged finished often ends at that very frame, and the answer
        # would then wait for the final pass (0.1-0.2 s) before it starts.
        if self._utterance is not u:
            return
        if complete is not False and u.speculated_pause == pause == u.endpointer.pauses:
            # NOTE: an answer asked for at this pause before the judgement came (0.5 s before the unclear wait) is
            # still waiting for the final pass's words: the judged words start it now instead (the 1.5B's judge took
            # 0.5-0.8 s here while the model read the words of a partial).
            self._hand_over(Paused(u))
        else:
            self._speculate(u)
        self.end_if_due(u)

    def end_if_due(self, u: Utterance) -> None:
        """End `u` now if its pause already lasts as long as its judgement (or an answer now ready) asks."""
        # NOTE: not at the next frame: the microphone delivers 90 ms at a time, and the judgement of a pause that
        # went on while it was made (0.15-0.3 s) comes between two deliveries.
        e = u.endpointer
        if self._utterance is u and e.speech_started and not e.push_to_talk and e.silence_s >= e.wait_s:
            self.end(EndReason.SILENCE)

    def _speculate(self, u: Utterance) -> None:
        """Start the early answer when this pause calls for one."""
        if self._speculates and self._pause_to_speculate(u):
            u.speculated_pause = u.endpointer.pauses
            self._hand_over(Paused(u))

    def _feed_stt(self, u: Utterance) -> None:
        chunk, u.pending, u.pending_voiced = bytes(u.pending), bytearray(), False
        assert self._loop is not None and self._stt_pool is not None
        future = self._loop.run_in_executor(self._stt_pool, u.stream.feed, chunk)

        def partial(f: asyncio.Future[str | None]) -> None:
            if not f.cancelled() and f.exception() is None and (text := f.result()) is not None:
                self._emit(PartialTranscript(turn=u.turn, text=text))
                self._prefill_words(text)
                if self._on_partial is not None:
                    self._on_partial(text)

        future.add_done_callback(partial)
