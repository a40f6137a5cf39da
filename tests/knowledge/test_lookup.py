"""A passage only for a question that names an article, a short one, fast; none about the asker, the box or now.

The questions here are the answer evaluation's tune half (daemon/skills/answers.toml) or written apart from
it: its held-out half is only measured (daemon/lab/knowledge_eval.py).
"""

from __future__ import annotations

import statistics
import time

import pytest

from daemon.knowledge.lookup import Knowledge
from daemon.knowledge.text import MAX_PASSAGE_CHARS, sentences

NAMED = [
    ("Who wrote War and Peace?", "War and Peace", "Tolstoy"),
    ("What is a volcano?", "Volcano", "magma"),
    ("How many hearts does an octopus have?", "Octopus", ""),
    ("Who painted the Mona Lisa?", "Mona Lisa", "Leonardo"),
    ("Tell me about the Eiffel Tower", "Eiffel Tower", "Paris"),
    ("Who was Albert Einstein?", "Albert Einstein", "physicist"),
    ("Do you know who designed the Eiffel Tower?", "Eiffel Tower", "Eiffel"),
    ("When did World War Two end?", "World War II", ""),
    ("What year did the Second World War begin?", "World War II", ""),
    ("When did Queen Elizabeth the Second die?", "Elizabeth II", "2022"),
    ("Who was Martin Luther King?", "Martin Luther King Jr.", "civil rights"),
    ("What's the speed of sound?", "Speed of sound", "343"),
    ("What is the chemical formula for methane?", "Methane", "CH4"),
    ("How many chambers does the human heart have?", "Heart", ""),
    ("Which river runs through London?", "London", "Thames"),
    ("Who was Clovis I?", "Clovis I", "Frankish"),
    ("what is a black hole", "Black hole", "gravity"),
    ("Tell me about A Christmas Carol", "A Christmas Carol", "Dickens"),  # not the song, "Christmas carol"
]
UNNAMED = [
    "What's the weather like in London today?",  # now
    "Will it snow on Friday?",
    "What's in the news today?",
    "Who won the rugby game last night?",
    "How much is gold worth right now?",
    "What time is it?",
    "Where did I leave my keys?",  # the asker
    "What's on my calendar?",
    "Who are you?",  # the box
    "What's your name?",
    "Do you like pizza?",
    "Set a timer for five minutes",  # not a question
    "Tell me a joke",
    "Play some music",
    "What is eleven times eleven?",  # a sum
    "How do you spell necessary?",  # spelling
    "What's the largest planet in our solar system?",  # one of a kind the question does not name
    "Who was the first man on the moon?",
    "What year did the Titanic sink?",  # "sink" is not what is asked about
    "Hello, how are you?",
    "",
]


@pytest.mark.parametrize(("question", "title", "word"), NAMED)
def test_a_question_naming_an_article_gets_its_passage(
    knowledge: Knowledge, question: str, title: str, word: str
) -> None:
    passage = knowledge.lookup(question)
    assert passage is not None and passage.title == title
    assert word in passage.text
    assert len(passage.text) <= MAX_PASSAGE_CHARS
    assert passage.reference() == f"(Reference: {title}: {passage.text})"


@pytest.mark.parametrize("question", UNNAMED)
def test_no_passage_for_the_asker_the_box_now_or_no_article(knowledge: Knowledge, question: str) -> None:
    assert knowledge.lookup(question) is None


def test_the_longest_title_named_wins(knowledge: Knowledge) -> None:
    passage = knowledge.lookup("Who came up with the theory of relativity?")
    assert passage is not None and passage.title == "Theory of relativity"  # not "Theory", nor "Relativity"


def test_a_lookup_takes_well_under_five_milliseconds(knowledge: Knowledge) -> None:
    questions = [q for q, _, _ in NAMED] + UNNAMED
    knowledge.lookup(questions[0])  # the first touches the index's pages
    took = []
    for question in questions * 5:
        started = time.perf_counter()
        knowledge.lookup(question)
        took.append(time.perf_counter() - started)
    assert statistics.median(took) < 0.005 and statistics.mean(took) < 0.005, f"{max(took) * 1000:.1f} ms at most"


def test_a_lead_is_cut_into_sentences_but_not_at_initials_or_abbreviations() -> None:
    lead = (
        "John Ronald Reuel Tolkien was an English writer. He wrote The Hobbit with J. R. R. Tolkien's own maps in "
        "the U.S. edition, c. 1937. It sold well!"
    )
    assert sentences(lead) == [
        "John Ronald Reuel Tolkien was an English writer.",
        "He wrote The Hobbit with J. R. R. Tolkien's own maps in the U.S. edition, c. 1937.",
        "It sold well!",
    ]
    # A title's own full stops do not end its first sentence.
    carol = "A Christmas Carol. In Prose. Being a Ghost Story of Christmas is a novella by Charles Dickens. It sold."
    assert sentences(carol)[0] == carol.removesuffix(" It sold.")
