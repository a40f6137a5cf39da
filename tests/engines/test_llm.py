"""The real chat model: answers, streams, remembers within its context, cancels within a token."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from daemon.config import LlmConfig
from daemon.engines.chat import check_room_of
from daemon.engines.claim_note import noted_prefix
from daemon.engines.doubt import APOLOGIES, UNSURE
from daemon.engines.llm import READ_AHEAD_P_END, LlamaModel
from daemon.errors import ConfigError
from daemon.lab.evaluation.answers import QUESTIONS, judge
from daemon.modelstore.gguf import read_header
from daemon.modelstore.manifest import load_manifest, verify
from daemon.modelstore.quantize import quantize
from daemon.ports import Exchange


def test_answers_a_plain_question_in_its_own_chat_template(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    pieces = list(llm.respond("What is the capital of France?"))
    answer = "".join(pieces)
    assert "Paris" in answer
    assert len(pieces) >= 3  # streamed, not delivered at once
    assert "<|im_" not in answer  # the template's special tokens never leak into speech
    assert llm.stats.answer_tokens >= len(pieces) - 1 and llm.stats.decode_tokens_per_s > 0
    assert len(llm.stats.token_logprobs) == llm.stats.answer_tokens
    assert all(lp <= 0.0 for lp in llm.stats.token_logprobs)
    assert not llm.stats.hedged and UNSURE not in answer  # it knows Paris


def test_an_answer_whose_number_the_model_made_up_says_it_is_unsure(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    answer = "".join(llm.respond("How far away is the moon?"))  # "... approximately 384,401 kilometers away ..."
    assert llm.stats.hedged and answer.rstrip().endswith(UNSURE)
    assert UNSURE not in llm.conversation.exchanges()[-1].answer  # not taught to the model as its own words


def test_a_question_no_offline_box_can_know_gets_the_models_own_apology_not_its_guess(llm) -> None:  # type: ignore[no-untyped-def]
    for question in ("Who won the Formula One race this weekend?", "What did I have for breakfast?"):
        llm.conversation.forget()
        answer = "".join(llm.respond(question)).strip()
        assert llm.stats.apologised and answer.startswith(APOLOGIES), (question, answer)
        assert judge(next(q for q in QUESTIONS if q.text == question), answer).outcome == "honest", answer
        assert answer[:-1].count(".") == 0  # one sentence: what followed an apology was as often a guess
    llm.conversation.forget()
    assert "Lima" in "".join(llm.respond("What is the capital of Peru?"))
    assert not llm.stats.apologised and llm.stats.apology_chance < 0.002
    llm.conversation.forget()
    "".join(llm.respond("How are you today?"))  # put to the box itself: it answers as itself
    assert not llm.stats.apologised
    llm.conversation.forget()


@pytest.mark.parametrize(
    ("question", "opens", "names"),
    [
        ("Is the heart on the right side of the body?", "No", "left"),  # was "Yes, the heart is on the right side …"
        ("Did the Titanic sink in 1920?", "No", ""),  # was "Sorry, but I can't know that offline."
        ("Is a penguin a bird?", "Yes", ""),
    ],
)
def test_a_claim_is_checked_not_agreed_with(llm, question: str, opens: str, names: str) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    answer = "".join(llm.respond(question)).strip()
    assert answer.startswith(opens) and names in answer, answer
    assert judge(next(q for q in QUESTIONS if q.text == question), answer).outcome == "right"
    llm.conversation.forget()


def test_a_claim_reads_only_its_own_words_the_note_kept_evaluated(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    llm.warm_up()  # as the box does once loaded: the system prompt, and the one with the note, evaluated
    llm.conversation.remember((Exchange("Tell me a joke.", "Why was the maths book sad? Too many problems."),))
    llm.read_history().result()  # the joke in the cache, as after every answer
    asked = "Is a penguin a bird?"
    answer = "".join(llm.respond(asked)).strip()
    assert answer.startswith("Yes"), answer
    own = len(llm._llm.tokenize(asked.encode(), add_bos=False))
    assert llm.stats.prompt_tokens >= len(noted_prefix(llm._config.system_prompt, llm._tokens)) + own  # the note in it
    assert llm.stats.evaluated_tokens <= own + 8, (llm.stats.evaluated_tokens, own)  # the note's ~60 not read
    llm.read_history().result()
    "".join(llm.respond("Why was the book sad?"))  # the joke put back: the follow-up reads its own words only
    assert llm.stats.evaluated_tokens <= len(llm._llm.tokenize(b"Why was the book sad?", add_bos=False)) + 8
    llm.conversation.forget()


def test_follow_up_uses_the_conversation(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    "".join(llm.respond("And how many people live there?"))
    alone = llm.stats  # the follow-up's prompt without the conversation (the first prompt may read a passage)
    llm.conversation.forget()
    "".join(llm.respond("What is the capital of France?"))
    "".join(llm.respond("And how many people live there?"))
    assert len(llm.conversation.remembered()) == 2
    # The remembered exchange is in the prompt, and its KV state was reused rather than re-evaluated.
    assert llm.stats.prompt_tokens > alone.prompt_tokens
    assert llm.stats.evaluated_tokens < llm.stats.prompt_tokens


def test_a_question_standing_on_its_own_is_asked_without_the_conversation(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    "".join(llm.respond("Why was the book sad?"))
    follow_up = llm.stats.prompt_tokens  # with nothing before it
    llm.conversation.forget()
    "".join(llm.respond("Why is the sea salty?"))
    fresh = llm.stats.prompt_tokens
    llm.conversation.forget()
    joke = Exchange("Tell me a joke.", "Why was the maths book sad? Because it had too many problems.")
    llm.conversation.remember((joke,))
    "".join(llm.respond("Why is the sea salty?"))  # after a joke, it was answered as a punchline
    assert llm.stats.prompt_tokens == fresh  # the joke is not in its prompt
    assert llm.conversation.remembered()[0] == joke  # and still in the conversation, for a follow-up
    llm.read_history().result()  # as after every answer asked alone, while the user thinks
    asked = "Why was the book sad?"
    "".join(llm.respond(asked))
    assert llm.stats.prompt_tokens > follow_up + 30  # "the book": both exchanges in its prompt
    # the conversation's cache was kept aside and put back: the follow-up reads only its own words
    assert llm.stats.evaluated_tokens <= len(llm._llm.tokenize(asked.encode(), add_bos=False)) + 8
    llm.conversation.forget()


def test_a_skills_exchange_is_read_before_the_next_question_not_by_it(llm) -> None:  # type: ignore[no-untyped-def]
    said = [("Set a timer for ten minutes.", "Timer set for 10 minutes, starting now."),
            ("What is 15 percent of 80?", "That's 12.")]  # fmt: skip
    asked = "How long is that in seconds?"  # a follow-up: a question standing alone is asked without them
    llm.conversation.forget()
    llm.warm_up()
    llm.conversation.remember(tuple(Exchange(q, a) for q, a in said))
    "".join(llm.respond(asked))
    unread = llm.stats.evaluated_tokens  # the skills' exchanges were read by the question
    llm.conversation.forget()
    llm.warm_up()
    llm.conversation.remember(tuple(Exchange(q, a) for q, a in said))
    llm.read_history().result()  # as the turn does once a skill's exchange is remembered; the user then pauses
    "".join(llm.respond(asked))
    question = len(llm._llm.tokenize(asked.encode(), add_bos=False))
    assert llm.stats.prompt_tokens > unread > llm.stats.evaluated_tokens
    assert llm.stats.evaluated_tokens <= question + 8  # the question and the turn's own tokens, no more
    llm.conversation.forget()


def test_system_prompt_is_pre_evaluated_and_its_reading_told_in_pieces(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    told: list[float] = []
    llm.warm_up(told.append)  # the box's start shows each piece: a slow board's start is not taken for stuck
    assert len(told) >= 2 and told == sorted(told) and told[-1] == 1.0, told
    "".join(llm.respond("Hello!"))
    assert llm.stats.evaluated_tokens < llm.stats.prompt_tokens // 2


def test_words_likely_to_end_the_turn_have_their_answer_read_ahead(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    llm.warm_up()
    p_end = llm.prefill("What is the largest ocean?")
    assert p_end >= READ_AHEAD_P_END
    assert llm.prefill("What is the largest ocean?") == p_end  # the pause heard the last partial's words: known
    answer = "".join(llm.respond("What is the largest ocean?"))
    assert "Pacific" in answer
    assert llm.stats.evaluated_tokens == 1  # nothing left to read: the first word was sampled at once
    llm.conversation.forget()
    llm.prefill("What is the")  # words that go on: nothing is read ahead of them
    "".join(llm.respond("What is the largest ocean?"))
    assert llm.stats.evaluated_tokens > 5  # the rest of the question, and the turn's closing tokens
    llm.conversation.forget()


def test_cancel_stops_within_one_token(llm) -> None:  # type: ignore[no-untyped-def]
    llm.conversation.forget()
    cancel = threading.Event()
    after_cancel = []
    for i, piece in enumerate(llm.respond("Tell me a very long story about a dragon.", cancel)):
        if cancel.is_set():
            after_cancel.append(piece)
        if i == 4:
            cancel.set()
    assert after_cancel == []
    assert llm.stats.cancelled and llm.stats.answer_tokens <= 6
    assert len(llm.conversation.remembered()) == 1  # the part that was produced is remembered, nothing more


@pytest.fixture(scope="module")
def small_context(dev_config) -> LlamaModel:  # type: ignore[no-untyped-def]
    path = verify(load_manifest().get("smollm2-135m-instruct-q4_1"), Path("/unused"))
    cfg = LlmConfig(context_tokens=512, max_answer_tokens=48, max_question_tokens=64, seed=3, temperature=0.7)
    return LlamaModel(path, cfg)


@pytest.mark.slow
def test_a_long_conversation_never_overflows_the_context(small_context: LlamaModel) -> None:
    dropped = 0
    for i in range(14):
        answer = "".join(small_context.respond(f"Question {i}: tell me an interesting fact about number {i}."))
        s = small_context.stats
        assert answer.strip()
        assert s.prompt_tokens + 48 <= 512
        dropped += s.dropped_turns
    assert dropped > 0 and len(small_context.conversation.remembered()) < 14


@pytest.mark.slow
def test_a_conversation_that_forgets_its_older_half_is_not_read_again(small_context: LlamaModel) -> None:
    small_context.conversation.forget()
    forgot = []
    for i in range(16):
        "".join(small_context.respond(f"Question {i}: tell me an interesting fact about number {i}."))
        s = small_context.stats
        if s.dropped_turns:
            forgot.append(i)
            assert s.dropped_turns >= 2, (i, s.dropped_turns)  # forgotten in halves, not one at every turn
        if i:  # the last answer and the new question: what is kept was moved up in the cache, not read again
            assert s.evaluated_tokens < 40, (i, s.evaluated_tokens, s.prompt_tokens)
    assert forgot, "the conversation never filled the context"
    # a follow-up, so that it is asked with the conversation: the moved cache still reads
    assert "Paris" in "".join(small_context.respond("And what is the capital of France?"))


def test_an_over_long_question_is_cut_not_fatal(small_context: LlamaModel) -> None:
    small_context.conversation.forget()
    long = "Why is the sky blue? " * 400
    fitted = small_context.fit_question(long)
    assert fitted.cut and fitted.tokens > 64 * 10 and fitted.kept_tokens == 64
    assert long.startswith(fitted.text) and len(fitted.text) < len(long)
    answer = "".join(small_context.respond(long))
    assert answer.strip()
    assert small_context.stats.prompt_tokens <= 512 - 48
    assert small_context.conversation.remembered()[-1].question == fitted.text
    assert not small_context.fit_question("  Why is  the sky blue?").cut


@pytest.mark.slow
def test_q4_k_m_quantized_model_loads_and_answers(dev_config, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = verify(load_manifest().get("smollm2-135m-instruct-q4_1"), Path("/unused"))
    result = quantize(src, tmp_path / "smollm2-q4_k_m.gguf", "Q4_K_M", threads=2)
    assert read_header(result.path).file_type == "Q4_K_M"
    assert result.source_type == "Q4_1"
    q4km = LlamaModel(result.path, dev_config.llm)
    assert "Paris" in "".join(q4km.respond("What is the capital of France?"))


def test_a_context_too_small_for_the_system_prompt_is_a_config_error() -> None:
    path = verify(load_manifest().get("smollm2-135m-instruct-q4_1"), Path("/unused"))
    cfg = LlmConfig(context_tokens=256, max_answer_tokens=100, max_question_tokens=100)
    with pytest.raises(ConfigError, match=r"llm.context_tokens = 256 is too small: the system prompt takes \d+"):
        LlamaModel(path, cfg)


def test_a_context_beyond_what_the_model_was_trained_for_is_a_config_error() -> None:
    path = verify(load_manifest().get("smollm2-135m-instruct-q4_1"), Path("/unused"))  # trained for 8192 tokens
    with pytest.raises(ConfigError, match=r"llm\.context_tokens = 16384 is more than the 8192 tokens the model was"):
        check_room_of(path, LlmConfig(context_tokens=16384))
    check_room_of(path, LlmConfig(context_tokens=8192))  # as trained: fine


def test_misheard_words_read_as_less_likely_than_the_question_said(llm) -> None:  # type: ignore[no-untyped-def]
    # Pairs from the spoken answers evaluation: what was said, and what Whisper heard from a synthetic voice.
    pairs = [("How many grams are in a kilogram?", "How many brands are in a cute brand?"),
             ("Who discovered penicillin?", "Who discovered Panissillin?"),
             ("How is snow formed?", "How is no formed?")]  # fmt: skip
    llm.conversation.forget()
    for said, heard in pairs:
        right, wrong = llm.surprise(said), llm.surprise(heard)
        assert right is not None and wrong is not None
        assert right > wrong + 1.0, (said, right, heard, wrong)


def test_the_words_prefilled_at_the_pauses_are_scored_as_if_read_at_once(llm) -> None:  # type: ignore[no-untyped-def]
    question = "What is the capital of Peru?"
    llm.conversation.forget()
    llm.warm_up()
    at_once = llm.surprise(question)
    llm.warm_up()
    words = question.split()
    for k in range(2, len(words) + 1):  # as the listener prefills the words heard at each pause
        llm.prefill(" ".join(words[:k]))
    llm.prefill("What is the capital of Spain?")  # a revision: the last word heard again differently
    revised = llm.surprise("What is the capital of Spain?")
    llm.prefill(question)
    again = llm.surprise(question)  # known from the prefill: nothing is read for it
    assert at_once is not None and revised is not None and again is not None
    assert again == pytest.approx(at_once, abs=0.05)
    assert revised != pytest.approx(at_once, abs=1e-6)
    assert "Lima" in "".join(llm.respond(question))  # the cache left by scoring answers as ever
    llm.conversation.forget()


def test_a_partials_words_give_way_to_the_pauses_words(llm) -> None:  # type: ignore[no-untyped-def]
    question = "What is the capital of Peru?"
    llm.conversation.forget()
    llm.warm_up()
    alone = llm.prefill(question)
    llm.warm_up()
    # A partial long enough to take a while to read (~80 tokens: 1.7 s alone here), overtaken by the pause.
    partial = "What is the capital of Peru " + " ".join(["and the largest city of each of its regions"] * 8)
    gave: list[float] = []
    reading = threading.Thread(target=lambda: gave.append(llm.prefill(partial, give_way=True)))
    reading.start()
    threading.Event().wait(0.3)  # the partial is being read when the pause's words come
    judged = llm.prefill(question)
    reading.join()
    assert gave == [0.0]  # it stopped between two pieces: not judged
    assert judged == pytest.approx(alone, abs=1e-3)
    assert "Lima" in "".join(llm.respond(question))
    llm.conversation.forget()


def test_an_answer_cut_off_at_its_length_limit_is_remembered_to_its_last_whole_sentence(short_llm) -> None:  # type: ignore[no-untyped-def]
    short_llm.conversation.forget()
    answer = "".join(short_llm.respond("Say four very short sentences about cats, three words each."))
    assert short_llm.stats.cut and short_llm.stats.answer_tokens == 24  # llm.max_answer_tokens of this copy
    remembered = short_llm.conversation.exchanges()[-1].answer
    assert answer.startswith(remembered) and len(remembered) < len(answer.strip())
    assert remembered.rstrip("\"')")[-1] in ".!?"  # the unfinished sentence is not the model's own words next time
    assert UNSURE not in answer  # a doubt is never said after words cut off
