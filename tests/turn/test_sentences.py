"""The splitter hands the voice whole sentences as early as possible, and never cuts mid-number."""

from __future__ import annotations

import pytest

from daemon.turn.sentences import LONGEST_SENTENCE, MAX_SENTENCE_CHARS, SentenceSplitter


def split(text: str, piece: int = 3, **kwargs: object) -> list[str]:
    """Feed `text` a few characters at a time, as a model streams it."""
    splitter = SentenceSplitter(**kwargs)  # type: ignore[arg-type]
    out: list[str] = []
    for i in range(0, len(text), piece):
        out += splitter.feed(text[i : i + piece])
    rest = splitter.flush()
    return [*out, rest] if rest else out


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Paris is the capital. It is big! Is it old?", ["Paris is the capital.", "It is big!", "Is it old?"]),
        ("Pi is about 3.14 and e is 2.72. Both matter.", ["Pi is about 3.14 and e is 2.72.", "Both matter."]),
        (
            "Dr. Smith met Mr. Jones at 5 p.m. today. Then they left.",
            ["Dr. Smith met Mr. Jones at 5 p.m. today.", "Then they left."],
        ),
        ("Use tools, e.g. a hammer. Done.", ["Use tools, e.g. a hammer.", "Done."]),
        ("J. R. R. Tolkien wrote it. Yes.", ["J. R. R. Tolkien wrote it.", "Yes."]),
        ("You need:\n- flour\n- eggs\n1. mix\n2. bake", ["You need:", "flour", "eggs", "mix", "bake"]),
        ('He said "stop." Then he left.', ['He said "stop."', "Then he left."]),
        ("No end mark at all", ["No end mark at all"]),
    ],
)
def test_sentences(text: str, sentences: list[str]) -> None:
    assert split(text, eager_first=False) == sentences


def test_a_sentence_is_released_as_soon_as_the_next_one_starts() -> None:
    splitter = SentenceSplitter(eager_first=False)
    assert splitter.feed("The capital of France is Paris.") == []  # might still be "Paris.com"
    assert splitter.feed(" It") == ["The capital of France is Paris."]


def test_the_first_long_clause_is_released_at_a_comma() -> None:
    text = "Well, the capital of the country of France is Paris, which is a lovely city. Indeed."
    assert split(text) == ["Well, the capital of the country of France is Paris,", "which is a lovely city.", "Indeed."]


def test_a_run_without_punctuation_is_cut_at_the_bound() -> None:
    text = " ".join(f"word{i}" for i in range(80))
    parts = split(text, eager_first=False, max_chars=60)
    assert all(len(p) <= 60 for p in parts)
    assert " ".join(parts) == text


def test_the_longest_sentence_is_one_piece_at_the_bound() -> None:
    # The bench synthesizes it as the voice's biggest piece of work: it must be just that.
    assert split(LONGEST_SENTENCE, eager_first=False) == [LONGEST_SENTENCE]
    assert MAX_SENTENCE_CHARS - 10 <= len(LONGEST_SENTENCE) <= MAX_SENTENCE_CHARS


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "Plants make food through photosynthesis, using light. They grow, too.",
            ["Plants make food through photosynthesis,", "using light.", "They grow, too."],
        ),
        (
            "A black hole is a region in space where nothing escapes. Yes.",
            ["A black hole is a region in space,", "where nothing escapes.", "Yes."],
        ),
        ("Cats purr when happy. Yes.", ["Cats purr when happy.", "Yes."]),
        ("In the morning, it rains. Yes.", ["In the morning,", "it rains.", "Yes."]),
        ("It rains, mostly. Yes.", ["It rains, mostly.", "Yes."]),
        ("The seasons are caused by the tilt. Yes.", ["The seasons are caused,", "by the tilt.", "Yes."]),
        # cut before a word, the clause ends in a comma: the sentence goes on
        (
            "Vaccines work by introducing a weakened or inactivated virus. Yes.",
            ["Vaccines work by introducing a weakened,", "or inactivated virus.", "Yes."],
        ),
        ("The capital of France is Paris. Yes.", ["The capital of France is Paris.", "Yes."]),
        ("Sorry, I can't know that offline. Yes.", ["Sorry, I can't know that offline.", "Yes."]),  # "that": no clause
        # the answer to a yes-or-no question says it first: the rest backs it up
        ("No, the heart is on the left side. Yes.", ["No,", "the heart is on the left side.", "Yes."]),
        ("yes, a penguin is a bird.", ["yes,", "a penguin is a bird."]),
        ("Yes. A penguin is a bird.", ["Yes.", "A penguin is a bird."]),
        ("Nobody knows, sadly. Yes.", ["Nobody knows, sadly.", "Yes."]),
    ],
)
def test_the_first_clause_is_released_at_a_comma_or_before_a_clause_word(text: str, sentences: list[str]) -> None:
    assert split(text) == sentences


def test_a_lower_case_sentence_after_a_long_word_starts_a_new_sentence() -> None:
    text = "sleep keeps the body working properly. it helps a lot."
    assert split(text, eager_first=False) == ["sleep keeps the body working properly.", "it helps a lot."]


def test_a_short_word_with_a_period_before_lower_case_may_be_an_abbreviation() -> None:
    assert split("See vol. two of it. Done.", eager_first=False) == ["See vol. two of it.", "Done."]


def test_a_reply_that_comes_whole_is_cut_where_the_same_words_streamed_would_be() -> None:
    reply = "I don't know the time: nothing has set my clock since I was switched on. Tell me."
    splitter = SentenceSplitter()
    assert splitter.feed(reply) == ["I don't know the time:", "nothing has set my clock since I was switched on."]
    assert splitter.flush() == "Tell me."
    assert SentenceSplitter().feed("It's 4:05 am. Yes.") == ["It's 4:05 am."]  # no clause to cut off
