"""The one vocabulary of things that happen in the box; outputs subscribe to these, never drive them."""

from __future__ import annotations

import dataclasses
import enum
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_LOGGER = logging.getLogger(__name__)


class Trigger(enum.StrEnum):
    """What started a turn."""

    WAKE_WORD = "wake-word"
    BUTTON = "button"
    FOLLOW_UP = "follow-up"
    """The box kept listening after an answer, without the wake word."""
    SERIAL = "serial"
    """A question typed on the serial link."""
    SOCKET = "socket"
    """A question sent through the control socket (`talkbox ask` while the box runs)."""
    COMMAND = "command"
    """A question given to `talkbox ask` with no box running: answered here, by the same assembly."""
    REMINDER = "reminder"
    """A timer or an alarm came due: the box rings."""

    @property
    def spoken(self) -> bool:
        """True for turns that begin by listening to the microphone."""
        return self in (Trigger.WAKE_WORD, Trigger.BUTTON, Trigger.FOLLOW_UP)


class EndReason(enum.StrEnum):
    """Why the microphone stopped feeding speech-to-text."""

    SILENCE = "silence"
    MAX_LENGTH = "max-length"
    RELEASED = "released"
    """The push-to-talk button came up (or a tap ended a question being spoken)."""
    NO_SPEECH = "no-speech"
    SOURCE_ENDED = "source-ended"
    """The microphone ended (a file) or was closed."""
    CANCELLED = "cancelled"
    """The user asked to forget the conversation while speaking."""


class Outcome(enum.StrEnum):
    """How a turn ended."""

    ANSWERED = "answered"
    INTERRUPTED = "interrupted"
    NO_SPEECH = "no-speech"
    CANCELLED = "cancelled"
    FAILED = "failed"


class BargeSource(enum.StrEnum):
    """Who interrupted an answer."""

    BUTTON = "button"
    WAKE_WORD = "wake-word"
    STOP = "stop"
    """A stop asked through the serial link, the control socket, or the box stopping."""
    REMINDER = "reminder"
    """A timer or an alarm came due: it rings now, in the answer's place."""


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of every event."""

    turn: int = 0
    """Number of the turn this belongs to; 0 outside any turn."""

    def fields(self) -> dict[str, Any]:
        """The event's fields as plain values (for logs and the serial/JSON outputs)."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, kw_only=True)
class WakeWordDetected(Event):
    """The wake phrase was heard."""

    phrase: str


@dataclass(frozen=True, kw_only=True)
class ButtonPressed(Event):
    """The button went down."""


@dataclass(frozen=True, kw_only=True)
class ButtonReleased(Event):
    """The button came up."""

    held_s: float
    """Seconds it was held."""


@dataclass(frozen=True, kw_only=True)
class TurnStarted(Event):
    """A turn began: the box listens for a question."""

    trigger: Trigger
    question: str = ""
    """The typed question for serial and socket turns; empty for spoken turns (the transcript comes later)."""
    spoken_answer: bool = True
    """Whether the answer will be spoken (typed turns may ask for text only)."""


@dataclass(frozen=True, kw_only=True)
class ListeningStarted(Event):
    """The microphone feeds speech-to-text."""

    push_to_talk: bool = False
    """True while the button is held: listening ends when it is released."""


@dataclass(frozen=True, kw_only=True)
class AudioLevel(Event):
    """Input level while listening, about ten times a second."""

    dbfs: float
    """Decibels relative to full scale (0 is loudest, -90 is silence)."""


@dataclass(frozen=True, kw_only=True)
class SpeechStarted(Event):
    """Voice activity began."""


@dataclass(frozen=True, kw_only=True)
class PartialTranscript(Event):
    """What the recogniser has heard so far."""

    text: str


@dataclass(frozen=True, kw_only=True)
class ListeningEnded(Event):
    """The microphone stopped feeding speech-to-text."""

    reason: EndReason
    speech_s: float
    """Seconds from the start of speech to its end (0 if none was heard)."""
    after_last_voice_s: float = 0.0
    """The pause waited after the last voiced frame before deciding the question was over (0: not a pause)."""


@dataclass(frozen=True, kw_only=True)
class AnswerStartedEarly(Event):
    """At an unclear pause the answer began, silently, on the words heard so far."""

    question: str


@dataclass(frozen=True, kw_only=True)
class AnswerKept(Event):
    """The early answer answered the final question: it sounds now (its events follow ThinkingStarted)."""


@dataclass(frozen=True, kw_only=True)
class AnswerDropped(Event):
    """The early answer was thrown away unheard (the user went on, or the final words differ)."""

    question: str


@dataclass(frozen=True, kw_only=True)
class EndJudged(Event):
    """The words heard up to a pause, judged: a whole question (end sooner), unfinished (wait longer), or unclear."""

    text: str
    complete: bool | None


@dataclass(frozen=True, kw_only=True)
class TranscriptReady(Event):
    """The final transcript of the question."""

    text: str


@dataclass(frozen=True, kw_only=True)
class ThinkingStarted(Event):
    """The language model began answering."""

    question: str


@dataclass(frozen=True, kw_only=True)
class QuestionCut(Event):
    """The question was longer than the model takes: only its beginning is answered."""

    tokens: int
    """Tokens the question had."""
    kept_tokens: int
    """Tokens of it the model was given."""


@dataclass(frozen=True, kw_only=True)
class TokenGenerated(Event):
    """A piece of the answer's text."""

    text: str


