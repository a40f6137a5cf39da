"""What the fast tier's stand-ins are scripted to say, and how its tests read an answer's events."""

from __future__ import annotations

from typing import Final

from daemon.config import ListenConfig
from daemon.events import Event
from tests.harness import names
from tests.inprocess import silence, voice, wake_marker
from tests.mic import ScriptedMic

QUICK: Final = ListenConfig(trailing_silence_s=0.5, no_speech_timeout_s=1.5, follow_up_s=0.0, chime=False)
"""The real-engine tests' listening settings (tests/turn/test_keeper.py)."""
WAIT_S: Final = 10.0
"""The longest any fast test waits for anything."""
SPEED: Final = 8.0
"""The scripted microphone runs this many times faster than real time (the endpoint counts audio, not the clock)."""

QUESTION: Final = "What do bees make from nectar?"
"""A question for the model: no skill and no fact takes it (a capital would be the facts' own)."""
ANSWER: Final = "Bees make honey from nectar. They store it in wax combs."
SPAIN: Final = "And what do ants like to eat?"
SPAIN_ANSWER: Final = "Ants eat seeds, sugar and small insects."
STORY: Final = "Tell me a long story about a brave dragon."
STORY_ANSWER: Final = " ".join(
    [
        "Once upon a time a brave dragon lived in the hills above a quiet village.",
        "Every morning she flew over the river to watch the fishing boats come home.",
        "One winter a great storm trapped the boats far out on the dark water.",
        "The dragon flew into the wind and carried every boat back to the shore.",
        "The village cheered and baked her a honey cake as big as a barn.",
        "From that day on the children climbed the hills to hear her stories.",
    ]
)
ANSWERS: Final = {QUESTION: ANSWER, SPAIN: SPAIN_ANSWER, STORY: STORY_ANSWER}


def shape(events: list[Event]) -> list[str]:
    """names() with the generating thread's events checked apart: each sentence ready before it is spoken, the
    answer finished after its last sentence; the SentenceReady events are then listed right after ThinkingStarted.

    (Generation and speech run on their own threads: a later sentence may be ready before or after the first is
    spoken, as in tests/turn/test_keeper.py.)
    """
    got = names(events)
    ready = [i for i, name in enumerate(got) if name == "SentenceReady"]
    spoken = [i for i, name in enumerate(got) if name == "SentenceSpoken"]
    assert ready and all(r < s for r, s in zip(ready, spoken, strict=False)), got
    assert got.index("AnswerFinished") > max(ready), got
    rest = [name for name in got if name not in ("SentenceReady", "AnswerFinished")]
    at = rest.index("ThinkingStarted") + 1
    return [*rest[:at], *["SentenceReady"] * len(ready), *rest[at:]]


def asked(mic: ScriptedMic, words: int = len(QUESTION.split()), wake: bool = True) -> None:
    """Say a question of `words` words into the microphone, after the wake phrase unless told otherwise."""
    if wake:
        mic.say(silence(0.3))
        mic.say(wake_marker())
    mic.say(voice(words))
