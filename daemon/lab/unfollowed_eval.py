"""What the box says to a request for one of its own jobs (a timer, an alarm, the volume...) that no skill read: the
model's answer, and what the box says instead when the request names the job (daemon/skills/unfollowed.py).

Every such request of daemon/skills/skill_phrases.toml typed, and said by the hearing evaluation's voices and heard by
the box's recogniser; those the box's routing (templates, then meaning) leaves are asked of the box with skills off,
which is what the model said to them before; each answer judged: a promise or an echo, a phone's steps, a refusal
or something else.

Run: `python -m daemon.lab.unfollowed_eval [--config PATH] [--typed-only] [--json]` (about 20 minutes here).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from daemon.box.asking import ask_here
from daemon.config import Config, SkillsConfig, StateConfig
from daemon.config.file import load as load_config
from daemon.engines.load import load_engines, load_meaning, load_stt
from daemon.lab.answers_eval import greedy
from daemon.lab.evaluation import skills as ev
from daemon.lab.evaluation.answers import REFUSED
from daemon.lab.evaluation.skill_phrases import PHRASES
from daemon.lab.evaluation.voices import all_voices
from daemon.lab.meaning_folds import by_meaning
from daemon.skills.unfollowed import REPLIES, job_of

ACTING: Final = frozenset(
    {"timer_start", "timer_cancel", "alarm_set", "alarm_cancel", "reminder_cancel", "volume", "forget", "set_time"}
    | {"pace"}
)
"""The skills that do something: a request for one answered by the model leaves the listener waiting for it."""
PROMISED: Final = re.compile(
    r"^(?:sure|of course|certainly|absolutely|okay|ok|alright|all right|done|no problem|got it|will do|here's|"
    r"here is|counting|understood)\b|\b(?:i'll|i will|i've|i have|i'm going to|let me|i can (?!'t))\b|"
    r"^(?:set|start|stop|cancel|turn|the (?:current |correct )?time is)\b"
)
"""An answer that says or suggests it was done: an acknowledgement, a promise, the request said back."""
STEPS: Final = re.compile(r"\b(?:you can|follow these steps|open your|your (?:device|phone)'s|use a timer app)\b")
"""An answer telling the listener how to do it on some other device."""


@dataclass(frozen=True)
class Left:
    """One request the routing left, as heard, what the model said to it and what the box says now."""

    said: str
    skill: str
    mode: str
    half: str
    heard: str
    model: str
    now: str


def judged(answer: str) -> str:
    """ "promised", "steps", "refused" or "other"."""
    said = answer.strip().lower().replace("\u2019", "'")
    if said in (reply.lower() for reply in REPLIES.values()):
        return "told nothing was done"
    if PROMISED.search(said) and not re.search(REFUSED, said):
        return "promised"
    if STEPS.search(said):
        return "steps"
    return "refused" if re.search(REFUSED, said) else "other"


def gather(config: Config, typed_only: bool) -> list[Left]:
    """The requests the routing leaves, each with the model's answer and the box's now."""
    phrases = [p for p in PHRASES if p.skill in ACTING]
    said = [(p, "typed", p.text) for p in phrases]
    if not typed_only:
        stt = load_stt(config)
        said += list(ev.spoken(phrases, all_voices(config), stt, print))
        stt.close()
    meaning = load_meaning(config)
    read = by_meaning(meaning) if meaning is not None else None
    left = [(p, mode, heard) for p, mode, heard in said if read is None or read(heard) is None]
    if meaning is not None:
        meaning.close()
    with tempfile.TemporaryDirectory(prefix="talkbox-unfollowed-") as state:
        alone = dataclasses.replace(config, skills=SkillsConfig(enabled=False), state=StateConfig(state))
        engines = load_engines(alone, lambda stage, fraction: None)
        rows = []
        for p, mode, heard in left:
            model = ask_here(alone, engines, heard).answer
            engines.memory.forget()
            job = job_of(heard)
            now = REPLIES[job] if job is not None else model
            rows.append(Left(p.text, p.skill, "typed" if mode == "typed" else "spoken", ev.split(p), heard, model, now))
    return rows


def table(rows: Sequence[Left]) -> str:
    """Per mode and half: the requests left, and how the model's answers and the box's now are judged."""
    out = []
    for mode in ("typed", "spoken"):
        for half in ("tune", "held-out"):
            part = [r for r in rows if r.mode == mode and r.half == half]
            if not part:
                continue
            before, after = Counter(judged(r.model) for r in part), Counter(judged(r.now) for r in part)
            out.append(f"{mode} {half}: {len(part)} requests left by the routing")
            out.append(f"  the model's answers: {dict(before.most_common())}")
            out.append(f"  the box's now:       {dict(after.most_common())}")
    return "\n".join(out)


def main() -> None:
    """Print the table (and every row with --json)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--typed-only", action="store_true")
    parser.add_argument("--json", action="store_true", help="every request left, heard and answered")
    args = parser.parse_args()
    rows = gather(greedy(load_config(args.config)), args.typed_only)
    if args.json:
        print(json.dumps([dataclasses.asdict(r) for r in rows], indent=1))
    print(table(rows))


if __name__ == "__main__":
    main()
