"""The model's doubt about an answer: only its numbers and names count, and only below the line."""

from __future__ import annotations

import numpy as np
import pytest

from daemon.engines.doubt import Apology, Doubt, asks_for_a_choice


def _fed(tokens: list[tuple[str, float]], below: float = -1.5) -> bool:
    doubt = Doubt(below)
    for text, logprob in tokens:
        doubt.feed(text, logprob)
    return doubt.unsure


def test_a_number_the_model_gave_little_chance_is_doubted() -> None:
    price = [("The", -0.98), (" current", -0.69), (" price", -0.3), (" is", -0.1), (" $", -0.89), ("1", -0.2),
             ("5", -1.82), ("0", -1.19), (".", -0.01)]  # fmt: skip
    assert _fed(price)
    assert not _fed(price, below=-2.0)


def test_a_name_within_a_sentence_is_a_claim_but_its_first_word_is_not() -> None:
    assert _fed([("The", -0.1), (" song", -0.2), (" is", -0.1), (' "', -0.3), ("Imagine", -2.83), ('"', -0.1)])
    assert not _fed([("Sure", -2.5), ("!", -0.1), (" It", -2.2), (" is", -0.1), (" here", -0.3), (".", -0.1)])
    assert not _fed([("Well", -0.1), (",", -0.1), (" I", -3.0), (" think", -0.2), (" so", -0.1), (".", -0.1)])


def test_plain_words_the_model_was_unsure_of_are_phrasing_not_doubt() -> None:
    assert not _fed([("Stars", -0.1), (" twinkle", -0.1), (" because", -0.2), (" they", -0.98), (" are", -1.19),
                     (" constantly", -1.51), (" moving", -0.66), (".", -1.31)])  # fmt: skip


def test_never_doubts_at_minus_infinity() -> None:
    assert not _fed([("In", -0.1), (" 1", -9.0), ("9", -9.0), ("5", -9.0), ("2", -9.0)], below=float("-inf"))


def test_a_name_picked_for_a_suggestion_is_a_choice_not_a_doubtful_claim() -> None:
    game = [("I", -0.1), (" suggest", -0.2), (" Monopoly", -2.4), (" or", -0.1), (" Clue", -1.9), (".", -0.1)]
    asked = ("What game should we play at my party tonight?", "Suggest a film.", "What's a good name for a cat?")
    for question in asked:
        doubt = Doubt(-1.5, question)
        for text, logprob in game:
            doubt.feed(text, logprob)
        assert not doubt.unsure, question
    doubt = Doubt(-1.5, "Who invented the telephone?")
    for text, logprob in game:
        doubt.feed(text, logprob)
    assert doubt.unsure


def test_an_answer_opens_with_the_likelier_apology_when_the_model_gave_the_apologies_enough_chance() -> None:
    sorry, unfortunately = 3, 5
    scores = np.log(np.array([0.90, 0.02, 0.01, 0.04, 0.01, 0.02], dtype=np.float32))  # apologies: 0.06
    apology = Apology([sorry, unfortunately], above=0.05)
    chosen = apology(np.array([1, 2]), scores)
    assert apology.taken and apology.chance == pytest.approx(0.06, abs=1e-4)
    assert int(np.argmax(chosen)) == sorry
    assert np.array_equal(np.delete(chosen, sorry), np.delete(scores, sorry))  # the rest left as it was
    later = apology(np.array([1, 2, sorry]), scores)
    assert later is scores  # only the first word is its business
    assert apology.over(" offline.") and not apology.over(" can't")


def test_an_answer_the_model_gave_the_apologies_little_chance_is_left_alone() -> None:
    scores = np.log(np.array([0.95, 0.02, 0.01, 0.01, 0.005, 0.005], dtype=np.float32))  # apologies: 0.015
    apology = Apology([3, 5], above=0.05)
    assert apology(np.array([1]), scores) is scores
    assert not apology.taken and apology.chance == pytest.approx(0.015, abs=1e-4)
    assert not apology.over(" the answer.")


def test_a_question_asking_for_a_choice_or_put_to_the_box_is_never_made_to_apologise() -> None:
    scores = np.log(np.array([0.5, 0.1, 0.1, 0.2, 0.05, 0.05], dtype=np.float32))
    asked = ("Suggest a film for tonight.", "What should I cook tonight?", "Tell me a joke.", "How are you today?")
    for question in asked:
        apology = Apology([3, 5], above=0.05, question=question)
        assert apology(np.array([1]), scores) is scores and not apology.taken, question
    assert asks_for_a_choice("What's a good name for a hamster?") and not asks_for_a_choice("Who painted Guernica?")


def test_a_poem_asked_for_is_no_claim_but_how_to_write_one_is_a_question() -> None:
    made_up = ("Write me a haiku about autumn.", "Could you make up a story about a dragon?", "sing me a song")
    assert all(asks_for_a_choice(q) for q in made_up)
    asked = ("What is a haiku?", "How do I write a cheque?", "Who wrote the poem Daffodils?")
    assert not any(asks_for_a_choice(q) for q in asked)
    poem, question = Doubt(below=-1.5, question=made_up[0]), Doubt(below=-1.5, question=asked[0])
    for doubt in (poem, question):
        for token, logprob in ((" Leaves", -0.5), (" whisper", -0.5), (" to", -0.5), (" Autumn", -4.0)):
            doubt.feed(token, logprob)
    assert question.unsure and not poem.unsure
