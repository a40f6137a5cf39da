"""Turn-keeping on the real engines: every question is one turn, spoken or typed, one at a time, with exact events."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import re
import threading
import time
import wave
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from daemon.config import ListenConfig
from daemon.errors import TalkboxError
from daemon.events import (
    AnswerFinished,
    BargeIn,
    Event,
    ListeningEnded,
    ListeningStarted,
    SpeakingFinished,
    SpeakingStarted,
    ThinkingStarted,
    TranscriptReady,
    Trigger,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from daemon.ports import AUDIO_RATE_HZ, Engines
from daemon.turn.answer import Answer
from daemon.turn.keeper import State, TurnKeeper
from daemon.turn.listener import IDLE_CHUNK_S, STT_BATCH_S
from daemon.turn.typed import MAX_WAITING
from hardware.audio import WavFileSink
from tests.conftest import Speech
from tests.harness import KeeperThread, Person, Script, faulty, later, names, of, run_box
from tests.mic import ScriptedMic

pytestmark = pytest.mark.slow
QUICK = ListenConfig(trailing_silence_s=0.5, no_speech_timeout_s=1.5, follow_up_s=0.0, chime=False)
QUESTION = "What is the capital of France?"
STORY = "Tell me a long story about a brave dragon."


def words(text: str) -> set[str]:
    """The words of a transcript, lower case, without punctuation."""
    return set(re.findall(r"[a-z']+", text.lower()))


def shape(events: list[Event]) -> list[str]:
    """names() with repeats of a sentence event folded into one, and the generating thread's events checked apart.

    Generation and speech run on their own threads, so a later sentence (and AnswerFinished after the last) may be
    ready before or after the first is spoken. Each sentence must be ready before it is spoken; they are then
    listed right after ThinkingStarted.
    """
    got = names(events)
    ready = [i for i, name in enumerate(got) if name == "SentenceReady"]
    spoken = [i for i, name in enumerate(got) if name == "SentenceSpoken"]
    assert ready and all(r < s for r, s in zip(ready, spoken, strict=False)), got
    finished = got.index("AnswerFinished")
    assert finished > max(ready), got
    rest = [name for i, name in enumerate(got) if i not in ready and i != finished]
    at = rest.index("ThinkingStarted") + 1
    listed = [*rest[:at], "SentenceReady", *rest[at:]]
    return [name for i, name in enumerate(listed) if i == 0 or not (name == listed[i - 1] == "SentenceSpoken")]


ANSWERED = [
    "TurnStarted",
    "ListeningStarted",
    "SpeechStarted",
    "ListeningEnded",
    "TranscriptReady",
    "ThinkingStarted",
    "SentenceReady",
    "SpeakingStarted",
    "SentenceSpoken",
    "SpeakingFinished",
    "TurnEnded",
]
"""A spoken turn's events, as shape() lists them."""


@pytest.fixture(autouse=True)
def fresh_conversation(engines: Engines) -> None:
    engines.memory.forget()


@pytest.fixture
def ask(speech: Speech) -> Callable[..., None]:
    """Say a question into the microphone, after the wake phrase unless told otherwise."""

    def say(mic: ScriptedMic, question: str = QUESTION, wake: bool = True) -> None:
        if wake:
            mic.say(speech("Hey Jarvis.", lead_s=0.2, tail_s=0.2))
        mic.say(speech(question, lead_s=0.0, tail_s=1.0))

    return say


def end_after_turn(event: Event, person: Person, mic: ScriptedMic) -> None:
    if isinstance(event, TurnEnded):
        mic.end()


def test_a_wake_word_turn(engines: Engines, ask: Callable[..., None], tmp_path: Path) -> None:
    mic = ScriptedMic(speed=2.0)
    ask(mic)
    events, person = run_box(engines, mic, QUICK, tmp_path / "out.wav", end_after_turn)
    assert shape(events) == ["WakeWordDetected", *ANSWERED]
    assert of(events, TurnStarted)[0].trigger is Trigger.WAKE_WORD
    assert of(events, ListeningEnded)[0].reason == "silence"
    assert "paris" in of(events, AnswerFinished)[0].text.lower()
    finished = of(events, SpeakingFinished)[0]
    assert "Paris" in finished.spoken and not finished.interrupted
    assert {e.turn for e in events if e.turn} == {1}
    assert person.state is State.IDLE


