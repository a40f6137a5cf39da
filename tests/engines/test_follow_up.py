"""Which questions lean on the conversation before them, and which are asked on their own."""

from __future__ import annotations

import pytest

from daemon.engines.follow_up import leans_back
from daemon.lab.evaluation import answers
from daemon.lab.evaluation.follow_ups import PAIRS


@pytest.mark.parametrize(
    "question",
    [
        "When was he born?",
        "How many people live there?",
        "What about Spain?",
        "And Austria?",
        "How big?",
        "What's the capital?",
        "Why not Sydney?",
        "Which one is the biggest?",
        "What river flows through the city?",
        "What's my name?",
        "What did you mean?",
        "Tell me another.",
    ],
)
def test_a_question_that_points_back_is_asked_with_the_conversation(question: str) -> None:
    assert leans_back(question)


@pytest.mark.parametrize(
    "question",
    [
        "Why is the sea salty?",
        "What is the speed of light?",
        "Who was Napoleon?",
        "How tall is Mount Everest?",
        "Is there life on Mars?",
        "How cold does the Arctic get this winter?",
    ],
)
def test_a_question_that_stands_on_its_own_is_asked_alone(question: str) -> None:
    assert not leans_back(question)


def test_words_still_being_spoken_are_not_yet_a_short_follow_up() -> None:
    # "How many" is the start of most questions: read with the conversation, it was read again at every first partial
    assert leans_back("How many") and not leans_back("How many", finished=False)
    assert leans_back("How many people live there", finished=False)


def test_every_follow_up_of_the_set_is_asked_with_the_conversation_and_most_questions_alone() -> None:
    assert all(leans_back(pair.then.text) for pair in PAIRS)
    alone = [q for q in answers.QUESTIONS if not leans_back(q.text)]
    assert len(alone) > len(answers.QUESTIONS) / 2  # the set's questions each stand on their own
