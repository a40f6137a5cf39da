"""Spoken turns through the turn keeper, on the stand-in engines and a scripted microphone: the wake word, the
button, barge-in, follow-up, forgetting, answering early, with whole event sequences."""

from __future__ import annotations

import dataclasses
import wave
from collections.abc import Callable
from pathlib import Path

import pytest

from daemon.config import ListenConfig
from daemon.events import (
    AnswerDropped,
    AnswerKept,
    AnswerStartedEarly,
    BargeIn,
    Event,
    ListeningEnded,
    ListeningStarted,
    Notice,
    PartialTranscript,
    SkillCalled,
    SpeakingFinished,
    SpeakingStarted,
    ThinkingStarted,
    TranscriptReady,
    Trigger,
    TurnEnded,
    TurnStarted,
)
from daemon.ports import Engines, Exchange
from daemon.turn import earcons
from daemon.turn.keeper import State
from daemon.turn.run import ASK_AGAIN, ASK_AGAIN_REPLY, ASK_AGAIN_STILL
from tests.fast.script import (
    ANSWER,
    ANSWERS,
    QUESTION,
    QUICK,
    SPAIN,
    SPAIN_ANSWER,
    SPEED,
    STORY,
    STORY_ANSWER,
    WAIT_S,
    asked,
    shape,
)
from tests.harness import Person, Script, later, names, of, run_box
from tests.inprocess import (
    ScriptedModel,
    ScriptedRecogniser,
    ToneVoice,
    silence,
    stand_in_engines,
    voice,
    wake_marker,
)
from tests.mic import ScriptedMic

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
"""A spoken turn answered with ANSWER's two sentences, as shape() lists it."""


def end_after_turn(event: Event, person: Person, mic: ScriptedMic) -> None:
    if isinstance(event, TurnEnded):
        mic.end()


def run(
    engines: Engines,
    mic: ScriptedMic,
    tmp_path: Path,
    script: Script | None = end_after_turn,
    *,
    config: ListenConfig = QUICK,
    start: Callable[[Person], None] | None = None,
) -> tuple[list[Event], Person]:
    """run_box() with the fast tier's time limit, the answer spoken into tmp_path/out.wav."""
    return run_box(engines, mic, config, tmp_path / "out.wav", script, timeout_s=WAIT_S, start=start)


def test_a_wake_word_turn(stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path) -> None:
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)
    asked(mic)
    events, person = run(stand_ins, mic, tmp_path)
    assert shape(events) == ["WakeWordDetected", *ANSWERED]
    assert of(events, TurnStarted)[0].trigger is Trigger.WAKE_WORD
    ended = of(events, ListeningEnded)[0]
    assert ended.reason == "silence" and abs(ended.speech_s - 0.54) < 0.01  # six words of voice
    assert [e.text for e in of(events, TranscriptReady)] == [QUESTION]
    assert [e.question for e in of(events, ThinkingStarted)] == [QUESTION]
    finished = of(events, SpeakingFinished)[0]
    assert (finished.spoken, finished.interrupted) == (ANSWER, False)
    assert {e.turn for e in events if e.turn} == {1}
    assert [e.outcome for e in of(events, TurnEnded)] == ["answered"]
    assert stand_ins.memory.remembered() == (Exchange(QUESTION, ANSWER),)
    assert person.state is State.IDLE


def test_an_answer_begun_at_the_pause_is_kept_when_the_question_ended_there(
    stand_ins: Engines, recogniser: ScriptedRecogniser, model: ScriptedModel, tmp_path: Path
) -> None:
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)
    asked(mic)
    events, _ = run(stand_ins, mic, tmp_path)
    early = [type(e).__name__ for e in events if isinstance(e, AnswerStartedEarly | AnswerKept | ListeningEnded)]
    assert early == ["AnswerStartedEarly", "ListeningEnded", "AnswerKept"]
    assert of(events, AnswerStartedEarly)[0].question == QUESTION
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ThinkingStarted") < kinds.index("AnswerKept")
    assert model.asked == [QUESTION]  # answered once: the early answer was the answer
    assert shape(events) == ["WakeWordDetected", *ANSWERED]


