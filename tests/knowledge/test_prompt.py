"""Through a real chat model that reads passages (tests/knowledge/conftest.py): the passage is read into the prompt
after the question, never into the conversation, and the words prefilled while the user speaks stay the answer's
prefix."""

from __future__ import annotations

import dataclasses

import pytest

from daemon.config import Config
from daemon.engines.history import referenced
from daemon.engines.llm import LlamaModel
from daemon.engines.load import load_knowledge
from daemon.modelstore.select import select
from daemon.ports import Exchange


def test_the_passage_goes_into_the_prompt_and_not_into_the_conversation(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    answer = "".join(llm.respond("Who wrote War and Peace?"))
    first = llm.stats
    assert first.reference == "War and Peace"
    assert "Tolstoy" in answer  # read from the passage (without it SmolLM2-135M named Shakespeare)
    assert llm.conversation.remembered() == (Exchange("Who wrote War and Peace?", answer.strip()),)
    follow_up = "".join(llm.respond("Is it long?"))
    assert llm.stats.reference == "" and follow_up
    assert [ex.question for ex in llm.conversation.remembered()] == ["Who wrote War and Peace?", "Is it long?"]
    # The follow-up's prompt holds the plain first question and its answer, not the passage: the passage's entries
    # are taken out of the cache and the answer's moved up (kv_shift.py), so only the follow-up's own words are read.
    assert llm.stats.prompt_tokens < first.prompt_tokens + first.answer_tokens
    assert 0 < llm.stats.evaluated_tokens < first.answer_tokens
    llm.conversation.forget()


def test_the_reference_follows_the_question_in_its_message() -> None:
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is a volcano?"}]
    read = referenced(messages, "(Reference: Volcano: A volcano is a vent.)")
    assert read[-1] == {"role": "user", "content": "What is a volcano?\n\n(Reference: Volcano: A volcano is a vent.)"}
    assert read[:-1] == messages[:-1] and messages[-1]["content"] == "What is a volcano?"  # the input is unchanged


def test_prefill_reads_the_passage_while_the_user_speaks(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    llm.warm_up()
    assert 0.0 <= llm.prefill("Who painted the") <= 1.0  # no article named yet
    assert 0.0 <= llm.prefill("Who painted the Mona Lisa") <= 1.0  # a partial the recogniser later revised
    assert 0.0 <= llm.prefill("Who painted the Mona Lisa?") <= 1.0
    answer = "".join(llm.respond("Who painted the Mona Lisa?"))
    stats = llm.stats
    assert stats.reference == "Mona Lisa" and "Leonardo" in answer
    # The passage and the turn's closing tokens were in the cache: the answer sampled its first word at once.
    assert stats.evaluated_tokens == 1 < stats.prompt_tokens
    llm.conversation.forget()


@pytest.mark.slow
def test_a_passage_the_context_cannot_hold_is_left_out(llm, reading_config: Config) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    "".join(llm.respond("Hi"))  # no passage: the prompt's fixed part and a word
    fixed = llm.stats.prompt_tokens
    llm.conversation.forget()
    # Room for the fixed part and a short question, not for a passage besides.
    # NOTE: without the note a yes-or-no question is given, which the room check counts for every question
    tight = dataclasses.replace(
        reading_config.llm,
        context_tokens=512,
        max_question_tokens=16,
        max_answer_tokens=512 - fixed - 16,
        check_claims=False,
    )
    model = LlamaModel(select(reading_config, "llm").path, tight, knowledge=load_knowledge(reading_config))
    try:
        answer = "".join(model.respond("Who wrote War and Peace?"))
        assert answer and model.stats.reference == ""
        assert model.stats.prompt_tokens <= tight.context_tokens - tight.max_answer_tokens
    finally:
        model.close()
