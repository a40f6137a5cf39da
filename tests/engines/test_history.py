"""Conversation memory fits any budget by forgetting the oldest exchanges first."""

from __future__ import annotations

from daemon.engines.history import Conversation, Message


def words(messages: list[Message]) -> int:
    return sum(len(m["content"].split()) for m in messages)


def test_fit_drops_oldest_first_until_it_fits() -> None:
    conv = Conversation()
    for i in range(10):
        conv.add(f"question {i} " + "x " * 10, f"answer {i} " + "y " * 10)
    msgs, n = conv.fit("be brief", "new question", words, budget=60)
    assert n <= 60
    assert msgs[0] == {"role": "system", "content": "be brief"}
    assert msgs[-1] == {"role": "user", "content": "new question"}
    kept = [m["content"].split()[1] for m in msgs[1:-1] if m["role"] == "user"]
    assert kept == [str(i) for i in range(10 - len(kept), 10)]  # the newest survive, in order
    assert 0 < len(conv) < 10


def test_fit_with_an_oversized_question_keeps_nothing_old() -> None:
    conv = Conversation()
    conv.add("a", "b")
    msgs, n = conv.fit("", "w " * 100, words, budget=10)
    assert len(conv) == 0 and len(msgs) == 1 and n == 100


def test_a_full_conversation_forgets_its_older_half_so_the_prompt_keeps_its_start() -> None:
    conv = Conversation(max_turns=8)
    for i in range(8):
        conv.add(f"q{i}", f"a{i}")
    conv.add("q8", "a8")
    assert [e.question for e in conv.remembered()] == ["q4", "q5", "q6", "q7", "q8"]
    starts = set()
    for i in range(9, 12):  # the model's cache reads only the newest exchange on top of the prompt before
        conv.add(f"q{i}", f"a{i}")
        starts.add(conv.messages("", "next")[0]["content"])
    assert starts == {"q4"}


def test_a_conversation_nobody_spoke_to_for_a_while_is_forgotten() -> None:
    now = [1000.0]
    conv = Conversation(forget_after_s=300.0, clock=lambda: now[0])
    conv.add("What is the capital of France?", "Paris.")
    now[0] += 299.0
    assert conv.messages("be brief", "And of Spain?")[1]["content"] == "What is the capital of France?"
    conv.add("And of Spain?", "Madrid.")
    now[0] += 299.0  # the idle time counts from the latest exchange
    assert len(conv) == 2
    now[0] += 2.0
    assert conv.messages("be brief", "What time is it?") == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "What time is it?"},
    ]
    assert conv.remembered() == () and len(conv) == 0
    conv.add("What time is it?", "Ten past four.")
    assert len(conv) == 1


def test_a_conversation_is_kept_however_long_it_idles_when_told_to() -> None:
    now = [0.0]
    conv = Conversation(forget_after_s=0.0, clock=lambda: now[0])
    conv.add("q", "a")
    now[0] += 86400.0 * 30
    assert len(conv) == 1


def test_truncating_an_answer_and_bounded_turns() -> None:
    conv = Conversation(max_turns=3)
    for i in range(5):
        conv.add(f"q{i}", f"a{i}")
    conv.truncate_answer("q4", "a4 (cut)")
    msgs = conv.messages("", "next")
    assert [m["content"] for m in msgs] == ["q2", "a2", "q3", "a3", "q4", "a4 (cut)", "next"]


def test_an_early_answer_is_retracted_and_cut_even_after_a_later_exchange() -> None:
    conv = Conversation()
    conv.add("what do bees make", "asked before, and heard")
    conv.add("what do bees make", "an early answer nobody heard")
    conv.add("what do bees make from nectar?", "Honey.")  # the real answer was remembered first
    conv.truncate_answer("what do  bees make", "")  # the early answer, cancelled: only its own exchange is cut
    assert conv.remembered()[-1].answer == "Honey."
    conv.retract("what do bees make")
    assert [e.answer for e in conv.remembered()] == ["asked before, and heard", "Honey."]
    conv.retract("never asked")
    assert len(conv) == 2


def test_a_question_asked_alone_reads_no_exchange_and_the_conversation_keeps_them() -> None:
    conv = Conversation()
    conv.add("Tell me a joke.", "Why was the maths book sad? Because it had too many problems.")
    assert conv.messages("be brief", "Why is the sea salty?", alone=True) == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "Why is the sea salty?"},
    ]
    msgs, n = conv.fit("be brief", "Why is the sea salty?", words, budget=6, alone=True)
    assert n == 7 and len(msgs) == 2  # over the budget by its own words: nothing remembered is forgotten for it
    assert len(conv) == 1
    assert conv.messages("be brief", "Why was it sad?")[1]["content"] == "Tell me a joke."