def test_an_answer_begun_at_a_pause_the_user_went_on_from_is_dropped_unheard(
    stand_ins: Engines, recogniser: ScriptedRecogniser, model: ScriptedModel, tmp_path: Path
) -> None:
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)
    asked(mic, words=4)  # "What do bees make"
    mic.say(silence(0.3))  # long enough to begin an answer, too short to end the question
    mic.say(voice(2))  # "from nectar?"
    events, _ = run(stand_ins, mic, tmp_path)
    assert [e.question for e in of(events, AnswerStartedEarly)] == ["What do bees make", QUESTION]
    assert [e.question for e in of(events, AnswerDropped)] == ["What do bees make"]
    assert len(of(events, AnswerKept)) == 1
    assert model.asked == ["What do bees make", QUESTION]
    assert [e.spoken for e in of(events, SpeakingFinished)] == [ANSWER]
    # Nobody heard the dropped answer: the conversation holds only the question that was answered.
    assert stand_ins.memory.remembered() == (Exchange(QUESTION, ANSWER),)
    assert shape(events) == ["WakeWordDetected", *ANSWERED]


@pytest.mark.parametrize(
    ("confidence", "unlikely", "by"),
    # the recogniser unsure; or sure of them, and the model finds them unlikely
    [(-0.5, False, "recogniser"), (0.1, True, "model")],
)
def test_words_heard_unsurely_are_asked_again_and_the_answer_begun_on_them_dropped(
    stand_ins: Engines,
    recogniser: ScriptedRecogniser,
    model: ScriptedModel,
    tmp_path: Path,
    confidence: float,
    unlikely: bool,
    by: str,
) -> None:
    recogniser.will_hear(QUESTION)
    recogniser.confidence = QUICK.ask_again_below + confidence
    model.unlikely = {QUESTION} if unlikely else set()
    mic = ScriptedMic(speed=SPEED)
    asked(mic)
    events, _ = run(stand_ins, mic, tmp_path)
    assert [e.question for e in of(events, AnswerDropped)] == [QUESTION]  # begun at the pause, never heard
    assert [(e.skill, e.by) for e in of(events, SkillCalled)] == [(ASK_AGAIN, by)]
    assert [e.spoken for e in of(events, SpeakingFinished)] == [ASK_AGAIN_REPLY]
    # The misheard words and the request to say them again are no part of the conversation.
    assert stand_ins.memory.remembered() == ()


def test_the_same_words_written_otherwise_at_the_end_are_judged_as_the_answer_began_on_them(
    recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    # The model is still answering the words of the pause: their score is the one read as they were prefilled.
    model = ScriptedModel(answers=ANSWERS, word_s=0.2, unlikely=[QUESTION])
    recogniser.will_hear(QUESTION)
    recogniser.finals[QUESTION] = QUESTION.replace("?", ".")
    recogniser.confidence = QUICK.ask_again_below + 0.1
    mic = ScriptedMic(speed=SPEED)
    asked(mic)
    events, _ = run(stand_in_engines(model, recogniser, ToneVoice()), mic, tmp_path)
    assert [(e.skill, e.by) for e in of(events, SkillCalled)] == [(ASK_AGAIN, "model")]
    assert [e.spoken for e in of(events, SpeakingFinished)] == [ASK_AGAIN_REPLY]


def test_asked_again_twice_running_it_says_so_in_other_words_and_a_clear_question_is_answered(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    recogniser.will_hear(QUESTION, QUESTION, SPAIN)
    recogniser.confidence = QUICK.ask_again_below - 0.5
    mic = ScriptedMic(speed=SPEED)
    asked(mic)

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, TurnStarted) and event.trigger == "follow-up":
            if event.turn == 3:
                recogniser.confidence = None  # heard clearly at last
            if event.turn <= 3:
                mic.say(silence(0.3))
                mic.say(voice(len(QUESTION.split())))  # said again, into the follow-up window
        if isinstance(event, TurnEnded) and event.turn == 3:
            mic.end()

    events, _ = run(stand_ins, mic, tmp_path, person, config=dataclasses.replace(QUICK, follow_up_s=2.0))
    spoken = [e.spoken for e in of(events, SpeakingFinished)]
    assert spoken == [ASK_AGAIN_REPLY, ASK_AGAIN_STILL, SPAIN_ANSWER], spoken


def test_words_the_model_finds_unlikely_said_again_word_for_word_are_answered(
    stand_ins: Engines, recogniser: ScriptedRecogniser, model: ScriptedModel, tmp_path: Path
) -> None:
    # A rare question heard surely ("Who wrote Hamlet?"): asking a third time would get the same words again.
    recogniser.will_hear(QUESTION, QUESTION)
    recogniser.confidence = QUICK.ask_again_below + 0.1
    model.unlikely = {QUESTION}
    mic = ScriptedMic(speed=SPEED)
    asked(mic)

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, TurnStarted) and event.trigger == "follow-up" and event.turn == 2:
            mic.say(silence(0.3))
            mic.say(voice(len(QUESTION.split())))
        if isinstance(event, TurnEnded) and event.turn == 2:
            mic.end()

    events, _ = run(stand_ins, mic, tmp_path, person, config=dataclasses.replace(QUICK, follow_up_s=2.0))
    assert [(e.skill, e.by) for e in of(events, SkillCalled)] == [(ASK_AGAIN, "model")]
    assert [e.spoken for e in of(events, SpeakingFinished)] == [ASK_AGAIN_REPLY, ANSWER]