def test_wake_word_then_nothing_gives_up_without_thinking(engines: Engines, speech: Speech, tmp_path: Path) -> None:
    mic = ScriptedMic(speed=2.0)
    mic.say(speech("Hey Jarvis."))
    events, _ = run_box(engines, mic, QUICK, tmp_path / "out.wav", end_after_turn)
    assert names(events) == [
        "WakeWordDetected",
        "TurnStarted",
        "ListeningStarted",
        "ListeningEnded",
        "TranscriptReady",
        "TurnEnded",
    ]
    assert of(events, ListeningEnded)[0].reason == "no-speech"
    assert of(events, TurnEnded)[0].outcome == "no-speech"


def test_push_to_talk_listens_through_a_pause_until_release(engines: Engines, speech: Speech, tmp_path: Path) -> None:
    mic = ScriptedMic()

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, ListeningStarted):
            first, second = speech("What is the capital", tail_s=0.0), speech("of France?", lead_s=1.0, tail_s=0.3)
            mic.say(first)
            mic.say(second)  # its second of silence is longer than the trailing silence, and does not end it
            later((len(first) + len(second)) / AUDIO_RATE_HZ, who.release)  # the release does
        end_after_turn(event, who, mic)

    events, _ = run_box(engines, mic, QUICK, tmp_path / "out.wav", person, start=Person.press)
    assert shape(events) == ["ButtonPressed", *ANSWERED[:3], "ButtonReleased", *ANSWERED[3:]]
    assert of(events, TurnStarted)[0].trigger is Trigger.BUTTON
    assert of(events, ListeningEnded)[0].reason == "released"
    assert {"capital", "france"} <= words(of(events, TranscriptReady)[0].text)


def test_waiting_for_the_button_the_microphone_wakes_rarely_and_a_press_loses_nothing(
    engines: Engines, speech: Speech, tmp_path: Path
) -> None:
    mic = ScriptedMic()
    pressed_after = [0]  # chunks handed on before the press
    chunk_while: dict[str, set[float]] = {}
    question = speech(QUESTION, lead_s=0.0, tail_s=0.0)

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, ListeningStarted):
            pressed_after[0] = len(mic.delivered_s)
            chunk_while["idle"] = set(mic.delivered_s)
            mic.say(question)  # spoken right at the press: the long chunk being read then must not lose it
            # NOTE: released once the microphone has handed on the whole question (and the chunk being read at the
            # press), not after so many seconds: on a loaded machine the stream runs late.
            heard_s = len(question) / AUDIO_RATE_HZ + 0.2 + IDLE_CHUNK_S

            def release_once_said() -> None:
                if sum(mic.delivered_s[pressed_after[0] :]) >= heard_s:
                    who.release()
                else:
                    later(0.05, release_once_said)

            later(0.05, release_once_said)
        if isinstance(event, ListeningEnded):
            chunk_while["listening"] = set(mic.delivered_s[pressed_after[0] + 1 :])
        end_after_turn(event, who, mic)

    beats: list[State] = []
    holder: list[TurnKeeper] = []

    def start(who: Person) -> None:
        holder.append(who.keeper)
        later(1.0, who.press)

    push_to_talk = dataclasses.replace(QUICK, wake_word=False)
    heartbeat = lambda: beats.append(holder[0].state if holder else State.IDLE)  # noqa: E731
    events, _ = run_box(engines, mic, push_to_talk, tmp_path / "out.wav", person, start=start, heartbeat=heartbeat)
    assert shape(events) == ["ButtonPressed", *ANSWERED[:3], "ButtonReleased", *ANSWERED[3:]]
    assert chunk_while["idle"] == {IDLE_CHUNK_S}
    assert beats.count(State.IDLE) >= 2 and State.LISTENING in beats  # idle chunks are dropped, yet counted
    assert chunk_while["listening"] == {STT_BATCH_S}
    # NOTE: every word heard, the first and the last: Whisper tiny.en hears "France" as "friends" on some CPUs.
    heard = re.findall(r"[a-z']+", of(events, TranscriptReady)[0].text.lower())
    assert heard[:5] == ["what", "is", "the", "capital", "of"] and len(heard) == 6, heard


