"""Decide when the user has finished speaking, from per-frame voice activity and a judgement of the words.

A pause ends the question after `trailing_silence_s`; when the words heard up to the pause were judged a
finished question or command it ends after `min_silence_s` (or, while an answer begun at the pause is not yet
ready to sound, when it is: until then, speech that resumes only continues the question), and when they were judged
unfinished ("what is the...", "set a timer for") only after `max_silence_s`. Speech that resumes forgets the
judgement.
"""

from __future__ import annotations

from daemon.config import ListenConfig
from daemon.events import EndReason


class Endpointer:
    """Turns a stream of speech/non-speech frames into one reason the utterance ended."""

    def __init__(self, config: ListenConfig, push_to_talk: bool = False, no_speech_timeout_s: float = 0.0) -> None:
        self._cfg = config
        self.push_to_talk = push_to_talk
        self._timeout = no_speech_timeout_s or config.no_speech_timeout_s
        self._t = 0.0
        self._run = 0.0  # seconds of consecutive voiced frames
        self.speech_start = -1.0
        self.last_speech = -1.0
        self.judgement: bool | None = None
        """Whether the words up to the current pause make a whole question (None: not judged, or cannot tell)."""
        self.pauses = 0
        """Pauses so far: a judgement is kept only for the pause it was asked for."""
        self._held_for = -1  # the pause whose early answer is being prepared

    @property
    def speech_started(self) -> bool:
        """True once voice lasted min_speech_s."""
        return self.speech_start >= 0

    @property
    def speech_s(self) -> float:
        """Seconds from the start of speech to the last voiced frame."""
        return max(0.0, self.last_speech - self.speech_start) if self.speech_started else 0.0

    @property
    def silence_s(self) -> float:
        """Seconds since the last voiced frame (0 before speech)."""
        return self._t - self.last_speech if self.speech_started else 0.0

    def judge(self, pause: int, complete: bool | None) -> None:
        """Record a judgement of the words heard up to pause number `pause` (ignored if speech resumed since)."""
        if pause == self.pauses:
            self.judgement = complete

    def hold(self, pause: int) -> None:
        """An answer to the words before pause number `pause` is being prepared: a finished question waits for it."""
        if pause == self.pauses:
            self._held_for = pause

    def release(self, pause: int) -> None:
        """The answer begun at pause number `pause` can sound (or has ended)."""
        if pause == self._held_for:
            self._held_for = -1

    def update(self, voiced: bool, frame_s: float) -> EndReason | None:
        """Account for one frame; return silence, max-length or no-speech once the utterance is over."""
        self._t += frame_s
        self._run = self._run + frame_s if voiced else 0.0
        if voiced and self.speech_started:
            if self.last_speech < self._t - 1.5 * frame_s:
                self.pauses += 1  # speech resumed after a pause: its judgement no longer holds
                self.judgement = None
            self.last_speech = self._t
        if not self.speech_started and self._run >= self._cfg.min_speech_s:
            self.speech_start = self._t - self._run
            self.last_speech = self._t
        if self.speech_started:
            if self._t - self.speech_start >= self._cfg.max_utterance_s:
                return EndReason.MAX_LENGTH
            if not self.push_to_talk and self.silence_s >= self.wait_s:
                return EndReason.SILENCE
            return None
        if self.push_to_talk:
            return EndReason.MAX_LENGTH if self._t >= self._cfg.max_utterance_s else None
        return EndReason.NO_SPEECH if self._t >= self._timeout else None

    @property
    def wait_s(self) -> float:
        """The silence that ends the question at the current pause."""
        cfg = self._cfg
        if self.judgement is None or not cfg.predict_end:
            return cfg.trailing_silence_s
        if self.judgement and self._held_for == self.pauses:
            # NOTE: the answer could not sound sooner anyway; meanwhile a pause that was only a pause costs nothing.
            return cfg.trailing_silence_s
        return cfg.min_silence_s if self.judgement else cfg.max_silence_s
