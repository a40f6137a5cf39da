"""What the listener hands over to the turn keeper: the wake word, a pause, speech resumed, a question ended."""

from __future__ import annotations

from dataclasses import dataclass, field

from daemon.events import EndReason
from daemon.ports import SpeechStream
from daemon.turn.endpoint import Endpointer


@dataclass
class Utterance:
    """The question being heard."""

    turn: int
    stream: SpeechStream
    endpointer: Endpointer
    pending: bytearray = field(default_factory=bytearray)
    pending_voiced: bool = False
    """Whether a voiced frame is in `pending` (audio not yet handed to speech-to-text)."""
    level: list[float] = field(default_factory=list)
    announced_speech: bool = False
    ended_at: float = 0.0
    """When listening ended (clock seconds)."""
    last_voice_at: float = 0.0
    """When the last voiced frame was heard (clock seconds): about when the user's last word ended."""
    judged_pause: int = -1
    """The last pause whose words were sent to be judged."""
    speculated_pause: int = -1
    """The pause at which an answer was started early (-1: none is running)."""
    judged: tuple[int, str] | None = None
    """(pause, words): the words judged at that pause, as the quick decode heard them."""

    @property
    def speech_heard(self) -> bool:
        """True once voice lasted long enough to count as speech."""
        return self.endpointer.speech_started


@dataclass(frozen=True)
class WakeHeard:
    """The wake phrase was heard while no question was open."""


@dataclass(frozen=True)
class Paused:
    """The question has probably ended at this pause: an answer may start, silently."""

    utterance: Utterance


@dataclass(frozen=True)
class Resumed:
    """The user went on after the pause an answer was started at."""

    utterance: Utterance


@dataclass(frozen=True)
class Ended:
    """The question is over; its transcript is `Listener.transcript(utterance)`."""

    utterance: Utterance
    reason: EndReason


Heard = WakeHeard | Paused | Resumed | Ended
"""What the listener hands over to its owner, on the loop, one at a time."""