def test_a_tap_listens_until_silence(engines: Engines, speech: Speech, tmp_path: Path) -> None:
    mic = ScriptedMic()

    def tap(who: Person) -> None:
        who.press()
        later(0.2, who.release)
        mic.say(speech(QUESTION, lead_s=0.5))

    events, _ = run_box(engines, mic, QUICK, tmp_path / "out.wav", end_after_turn, start=tap)
    assert of(events, ListeningEnded)[0].reason == "silence"
    assert names(events)[-1] == "TurnEnded" and of(events, TurnEnded)[0].outcome == "answered"


def barge_in_with(source: str, speech: Speech) -> Script:
    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, SpeakingStarted) and event.turn == 1:
            if source == "button":
                later(1.0, who.press)
            else:
                later(1.0, lambda: mic.say(speech("Hey Jarvis.")))
        if isinstance(event, TurnEnded) and (source == "button" or event.turn == 2):
            mic.end()

    return person


def test_button_barge_in_stops_speech_and_keeps_only_what_was_heard(
    engines: Engines, ask: Callable[..., None], speech: Speech, tmp_path: Path
) -> None:
    mic = ScriptedMic()
    ask(mic, STORY)
    events, person = run_box(engines, mic, QUICK, tmp_path / "out.wav", barge_in_with("button", speech))
    tail = names(events)[names(events).index("BargeIn") - 1 :]
    assert [n for n in tail if n != "AnswerFinished"] == ["ButtonPressed", "BargeIn", "SpeakingFinished", "TurnEnded"]
    finished = of(events, SpeakingFinished)[0]
    generated = of(events, AnswerFinished)[0].text
    assert finished.interrupted and finished.spoken and len(finished.spoken) < len(generated)
    assert generated.startswith(finished.spoken.split()[0])
    # The model remembers what the user heard, not what it had generated.
    assert engines.memory.remembered()[-1].answer == finished.spoken
    assert of(events, TurnEnded)[0].outcome == "interrupted"
    assert person.state is State.IDLE


def test_wake_word_barge_in_starts_a_new_question(
    engines: Engines, ask: Callable[..., None], speech: Speech, tmp_path: Path
) -> None:
    mic = ScriptedMic()
    ask(mic, STORY)
    events, _ = run_box(engines, mic, QUICK, tmp_path / "out.wav", barge_in_with("wake-word", speech))
    assert of(events, BargeIn)[0].source == "wake-word"
    assert [(e.turn, e.trigger) for e in of(events, TurnStarted)] == [(1, "wake-word"), (2, "wake-word")]
    assert [e.outcome for e in of(events, TurnEnded)] == ["interrupted", "no-speech"]


def test_follow_up_needs_no_wake_word_until_the_window_closes(
    engines: Engines, ask: Callable[..., None], speech: Speech, tmp_path: Path
) -> None:
    cfg = dataclasses.replace(QUICK, follow_up_s=2.0)
    mic = ScriptedMic()
    ask(mic)

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, TurnStarted) and event.trigger == "follow-up" and event.turn == 2:
            mic.say(speech("And what is the capital of Spain?", lead_s=0.3))  # a follow-up, no wake word
        if isinstance(event, TurnEnded) and event.turn == 3:  # the second window closed unused
            mic.say(speech("And of Italy?"))  # speech without the wake word: ignored now
            mic.end()

    events, _ = run_box(engines, mic, cfg, tmp_path / "out.wav", person)
    starts = [(e.turn, e.trigger) for e in of(events, TurnStarted)]
    assert starts == [(1, "wake-word"), (2, "follow-up"), (3, "follow-up")]
    assert [e.outcome for e in of(events, TurnEnded)] == ["answered", "answered", "no-speech"]
    assert "spain" in words(of(events, ThinkingStarted)[1].question)


