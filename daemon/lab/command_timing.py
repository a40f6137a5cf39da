"""Spoken commands timed from the last word through the box's assembly.

The split: the end of speech judged, the final transcript, the reply (a skill's, or Home Assistant's through the
bridge), the voice.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from daemon.box.rehearsal import speak_question
from daemon.config import Config
from daemon.lab.turn_timing import timed_turn, warm_up
from daemon.ports import Engines

SKILL_COMMANDS: Final = (
    "What time is it?",
    "Cancel the timer.",
    "Turn it up.",
    "What day is it?",
    "Set the volume to five.",
    "What is twelve times twelve?",
)
"""The box's own skills, short and long; closed ("what time is it") and ones that may go on ("cancel the timer ...
for the eggs"). None leaves anything behind that would sound during a later turn (a timer would)."""


def timed_commands(
    engines: Engines,
    config: Config,
    out: Path,
    commands: tuple[str, ...],
    say: Callable[[str], None] = print,
    control: Path | None = None,
) -> dict[str, Any]:
    """Each command spoken to the box: last word -> its reply sounding, split; medians and the worst.

    With `control`, the box's control socket listens there and each turn waits for a Home Assistant bridge first.
    """
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, command in enumerate(commands):
        mic = speak_question(engines.tts, out / f"command{i}.wav", command)
        times = timed_turn(engines, config, mic, out / f"reply{i}.wav", control=control)
        warm_up(engines)
        row = dataclasses.asdict(times) | {"command": command}
        row["reply_s"] = times.skill_reply_s - times.stt_final_s
        row["voice_s"] = times.first_audio_s - times.skill_reply_s
        rows.append(row)
        say(
            f"  {command!r} heard as {times.transcript!r}: last word -> reply sounding "
            f"{times.last_word_to_first_audio_s:.2f} s (end judged {times.endpoint_wait_s:.2f}, transcript "
            f"{times.stt_final_s:.2f}, reply {row['reply_s']:.3f}, voice {row['voice_s']:.2f})"
        )

    def median(key: str) -> float:
        return float(statistics.median(r[key] for r in rows))

    return {
        "last_word_to_reply_p50": median("last_word_to_first_audio_s"),
        "last_word_to_reply_max": max(r["last_word_to_first_audio_s"] for r in rows),
        "endpoint_p50": median("endpoint_wait_s"),
        "transcript_p50": median("stt_final_s"),
        "reply_p50": median("reply_s"),
        "voice_p50": median("voice_s"),
        "turns": rows,
    }


def command_rows(label: str, report: dict[str, Any] | None, target_s: float) -> list[tuple[str, str]]:
    """The bench's lines for `timed_commands`' figures; none when there were none."""
    if report is None:
        return []
    return [
        (
            f"{label}: last word -> reply sounding, p50 / worst",
            f"{report['last_word_to_reply_p50']:.2f} / {report['last_word_to_reply_max']:.2f} s  "
            f"(target <= {target_s} s)",
        ),
        (
            "  endpoint / transcript / reply / voice",
            f"{report['endpoint_p50']:.2f} / {report['transcript_p50']:.2f} / {report['reply_p50']:.3f} / "
            f"{report['voice_p50']:.2f} s",
        ),
    ]
