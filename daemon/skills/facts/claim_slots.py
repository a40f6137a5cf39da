"""The words of a claim's slots: lower case, a tag at the end dropped, two names side by side split by the data."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from daemon.skills.call import Arg


def text(v: Mapping[str, object], name: str) -> str:
    """A slot's words, lower case, without a tag at its end."""
    return _TAG.sub("", " ".join(str(v.get(name) or "").lower().split()))


_TAG: Final = re.compile(
    r" (?:right|isn't it|is it|aren't they|don't they|doesn't it|correct|is that (?:right|true)|am i right|yes|yeah)$"
)
"""A claim's tag ("Sydney is the capital of Australia, right?"), left at the end of the last name."""


def split(
    v: Mapping[str, object], both: str, known: Callable[[str], object], known_last: bool = False
) -> tuple[str, str]:
    """The two names a slot holds side by side ("canada toronto"), the one `known` finds (first, or last) as long as it
    goes; ("", "") if it finds none."""
    words = text(v, both).split()
    for cut in range(len(words) - 1, 0, -1) if not known_last else range(1, len(words)):
        first, second = " ".join(words[:cut]), " ".join(words[cut:])
        if known(second if known_last else first) is not None:
            return first, second
    return "", ""


def asked(v: Mapping[str, object]) -> dict[str, Arg]:
    """How two things are compared: "more" (bigger, heavier, more people) or less, and asked which or yes or no."""
    return {"more": bool(v.get("more")), "which": bool(v.get("which"))}
