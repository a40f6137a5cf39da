"""Config parsing: defaults work with no file, and every error names the key, value and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from daemon import config
from daemon.config import file as config_file
from daemon.errors import ConfigError


def test_defaults_need_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_file, "DEFAULT_CONFIG_PATH", tmp_path / "absent.toml")  # where load() reads it
    cfg = config.load(None)
    assert cfg.llm.context_tokens % 256 == 0
    assert cfg.models.profile == "dev"


def test_values_are_read_and_ints_accepted_for_floats() -> None:
    cfg = config.parse("[llm]\ncontext_tokens = 4096\ntemperature = 1\n[tts]\nlength_scale = 1.2\n")
    assert cfg.llm.context_tokens == 4096
    assert cfg.llm.temperature == 1.0
    assert cfg.tts.length_scale == 1.2


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("[llm]\ncontext_tokens = 1000\n", ["llm.context_tokens", "1000", "multiple of 256"]),
        ('[llm]\ncontext_tokens = "big"\n', ["llm.context_tokens", "'big'", "int"]),
        ("[llm]\nthreads = true\n", ["llm.threads", "True", "int"]),
        ('[llm]\nomp_wait_policy = "SPIN"\n', ["llm.omp_wait_policy", "BRIEF, PASSIVE or ACTIVE"]),
        ("[llm]\ncontxt_tokens = 2048\n", ["llm.contxt_tokens", "context_tokens"]),
        ("[speaker]\nvolume = 1\n", ["[speaker]", "llm"]),
        ("[tts]\nvolume = 9.0\n", ["tts.volume", "9.0", "0.1..2.0"]),
        ("[llm\ncontext_tokens = 2048\n", ["not valid TOML"]),
        ("llm = 3\n", ["[llm] must be a table"]),
    ],
)
def test_errors_name_key_value_and_allowed(text: str, needles: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        config.parse(text, "test.toml")
    for needle in needles:
        assert needle in info.value.message


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        config.load(tmp_path / "nope.toml")
