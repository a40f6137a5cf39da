"""The schema: every key typed, bounded and documented, checked wherever a config is made, refused by its name."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import pytest

from daemon.config import (
    SYSTEM_PROMPT_MAX_CHARS,
    ButtonConfig,
    Config,
    DisplayConfig,
    ListenConfig,
    LlmConfig,
    doc,
    file,
    parse,
)
from daemon.config.schema import fields_of
from daemon.errors import ConfigError

SECTIONS = {f.name: type(getattr(Config(), f.name)) for f in dataclasses.fields(Config)}
DOCS = Path(__file__).parents[2] / "docs" / "configuration.md"


def test_a_50_mb_system_prompt_is_refused_at_once_by_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []
    loads = tomllib.loads

    def reading(text: str) -> dict[str, Any]:
        read.append(len(text))
        return loads(text)

    monkeypatch.setattr(tomllib, "loads", reading)
    with pytest.raises(ConfigError) as refused:
        parse('[llm]\nsystem_prompt = "' + "a" * 50_000_000 + '"\n', "talkbox.toml")
    assert read and max(read) <= file.MAX_FILE_CHARS  # refused by its size: the 50 MB were never parsed
    assert refused.value.code == "config-invalid"
    assert refused.value.message.startswith("llm.system_prompt = ")
    assert f"at most {SYSTEM_PROMPT_MAX_CHARS} characters" in refused.value.message
    assert len(refused.value.message) < 300  # named, not printed


def test_a_system_prompt_up_to_the_bound_is_taken() -> None:
    longest = "Be brief. " * (SYSTEM_PROMPT_MAX_CHARS // 10)
    assert parse(f'[llm]\nsystem_prompt = "{longest}"\n').llm.system_prompt == longest
    with pytest.raises(ConfigError, match=r"^llm\.system_prompt = "):
        parse(f'[llm]\nsystem_prompt = "{longest}!"\n')


def test_a_huge_file_of_comments_is_refused_by_its_size() -> None:
    with pytest.raises(ConfigError) as refused:
        parse("# " + "x" * (file.MAX_FILE_CHARS + 1) + "\n", "talkbox.toml")
    assert refused.value.code == "config-too-large" and "talkbox.toml" in refused.value.message


def test_replace_and_construction_are_checked_like_a_file() -> None:
    listen = ListenConfig()
    assert dataclasses.replace(listen, follow_up_s=0).follow_up_s == 0.0
    with pytest.raises(ConfigError, match=r"^listen\.follow_up_s = 40\.0 is not allowed: 0\.0\.\.30\.0 "):
        dataclasses.replace(listen, follow_up_s=40.0)
    with pytest.raises(ConfigError, match=r"listen\.min_silence_s .*listen\.trailing_silence_s"):
        ListenConfig(trailing_silence_s=0.5, min_silence_s=0.6)
    with pytest.raises(ConfigError, match=r"button\.forget_hold_s"):
        ButtonConfig(forget_hold_s=9.0, shutdown_hold_s=8.0)
    with pytest.raises(ConfigError) as unknown:
        LlmConfig(temprature=0.5)  # type: ignore[call-arg]
    assert unknown.value.code == "config-unknown-key" and "temperature" in unknown.value.message
    with pytest.raises(dataclasses.FrozenInstanceError):
        listen.follow_up_s = 1.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("[display]\nheight = true\n", ["display.height = True", "int"]),
        ("[display]\nheight = 64.0\n", ["display.height = 64.0", "int"]),
        ("[display]\nheight = 48\n", ["display.height = 48", "32 or 64"]),
        ("[serial]\nbaudrate = 1000\n", ["serial.baudrate", "9600, 19200"]),
        ('[audio]\ninput = "pulse"\n', ["audio.input", '"alsa" or "alsa:NAME"']),
        ('[llm]\nsha256 = "ABC"\n', ["llm.sha256", "64 lower-case hex digits"]),
        ('[models]\nprofile = " "\n', ["models.profile", "not blank"]),
        ("[wake]\nthreshold = 1\n", ["wake.threshold", "below 1.0"]),
        ("[llm]\ntemperature = 1" + "0" * 5000 + "\n", ["not valid TOML", "4300 digits"]),
    ],
)
def test_choices_bounds_and_rules_name_the_key(text: str, needles: list[str]) -> None:
    with pytest.raises(ConfigError) as refused:
        parse(text)
    for needle in needles:
        assert needle in refused.value.message


@pytest.mark.parametrize("section", SECTIONS)
def test_every_key_has_a_doc(section: str) -> None:
    undocumented = [name for name, info in fields_of(SECTIONS[section]).items() if not info.description]
    assert not undocumented, f"[{section}] keys without a docstring: {undocumented}"


def test_the_defaults_pass_their_own_schema() -> None:
    assert parse("") == Config()
    assert DisplayConfig(height=32).height == 32


def test_docs_configuration_md_is_what_the_schema_writes() -> None:
    assert DOCS.read_text(encoding="utf-8") == doc.render(), "run: python -m daemon.config.doc > docs/configuration.md"


def test_switches_for_measurements_are_not_read_from_the_users_file() -> None:
    for key in ("predict_end", "prefill", "speculate"):
        with pytest.raises(ConfigError) as refused:
            parse(f"[listen]\n{key} = false\n")
        assert refused.value.message.startswith(f"listen.{key} is a switch for measurements")
        assert f"`{key}`" not in doc.render()
    assert not ListenConfig(speculate=False).speculate  # the lab still turns them, in code
