"""Show a turn in a terminal: the live transcript, the streamed answer and the timings."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from daemon.events import (
    AnswerDropped,
    AnswerFinished,
    AnswerStartedEarly,
    BargeIn,
    Event,
    ListeningEnded,
    ListeningStarted,
    PartialTranscript,
    SkillCalled,
    SpeakingFinished,
    SpeakingStarted,
    ThinkingStarted,
    TokenGenerated,
    TranscriptReady,
    TurnEnded,
    TurnFailed,
    WakeWordDetected,
)


class ConsoleView:
    """Subscribes to the bus and prints what a person would want to watch."""

    def __init__(self, out: TextIO | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self._out = out or sys.stdout
        self._live = self._out.isatty()
        self._clock = clock
        self.latencies: list[float] = []
        """End of speech -> first audio, per turn."""
        self.question_latencies: list[float] = []
        """From when the box had the question (an early answer's start, if kept; else the end of speech) -> audio."""
        self.decode_rates: list[float] = []
        self._latency: dict[int, tuple[float, float]] = {}
        self._had_question: dict[int, float] = {}  # the end of speech, per turn
        self._early: dict[int, float] = {}  # the start of an early answer not dropped, per turn
        self._skill: dict[int, str] = {}  # the skill that answered, per turn

    def _line(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    def __call__(self, event: Event) -> None:
        match event:
            case WakeWordDetected(phrase=phrase):
                self._line(f"[wake word] {phrase}")
            case ListeningStarted(push_to_talk=ptt):
                self._line("[listening] (hold the button and speak)" if ptt else "[listening]")
            case PartialTranscript(text=text) if self._live:
                self._out.write(f"\r  … {text[-70:]:<72}")
                self._out.flush()
            case AnswerStartedEarly():
                self._early[event.turn] = self._clock()
            case AnswerDropped():
                self._early.pop(event.turn, None)  # the answer that sounds is begun again, after the end
            case ListeningEnded(reason=reason):
                self._had_question[event.turn] = self._clock()
                if self._live:
                    self._out.write("\r" + " " * 76 + "\r")
                self._line(f"[end of speech: {reason}]")
            case TranscriptReady(text=text):
                self._line(f"you:  {text or '(nothing heard)'}")
            case ThinkingStarted():
                self._out.write("box:  ")
            case TokenGenerated(text=text):
                self._out.write(text)
                self._out.flush()
            case SkillCalled(skill=skill):
                self._skill[event.turn] = skill
            case AnswerFinished() if event.turn in self._skill:
                # NOTE: a skill's reply took no tokens: "0 tokens at 0.0 tok/s" read as a fault
                self._line(
                    f"\n[answered by the box's own {self._skill.pop(event.turn)} skill; the model was not asked]"
                )
            case AnswerFinished(tokens=tokens, tokens_per_s=rate, prompt_s=prompt_s):
                self.decode_rates.append(rate)
                self._line(f"\n[answer: {tokens} tokens at {rate:.1f} tok/s; first token {prompt_s:.2f} s]")
            case SpeakingStarted(latency_s=latency, since_last_word_s=felt):
                # Printed with the turn's summary: the answer is still streaming onto this line.
                self.latencies.append(latency)
                self._latency[event.turn] = (latency, felt)
                had = self._early.get(event.turn, self._had_question.get(event.turn))
                if had is not None:
                    self.question_latencies.append(self._clock() - had)
            case TurnEnded(outcome=outcome):
                timing = ""
                if (times := self._latency.get(event.turn)) is not None:
                    first, felt = times
                    timing = f"; first audio {first:.2f} s after end of speech"
                    timing += f", {felt:.2f} s after the last word" if felt else ""
                self._line(f"[turn {event.turn} {outcome}{timing}]")
            case BargeIn(source=source):
                self._line(f"[interrupted by {source}]")
            case SpeakingFinished(interrupted=True, spoken=spoken):
                self._line(f"[stopped; heard: {spoken!r}]")
            case TurnFailed(code=code, message=message):
                self._line(f"[failed: {message} [{code}]]")
            case _:
                pass
