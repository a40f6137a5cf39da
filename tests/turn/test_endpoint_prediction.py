"""Ending a question sooner when its words are finished, later when they are not, and never on a stale judgement."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from daemon.config import ListenConfig
from daemon.events import (
    AnswerDropped,
    AnswerFinished,
    AnswerKept,
    AnswerStartedEarly,
    EndJudged,
    EndReason,
    Event,
    ListeningEnded,
    SentenceReady,
    SpeakingStarted,
    ThinkingStarted,
    TranscriptReady,
    TurnEnded,
)
from daemon.ports import Engines
from daemon.skills.going_on import finished_command
from daemon.skills.intents import match
from daemon.turn.completeness import judge, make_judge
from daemon.turn.early import same_words
from daemon.turn.endpoint import Endpointer
from tests.conftest import Speech
from tests.harness import Person, of, run_box
from tests.mic import ScriptedMic


@pytest.fixture(scope="module")
def engines(small_engines: Engines) -> Engines:
    """The small brain: these tests time the judged end of a question, which the end-of-turn judge was tuned for on
    SmolLM2 (the dev brain's judgement and pace are the latency issue's to tune)."""
    return small_engines


FRAME_S = 0.02
CFG = ListenConfig(trailing_silence_s=1.0, min_silence_s=0.3, max_silence_s=1.5)


def _speak(e: Endpointer, seconds: float) -> None:
    for _ in range(round(seconds / FRAME_S)):
        assert e.update(True, FRAME_S) is None


def _silence_until_end(e: Endpointer, limit_s: float = 5.0) -> float:
    waited = 0.0
    while waited < limit_s:
        waited += FRAME_S
        if e.update(False, FRAME_S) is EndReason.SILENCE:
            return waited
    raise AssertionError("never ended")


@pytest.mark.parametrize(("judgement", "wait_s"), [(True, 0.3), (None, 1.0), (False, 1.5)])
def test_the_pause_that_ends_a_question_follows_the_judgement(judgement: bool | None, wait_s: float) -> None:
    e = Endpointer(CFG)
    _speak(e, 1.0)
    e.judge(e.pauses, judgement)
    assert _silence_until_end(e) == pytest.approx(wait_s, abs=FRAME_S * 1.5)


def test_speech_that_resumes_forgets_the_judgement_of_the_pause_before() -> None:
    e = Endpointer(CFG)
    _speak(e, 1.0)
    pause = e.pauses
    for _ in range(10):  # 0.2 s: shorter than any wait
        assert e.update(False, FRAME_S) is None
    _speak(e, 0.5)  # the speaker went on
    e.judge(pause, True)  # the judgement of the earlier pause arrives late: it no longer counts
    assert e.judgement is None
    assert _silence_until_end(e) == pytest.approx(1.0, abs=FRAME_S * 1.5)


def test_a_finished_question_ends_when_the_answer_begun_at_its_pause_is_ready_or_at_the_unclear_wait() -> None:
    e = Endpointer(CFG)
    _speak(e, 1.0)
    e.judge(e.pauses, True)
    e.hold(e.pauses)  # an answer is being prepared
    for _ in range(30):  # 0.6 s: past the finished question's 0.3 s, but the answer is not ready
        assert e.update(False, FRAME_S) is None
    e.release(e.pauses)
    assert e.update(False, FRAME_S) is EndReason.SILENCE
    never_ready = Endpointer(CFG)
    _speak(never_ready, 1.0)
    never_ready.judge(never_ready.pauses, True)
    never_ready.hold(never_ready.pauses)
    assert _silence_until_end(never_ready) == pytest.approx(1.0, abs=FRAME_S * 1.5)


def test_speech_before_the_early_answer_is_ready_continues_the_question() -> None:
    e = Endpointer(CFG)
    _speak(e, 1.0)
    pause = e.pauses
    e.judge(pause, True)
    e.hold(pause)
    for _ in range(25):  # 0.5 s of pause: it would have ended at 0.3 s without the answer to wait for
        assert e.update(False, FRAME_S) is None
    _speak(e, 0.5)  # the speaker went on: nothing ended
    e.release(pause)  # the dropped answer's end: about a pause that no longer counts
    assert _silence_until_end(e) == pytest.approx(1.0, abs=FRAME_S * 1.5)


def test_without_prediction_the_configured_silence_ends_every_question() -> None:
    e = Endpointer(ListenConfig(trailing_silence_s=0.7, predict_end=False))
    _speak(e, 1.0)
    e.judge(e.pauses, True)
    assert _silence_until_end(e) == pytest.approx(0.7, abs=FRAME_S * 1.5)


@pytest.mark.parametrize(
    ("heard", "p_end", "command", "verdict"),
    [
        ("Set a timer for 10 minutes please.", 0.01, True, True),  # a whole command
        ("What time is it?", 0.3, True, None),  # a short command may go on ("... in Tokyo")
        ("set a timer for", 0.0, False, False),
        ("What is the", 0.0, False, False),
        ("When did the second", 0.0, False, None),  # no sentence end written: cannot tell
        ("What is the boiling point of water?", 0.82, False, True),
        ("What is the boiling?", 0.70, False, None),  # too short to trust the model's guess
        ("Why is it hot in summer?", 0.10, False, None),
        ("Why do we need to sleep at night?", 0.35, False, True),
        ("Set an alarm for seven. Sorry.", 0.0, True, False),  # ... eight: a correction begun
        ("Set the volume to 30, no wait.", 0.0, True, False),
        ("No.", 0.5, True, None),  # an answer, no correction
        ("Is it a yes or no?", 0.6, False, True),  # a question ending on "no", finished
    ],
)
def test_the_words_at_a_pause_are_judged_finished_unfinished_or_unclear(
    heard: str, p_end: float, command: bool, verdict: bool | None
) -> None:
    assert judge(heard, p_end, command) is verdict


@pytest.mark.parametrize(
    ("heard", "closed"),
    [
        ("What time is it?", True),
        ("louder", True),
        ("Never mind.", True),
        ("what day is it", True),
        ("Cancel the timer.", False),  # ... for the eggs
        ("Set an alarm for 7.", False),  # ... 30
        ("What's the weather?", False),  # ... like in Paris: a question for the model
        ("turn on the kitchen lights", False),  # no command of the box's own
        ("what is the capital of", False),  # no command at all
    ],
)
def test_a_command_is_closed_when_nothing_said_after_a_pause_would_change_it(heard: str, closed: bool) -> None:
    assert finished_command(heard) is closed


def test_a_closed_command_ends_at_once_however_short_or_unpunctuated() -> None:
    assert judge("What time is it?", 0.0, True) is None  # a short command, as far as the words go, may go on
    assert judge("What time is it?", 0.0, True, closed=True) is True
    assert judge("turn it up", 0.0, True, closed=True) is True  # Whisper's quick decode wrote no "."
    assert judge("Louder.", 0.0, True, closed=True) is None  # one word often goes on ("... please")
    assert judge("What time is", 0.0, True, closed=True) is None  # its last word says it goes on
    judge_words = make_judge(lambda text: 0.0, match, punctuated=True, closed=finished_command)
    assert judge_words("What time is it?") is True
    assert judge_words("Cancel the timer.") is None  # it may go on: the unclear pause's wait


def test_without_punctuation_a_missing_sentence_end_says_nothing() -> None:
    assert judge("what is the speed of light?", 0.9, False, punctuated=False) is None
    assert judge("set a timer for ten minutes", 0.0, True, punctuated=False) is True  # a whole command
    assert judge("what is the", 0.0, False, punctuated=False) is False


def test_prefilling_a_revised_transcript_rolls_the_cache_back_to_what_is_common(engines: Engines) -> None:
    llm = engines.llm
    engines.memory.forget()
    llm.warm_up()
    early = llm.prefill("What is the capital of Spain")  # a partial the recogniser later revised
    final = llm.prefill("What is the capital of France?")
    assert 0.0 <= early <= 1.0 and 0.0 <= final <= 1.0
    answer = "".join(llm.respond("What is the capital of France?"))
    stats = llm.stats
    assert "Paris" in answer and "Madrid" not in answer  # the answer is to the final words
    assert stats.evaluated_tokens < 8 < stats.prompt_tokens  # only the turn's closing tokens were left
    engines.memory.forget()


def _turn(
    engines: Engines, speech: Speech, tmp_path: Path, *said: tuple[str, float, float], **listen: Any
) -> list[Event]:
    """The events of one turn: the wake word, then each (words, pause before, pause after) said in turn."""

    def end_after_turn(event: Event, person: Person, mic: ScriptedMic) -> None:
        if isinstance(event, TurnEnded):
            mic.end()

    engines.memory.forget()
    mic = ScriptedMic()
    mic.say(speech("Hey Jarvis.", lead_s=0.2, tail_s=0.2))
    for words, lead_s, tail_s in said:
        mic.say(speech(words, lead_s=lead_s, tail_s=tail_s))
    config = ListenConfig(follow_up_s=0.0, chime=False, **listen)
    events, _ = run_box(engines, mic, config, tmp_path / "out.wav", end_after_turn)
    return events


@pytest.mark.slow
def test_a_finished_question_ends_before_the_configured_silence(
    engines: Engines, speech: Speech, tmp_path: Path
) -> None:
    # NOTE: no early answer to wait for: this is the judgement's own wait.
    events = _turn(engines, speech, tmp_path, ("What is the boiling point of water?", 0.0, 2.0), speculate=False)
    ended = of(events, ListeningEnded)[0]
    assert ended.reason == "silence" and of(events, EndJudged)[-1].complete is True
    assert ended.after_last_voice_s < ListenConfig().trailing_silence_s


@pytest.mark.slow
def test_a_pause_inside_a_question_does_not_cut_it(engines: Engines, speech: Speech, tmp_path: Path) -> None:
    # A long pause after an unfinished phrase.
    events = _turn(engines, speech, tmp_path, ("Set a timer for", 0.0, 0.0), ("ten minutes.", 0.9, 2.0))
    assert len(of(events, ListeningEnded)) == 1
    assert of(events, EndJudged)[0].complete is False
    heard = of(events, TranscriptReady)[0].text.lower()
    assert "10 minutes" in heard or "ten minutes" in heard


@pytest.mark.slow
def test_an_early_answer_to_words_the_user_then_extends_is_dropped_unheard(
    engines: Engines, speech: Speech, tmp_path: Path
) -> None:
    # With the voice's own quiet: ~0.8 s of pause.
    events = _turn(engines, speech, tmp_path, ("What is the capital", 0.0, 0.0), ("of France?", 0.65, 2.0))
    early, dropped = of(events, AnswerStartedEarly), of(events, AnswerDropped)
    assert early and dropped and "france" not in early[0].question.lower()
    ended = events.index(of(events, ListeningEnded)[0])
    assert all(events.index(e) > ended for e in of(events, SpeakingStarted))  # nothing sounded before the end
    assert all(events.index(e) > ended for e in of(events, SentenceReady))  # nor was shown
    remembered = engines.memory.remembered()  # the dropped answer left nothing behind
    assert len(remembered) == 1 and "france" in remembered[0].question.lower()
    # NOTE: what the 135M says to the whole question varies with its decode threads; that it is the one heard does not.
    assert remembered[0].answer == of(events, AnswerFinished)[-1].text
    engines.memory.forget()


@pytest.mark.slow
def test_an_early_answer_to_the_final_words_is_kept(engines: Engines, speech: Speech, tmp_path: Path) -> None:
    events = _turn(engines, speech, tmp_path, ("What causes the seasons?", 0.0, 2.5))
    if not of(events, AnswerStartedEarly):
        pytest.skip("the words were judged finished: no early start to keep")  # the judge, not this path
    assert of(events, AnswerKept) and not of(events, AnswerDropped)
    order = [type(e).__name__ for e in events if isinstance(e, ListeningEnded | ThinkingStarted | SpeakingStarted)]
    assert order == ["ListeningEnded", "ThinkingStarted", "SpeakingStarted"]
    assert len(engines.memory.remembered()) == 1
    engines.memory.forget()


@pytest.mark.slow
def test_a_question_judged_finished_is_answered_from_its_pause_and_spoken_only_after_it_ends(
    engines: Engines, speech: Speech, tmp_path: Path
) -> None:
    # NOTE: a pause of 0.6 s ends it at the least, so the judgement surely comes first even on a busy machine.
    events = _turn(engines, speech, tmp_path, ("What is the boiling point of water?", 0.0, 2.0), min_silence_s=0.6)
    assert of(events, EndJudged)[-1].complete is True
    early, ended = of(events, AnswerStartedEarly), of(events, ListeningEnded)[0]
    assert early and events.index(early[0]) < events.index(ended)  # the answer began while the box still listened
    assert of(events, AnswerKept) and not of(events, AnswerDropped)
    heard = of(events, TranscriptReady)[0].text
    assert same_words(early[0].question, heard)
    first_sound = of(events, SpeakingStarted)[0]
    assert events.index(first_sound) > events.index(ended)  # never a sound before the question is over
    assert first_sound.since_last_word_s > ended.after_last_voice_s
    assert len(engines.memory.remembered()) == 1
    engines.memory.forget()


def test_words_a_skill_takes_are_judged_without_the_model() -> None:
    prefilled: list[str] = []

    def prefill(text: str) -> float:
        prefilled.append(text)
        return 0.9

    judge_words = make_judge(prefill, match, punctuated=True)
    assert judge_words("What is the capital of Spain?") is True  # a whole command: over at once
    assert judge_words("Set a timer for three minutes.") is True
    assert prefilled == []  # the model's cache was not touched for words it will never answer
    assert judge_words("Why is the sky blue?") is True and prefilled == ["Why is the sky blue?"]