@dataclass(frozen=True, kw_only=True)
class SentenceReady(Event):
    """A complete sentence of the answer, queued for the voice."""

    index: int
    text: str


@dataclass(frozen=True, kw_only=True)
class AnswerFinished(Event):
    """The language model stopped (done, capped or interrupted)."""

    text: str
    tokens: int
    tokens_per_s: float
    """Decode speed after the first token."""
    prompt_s: float
    """Seconds from the question to the first token."""
    prompt_tokens: int = 0
    """Tokens in the prompt, the system prompt and remembered turns included."""
    evaluated_tokens: int = 0
    """Of those, tokens evaluated after the question was asked (the rest were in the cache already)."""


@dataclass(frozen=True, kw_only=True)
class SpeakingStarted(Event):
    """The first audio of the answer reached the speaker."""

    latency_s: float
    """Seconds from the decision that the user had finished speaking to this moment."""
    since_last_word_s: float = 0.0
    """Seconds from the user's last voiced frame to this moment: the wait a person feels (0 for typed turns)."""


@dataclass(frozen=True, kw_only=True)
class SentenceSpoken(Event):
    """A sentence started playing (the display scrolls in step with it)."""

    index: int
    text: str
    duration_s: float


@dataclass(frozen=True, kw_only=True)
class SpeakingFinished(Event):
    """The speaker went quiet."""

    spoken: str
    """What the user actually heard."""
    interrupted: bool


@dataclass(frozen=True, kw_only=True)
class BargeIn(Event):
    """The answer was cut: the user interrupted it, or a timer or an alarm came due."""

    source: BargeSource


@dataclass(frozen=True, kw_only=True)
class TurnFailed(Event):
    """Something went wrong during the turn; the box goes back to idle."""

    code: str
    message: str


@dataclass(frozen=True, kw_only=True)
class TurnEnded(Event):
    """The turn is over (always emitted, whatever happened)."""

    outcome: Outcome


@dataclass(frozen=True, kw_only=True)
class BootProgress(Event):
    """A start-up step, with how far the whole start-up has come."""

    step: str
    """What is happening, for a person: "Checking models", "Loading language model"."""
    fraction: float
    """0..1 of the whole start-up."""


@dataclass(frozen=True, kw_only=True)
class BoxReady(Event):
    """Models loaded and audio open: the box can be spoken to."""

    wake_phrase: str
    """The wake phrase, or "" when only the button starts a turn."""


@dataclass(frozen=True, kw_only=True)
class SkillCalled(Event):
    """A request answered by a skill instead of the language model."""

    skill: str
    args: dict[str, object]
    by: str
    """"template" (a sentence template matched), "meaning" (read by meaning as a template sentence), "tool-call"
    (the language model chose it), "homeassistant" (a home command Home Assistant carried out and answered), "job
    named" (a request naming a job of the box's that nothing could read: it says nothing was done), or for the skill
    "ask_again", "recogniser" (it was unsure of the words) or "model" (it found the words unlikely)."""
    reply: str


@dataclass(frozen=True, kw_only=True)
class HomeAssistantChanged(Event):
    """The Home Assistant bridge came, went, or reached Home Assistant or lost it."""

    connected: bool
    """True while the bridge reaches Home Assistant: home commands go there."""
    reason: str
    """Why not, in words ("the token was refused"); "" when connected."""
    bridge: bool = True
    """False once the bridge itself has stopped (Home Assistant is then off, not failing)."""


@dataclass(frozen=True, kw_only=True)
class RemindersChanged(Event):
    """The timers and alarms now set; the display counts the timers down."""

    timers: tuple[tuple[str, float], ...]
    """(label, seconds left) of each running timer, soonest first."""
    alarms: tuple[str, ...]
    """Labels of the alarms, soonest first."""
    paused: tuple[tuple[str, float], ...] = ()
    """(label, seconds left) of each paused timer: shown, not counted down."""


@dataclass(frozen=True, kw_only=True)
class Ringing(Event):
    """A timer or an alarm is ringing until stopped or ring_s passes."""

    label: str


@dataclass(frozen=True, kw_only=True)
class Notice(Event):
    """A short confirmation for the user, e.g. "Conversation forgotten"."""

    text: str


@dataclass(frozen=True, kw_only=True)
class Fault(Event):
    """Something the box cannot fix by itself (a missing model, a lost device)."""

    code: str
    message: str
    permanent: bool
    """True: the box will not recover without a person; False: it retries."""


@dataclass(frozen=True, kw_only=True)
class ShuttingDown(Event):
    """The box is stopping."""

    reason: str


Subscriber = Callable[[Event], None]


class EventBus:
    """Fans events out to subscribers; a failing subscriber is logged and never breaks the pipeline."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def subscribe(self, subscriber: Subscriber, *, first: bool = False) -> None:
        """Call `subscriber(event)` for every event from now on (before every other subscriber if `first`)."""
        with self._lock:
            self._subscribers.insert(0 if first else len(self._subscribers), subscriber)

    def emit(self, event: Event) -> None:
        """Deliver `event` to every subscriber, in order of subscription."""
        with self._lock:
            subscribers = list(self._subscribers)
        for subscriber in subscribers:
            try:
                subscriber(event)
            except Exception:
                _LOGGER.exception("subscriber %r failed on %s", subscriber, type(event).__name__)
