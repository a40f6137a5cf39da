"""The box as Home Assistant's voice satellite, end to end: aioesphomeapi's APIClient (Home Assistant's own client)
connects to the bridge process as the unit runs it, and the box itself says the announcement and takes the volume."""

from __future__ import annotations

import asyncio
import base64
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from aioesphomeapi.client import APIClient
from aioesphomeapi.core import APIConnectionError
from aioesphomeapi.model import EntityState, NumberState, SwitchState

from daemon.events import Notice, TurnEnded
from daemon.home.satellite import MUTE_KEY, VOLUME_KEY
from tests.home.box import WAIT_S, LinkedBox, start_bridge, write_config

KEY: Final = base64.b64encode(bytes(range(32))).decode()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def satellite(box: LinkedBox, tmp_path: Path) -> Iterator[int]:
    """The bridge with the satellite on, its Home Assistant nowhere (the satellite needs none): its port."""
    port = _free_port()
    config = write_config(tmp_path, f"http://127.0.0.1:{_free_port()}", "a-token")
    key = tmp_path / "homeassistant.key"
    key.write_text(KEY + "\n")
    with config.open("a") as settings:
        settings.write(f'satellite = true\nsatellite_port = {port}\nencryption_key_file = "{key}"\n')
    process = start_bridge(config, box.socket, tmp_path / "state")
    try:
        box.wait_for(lambda s: s["bridge"] is True)
        yield port
    finally:
        process.terminate()
        assert process.wait(15) == 0, (tmp_path / "bridge.log").read_text()


async def _connected(port: int) -> APIClient:
    """Home Assistant's client, connected once the bridge listens."""
    deadline = time.monotonic() + WAIT_S
    while True:
        client = APIClient("127.0.0.1", port, None, noise_psk=KEY, client_info="test", provide_time=False)
        try:
            await asyncio.wait_for(client.connect(login=True), WAIT_S)
            return client
        except (APIConnectionError, OSError):
            await client.disconnect(force=True)
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def test_home_assistant_announces_through_the_box_and_sets_its_volume(box: LinkedBox, satellite: int) -> None:
    async def home_assistant() -> tuple[bool, list[tuple[str, object]]]:
        client = await _connected(satellite)
        states: asyncio.Queue[EntityState] = asyncio.Queue()
        try:
            info = await client.device_info()
            assert info.friendly_name == "talkbox"
            client.subscribe_states(states.put_nowait)
            said = await client.send_voice_assistant_announcement_await_response(
                media_id="", timeout=60, text="The washing machine is done."
            )
            client.number_command(VOLUME_KEY, 30)
            client.switch_command(MUTE_KEY, True)
            seen: list[tuple[str, object]] = []
            while ("NumberState", 30.0) not in seen or ("SwitchState", True) not in seen:
                state = await asyncio.wait_for(states.get(), WAIT_S)
                if isinstance(state, NumberState | SwitchState):
                    seen.append((type(state).__name__, state.state))
            return said.success, seen
        finally:
            await client.disconnect()

    spoken, seen = asyncio.run(home_assistant())
    assert spoken is True
    assert Notice(text="The washing machine is done.") in box.events
    assert any(isinstance(e, TurnEnded) for e in box.events)  # said as a turn of the box's own
    assert ("NumberState", 100.0) in seen  # the box's volume as it was when Home Assistant came
    skills = box.parts.skills
    assert skills is not None
    box.wait_for(lambda s: skills.volume.level == 30 and skills.volume.muted)


def test_a_spoken_volume_change_is_shown_in_home_assistant(box: LinkedBox, satellite: int) -> None:
    async def home_assistant() -> list[float]:
        client = await _connected(satellite)
        states: asyncio.Queue[EntityState] = asyncio.Queue()
        try:
            client.subscribe_states(states.put_nowait)
            volumes: list[float] = []
            while 100.0 not in volumes:
                state = await asyncio.wait_for(states.get(), WAIT_S)
                volumes += [state.state] if isinstance(state, NumberState) else []
            await asyncio.get_running_loop().run_in_executor(None, box.ask, "Set the volume to 70 percent.")
            while 70.0 not in volumes:
                state = await asyncio.wait_for(states.get(), WAIT_S)
                volumes += [state.state] if isinstance(state, NumberState) else []
            return volumes
        finally:
            await client.disconnect()

    assert asyncio.run(home_assistant())[-1] == 70.0
