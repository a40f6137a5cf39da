"""The one way a config value is refused: naming the key as the user writes it, the bad value and what is allowed."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast, dataclass_transform

from pydantic import Field, ValidationError
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic_core import ErrorDetails

from daemon.config import schema
from daemon.errors import ConfigError

SHOWN_MAX_CHARS: Final = 80
"""A refused value is quoted up to this long: a 50 MB prompt is named, not printed."""

_T = TypeVar("_T")


def check(ok: bool, key: str, value: object, allowed: str) -> None:
    """Raise a ConfigError naming the key, the bad value and what is allowed."""
    if not ok:
        raise invalid(key, value, allowed)


def invalid(key: str, value: object, allowed: str) -> ConfigError:
    """The ConfigError naming the key, the bad value and what is allowed."""
    return ConfigError("config-invalid", f"{key} = {shown(value)} is not allowed: {allowed}")


def shown(value: object) -> str:
    """`value` as the user might have written it, cut short when long."""
    if isinstance(value, str) and len(value) > SHOWN_MAX_CHARS:
        return f"{value[:SHOWN_MAX_CHARS]!r}…"
    text = repr(value)
    return text if len(text) <= SHOWN_MAX_CHARS else f"{text[:SHOWN_MAX_CHARS]}…"


def unknown_key(section: str, cls: type[Any], name: str) -> ConfigError:
    """The error for a key `cls` does not have, listing those it has."""
    known = ", ".join(sorted(f.name for f in dataclasses.fields(cls)))
    return ConfigError("config-unknown-key", f"{_key(section, name)} is not a setting; known keys: {known}")


def refusal(section: str, cls: type[Any], error: ValidationError) -> ConfigError:
    """Pydantic's first complaint about a `cls` as a ConfigError naming the key as the user writes it."""
    first = error.errors(include_url=False)[0]
    reason = first.get("ctx", {}).get("error")
    if isinstance(reason, ConfigError):  # a check across fields, already naming its key
        return reason
    name = str(first["loc"][0]) if first["loc"] else ""
    if first["type"] == "unexpected_keyword_argument":
        return unknown_key(section, cls, name)
    return invalid(_key(section, name), first["input"], _wanted(cls, first))


def _key(section: str, name: str) -> str:
    return f"{section}.{name}" if section else name


def _wanted(cls: type[Any], error: ErrorDetails) -> str:
    """What the field of `error` allows, in the words the docs use."""
    info = schema.fields_of(cls).get(str(error["loc"][0])) if error["loc"] else None
    value = error["input"]
    match error["type"]:
        case "finite_number":
            return "a finite number"
        case "float_type" if isinstance(value, int) and not isinstance(value, bool):
            return "a number of sensible size"  # beyond ~1e308 an int has no float
        case "int_type" | "float_type" | "string_type" | "bool_type" if info is not None:
            return f"a value of type {schema.type_name(info)}"
        case "string_too_long":
            return f"at most {error.get('ctx', {}).get('max_length')} characters"
        case "config_rule":
            return error["msg"]
    return (schema.allowed(info) if info is not None else "") or error["msg"]


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, Field))
def validated(section: str = "") -> Callable[[type[_T]], type[_T]]:
    """A frozen dataclass checked against its annotations, refusing a value with a ConfigError naming `section.key`.

    Construction validates, so `dataclasses.replace(config.listen, ...)` is checked as a parsed file is.
    """

    def build(cls: type[_T]) -> type[_T]:
        built = cast(type[_T], pydantic_dataclass(frozen=True, config=schema.SCHEMA)(cls))
        init = built.__init__

        @functools.wraps(init)
        def checked(self: _T, *args: Any, **kwargs: Any) -> None:
            try:
                init(self, *args, **kwargs)
            except ValidationError as err:
                raise refusal(section, built, err) from err

        built.__init__ = checked  # type: ignore[assignment,method-assign]
        return built

    return build
