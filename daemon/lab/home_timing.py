"""Spoken home commands, timed from the last word: the box's assembly, its control socket, the bridge as the unit runs
it (`talkbox homeassistant run`, a process of its own) and the Home Assistant of `[homeassistant]`.

The split: the end of speech judged, the final transcript, Home Assistant's reply through the bridge, the voice.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from daemon.config import Config
from daemon.lab.command_timing import command_rows, timed_commands
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
    with bridge(config, socket, state or out / "bridge-state"):
        return timed_commands(engines, config, out, commands, say, control=socket)


def home_rows(home: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The bench's lines for `home_delays`' figures; none when it had no Home Assistant to send commands to."""
    return command_rows("home command", home, 1.2)
