"""The schema's vocabulary: checked text, rules and bounds, each said in words for errors and for the docs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, Any, Final

from pydantic import AfterValidator, ConfigDict, Field, GetCoreSchemaHandler
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError, core_schema

SCHEMA: Final = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, use_attribute_docstrings=True)
"""TOML's types as they are (an int is taken for a float, nothing else is converted), finite numbers, no strangers,
and the field docstrings as the schema's descriptions."""

PATH_MAX_CHARS: Final = 4096
"""Linux's PATH_MAX: no longer path, model name or device URL can be opened."""


def _usable(text: str) -> str:
    # NOTE: TOML's "\u0000" escape is legal, but a NUL in a path or device name fails deep inside the OS; so does a
    # lone surrogate ("\udc80"), which cannot even be encoded to be passed on.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise PydanticCustomError("config_rule", "text without NUL or unpaired surrogates") from None
    if "\0" in text:
        raise PydanticCustomError("config_rule", "text without NUL or unpaired surrogates")
    return text


Usable: Final = AfterValidator(_usable)
"""Text the OS and the models can take: no NUL, no unpaired surrogate."""

Text = Annotated[str, Field(max_length=PATH_MAX_CHARS), Usable]
"""A path, a name or a device: usable text no longer than a path can be."""


@dataclasses.dataclass(frozen=True)
class Rule:
    """A check no bound can say, and what it allows in words ("64 lower-case hex digits")."""

    test: Callable[[Any], bool]
    said: str

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        """The value's own schema, then the test."""
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def _check(self, value: Any) -> Any:
        if not self.test(value):
            raise PydanticCustomError("config_rule", self.said)
        return value


def one_of(*choices: str | int) -> Rule:
    """A rule: one of `choices`, checked after the type (so TOML's `true` is never the 1 of a choice)."""
    return Rule(lambda value: value in choices, _either(choices))


def _either(choices: tuple[str | int, ...]) -> str:
    words = [str(c) if c != "" else '""' for c in choices]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


@dataclasses.dataclass(frozen=True)
class Measuring:
    """Marks a switch the lab turns to compare (talkbox eval, bench): not read from the user's file, not in its doc."""


LAB: Final = Measuring()


def lab_only(info: FieldInfo) -> bool:
    """True for a switch only measurements turn."""
    return any(isinstance(m, Measuring) for m in info.metadata)


def fields_of(cls: type[Any]) -> dict[str, FieldInfo]:
    """The schema of a validated dataclass, field by field."""
    fields: dict[str, FieldInfo] = cls.__pydantic_fields__
    return fields


def type_name(info: FieldInfo) -> str:
    """A field's Python type by name: bool, int, float, str."""
    return getattr(info.annotation, "__name__", str(info.annotation))


_BOUND_WORDS: Final = {"ge": "at least", "gt": "above", "le": "at most", "lt": "below", "multiple_of": "a multiple of"}


def allowed(info: FieldInfo) -> str:
    """What a field allows, in words: "0.1..2.0", "webrtc or silero", "at most 4000 characters"; empty if any."""
    rules = [m.said for m in info.metadata if isinstance(m, Rule)]
    if rules:
        return "; ".join(rules)
    bound = {k: getattr(m, k) for m in info.metadata for k in _BOUND_WORDS if getattr(m, k, None) is not None}
    words = []
    if "ge" in bound and "le" in bound:
        words.append(f"{bound.pop('ge')!r}..{bound.pop('le')!r}")
    words += [f"{_BOUND_WORDS[k]} {v!r}" for k, v in bound.items()]
    words += [f"at most {m.max_length} characters" for m in info.metadata if getattr(m, "max_length", None)]
    if not words and info.annotation is bool:
        words.append("true or false")
    return ", ".join(words)
