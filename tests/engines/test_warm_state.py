"""The system prompt's evaluated cache kept between starts: put back as it was, never a wrong or damaged one."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from daemon.config import Config
from daemon.engines.llm import LlamaModel
from daemon.engines.warm_state import FILE_NAME

QUESTIONS = ("Is a penguin a bird?", "What is the capital of France?")  # the first begins with the noted prompt


@pytest.fixture
def started() -> Iterator[list[LlamaModel]]:
    """Models started as the service starts them, closed afterwards."""
    made: list[LlamaModel] = []
    yield made
    for model in made:
        model.close()


def _start(made: list[LlamaModel], path: Path, config: Config, kept_in: Path) -> tuple[LlamaModel, list[float]]:
    """A model loaded and warmed up as at a start: the shares of its system prompt it told as read."""
    model = LlamaModel(path, config.llm, kept_in=kept_in)
    made.append(model)
    told: list[float] = []
    model.warm_up(told.append)
    return model, told


def _answers(model: LlamaModel) -> list[tuple[str, int]]:
    """Each question's answer alone, and the tokens evaluated for it."""
    said = []
    for question in QUESTIONS:
        model.conversation.forget()
        said.append(("".join(model.respond(question)), model.stats.evaluated_tokens))
    return said


def test_a_restart_puts_the_system_prompt_back_and_answers_as_if_it_had_read_it(  # type: ignore[no-untyped-def]
    started, dev_config: Config, llm: LlamaModel, tmp_path: Path
) -> None:
    first, told = _start(started, llm.model_path, dev_config, tmp_path)
    assert len(told) >= 2 and (tmp_path / FILE_NAME).exists()  # read in pieces, then kept
    read = _answers(first)
    again, told = _start(started, llm.model_path, dev_config, tmp_path)
    assert told == [1.0]  # put back at once
    put_back = _answers(again)
    assert [a for a, _ in put_back] == [a for a, _ in read]
    assert [n for _, n in put_back] == [n for _, n in read]  # neither prompt read again: the same few tokens


def test_a_damaged_or_foreign_kept_cache_is_read_again_not_used(  # type: ignore[no-untyped-def]
    started, dev_config: Config, llm: LlamaModel, tmp_path: Path
) -> None:
    first, _ = _start(started, llm.model_path, dev_config, tmp_path)
    read = _answers(first)
    kept = tmp_path / FILE_NAME
    whole = kept.read_bytes()
    flipped = bytearray(whole)
    flipped[-1000] ^= 0x10  # one bit of the cache itself, which llama.cpp would take as it is
    for damage in (whole[: len(whole) // 2], bytes(flipped)):  # a card pulled mid-write; a bit gone bad
        kept.write_bytes(damage)
        damaged, told = _start(started, llm.model_path, dev_config, tmp_path)
        assert len(told) >= 2  # read again
        assert _answers(damaged) == read
        assert kept.read_bytes() == whole  # and kept whole again
    prompt = dev_config.llm.system_prompt + " Keep it short."  # a configuration changed since it was kept
    other = dataclasses.replace(dev_config, llm=dataclasses.replace(dev_config.llm, system_prompt=prompt))
    _, told = _start(started, llm.model_path, other, tmp_path)
    assert len(told) >= 2  # read, not put back from the other prompt's cache
