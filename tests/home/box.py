"""The box's one assembly on an event loop of its own thread, its control socket in a temp directory, and the
Home Assistant bridge as the unit runs it: `talkbox homeassistant run`, a process of its own."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Final, TypeVar

from daemon.box.assembly import Assembly, assembled
from daemon.channels.control_client import ControlClient
from daemon.channels.control_server import ControlServer
from daemon.config import Config, SkillsConfig
from daemon.events import Event, EventBus
from daemon.ports import Engines
from hardware.audio import WavFileSink

WAIT_S: Final = 15.0
T = TypeVar("T")


class LinkedBox:
    """The assembled box serving typed questions through its control socket; `events` is everything it emitted."""

    def __init__(self, engines: Engines, directory: Path, config: Config | None = None) -> None:
        self.socket = directory / "control.sock"
        self.config = config or Config(skills=SkillsConfig(trust_clock="system"))
        self.events: list[Event] = []
        self.bus = EventBus()
        self.bus.subscribe(self.events.append)
        self.sink = WavFileSink(directory / "speaker.wav", engines.tts.sample_rate_hz)
        self.loop = asyncio.new_event_loop()
        self._stack = contextlib.AsyncExitStack()
        self._thread = threading.Thread(target=self.loop.run_forever, name="box-loop", daemon=True)
        self._thread.start()
        self.parts: Assembly = self._on_loop(self._start(engines))

    async def _start(self, engines: Engines) -> Assembly:
        parts = await self._stack.enter_async_context(assembled(self.config, engines, self.sink, self.bus))
        assert parts.skills is not None
        server = ControlServer(self.socket, turns=parts.keeper, status=parts.skills.status, home=parts.home)
        await server.start()
        self.bus.subscribe(server.on_event)
        self._stack.push_async_callback(server.stop)
        return parts

    def _on_loop(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(60)

    def ask(self, text: str) -> str:
        """The box's whole answer to a typed question."""
        return "".join(ControlClient(self.socket, timeout_s=WAIT_S).ask(text)).strip()

    def status(self) -> dict[str, object]:
        """The box's Home Assistant status."""
        home = ControlClient(self.socket).status().get("homeassistant")
        assert isinstance(home, dict)
        return home

    def wait_for(self, test: Callable[[dict[str, object]], bool], timeout: float = WAIT_S) -> dict[str, object]:
        """Wait until the Home Assistant status passes `test`; that status."""
        deadline = time.monotonic() + timeout
        while not test(status := self.status()):
            assert time.monotonic() < deadline, f"the box's Home Assistant status stayed {status}"
            time.sleep(0.05)
        return status

    def close(self) -> None:
        self._on_loop(self._stack.aclose())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()
        self.sink.close()


def write_config(directory: Path, url: str, token: str, timeout_s: float = 3.0) -> Path:
    """A config file with [homeassistant] set, and its token file."""
    token_file = directory / "homeassistant.token"
    token_file.write_text(token + "\n")
    config = directory / "talkbox.toml"
    config.write_text(f'[homeassistant]\nurl = "{url}"\ntoken_file = "{token_file}"\ntimeout_s = {timeout_s}\n')
    return config


def start_bridge(config: Path, socket: Path, state: Path) -> subprocess.Popen[str]:
    """`talkbox homeassistant run` as the unit starts it, its names cached in `state`."""
    command = ["homeassistant", "run", "--socket", str(socket)]
    # NOTE: its log to a file, not to a pipe nobody reads while the test runs: a full pipe would stop the bridge.
    with (state.parent / "bridge.log").open("w") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "daemon.cli.main", "--config", str(config), *command],
            env={"PATH": "/usr/bin:/bin", "STATE_DIRECTORY": str(state), "PYTHONUNBUFFERED": "1"},
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
