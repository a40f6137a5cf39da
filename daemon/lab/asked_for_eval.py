"""Requests that leave out a length or a clock time, asked for and answered (`skills/asked_for_dialogs.toml`): typed,
routed and run as the box does, then what is set compared with what the person meant.

    python -m daemon.lab.asked_for_eval [--voices N] [--json]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from daemon.box.asking import SilentSink
from daemon.config import Config
from daemon.config.file import load
from daemon.engines.load import load_meaning
from daemon.ports import RequestReader
from daemon.skills.clock import BoxClock
from daemon.skills.learned import tuned_on
from daemon.skills.reminders import Kind
from daemon.skills.skills import Skills
from daemon.turn.volume import VolumeSink

VOICE_STRIDE: Final = 4
"""Voices a dialog is said by are this far apart in the list, so that one dialog meets unlike voices."""


@dataclass(frozen=True)
class Dialog:
    """A request, the answer given when asked for what it left out, and what that should set."""

    request: str
    answer: str
    kind: str
    seconds: int | None
    at: tuple[int, int] | None
    note: str

    @property
    def half(self) -> str:
        """Its half, by a stable hash of both sentences: tune or held-out."""
        return "tune" if tuned_on(f"{self.request}\x1f{self.answer}") else "held-out"


def dialogs() -> list[Dialog]:
    """Every dialog of the set."""
    text = resources.files("daemon.skills").joinpath("asked_for_dialogs.toml").read_text()
    return [
        Dialog(
            d["request"],
            d["answer"],
            d["kind"],
            d.get("seconds"),
            (d["hour"], d.get("minute", 0)) if "hour" in d else None,
            d.get("note", ""),
        )
        for d in tomllib.loads(text)["dialog"]
    ]


def outcome(dialog: Dialog, heard: tuple[str, str], meaning: RequestReader | None) -> tuple[bool, str, str]:
    """Whether the request was asked about, the outcome (right, right but its note as heard, wrong, a yes asked for,
    nothing set) and what the box said last, for the request and the answer `heard` as they were (typed: the
    dialog's own words), with the box's reading by `meaning` (none: its templates alone)."""
    skills = Skills(BoxClock("system"), VolumeSink(SilentSink()), "eval", now_boot=lambda: 1000.0, meaning=meaning)
    first = skills.route(heard[0])
    asked = first is not None and first.skill == "remind_when" and first.args.get("request") is not None
    if first is not None:
        skills.run(first)
    call = skills.route(heard[1])
    said = skills.run(call).text if call is not None else "(the model's)"
    held = skills.reminders.all()
    if not held and skills.waiting() is not None and dialog.kind != "none":
        return asked, "a yes asked for", said  # NOTE: read by meaning, loosely: set only after a yes
    if dialog.kind == "none" or not held:
        return asked, "right" if not held and dialog.kind == "none" else ("wrong" if held else "nothing set"), said
    (one,) = held if len(held) == 1 else (None,)
    if one is None:
        return asked, "wrong", said
    note = re.sub(r"\byour\b", "my", one.note)  # NOTE: a reminder is said back, and kept, in the second person
    if dialog.seconds is not None:
        right = one.kind is Kind.TIMER and one.seconds == dialog.seconds
    else:
        right = one.kind is Kind.ALARM and (one.hour, one.minute) == dialog.at
    if right and note != dialog.note:
        return asked, "right, its note as heard", said  # NOTE: the words of the note misheard ("call the endist")
    return asked, "right" if right else "wrong", said


def spoken(voices: int, config: Config) -> list[tuple[Dialog, str, tuple[str, str]]]:
    """Each dialog's request and answer said by `voices` of the evaluation's voices and heard by the box's
    recogniser, as (dialog, voice, the words heard)."""
    from daemon.engines.load import load_stt
    from daemon.lab.evaluation.skills import hear
    from daemon.lab.evaluation.voices import all_voices

    every, stt = all_voices(config), load_stt(config)
    said = []
    try:
        for i, dialog in enumerate(dialogs()):
            for k in range(voices):
                voice = every[(i + k * VOICE_STRIDE) % len(every)]
                heard = (
                    hear(stt, voice.render(dialog.request).tobytes()),
                    hear(stt, voice.render(dialog.answer).tobytes()),
                )
                said.append((dialog, voice.name, heard))
    finally:
        stt.close()
    return said


def report(meaning: RequestReader | None, said: list[tuple[Dialog, str, tuple[str, str]]]) -> dict[str, Any]:
    """Outcomes per way said (typed, spoken), half and kind, and every dialog not right."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    misses = []
    for dialog, mode, heard in said:
        asked, result, reply = outcome(dialog, heard, meaning)
        kind = f"{'typed' if mode == 'typed' else 'spoken'} {dialog.half} {dialog.kind}"
        counts[kind][result] += 1
        counts[kind]["asked"] += asked
        if result != "right":
            miss = {"half": dialog.half, "mode": mode, "heard": " / ".join(heard), "outcome": result}
            misses.append({**miss, "said": reply})
    return {"per_kind": {kind: dict(c) for kind, c in sorted(counts.items())}, "misses": misses}


def main() -> None:
    """Print the outcomes (`--json`: as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--config", type=Path, default=None, help="the box's config (default: its own)")
    parser.add_argument("--voices", type=int, default=0, help="voices each dialog is also said by (0: typed only)")
    args = parser.parse_args()
    config = load(args.config)
    said = [(d, "typed", (d.request, d.answer)) for d in dialogs()]
    said += spoken(args.voices, config) if args.voices else []
    result = report(load_meaning(config), said)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for kind, c in result["per_kind"].items():
        total = sum(v for k, v in c.items() if k != "asked")
        print(
            f"{kind:26} right {c.get('right', 0)}/{total}, right but its note as heard "
            f"{c.get('right, its note as heard', 0)}, "
            f"wrong {c.get('wrong', 0)}, a yes asked for "
            f"{c.get('a yes asked for', 0)}, nothing set {c.get('nothing set', 0)}; asked {c.get('asked', 0)}"
        )
    for miss in result["misses"]:
        print(f"  {miss['mode']} {miss['half']}: {miss['heard']!r}: {miss['outcome']} ({miss['said']})")


if __name__ == "__main__":
    main()
