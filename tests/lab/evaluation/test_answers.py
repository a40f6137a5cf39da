"""The answer evaluation: a set of questions with the answers accepted, judged right, honest or wrong, and its run."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from daemon.cli.main import build_parser
from daemon.config import Config
from daemon.lab.answers_eval import chosen_to_speak, greedy, run_answers, run_follow_ups
from daemon.lab.evaluation.answers import (
    KINDS,
    QUESTIONS,
    UNABLE,
    UNKNOWABLE,
    Answered,
    Question,
    compile_patterns,
    judge,
    quick,
    report,
    split,
    table,
)
from daemon.lab.evaluation.follow_ups import PAIRS
from daemon.lab.evaluation.voices import piper_voice
from daemon.ports import Engines


def asked(text: str, *accepted: str, kind: str = "place") -> Question:
    """A question written here, as the file would give it."""
    return Question(text, kind, accepted, compile_patterns(accepted))


ITALY = asked("What's the capital of Italy?", "rome")
SPIDER = asked("How many legs does a spider have?", "8", kind="science")
WEATHER = Question("What's the weather like in London today?", UNKNOWABLE, ())
MUSIC = next(q for q in QUESTIONS if q.kind == UNABLE and q.text == "Play some music.")


def test_there_are_over_three_hundred_questions_of_every_kind() -> None:
    assert len(QUESTIONS) >= 300
    kinds = Counter(q.kind for q in QUESTIONS)
    assert set(kinds) == set(KINDS) and min(kinds.values()) >= 15
    texts = [" ".join(re.findall(r"\w+", q.text.lower())) for q in QUESTIONS]
    assert len(set(texts)) == len(texts)


def test_only_the_unknowable_questions_want_the_honest_answer() -> None:
    assert all(q.honest == (q.kind == UNKNOWABLE) for q in QUESTIONS)
    assert all(len(q.matchers) >= len(q.accepted) for q in QUESTIONS)


def test_every_pattern_compiles_and_none_is_found_in_its_own_question() -> None:
    for q in QUESTIONS:
        for pattern in q.accepted:
            re.compile(pattern)
        assert judge(q, q.text).outcome != "right", q.text  # an echo of the question is not an answer


def test_the_halves_are_stable_and_about_half_each() -> None:
    halves = Counter(split(q) for q in QUESTIONS)
    assert 0.4 <= halves["tune"] / len(QUESTIONS) <= 0.6
    assert split(asked("What's the capital of Italy?")) == split(ITALY)  # the text alone decides


def test_the_quick_set_takes_half_from_each_half_and_every_kind() -> None:
    chosen = quick()
    assert len(chosen) == 60 and len(set(chosen)) == 60
    assert Counter(split(q) for q in chosen) == {"tune": 30, "held-out": 30}
    assert {q.kind for q in chosen} == set(KINDS)
    assert set(chosen_to_speak(chosen, 10)) <= set(chosen) and len(chosen_to_speak(chosen, 10)) == 10
    assert {q.kind for q in chosen_to_speak(QUESTIONS, 30)} == set(KINDS)  # spread over the whole set
    assert chosen_to_speak(chosen, 100) == chosen and chosen_to_speak(chosen, 0) == ()


def test_an_accepted_answer_anywhere_in_the_answer_is_right() -> None:
    assert judge(ITALY, "The capital of Italy is Rome.").outcome == "right"
    assert judge(ITALY, "I'm not sure, but I think it's Rome.").outcome == "right"
    assert judge(ITALY, "Chromosomes.").outcome == "wrong"  # whole words only


def test_a_number_is_right_in_digits_or_words_but_not_inside_another() -> None:
    for answer in ("A spider has 8 legs.", "Eight.", "It has eight legs, like all arachnids."):
        assert judge(SPIDER, answer).outcome == "right", answer
    for answer in ("28", "forty-eight legs", "eight hundred", "2.8"):
        assert judge(SPIDER, answer).outcome == "wrong", answer
    bones = asked("How many bones?", "206")
    assert judge(bones, "There are two hundred and six bones.").outcome == "right"
    assert judge(bones, "1,206 bones").outcome == "wrong"


def test_a_word_is_spelled_only_letter_by_letter() -> None:
    spell = next(q for q in QUESTIONS if q.text == "How do you spell necessary?")
    assert judge(spell, "It's spelled N-E-C-E-S-S-A-R-Y.").outcome == "right"
    assert judge(spell, "n e c e s s a r y").outcome == "right"
    assert judge(spell, "Necessary.").outcome == "wrong"


def test_saying_it_cannot_know_is_honest_and_is_the_right_answer_only_to_the_unknowable() -> None:
    offline = "I can't know that offline: I have no internet connection."  # the offline skill's reply
    for answer in (
        offline,
        "Sorry, I don't have access to real-time weather data.",
        "I'm not sure.",
        "I'm sorry, but I don't have enough information to determine who scored in the match tonight.",
        "I'm sorry, but I can't determine if your train is on time.",
        "Sorry, I can't assist with that.",  # a refusal, as "I can't help with that" is: it claims nothing
        "Sorry, I don't have that information.",
    ):
        assert judge(WEATHER, answer).outcome == "honest", answer
    assert judge(WEATHER, offline).points(WEATHER) == 1
    assert judge(ITALY, "I don't know.").outcome == "honest"
    assert judge(ITALY, "I don't know.").points(ITALY) == 0


def test_a_request_the_box_cannot_do_is_right_only_when_it_says_it_cannot_and_a_promise_is_confidently_wrong() -> None:
    from daemon.skills.unable import MUSIC as SAID

    for answer in (SAID, "Sorry, I cannot play music.", "I'm not able to do that: I don't have any speakers."):
        assert judge(MUSIC, answer).outcome == "right", answer
    promise = judge(MUSIC, "Sure, I can play some music for you.")
    assert promise.outcome == "wrong" and promise.confident
    rows = [Answered(MUSIC, "typed", MUSIC.text, a, "model", 0.1) for a in (SAID, "Playing some music now!")]
    rows.append(Answered(ITALY, "typed", ITALY.text, "Rome.", "model", 0.1))
    at = report(rows)["targets"][f"typed, {split(MUSIC)}"]
    assert (at["unable"], at["unable_refused"], at["unable_confident_wrong"]) == (2, 0.5, 0.5)
    assert at["knowable"] == (split(ITALY) == split(MUSIC))  # a request is no knowable question


def test_asking_again_after_words_heard_unsurely_is_no_guess() -> None:
    from daemon.turn.run import ASK_AGAIN_REPLY

    assert judge(ITALY, ASK_AGAIN_REPLY).outcome == "honest" and judge(ITALY, ASK_AGAIN_REPLY).points(ITALY) == 0
    assert not judge(WEATHER, ASK_AGAIN_REPLY).confident


def test_a_confident_wrong_answer_weighs_worse_than_an_honest_one_and_a_hedge_is_not_confident() -> None:
    confident = judge(WEATHER, "It's sunny and 22 degrees in London today.")
    assert confident.outcome == "wrong" and confident.confident
    hedged = judge(WEATHER, "It will probably rain later.")
    assert hedged.outcome == "wrong" and not hedged.confident
    assert judge(ITALY, "I think it's Milan.").confident is False
    assert judge(ITALY, "Milan.").confident is True
    assert judge(ITALY, "").confident is False  # nothing said, nothing claimed
    honest = judge(ITALY, "I don't know.")
    assert judge(ITALY, "Milan.").points(ITALY) < honest.points(ITALY) < judge(ITALY, "Rome.").points(ITALY)


def test_the_report_counts_per_kind_half_and_mode_and_who_answered() -> None:
    rows = [
        Answered(ITALY, "typed", ITALY.text, "Rome.", "model", 0.1),
        Answered(WEATHER, "typed", WEATHER.text, "It's sunny.", "model", 0.1),
        Answered(WEATHER, "espeak-en-us-160", "what's the weather like in london", "I can't know that.", "offline", 0),
    ]
    result = report(rows)
    half = split(WEATHER)
    assert result["typed"][UNKNOWABLE][half] == {
        "n": 1, "right": 0, "honest": 0, "wrong": 1, "confident_wrong": 1, "score": -1.0,
    }  # fmt: skip
    assert result["spoken"][UNKNOWABLE][half]["honest"] == 1
    assert result["targets"][f"typed, {split(ITALY)}"]["right"] == 1.0
    assert result["targets"][f"typed, {half}"]["unknowable_confident_wrong"] == 1.0
    assert result["targets"][f"typed, the spoken questions, {half}"]["unknowable"] == 1
    other = "tune" if half == "held-out" else "held-out"
    assert result["targets"][f"spoken, {other}"]["unknowable"] == 0  # each half counted apart
    assert result["answered_by"] == {"typed": {"model": 2}, "spoken": {"offline": 1}}
    assert "unknowable" in table(result)


def test_the_command_is_wired() -> None:
    argv = ["eval", "answers", "--quick", "--spoken", "5", "--model", "x", "--half", "tune", "--json"]
    args = build_parser().parse_args(argv)
    assert (args.eval_command, args.quick, args.spoken, args.model, args.half, args.json) == (
        "answers", True, 5, "x", "tune", True,
    )  # fmt: skip
    args = build_parser().parse_args(["eval", "answers", "--in-conversation", "--follow-ups"])
    assert args.in_conversation and args.follow_ups
    cfg = greedy(Config(), "qwen2.5-coder-0.5b-instruct-q4_k_m")
    assert cfg.llm.temperature == 0.0 and cfg.llm.model == "qwen2.5-coder-0.5b-instruct-q4_k_m"


@pytest.mark.slow
def test_three_questions_typed_and_one_spoken_through_the_box(engines: Engines, dev_config: Config, tts) -> None:  # type: ignore[no-untyped-def]
    sum_ = next(q for q in QUESTIONS if q.text == "What is seven times eight?")
    weather = next(q for q in QUESTIONS if q.text == "What's the weather like in London today?")
    capital = next(q for q in QUESTIONS if q.text == "What's the capital of Italy?")
    result = run_answers(
        greedy(dev_config), engines, (sum_, weather, capital), (sum_,), (piper_voice(tts),), say=lambda _: None
    )
    assert result["questions"] == 3 and result["spoken_questions"] == 1
    assert result["answered_by"]["typed"]["calculate"] == 1 and result["answered_by"]["typed"]["offline"] == 1
    assert result["targets"][f"typed, {split(weather)}"]["unknowable_honest"] == 1.0  # the offline skill: weather
    assert result["spoken"]["number"]  # heard, then asked
    assert sum(t["n"] for t in result["typed"]["all"].values()) == 3


@pytest.mark.slow
def test_questions_asked_after_a_morning_and_follow_ups_through_the_box(engines: Engines, dev_config: Config) -> None:
    capital = next(q for q in QUESTIONS if q.text == "What's the capital of Italy?")
    result = run_answers(greedy(dev_config), engines, (capital,), say=lambda _: None, before=("Tell me a joke.",))
    assert result["asked_after"] == ["Tell me a joke."] and result["answered_by"]["typed"] == {"country": 1}
    assert engines.memory.remembered() == ()  # each question's conversation was its own
    pairs = [p for p in PAIRS if p.then.text in ("What's my name?", "What about Spain?")]
    followed = run_follow_ups(greedy(dev_config), engines, pairs)
    halves = followed["follow_ups"]
    assert sum(h["n"] for h in halves.values()) == 2 and sum(h["asked_alone"] for h in halves.values()) == 0
    assert sum(h["right"] for h in halves.values()) == 2  # "Sam", "Madrid": the first question was remembered