def test_words_heard_surely_enough_are_answered(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    recogniser.will_hear(QUESTION)
    recogniser.confidence = QUICK.ask_again_below + 0.1
    mic = ScriptedMic(speed=SPEED)
    asked(mic)
    events, _ = run(stand_ins, mic, tmp_path)
    assert [e.spoken for e in of(events, SpeakingFinished)] == [ANSWER] and not of(events, SkillCalled)


def test_wake_word_then_nothing_gives_up_without_thinking(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    mic = ScriptedMic(speed=SPEED)
    mic.say(wake_marker())
    events, _ = run(stand_ins, mic, tmp_path)
    assert names(events) == [
        "WakeWordDetected",
        "TurnStarted",
        "ListeningStarted",
        "ListeningEnded",
        "TranscriptReady",
        "TurnEnded",
    ]
    assert of(events, ListeningEnded)[0].reason == "no-speech"
    assert of(events, TranscriptReady)[0].text == ""
    assert of(events, TurnEnded)[0].outcome == "no-speech"
    assert recogniser.streams == 1


def test_a_chime_says_the_box_listens_and_another_that_it_gave_up(stand_ins: Engines, tmp_path: Path) -> None:
    mic = ScriptedMic(speed=SPEED)
    mic.say(wake_marker())

    def end_after_the_chime(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, TurnEnded):
            mic.say(silence(2.0))  # the box stops when the microphone ends: let the last chime play out first
            mic.end()

    events, _ = run(stand_ins, mic, tmp_path, end_after_the_chime, config=dataclasses.replace(QUICK, chime=True))
    assert of(events, TurnEnded)[0].outcome == "no-speech"
    rate = stand_ins.tts.sample_rate_hz
    with wave.open(str(tmp_path / "out.wav")) as wav:
        played = wav.readframes(wav.getnframes())
    assert played == earcons.listening(rate) + earcons.gave_up(rate)


def test_voice_without_the_wake_word_starts_no_turn(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)
    asked(mic, wake=False)
    mic.say(silence(1.0))
    mic.end()
    events, _ = run(stand_ins, mic, tmp_path)
    assert names(events) == []
    assert recogniser.streams == 0


def test_a_button_turn_ends_at_the_pause(stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path) -> None:
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)

    def start(person: Person) -> None:
        assert person.keeper.listen(Trigger.BUTTON)
        asked(mic, wake=False)

    events, _ = run(stand_ins, mic, tmp_path, start=start)
    assert shape(events) == ANSWERED
    assert of(events, TurnStarted)[0].trigger is Trigger.BUTTON
    assert of(events, ListeningEnded)[0].reason == "silence"


def test_push_to_talk_listens_through_a_pause_until_release(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, ListeningStarted):
            asked(mic, words=4, wake=False)
            mic.say(silence(1.0))  # longer than the trailing silence, and it does not end the question
            mic.say(voice(2))
        if isinstance(event, PartialTranscript) and event.text == QUESTION:
            who.button.released(held_s=2.0)  # the release does (held 2 s as a person holds it; the mic runs fast)
        end_after_turn(event, who, mic)

    events, _ = run(stand_ins, mic, tmp_path, person, start=Person.press)
    assert shape(events) == ["ButtonPressed", *ANSWERED[:3], "ButtonReleased", *ANSWERED[3:]]
    assert of(events, TurnStarted)[0].trigger is Trigger.BUTTON
    assert of(events, ListeningStarted)[0].push_to_talk
    assert of(events, ListeningEnded)[0].reason == "released"
    assert of(events, TranscriptReady)[0].text == QUESTION
    assert not of(events, AnswerStartedEarly)  # no answer is begun while the button holds the question open


def test_a_tap_listens_until_silence(stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path) -> None:
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)

    def tap(who: Person) -> None:
        who.press()
        who.button.released(held_s=0.2)
        asked(mic, wake=False)

    events, _ = run(stand_ins, mic, tmp_path, start=tap)
    assert shape(events) == ["ButtonPressed", *ANSWERED[:2], "ButtonReleased", *ANSWERED[2:]]
    assert of(events, ListeningEnded)[0].reason == "silence"
    assert of(events, TurnEnded)[0].outcome == "answered"


