"""The hearing judge: SmolLM2-135M weighing Whisper's guesses as what a person says to the box."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from daemon.config import Config, SttConfig
from daemon.engines.judge import SentenceJudge
from daemon.engines.whisper import JUDGE_MARGIN, judged
from daemon.errors import ModelError
from daemon.modelstore.select import select_judge


@pytest.fixture(scope="module")
def judge(dev_config: Config) -> Iterator[SentenceJudge]:
    selected = select_judge(dev_config)
    assert selected is not None, "the dev profile names a judge"
    made = SentenceJudge(selected.path)
    yield made
    made.close()


def test_a_question_with_real_words_is_likelier_than_the_recogniser_s_slip(judge: SentenceJudge) -> None:
    # The slips are Whisper tiny.en's own first guesses on the tune half's spoken questions.
    for said, slip in (
        ("How many hearts does an octopus have?", "How many hearts does an acupus have?"),
        ("Why does ice float?", "Why does eyes float?"),
        ("What is an atom?", "What is an alarm?"),
        ("When is the next bus into town?", "When is the next bus into down?"),
    ):
        right, wrong = judge([said, slip]) or (0.0, 0.0)
        assert wrong < right < 0, (said, right, wrong)


def test_guesses_judged_together_score_as_each_judged_alone(judge: SentenceJudge) -> None:
    # Together, the words they open with alike are read once; the scores must not depend on it.
    guesses = ["What's the longest bone in the human body?", "What's the longest mode in the human body?", "What's"]
    together = judge(guesses)
    alone = [(judge([guess]) or [0.0])[0] for guess in guesses]
    assert together == pytest.approx(alone, abs=1e-3)


def test_a_sentence_too_long_to_judge_is_left_to_the_recogniser(judge: SentenceJudge) -> None:
    assert judge(["and then " * 80, "and them " * 80]) is None
    assert judged([("and then " * 80, -0.3), ("and them " * 80, -0.31)], judge) == ("and then " * 80, -0.3)


def test_the_judge_is_the_profile_s_unless_the_config_turns_it_off_or_names_another(dev_config: Config) -> None:
    profile_s = select_judge(dev_config)
    assert profile_s is not None and profile_s.name == "smollm2-135m-instruct-q4_1"
    assert select_judge(dataclasses.replace(dev_config, stt=SttConfig(judge="none"))) is None
    with pytest.raises(ModelError) as raised:
        select_judge(dataclasses.replace(dev_config, stt=SttConfig(judge="whisper-tiny-en")))
    assert raised.value.code == "model-wrong-role" and "stt.judge" in raised.value.message


def test_a_judge_whose_model_is_damaged_is_refused(tmp_path: Path, dev_config: Config) -> None:
    selected = select_judge(dev_config)
    assert selected is not None
    cut = tmp_path / "judge.gguf"
    cut.write_bytes(selected.path.read_bytes()[: 4 << 20])
    with pytest.raises(ModelError) as raised:
        SentenceJudge(cut)
    assert raised.value.code == "judge-model-corrupt"


def test_a_model_without_a_chatml_template_cannot_judge(tmp_path: Path, dev_config: Config) -> None:
    selected = select_judge(dev_config)
    assert selected is not None
    data = selected.path.read_bytes()
    key = b"tokenizer.chat_template"
    assert data.count(key) == 1
    # The key renamed, its length kept: the file stays a valid GGUF whose model has no chat template.
    renamed = tmp_path / "untemplated.gguf"
    renamed.write_bytes(data.replace(key, b"tokenizer.chat_templatX"))
    with pytest.raises(ModelError) as raised:
        SentenceJudge(renamed)
    assert raised.value.code == "judge-model-unsuitable"


class Preferring:
    """A judge that finds likelier the sentences holding a word it is given (the Judge port, in-process)."""

    def __init__(self, word: str) -> None:
        self.word = word
        self.asked: list[list[str]] = []

    def __call__(self, sentences: Sequence[str]) -> list[float]:
        self.asked.append(list(sentences))
        return [-1.0 if self.word in sentence.lower() else -3.0 for sentence in sentences]

    def close(self) -> None:
        """Nothing to free."""


def test_the_judge_picks_among_nearly_as_likely_guesses_only() -> None:
    octopus = Preferring("octopus")
    guesses = [("How many hearts does an acupus have?", -0.40), ("How many hearts does an octopus have?", -0.45)]
    assert judged(guesses, octopus) == guesses[1]
    far = [guesses[0], (guesses[1][0], guesses[0][1] - JUDGE_MARGIN - 0.01)]
    assert judged(far, octopus) == far[0]  # too unlikely to Whisper: not weighed
    assert len(octopus.asked) == 1


def test_guesses_that_differ_only_in_spelling_or_add_words_around_what_was_heard_are_not_weighed() -> None:
    what = Preferring("what")
    heard = ("Is the baby asleep?", -0.30)
    guesses = [
        heard,
        ("is the baby asleep.", -0.31),  # the same words
        ("What is the baby asleep?", -0.32),  # words put before all that was heard
        ("Is the baby asleep? Is the baby asleep?", -0.33),  # said again
        ("What time is it?", -0.34),  # the recogniser's prompt
    ]
    assert judged(guesses, what) == heard
    assert what.asked == []  # nothing left to weigh: the judge is not asked
