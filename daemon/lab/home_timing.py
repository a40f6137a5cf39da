"""Spoken home commands, timed from the last word: the box's assembly, its control socket, the bridge as the unit runs
it (`talkbox homeassistant run`, a process of its own) and the Home Assistant of `[homeassistant]`.

The split: the end of speech judged, the final transcript, Home Assistant's reply through the bridge, the voice.
"""

from __future__ import annotations

import contextlib
import dataclasses
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from daemon.box.rehearsal import speak_question
from daemon.config import Config
from daemon.lab.turn_timing import timed_turn, warm_up
from daemon.ports import Engines

COMMANDS: Final = ("Turn off the kitchen lights.", "Is the front door locked?", "Turn on the bed light.")
"""Commands Home Assistant's demo home carries out (a real home: pass others)."""


@contextlib.contextmanager
def bridge(config: Config, socket: Path, state: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`talkbox homeassistant run` for `config`'s Home Assistant, registering on `socket`."""
    ha = config.homeassistant
    with tempfile.TemporaryDirectory(prefix="talkbox-bridge-") as directory:
        settings = Path(directory) / "talkbox.toml"
        settings.write_text(
            f'[homeassistant]\nurl = "{ha.url}"\ntoken_file = "{ha.token_file}"\ntimeout_s = {ha.timeout_s}\n'
        )
        command = ["--config", str(settings), "homeassistant", "run", "--socket", str(socket)]
        process = subprocess.Popen(
            [sys.executable, "-m", "daemon.cli.main", *command],
            env={"PATH": "/usr/bin:/bin", "STATE_DIRECTORY": str(state)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield process
        finally:
            process.terminate()
            process.wait(15)


def home_delays(
    engines: Engines,
    config: Config,
    out: Path,
    say: Callable[[str], None] = print,
    commands: tuple[str, ...] = COMMANDS,
    state: Path | None = None,
) -> dict[str, Any]:
    """Each command spoken to the box and answered by Home Assistant: last word -> its reply sounding, split.

    `state` is the bridge's state directory: where it caches the home's names (a new one knows none until it has
    reached Home Assistant once).
    """
    if not config.homeassistant.url:
        raise ValueError("home timing needs [homeassistant] url and token_file in the config")
    out.mkdir(parents=True, exist_ok=True)
    socket = out / "control.sock"
    rows = []
    with bridge(config, socket, state or out / "bridge-state"):
        for i, command in enumerate(commands):
            mic = speak_question(engines.tts, out / f"home{i}.wav", command)
            times = timed_turn(engines, config, mic, out / f"home-answer{i}.wav", control=socket)
            warm_up(engines)
            row = dataclasses.asdict(times) | {"command": command}
            row["home_reply_s"] = times.skill_reply_s - times.stt_final_s
            row["voice_s"] = times.first_audio_s - times.skill_reply_s
            rows.append(row)
            say(
                f"  {command!r} heard as {times.transcript!r}: last word -> reply sounding "
                f"{times.last_word_to_first_audio_s:.2f} s (end judged {times.endpoint_wait_s:.2f}, transcript "
                f"{times.stt_final_s:.2f}, Home Assistant {row['home_reply_s']:.3f}, voice {row['voice_s']:.2f})"
            )

    def median(key: str) -> float:
        return float(statistics.median(r[key] for r in rows))

    return {
        "last_word_to_reply_p50": median("last_word_to_first_audio_s"),
        "last_word_to_reply_max": max(r["last_word_to_first_audio_s"] for r in rows),
        "endpoint_p50": median("endpoint_wait_s"),
        "transcript_p50": median("stt_final_s"),
        "home_reply_p50": median("home_reply_s"),
        "voice_p50": median("voice_s"),
        "turns": rows,
    }


def home_rows(home: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The bench's lines for `home_delays`' figures; none when it had no Home Assistant to send commands to."""
    if home is None:
        return []
    return [
        (
            "home command: last word -> reply sounding, p50 / worst",
            f"{home['last_word_to_reply_p50']:.2f} / {home['last_word_to_reply_max']:.2f} s  (target <= 1.2 s)",
        ),
        (
            "  endpoint / transcript / Home Assistant / voice",
            f"{home['endpoint_p50']:.2f} / {home['transcript_p50']:.2f} / {home['home_reply_p50']:.3f} / "
            f"{home['voice_p50']:.2f} s",
        ),
    ]