def barge_in_with(source: str) -> Script:
    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, SpeakingStarted) and event.turn == 1:
            if source == "button":
                later(0.2, who.press)
            else:
                later(0.2, lambda: mic.say(wake_marker()))
        if isinstance(event, TurnEnded) and (source == "button" or event.turn == 2):
            mic.end()

    return person


def test_button_barge_in_stops_speech_and_keeps_only_what_was_heard(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    recogniser.will_hear(STORY)
    mic = ScriptedMic(speed=SPEED)
    asked(mic, words=len(STORY.split()))
    events, person = run(stand_ins, mic, tmp_path, barge_in_with("button"))
    tail = names(events)[names(events).index("BargeIn") - 1 :]
    assert [n for n in tail if n != "AnswerFinished"] == ["ButtonPressed", "BargeIn", "SpeakingFinished", "TurnEnded"]
    assert of(events, BargeIn)[0].source == "button"
    finished = of(events, SpeakingFinished)[0]
    assert finished.interrupted and finished.spoken and len(finished.spoken) < len(STORY_ANSWER)
    assert STORY_ANSWER.startswith(finished.spoken)
    # The conversation keeps what the user heard, not what was generated.
    assert stand_ins.memory.remembered() == (Exchange(STORY, finished.spoken),)
    assert of(events, TurnEnded)[0].outcome == "interrupted"
    assert person.state is State.IDLE


def test_wake_word_barge_in_starts_a_new_question(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    recogniser.will_hear(STORY)
    mic = ScriptedMic(speed=SPEED)
    asked(mic, words=len(STORY.split()))
    events, _ = run(stand_ins, mic, tmp_path, barge_in_with("wake-word"))
    assert of(events, BargeIn)[0].source == "wake-word"
    assert [(e.turn, e.trigger) for e in of(events, TurnStarted)] == [(1, "wake-word"), (2, "wake-word")]
    assert [(e.turn, e.outcome) for e in of(events, TurnEnded)] == [(1, "interrupted"), (2, "no-speech")]
    assert of(events, SpeakingFinished)[0].interrupted


def test_follow_up_needs_no_wake_word_until_the_window_closes(
    stand_ins: Engines, recogniser: ScriptedRecogniser, model: ScriptedModel, tmp_path: Path
) -> None:
    recogniser.will_hear(QUESTION, SPAIN, "And of Italy?")
    mic = ScriptedMic(speed=SPEED)
    asked(mic)

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, TurnStarted) and event.trigger == "follow-up" and event.turn == 2:
            mic.say(silence(0.3))
            mic.say(voice(len(SPAIN.split())))  # a follow-up, no wake word
        if isinstance(event, TurnEnded) and event.turn == 3:  # the second window closed unused
            mic.say(voice(3))  # speech without the wake word: ignored now
            mic.end()

    events, _ = run(stand_ins, mic, tmp_path, person, config=dataclasses.replace(QUICK, follow_up_s=2.0))
    starts = [(e.turn, e.trigger) for e in of(events, TurnStarted)]
    assert starts == [(1, "wake-word"), (2, "follow-up"), (3, "follow-up")]
    assert [e.outcome for e in of(events, TurnEnded)] == ["answered", "answered", "no-speech"]
    assert [e.question for e in of(events, ThinkingStarted)] == [QUESTION, SPAIN]
    assert model.asked == [QUESTION, SPAIN]
    assert stand_ins.memory.remembered() == (Exchange(QUESTION, ANSWER), Exchange(SPAIN, SPAIN_ANSWER))
    assert recogniser.next_transcript() == "And of Italy?"  # never heard


def test_no_follow_up_after_a_turn_that_heard_nothing(stand_ins: Engines, tmp_path: Path) -> None:
    mic = ScriptedMic(speed=SPEED)
    mic.say(wake_marker())
    mic.say(silence(3.0))
    mic.end()
    events, _ = run(stand_ins, mic, tmp_path, script=None, config=dataclasses.replace(QUICK, follow_up_s=2.0))
    assert [(e.turn, e.trigger) for e in of(events, TurnStarted)] == [(1, "wake-word")]
    assert [e.outcome for e in of(events, TurnEnded)] == ["no-speech"]


def test_forgetting_while_listening_cancels_the_turn_and_the_next_question_is_heard(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    stand_ins.memory.remember((Exchange("Who are you?", "I am Talkbox."),))
    recogniser.will_hear(QUESTION)
    mic = ScriptedMic(speed=SPEED)

    def start(who: Person) -> None:
        who.press()  # listening, as long as the button is held...
        later(0.1, who.keeper.forget)  # ...and the hold turns into "forget the conversation"
        later(0.3, lambda: asked(mic))

    def person(event: Event, who: Person, mic: ScriptedMic) -> None:
        if isinstance(event, TurnEnded) and event.turn == 2:
            mic.end()

    events, _ = run(stand_ins, mic, tmp_path, person, start=start)
    assert [(e.turn, e.outcome) for e in of(events, TurnEnded)] == [(1, "cancelled"), (2, "answered")]
    assert [(e.turn, e.reason) for e in of(events, ListeningEnded)] == [(1, "cancelled"), (2, "silence")]
    assert [n.text for n in of(events, Notice)] == ["Conversation forgotten."]
    first = [name for name in names(events)[: names(events).index("TurnEnded") + 1] if name != "Notice"]
    assert first == ["ButtonPressed", "TurnStarted", "ListeningStarted", "ListeningEnded", "TurnEnded"]
    assert of(events, TranscriptReady)[0].text == QUESTION
    assert stand_ins.memory.remembered() == (Exchange(QUESTION, ANSWER),)


def test_an_over_long_question_is_cut_at_the_maximum(
    stand_ins: Engines, recogniser: ScriptedRecogniser, tmp_path: Path
) -> None:
    recogniser.will_hear("I keep talking and talking about the weather")
    mic = ScriptedMic(speed=SPEED)
    asked(mic, words=40)  # 3.6 s of voice
    events, _ = run(stand_ins, mic, tmp_path, config=dataclasses.replace(QUICK, max_utterance_s=2.0))
    ended = of(events, ListeningEnded)[0]
    assert ended.reason == "max-length" and abs(ended.speech_s - 2.0) < 0.05
    assert [e.question for e in of(events, ThinkingStarted)] == ["I keep talking and talking about the weather"]
    assert of(events, TurnEnded)[0].outcome == "answered"
