"""Arbitrary TOML text and values: a ConfigError with a clear message or a valid Config, nothing else."""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from daemon import config as config_mod
from daemon.config import Config, parse
from daemon.engines.load import check_config
from daemon.errors import EXIT_CONFIG, ConfigError, TalkboxError
from tests.fuzzing import FUZZ

SECTIONS = {f.name: type(getattr(Config(), f.name)) for f in dataclasses.fields(Config)}
KEYS = {name: [f.name for f in dataclasses.fields(section)] for name, section in SECTIONS.items()}
CODES = {"config-syntax", "config-invalid", "config-unknown-key", "config-unreadable", "config-too-large"}


def toml_value(value: Any) -> str:
    """`value` written as TOML (inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string (\\uXXXX escapes included)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    return str(value)  # int, datetime


scalars = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(-(10**400), 10**400).filter(lambda n: abs(n) >= 2**63),  # beyond TOML's 64 bits
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(["", " ", "\x00", "alsa", "alsa:\x00", "/dev/null", "-1", "0x3C", "dev", "PASSIVE", "mock"]),
    st.datetimes(min_value=datetime.datetime(1, 1, 1), max_value=datetime.datetime(9999, 12, 31)),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """TOML mostly made of real sections and keys, with arbitrary values (and sometimes strangers)."""
    lines = []
    for section in draw(st.lists(st.sampled_from([*SECTIONS, "bogus"]), max_size=4, unique=True)):
        lines.append(f"[{section}]")
        keys = KEYS.get(section, ["x"])
        for key in draw(st.lists(st.sampled_from([*keys, "nonsense"]), max_size=4, unique=True)):
            value = draw(values)
            lines.append(f"{key} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def check(text: str) -> Config | None:
    """parse() gives a valid Config or a clear ConfigError, and nothing else."""
    try:
        cfg = parse(text, "fuzz.toml")
    except ConfigError as err:
        assert err.code in CODES, err
        assert err.message and len(err.message) < 2000
        if err.code == "config-invalid":
            assert " = " in err.message and "is not allowed" in err.message  # names key, value and what is allowed
        return None
    # A valid config: every string is usable as a path or a device name, every number is finite.
    for section in dataclasses.fields(cfg):
        part = getattr(cfg, section.name)
        for f in dataclasses.fields(part):
            value = getattr(part, f.name)
            if isinstance(value, str):
                value.encode("utf-8")
                assert "\x00" not in value, f"{section.name}.{f.name}"
            if isinstance(value, float):
                assert math.isfinite(value), f"{section.name}.{f.name}"
    return cfg


@FUZZ
@given(text=st.text(max_size=300))
@example(text="a = " + "[" * 100_000)
@example(text="a = " + "{x = " * 5000)
def test_arbitrary_text(text: str) -> None:
    check(text)


@FUZZ
@given(text=documents())
@example(text="[llm]\ntemperature = 1" + "0" * 400 + "\n")
@example(text="[llm]\nseed = 1" + "0" * 5000 + "\n")  # more digits than Python converts
@example(text='[llm]\nmodel = "\\u0000"\n')
@example(text="[display]\ni2c_port = -5\n")
@example(text="[display]\ndim_after_s = inf\n")
@example(text="[llm]\nseed = 9223372036854775807\n")
def test_real_keys_with_arbitrary_values(text: str) -> None:
    check(text)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("a = " + "[" * 100_000, "nested too deeply"),
        ("[llm]\ntemperature = 1" + "0" * 400 + "\n", "llm.temperature"),
        ('[llm]\nmodel = "a\\u0000b"\n', "llm.model"),
        ("[display]\ni2c_port = -5\n", "display.i2c_port"),
        ("[display]\ngpio_dc = 99\n", "display.gpio_dc"),
        ("[display]\ndim_after_s = inf\n", "display.dim_after_s"),
        ("[tts]\nnoise_scale = -inf\n", "tts.noise_scale"),
        ("[llm]\nseed = 9223372036854775807\n", "llm.seed"),
    ],
    ids=[
        "deep-nesting",
        "huge-int-for-float",
        "nul-in-path",
        "negative-i2c-bus",
        "gpio-99",
        "inf",
        "minus-inf",
        "seed",
    ],
)
def test_values_the_fuzzer_found_get_clear_errors(text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        parse(text)


@FUZZ
@given(data=st.binary(max_size=200))
def test_arbitrary_file_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "talkbox.toml"
    path.write_bytes(data)
    try:
        config_mod.load(path)
    except ConfigError as err:
        assert err.code in CODES and (str(path) in err.message or err.code != "config-syntax")


@settings(FUZZ, max_examples=25)  # each valid config's models are verified, as the box would
@given(text=documents())
@example(text='[models]\nprofile = "pi9"\n')
@example(text='[llm]\nmodel = "/"\n')
@example(text='[llm]\nsha256 = "00"\n')
def test_every_config_the_parser_takes_is_started_or_refused_with_a_line(models_dir: Path, text: str) -> None:
    cfg = check(text)
    if cfg is None:
        return
    cfg = dataclasses.replace(cfg, models=dataclasses.replace(cfg.models, dir=str(models_dir), manifest=""))
    try:
        check_config(cfg)
    except TalkboxError as err:  # what `config check` and `talkbox run` both stop with
        assert err.exit_status == EXIT_CONFIG and err.message and "[" not in err.code