def test_a_failed_turn_is_reported_and_the_box_keeps_working(
    engines: Engines, ask: Callable[..., None], tmp_path: Path
) -> None:
    mic = ScriptedMic(speed=2.0)
    ask(mic)

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, TurnEnded):
            if event.turn == 1:
                ask(mic)
            else:
                mic.end()

    events, who = run_box(faulty(engines, fails=lambda q: True), mic, QUICK, tmp_path / "out.wav", person)
    failures = of(events, TurnFailed)
    assert [e.turn for e in failures] == [1, 2] and failures[0].code == "llm-failed"
    assert [e.outcome for e in of(events, TurnEnded)] == ["failed", "failed"]
    assert who.state is State.IDLE


class TimedVoice:
    """The real voice, noting when each sentence's synthesis began and ended; `stop_after` sentences, it stops the
    answer (the rest of a long answer would only cost time)."""

    def __init__(self, engines: Engines, stop_after: int = 3) -> None:
        self._tts, self._stop_after = engines.tts, stop_after
        self.sample_rate_hz = engines.tts.sample_rate_hz
        self.started: list[float] = []
        self.ended: list[float] = []
        self.answer: Answer | None = None

    def synthesize(self, text: str) -> Iterator[bytes]:
        self.started.append(time.monotonic())
        yield from self._tts.synthesize(text)
        self.ended.append(time.monotonic())
        if len(self.ended) == self._stop_after and self.answer is not None:
            self.answer.cancel()

    def keep(self, text: str) -> None:
        self._tts.keep(text)

    @property
    def pace(self) -> float:
        return self._tts.pace

    @pace.setter
    def pace(self, pace: float) -> None:
        self._tts.pace = pace

    def close(self) -> None:
        pass

    def waits(self) -> list[float]:
        """Seconds between the end of each synthesis and the start of the next."""
        return [start - end for start, end in zip(self.started[1:], self.ended, strict=False)]


def answer_into(engines: Engines, sink: WavFileSink, tts: TimedVoice, question: str, reply: str | None = None) -> None:
    with concurrent.futures.ThreadPoolExecutor(1) as voices:
        tts.answer = Answer(engines.llm, engines.memory, tts, sink, lambda _: None, 1, time.monotonic(), voices=voices)
        tts.answer.run(question, reply)


def test_later_sentences_are_synthesized_just_in_time(engines: Engines, tmp_path: Path) -> None:
    tts = TimedVoice(engines)
    # NOTE: a ready reply, so only the voice's scheduling is measured: on a busy machine the 1.5B brain may decode
    # slower than the voice speaks, and the silence that leaves is the model's, not the synthesis's.
    history = (
        "Paris began as a small fishing village on an island in the Seine more than two thousand years ago. "
        "The Romans built a town there, with baths, a forum and an arena, and called it Lutetia. "
        "In the Middle Ages it became the largest city of Europe, with a great cathedral and a university."
    )
    with WavFileSink(tmp_path / "out.wav", tts.sample_rate_hz, realtime=True) as sink:
        answer_into(engines, sink, tts, "Tell me about the history of Paris.", reply=history)
    assert len(tts.ended) == 3
    # Each sentence lasts seconds: the next waits until the one before has nearly played, instead of starting at once.
    assert min(tts.waits()) > 1.0
    with wave.open(str(tmp_path / "out.wav")) as wav:  # and the speaker played all along
        assert wav.getnframes() >= 0.9 * (tts.started[-1] - tts.started[0]) * tts.sample_rate_hz


def test_a_sink_that_is_not_real_time_gets_every_sentence_at_once(engines: Engines, tmp_path: Path) -> None:
    tts = TimedVoice(engines, stop_after=5)
    # NOTE: a ready reply (as a skill's), so every sentence is waiting before the first is synthesized: the model's
    # pace (the 1.5B brain decodes slower than the voice speaks) is not what is measured here.
    history = " ".join(f"Paris grew in its {n} century." for n in ("third", "sixth", "tenth", "twelfth", "fifteenth"))
    with WavFileSink(tmp_path / "out.wav", tts.sample_rate_hz, realtime=False) as sink:
        answer_into(engines, sink, tts, "Tell me about the history of Paris.", reply=history)
    assert len(tts.ended) == 5 and max(tts.waits()) < 0.3  # each as soon as the one before is done


# -- typed questions ----------------------------------------------------------------------------------------


@pytest.fixture
def typed(engines: Engines, tmp_path: Path) -> Iterator[KeeperThread]:
    with KeeperThread(engines, tmp_path / "typed.wav", QUICK) as box:
        yield box


