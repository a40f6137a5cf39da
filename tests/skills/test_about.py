"""What the box says of itself: true of the settings it runs with, and of a Home Assistant it is linked to."""

from __future__ import annotations

import pytest

from daemon.skills import intents, pace
from daemon.skills.about_box import BoxFacts, answer, spoken_model


@pytest.mark.parametrize(
    ("file_name", "said"),
    [
        ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "Qwen 2.5 Coder 1.5B Instruct"),
        ("SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2 135M Instruct"),
        ("gemma-3-270m-q4_k_m.gguf", "Gemma 3 270M"),
    ],
)
def test_a_model_is_named_as_it_is_said_without_its_quantisation(file_name: str, said: str) -> None:
    assert spoken_model(file_name) == said


def test_linked_to_home_assistant_it_says_what_leaves_the_box() -> None:
    box = BoxFacts(model="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", wake_phrase="hey jarvis")
    alone = answer({"topic": "privacy"}, box)
    linked = answer({"topic": "privacy"}, box, home=True)
    assert alone.startswith("Nothing you say leaves this box:")
    assert linked.startswith("Nothing you say leaves this box, except home commands, which go to your own Home")
    assert "I listen for hey jarvis all the time" in linked


def test_with_no_wake_word_it_listens_only_at_the_button() -> None:
    said = answer({"topic": "privacy"}, BoxFacts())
    assert "I listen only while you press my button." in said and "all the time" not in said
    assert answer({"topic": "how_to", "thing": "talk"}, BoxFacts()).startswith("Hold my button while you speak")


def test_who_made_it_is_answered_without_its_age_and_how_old_it_is_with_it() -> None:
    # NOTE: "Who made you?" was answered with "... I have no age, as people do, and no birthday." too.
    box = BoxFacts(model="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    made, old = intents.match("who made you"), intents.match("how old are you")
    assert made is not None and old is not None
    assert answer(dict(made.args), box).endswith("Qwen 2.5 Coder 1.5B Instruct answers your questions.")
    assert "age" not in answer(dict(made.args), box)
    assert answer(dict(old.args), box).startswith("I have no age")


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("are you a robot", "identity"),
        ("is this alexa", "other"),
        ("what's your favourite colour", "favourite"),
        ("do you need wifi", "works_offline"),
        ("how do I set an alarm", "how_to"),
    ],
)
def test_questions_about_the_box_are_its_own(said: str, topic: str) -> None:
    call = intents.match(said)
    assert call is not None and (call.skill, call.args["topic"]) == ("about", topic)


@pytest.mark.parametrize(
    "said", ["what's my favourite colour", "are robots alive", "who made the first computer", "turn it off"]
)
def test_a_question_about_something_else_is_not(said: str) -> None:
    assert intents.match(said) is None


class _Voice:
    pace = 1.0


def test_the_pace_goes_a_step_at_a_time_within_its_limits() -> None:
    voice = _Voice()
    said = [pace.change(voice, "slower") for _ in range(4)]
    assert said[:3] == ["Okay, I'll speak more slowly."] * 3 and said[3] == "That's as slowly as I speak."
    assert voice.pace == pace.SLOWEST
    assert pace.change(voice, "normal") == "Okay, I'll speak at my usual pace." and voice.pace == 1.0
    said = [pace.change(voice, "faster") for _ in range(3)]
    assert said == ["Okay, I'll speak faster."] * 2 + ["That's as fast as I speak."] and voice.pace == pace.FASTEST
    assert not pace.usable(3.0) and not pace.usable("1.2") and pace.usable(1.25)


@pytest.mark.parametrize(
    ("said", "skill"),
    [
        ("OK Google, what time is it?", "time"),  # the model said "Sorry, I can't know the current time offline."
        ("Alexa, set a timer for five minutes.", "timer_start"),
        ("Hey Jarvis, are you Alexa?", "about"),
        ("Jarvis, what's the date?", "date"),
        ("Siri, stop.", "stop"),
    ],
)
def test_a_request_addressed_by_habit_to_an_assistant_is_still_the_request(said: str, skill: str) -> None:
    call = intents.match(said)
    assert call is not None and call.skill == skill


@pytest.mark.parametrize("said", ["Alexa.", "who is alexa", "siri's voice is nice", "how does google maps work"])
def test_an_assistant_named_in_a_question_is_not_taken_off_it(said: str) -> None:
    assert intents.match(said) is None
