"""The turn state machine with in-memory engines: fast, and exact about event sequences.

The same pipeline runs with the real engines in test_turns.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import threading
import time
import wave
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from daemon.answer import Answer
from daemon.config import ListenConfig
from daemon.events import (
    BargeIn,
    Event,
    ListeningEnded,
    ListeningStarted,
    SpeakingFinished,
    SpeakingStarted,
    TranscriptReady,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from daemon.pipeline import IDLE_CHUNK_S, STT_BATCH_S, Engines, Pipeline, State
from daemon.wavfile import write_wav
from hardware.audio import CHUNK_S, RawStreamSource, WavFileSink, WavFileSource
from tests.fakes import FakeResponder, FakeStt, FakeTts, FakeVad, FakeWake, voice, wake_word
from tests.harness import Script, names, of, run_box
from tests.mic import ScriptedMic

QUICK = ListenConfig(trailing_silence_s=0.3, no_speech_timeout_s=1.0, follow_up_s=0.0, chime=False)
ANSWERED = [
    "TurnStarted",
    "ListeningStarted",
    "SpeechStarted",
    "ListeningEnded",
    "TranscriptReady",
    "ThinkingStarted",
    "SentenceReady",
    "SentenceReady",
    "SpeakingStarted",
    "SentenceSpoken",
    "SentenceSpoken",
    "SpeakingFinished",
    "TurnEnded",
]
"""A turn's events, without AnswerFinished: see `turn_names`."""


def turn_names(events: list[Event]) -> list[str]:
    """names(), with what the generating thread emits checked apart: generation and speech run on their own
    threads, so a later sentence (and AnswerFinished after the last) may be ready before or after the first is
    spoken. Each sentence must be ready before it is spoken; they are then listed right after ThinkingStarted."""
    got = names(events)
    ready = [i for i, name in enumerate(got) if name == "SentenceReady"]
    spoken = [i for i, name in enumerate(got) if name == "SentenceSpoken"]
    assert all(r < s for r, s in zip(ready, spoken, strict=False)), got
    finished = got.index("AnswerFinished")
    assert finished > max(ready), got
    rest = [name for i, name in enumerate(got) if i not in ready and i != finished]
    at = rest.index("ThinkingStarted") + 1
    return rest[:at] + ["SentenceReady"] * len(ready) + rest[at:]


def engines(responder: FakeResponder | None = None) -> Engines:
    return Engines(stt=FakeStt(), responder=responder or FakeResponder(), tts=FakeTts(), vad=FakeVad(), wake=FakeWake())


def ask(mic: ScriptedMic, wake: bool = True, seconds: float = 1.0) -> None:
    if wake:
        mic.say(wake_word())
    mic.say(voice(seconds))


def end_after_turn(event: Event, pipeline: Pipeline, mic: ScriptedMic) -> None:
    if isinstance(event, TurnEnded):
        mic.end()


def test_a_wake_word_turn(tmp_path: Path) -> None:
    mic = ScriptedMic(speed=2.0)
    ask(mic)
    events, pipeline = run_box(engines(), mic, QUICK, tmp_path / "out.wav", end_after_turn)
    assert turn_names(events) == ["WakeWordDetected", *ANSWERED]
    assert of(events, TurnStarted)[0].trigger == "wake-word"  # type: ignore[attr-defined]
    assert of(events, ListeningEnded)[0].reason == "silence"  # type: ignore[attr-defined]
    finished = of(events, SpeakingFinished)[0]
    assert finished.spoken == "It is noon. Time for lunch." and not finished.interrupted  # type: ignore[attr-defined]
    assert {e.turn for e in events if not isinstance(e, TurnStarted) and e.turn} == {1}
    assert pipeline.state is State.IDLE