def test_a_typed_question_is_a_turn_of_its_own_with_its_answer_streamed(typed: KeeperThread) -> None:
    pieces: list[str] = []
    result = typed.keeper.ask(QUESTION, Trigger.SOCKET, on_piece=pieces.append).result(30)
    assert result.outcome == "answered" and result.turn == 1 and "Paris" in result.answer
    assert "".join(pieces).strip() == result.answer
    assert names(typed.events) == ["TurnStarted", "ThinkingStarted", "AnswerFinished", "TurnEnded"]
    started = of(typed.events, TurnStarted)[0]
    assert started.trigger is Trigger.SOCKET and started.question == QUESTION and not started.spoken_answer
    assert len([e for e in typed.events if type(e).__name__ == "TokenGenerated"]) == len(pieces)
    assert typed.keeper.state is State.IDLE


def test_a_typed_question_may_ask_to_be_spoken(typed: KeeperThread) -> None:
    result = typed.ask(QUESTION, speak=True).result(30)
    assert result.outcome == "answered"
    assert shape(typed.events) == ["TurnStarted", "ThinkingStarted", "SentenceReady", *ANSWERED[-4:]]
    assert "Paris" in of(typed.events, SpeakingFinished)[0].spoken


def test_typed_questions_wait_for_the_turn_under_way_and_are_answered_in_order(typed: KeeperThread) -> None:
    first = typed.ask(STORY)
    second, third = typed.ask(QUESTION), typed.ask("What is two and two?")
    assert [f.result(60).turn for f in (first, second, third)] == [1, 2, 3]
    bracket = [(type(e).__name__, e.turn) for e in typed.events if isinstance(e, TurnStarted | TurnEnded)]
    assert bracket == [(name, turn) for turn in (1, 2, 3) for name in ("TurnStarted", "TurnEnded")]


def test_one_question_too_many_is_refused_as_busy_and_a_left_asker_is_skipped(typed: KeeperThread) -> None:
    gone = threading.Event()
    running = typed.ask(STORY, speak=True)
    left = typed.keeper.ask("Who wrote Hamlet?", Trigger.SOCKET, abandoned=gone)
    waiting = [typed.ask(QUESTION) for _ in range(MAX_WAITING - 1)]
    with pytest.raises(TalkboxError) as refused:
        typed.ask(QUESTION).result(5)
    assert refused.value.code == "turn-busy"
    gone.set()  # the asker of the second question left while it waited
    typed.keeper.stop_speaking()
    assert running.result(30).outcome == "interrupted"
    with pytest.raises(concurrent.futures.CancelledError):
        left.result(30)
    assert all(f.result(60).outcome == "answered" for f in waiting)
    assert "Who wrote Hamlet?" not in [e.question for e in of(typed.events, ThinkingStarted)]


def test_stopping_the_box_refuses_the_questions_still_waiting(engines: Engines, tmp_path: Path) -> None:
    box = KeeperThread(engines, tmp_path / "typed.wav", QUICK)
    running, waiting = box.ask(STORY), box.ask(QUESTION)
    box.close()  # the answer under way is finished first
    assert running.result(5).outcome == "answered"
    with pytest.raises(TalkboxError) as refused:
        waiting.result(5)
    assert refused.value.code == "turn-box-stopping"


def test_forgetting_while_listening_cancels_the_turn_and_the_next_question_is_heard(
    engines: Engines, ask: Callable[..., None], tmp_path: Path
) -> None:
    mic = ScriptedMic()

    def start(who: Person) -> None:
        who.press()  # listening, as long as the button is held...
        later(0.5, who.keeper.forget)  # ...and the hold turns into "forget the conversation"
        later(1.0, lambda: ask(mic))

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, TurnEnded) and event.turn == 2:
            mic.end()

    events, _ = run_box(engines, mic, QUICK, tmp_path / "out.wav", person, start=start)
    assert [(e.turn, e.outcome) for e in of(events, TurnEnded)] == [(1, "cancelled"), (2, "answered")]
    assert of(events, ListeningEnded)[0].reason == "cancelled"
    assert {"capital", "france"} <= words(of(events, TranscriptReady)[0].text)
