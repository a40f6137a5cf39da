"""The one way a config value is refused: naming the key, the bad value and what is allowed."""

from __future__ import annotations

from daemon.errors import ConfigError


def check(ok: bool, key: str, value: object, allowed: str) -> None:
    """Raise a ConfigError naming the key, the bad value and what is allowed."""
    if not ok:
        raise ConfigError("config-invalid", f"{key} = {value!r} is not allowed: {allowed}")
