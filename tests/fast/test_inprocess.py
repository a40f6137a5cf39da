"""The stand-in engines keep the promises of the ports they serve: the fast tier is only as true as they are."""

from __future__ import annotations

import threading

import numpy as np

from daemon.ports import Exchange
from tests.inprocess import (
    WORD_S,
    EnergyVad,
    MarkerWake,
    ScriptedModel,
    ScriptedRecogniser,
    ToneVoice,
    silence,
    voice,
    wake_marker,
)


def test_the_model_streams_word_by_word_and_remembers_the_exchange() -> None:
    model = ScriptedModel(answers={"Hi?": "Hello there, friend."})
    assert list(model.respond("  Hi? ")) == ["Hello", " there,", " friend."]
    assert list(model.respond("Ping")) == ["You", " said:", " Ping"]
    assert model.conversation.remembered() == (
        Exchange("Hi?", "Hello there, friend."),
        Exchange("Ping", "You said: Ping"),
    )
    assert model.stats.answer_tokens == 3 and not model.stats.cancelled


def test_the_model_stops_at_cancel_and_remembers_only_what_it_said() -> None:
    model = ScriptedModel(answers={"Count": "one two three four"})
    cancel = threading.Event()
    said = []
    for piece in model.respond("Count", cancel):
        said.append(piece)
        if len(said) == 2:
            cancel.set()
    assert said == ["one", " two"] and model.stats.cancelled
    assert model.conversation.remembered() == (Exchange("Count", "one two"),)


def test_the_model_cuts_long_questions_prefills_and_calls_tools() -> None:
    model = ScriptedModel(p_end=0.25, tool_lines={"be louder": "volume_up"}, max_question_words=2)
    fitted = model.fit_question(" a  b c ")
    assert (fitted.text, fitted.tokens, fitted.kept_tokens, fitted.cut) == ("a b", 3, 2, True)
    assert model.prefill("what is") == 0.25 and model.prefilled == ["what is"]
    assert model.constrained("Commands: ...\nRequest: be louder ->", "root ::= ...", 16) == "volume_up"
    assert model.constrained("Commands: ...\nRequest: sing ->", "root ::= ...", 16) == "none"
    assert model.tool_requests == ["be louder", "sing"]
    assert model.conversation.remembered() == ()  # neither is remembered


def test_the_voice_is_as_long_as_the_text() -> None:
    tts = ToneVoice(s_per_char=0.01)
    short, long = (b"".join(tts.synthesize(text)) for text in ("Hi.", "Hello there, friend."))
    assert len(short) == 2 * int(3 * 0.01 * tts.sample_rate_hz)
    assert len(long) == 2 * int(20 * 0.01 * tts.sample_rate_hz)
    assert tts.said == ["Hi.", "Hello there, friend."]


def test_the_recogniser_hears_a_word_per_stretch_of_voice_and_nothing_in_silence() -> None:
    stt = ScriptedRecogniser(["What is the time?", "Next one"])
    quiet = stt.stream()
    assert quiet.feed(silence(1.0).tobytes()) is None
    assert quiet.finish().text == ""  # silence takes no transcript from the script
    stream = stt.stream()
    assert stream.feed(voice(2).tobytes()) == "What is"
    assert stream.feed(silence(0.3).tobytes()) is None
    assert stream.settle() == "What is"
    assert stream.feed(voice(2).tobytes()) == "What is the time?"
    assert stream.finish().text == "What is the time?"
    assert stt.next_transcript() == "Next one"
    assert len(voice(2)) == round(2 * WORD_S * 16000)


def test_the_vad_hears_voice_and_the_wake_detector_only_its_marker() -> None:
    vad = EnergyVad()
    frame = vad.frame_bytes
    assert vad.is_speech(voice(1).tobytes()[:frame]) and not vad.is_speech(silence(0.03).tobytes()[:frame])
    wake, never = MarkerWake(), MarkerWake(marker=None)
    assert wake.process(wake_marker().tobytes()) and not never.process(wake_marker().tobytes())
    assert not wake.process(voice(3).tobytes()) and not wake.process(np.zeros(480, np.int16).tobytes())