def test_silence_and_noise_never_start_a_turn(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    mic = ScriptedMic(speed=4.0)
    mic.say(np.zeros(16000, np.int16))
    mic.say((rng.standard_normal(32000) * 3000).astype(np.int16))
    mic.end()
    events, _ = run_box(engines(), mic, QUICK, tmp_path / "out.wav")
    assert names(events) == []


def test_wake_word_then_nothing_gives_up_without_thinking(tmp_path: Path) -> None:
    mic = ScriptedMic(speed=2.0)
    mic.say(wake_word())
    events, _ = run_box(engines(), mic, QUICK, tmp_path / "out.wav", end_after_turn)
    assert names(events) == [
        "WakeWordDetected",
        "TurnStarted",
        "ListeningStarted",
        "ListeningEnded",
        "TranscriptReady",
        "TurnEnded",
    ]
    assert of(events, ListeningEnded)[0].reason == "no-speech"  # type: ignore[attr-defined]
    assert of(events, TurnEnded)[0].outcome == "no-speech"  # type: ignore[attr-defined]


def later(seconds: float, fn: Callable[[], None]) -> None:
    """Do `fn` on the event loop after `seconds` (called from a bus subscriber)."""
    asyncio.get_running_loop().call_later(seconds, fn)


def test_push_to_talk_listens_until_release(tmp_path: Path) -> None:
    mic = ScriptedMic()

    def person(event: Event, pipeline: Pipeline, mic: ScriptedMic) -> None:
        if isinstance(event, ListeningStarted):
            mic.say(voice(0.6))
            mic.say(np.zeros(int(0.9 * 16000), np.int16))  # a pause longer than trailing silence...
            mic.say(voice(0.6))
            later(2.4, pipeline.release)  # ...does not end it: the release does
        end_after_turn(event, pipeline, mic)

    events, _ = run_box(engines(), mic, QUICK, tmp_path / "out.wav", person, start=Pipeline.press)
    assert turn_names(events) == ["ButtonPressed", *ANSWERED[:3], "ButtonReleased", *ANSWERED[3:]]
    assert of(events, TurnStarted)[0].trigger == "button"  # type: ignore[attr-defined]
    assert of(events, ListeningEnded)[0].reason == "released"  # type: ignore[attr-defined]


def test_waiting_for_the_button_the_microphone_wakes_rarely_and_a_press_loses_nothing(tmp_path: Path) -> None:
    mic = ScriptedMic()
    pressed_after = [0]  # chunks handed on before the press
    chunk_while: dict[str, set[float]] = {}

    def person(event: Event, pipeline: Pipeline, mic: ScriptedMic) -> None:
        if isinstance(event, ListeningStarted):
            pressed_after[0] = len(mic.delivered_s)
            chunk_while["idle"] = set(mic.delivered_s)
            mic.say(voice(0.6))
            later(0.65, pipeline.release)  # just past a tap: the chunk being read at the press arrived by then
        if isinstance(event, ListeningEnded):  # that chunk is still a long one
            chunk_while["listening"] = set(mic.delivered_s[pressed_after[0] + 1 :])
        end_after_turn(event, pipeline, mic)

    beats: list[State] = []

    def start(pipeline: Pipeline) -> None:
        pipeline.heartbeat = lambda: beats.append(pipeline.state)  # the watchdog's proof that audio flows
        later(1.0, pipeline.press)

    push_to_talk = dataclasses.replace(QUICK, wake_word=False)
    events, _ = run_box(engines(), mic, push_to_talk, tmp_path / "out.wav", person, start=start)
    assert turn_names(events) == ["ButtonPressed", *ANSWERED[:3], "ButtonReleased", *ANSWERED[3:]]
    assert chunk_while["idle"] == {IDLE_CHUNK_S}
    assert beats.count(State.IDLE) >= 2 and State.LISTENING in beats  # idle chunks are dropped, yet counted
    assert chunk_while["listening"] == {STT_BATCH_S}
    assert of(events, TranscriptReady)[0].text == "what time is it"  # type: ignore[attr-defined]


def test_file_and_stream_sources_deliver_the_chunks_asked_for_within_bounds(tmp_path: Path) -> None:
    path = tmp_path / "one-second.wav"
    write_wav(path, np.ones(16000, np.int16), 16000)
    asked = iter([0.45, 0.0, 5.0])
    sizes = [len(c) // 2 for c in WavFileSource(path, realtime=False, tail_silence_s=0).frames(lambda: next(asked))]
    assert sizes == [7200, int(16000 * CHUNK_S), 16000 - 7200 - int(16000 * CHUNK_S)]
    assert sum(len(c) for c in WavFileSource(path, realtime=False, tail_silence_s=0).frames()) == 32000
    asked = iter([0.45, 0.0, 5.0, 5.0])  # a stream learns that it ended by one more read
    raw = RawStreamSource(io.BytesIO(np.ones(16000, np.int16).tobytes()))
    assert [len(c) // 2 for c in raw.frames(lambda: next(asked))] == sizes


def test_a_real_time_file_hands_on_a_chunk_only_once_all_of_it_was_heard(tmp_path: Path) -> None:
    path = tmp_path / "one-second.wav"
    write_wav(path, np.ones(16000, np.int16), 16000)
    source = WavFileSource(path, realtime=True, speed=4.0, tail_silence_s=0)
    started, heard, late_by = time.monotonic(), 0, []
    for chunk in source.frames(lambda: IDLE_CHUNK_S):
        heard += len(chunk) // 2
        late_by.append(time.monotonic() - started - heard / 16000 / 4.0)
    assert heard == 16000 and min(late_by) >= 0  # never before its last sample was "captured"


def test_a_tap_listens_until_silence(tmp_path: Path) -> None:
    mic = ScriptedMic()

    def tap(pipeline: Pipeline) -> None:
        pipeline.press()
        later(0.2, pipeline.release)
        mic.say(np.zeros(8000, np.int16))
        mic.say(voice(0.8))

    events, _ = run_box(engines(), mic, QUICK, tmp_path / "out.wav", end_after_turn, start=tap)
    assert of(events, ListeningEnded)[0].reason == "silence"  # type: ignore[attr-defined]
    assert names(events)[-1] == "TurnEnded" and of(events, TurnEnded)[0].outcome == "answered"  # type: ignore[attr-defined]


def test_a_monologue_is_cut_at_the_maximum_length(tmp_path: Path) -> None:
    mic = ScriptedMic(speed=3.0)
    ask(mic, seconds=9.0)
    cfg = ListenConfig(trailing_silence_s=0.3, max_utterance_s=3.0, follow_up_s=0.0, chime=False)
    events, _ = run_box(engines(), mic, cfg, tmp_path / "out.wav", end_after_turn)
    ended = of(events, ListeningEnded)[0]
    assert ended.reason == "max-length" and 2.9 <= ended.speech_s <= 3.1  # type: ignore[attr-defined]
    assert of(events, TurnEnded)[0].outcome == "answered"  # type: ignore[attr-defined]


def barge_in_with(source: str) -> Script:
    def person(event: Event, pipeline: Pipeline, mic: ScriptedMic) -> None:
        if isinstance(event, SpeakingStarted) and event.turn == 1:
            if source == "button":
                later(0.6, pipeline.press)
            else:
                later(0.6, lambda: mic.say(wake_word()))
        if isinstance(event, TurnEnded) and (source == "button" or event.turn == 2):
            mic.end()

    return person


def test_button_barge_in_stops_speech_and_keeps_only_what_was_heard(tmp_path: Path) -> None:
    responder = FakeResponder("One two three four five six. Seven eight nine ten eleven twelve.")
    mic = ScriptedMic()
    ask(mic)
    events, pipeline = run_box(engines(responder), mic, QUICK, tmp_path / "out.wav", barge_in_with("button"))
    tail = names(events)[names(events).index("BargeIn") - 1 :]
    assert tail == ["ButtonPressed", "BargeIn", "SpeakingFinished", "TurnEnded"]
    finished = of(events, SpeakingFinished)[0]
    assert finished.interrupted  # type: ignore[attr-defined]
    # 0.6 s into 0.25 s-per-word speech: about two words were heard, and only they are remembered.
    heard = finished.spoken.split()  # type: ignore[attr-defined]
    assert 1 <= len(heard) <= 4 and heard == ["One", "two", "three", "four"][: len(heard)]
    assert responder.history == [("what time is it", finished.spoken)]  # type: ignore[attr-defined]
    assert of(events, TurnEnded)[0].outcome == "interrupted"  # type: ignore[attr-defined]
    assert pipeline.state is State.IDLE


def test_wake_word_barge_in_starts_a_new_question(tmp_path: Path) -> None:
    responder = FakeResponder("One two three four five six. Seven eight nine ten eleven twelve.")
    mic = ScriptedMic()
    ask(mic)
    events, _ = run_box(engines(responder), mic, QUICK, tmp_path / "out.wav", barge_in_with("wake-word"))
    assert of(events, BargeIn)[0].source == "wake-word"  # type: ignore[attr-defined]
    starts = of(events, TurnStarted)
    assert [(e.turn, e.trigger) for e in starts] == [(1, "wake-word"), (2, "wake-word")]  # type: ignore[attr-defined]
    assert [e.outcome for e in of(events, TurnEnded)] == ["interrupted", "no-speech"]  # type: ignore[attr-defined]


def test_follow_up_needs_no_wake_word_until_the_window_closes(tmp_path: Path) -> None:
    cfg = ListenConfig(trailing_silence_s=0.3, no_speech_timeout_s=1.0, follow_up_s=1.5, chime=False)
    mic = ScriptedMic()
    ask(mic)

    def person(event: Event, pipeline: Pipeline, mic: ScriptedMic) -> None:
        if isinstance(event, TurnStarted) and event.trigger == "follow-up" and event.turn == 2:
            mic.say(np.zeros(8000, np.int16))
            mic.say(voice(0.8))  # a follow-up question, no wake word
        if isinstance(event, TurnEnded) and event.turn == 3:  # the second window closed unused
            mic.say(voice(0.8))  # speech without the wake word: ignored now
            mic.say(np.zeros(16000, np.int16))
            mic.end()

    events, _ = run_box(engines(), mic, cfg, tmp_path / "out.wav", person)
    starts = [(e.turn, e.trigger) for e in of(events, TurnStarted)]  # type: ignore[attr-defined]
    assert starts == [(1, "wake-word"), (2, "follow-up"), (3, "follow-up")]
    assert [e.outcome for e in of(events, TurnEnded)] == ["answered", "answered", "no-speech"]  # type: ignore[attr-defined]


class BrokenResponder(FakeResponder):
    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        if question:
            raise RuntimeError("the model fell over")
        yield ""


def test_a_failed_turn_is_reported_and_the_box_keeps_working(tmp_path: Path) -> None:
    mic = ScriptedMic(speed=2.0)
    ask(mic)

    def person(event: Event, pipeline: Pipeline, mic: ScriptedMic) -> None:
        if isinstance(event, TurnEnded):
            if event.turn == 1:
                ask(mic)
            else:
                mic.end()

    broken = Engines(stt=FakeStt(), responder=BrokenResponder(), tts=FakeTts(), vad=FakeVad(), wake=FakeWake())
    events, pipeline = run_box(broken, mic, QUICK, tmp_path / "out.wav", person)
    failures = of(events, TurnFailed)
    assert [e.turn for e in failures] == [1, 2] and "fell over" in failures[0].message  # type: ignore[attr-defined]
    assert [e.outcome for e in of(events, TurnEnded)] == ["failed", "failed"]  # type: ignore[attr-defined]
    assert pipeline.state is State.IDLE


class TimedTts(FakeTts):
    """FakeTts that notes when each sentence's synthesis began."""

    def __init__(self) -> None:
        self.started: list[float] = []

    def synthesize(self, text: str) -> Iterator[bytes]:
        self.started.append(time.monotonic())
        yield from super().synthesize(text)


def test_later_sentences_are_synthesized_just_in_time_and_all_are_played(tmp_path: Path) -> None:
    tts = TimedTts()
    words = "one two three four five six seven."
    responder = FakeResponder(f"{words} {words.capitalize()} {words.capitalize()}")
    sink = WavFileSink(tmp_path / "out.wav", tts.sample_rate_hz, realtime=True)
    try:
        result = Answer(responder, tts, sink, lambda _: None, 1, time.monotonic()).run("count")
    finally:
        sink.close()
    assert len(tts.started) == 3 and not result.interrupted
    # 1.75 s of speech each: the second waits until the first is nearly played, instead of starting at once.
    assert tts.started[1] - tts.started[0] > 0.5
    with wave.open(str(tmp_path / "out.wav")) as wav:
        assert wav.getnframes() >= 3 * 1.75 * tts.sample_rate_hz


def test_a_sink_that_is_not_real_time_gets_every_sentence_at_once(tmp_path: Path) -> None:
    tts = TimedTts()
    responder = FakeResponder("One two three four five six seven. One two three four five six seven.")
    sink = WavFileSink(tmp_path / "out.wav", tts.sample_rate_hz, realtime=False)
    try:
        Answer(responder, tts, sink, lambda _: None, 1, time.monotonic()).run("count")
    finally:
        sink.close()
    assert len(tts.started) == 2 and tts.started[1] - tts.started[0] < 0.5
