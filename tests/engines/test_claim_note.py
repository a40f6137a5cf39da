"""The note a yes-or-no question about a claim is asked with, and only such a question asked on its own."""

from __future__ import annotations

import pytest

from daemon.engines.claim_note import CLAIM_NOTE, asks_yes_or_no, system_prompt_for


@pytest.mark.parametrize(
    "question",
    [
        "Is Chicago the capital of Illinois?",
        "Did the Titanic sink in 1920?",
        "Isn't Sydney the capital of Australia?",
        "Sydney is the capital of Australia, right?",
        "Does an octopus have eight arms?",
    ],
)
def test_a_claim_asked_yes_or_no_is_given_the_note(question: str) -> None:
    assert asks_yes_or_no(question)
    assert system_prompt_for("Be brief.", question, alone=True) == f"Be brief. {CLAIM_NOTE}"


@pytest.mark.parametrize(
    "question",
    [
        "What should I cook for my family tonight?",  # a suggestion: the note made the model refuse some
        "Do you know who wrote Hamlet?",
        "Are you a robot?",
        "Is it going to rain today?",
        "Why is the sky blue?",
    ],
)
def test_other_questions_are_asked_with_the_system_prompt_alone(question: str) -> None:
    assert system_prompt_for("Be brief.", question, alone=True) == "Be brief."


def test_a_claim_asked_with_the_conversation_keeps_the_prompt_it_shares() -> None:
    assert system_prompt_for("Be brief.", "Is it bigger than France?", alone=False) == "Be brief."
