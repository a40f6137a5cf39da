"""The config file: TOML parsed into a validated Config, in one place."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any, Final, get_type_hints

from daemon.config.schema import fields_of, lab_only
from daemon.config.sections import Config
from daemon.config.validate import unknown_key
from daemon.errors import ConfigError

DEFAULT_CONFIG_PATH: Final = Path("/etc/talkbox/talkbox.toml")
MAX_FILE_CHARS: Final = 1 << 20
"""The longest config file read, in characters: hundreds of times the longest sensible one."""
# NOTE: tomllib reads a basic string character by character, 2.4 s for 50 MB on x86-64 before any bound is checked.
# A longer file is refused by its size at once, naming the key a copy with every long line cut shows too long.
_KEPT_CHARS: Final = 8192
"""Of a cut line, this many characters are kept at each end: more than any text setting takes."""


def parse(text: str, origin: str = "<config>") -> Config:
    """Parse TOML text into a validated Config."""
    if len(text) > MAX_FILE_CHARS:
        raise _too_large(text, origin)
    data = _toml(text, origin)
    sections = get_type_hints(Config)
    unknown = sorted(set(data) - set(sections))
    if unknown:
        raise ConfigError(
            "config-unknown-key",
            f"[{unknown[0]}] is not a section; known sections: {', '.join(sorted(sections))}",
        )
    parts = {name: _build(sections[name], name, table) for name, table in data.items()}
    return Config(**parts)


def _toml(text: str, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError("config-syntax", f"{origin} is not valid TOML: {err}") from err
    except RecursionError as err:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigError("config-syntax", f"{origin} is not valid TOML: arrays or tables nested too deeply") from err
    except ValueError as err:  # an integer of more digits than Python converts (4300)
        raise ConfigError("config-syntax", f"{origin} is not valid TOML: {err}") from err


def _build(cls: type[Any], section: str, table: Any) -> Any:
    """Build one subsystem dataclass from its TOML table, refusing unknown keys."""
    if not isinstance(table, dict):
        raise ConfigError("config-invalid", f"[{section}] must be a table, not {table!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(table) - names)
    if unknown:
        raise unknown_key(section, cls, unknown[0])
    schema = fields_of(cls)
    if lab := sorted(name for name in table if lab_only(schema[name])):
        message = f"{section}.{lab[0]} is a switch for measurements (talkbox eval, bench), not a setting of the box"
        raise ConfigError("config-unknown-key", message)
    return cls(**table)


def _too_large(text: str, origin: str) -> ConfigError:
    """The refusal of a file longer than MAX_FILE_CHARS, naming the key too long if a cut copy shows it."""
    lines = text.split("\n")
    cut = "\n".join(s if len(s) <= 2 * _KEPT_CHARS else s[:_KEPT_CHARS] + s[-_KEPT_CHARS:] for s in lines)
    if len(cut) <= MAX_FILE_CHARS:
        try:
            parse(cut, origin)
        except ConfigError as err:
            if err.code == "config-invalid":
                return err
    return ConfigError(
        "config-too-large", f"{origin} is {len(text)} characters long; at most {MAX_FILE_CHARS} are read"
    )


def load(path: Path | None = None) -> Config:
    """Load the config from `path`, or the default path if it exists, or pure defaults."""
    if path is None:
        if not DEFAULT_CONFIG_PATH.exists():
            return Config()
        path = DEFAULT_CONFIG_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise ConfigError("config-missing", f"config file {path} does not exist") from err
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError("config-unreadable", f"cannot read config file {path}: {err}") from err
    return parse(text, str(path))
