"""The real Home Assistant the bridge's tests run against: its token works, also after a restart."""

from __future__ import annotations

import asyncio
from typing import Any

from hass_client import HomeAssistantClient

from tests.home.homeassistant_server import HomeAssistantServer

TIMEOUT_S = 10.0


def process(server: HomeAssistantServer, text: str) -> Any:
    """Send a sentence to Assist over the WebSocket API with the server's long-lived token."""

    async def send() -> Any:
        async with HomeAssistantClient(server.ws_url, server.token) as client:
            return await client.send_command("conversation/process", text=text, language="en")

    return asyncio.run(asyncio.wait_for(send(), TIMEOUT_S))


def test_the_token_lets_assist_turn_off_a_light(fresh_home: HomeAssistantServer) -> None:
    assert fresh_home.state("light.kitchen_lights") == "on"

    result = process(fresh_home, "turn off the kitchen lights")

    assert result["response"]["response_type"] == "action_done"
    assert result["response"]["data"]["success"] == [
        {"name": "Kitchen Lights", "type": "entity", "id": "light.kitchen_lights"}
    ]
    assert fresh_home.state("light.kitchen_lights") == "off"


def test_aliases_and_areas_reach_assist(fresh_home: HomeAssistantServer) -> None:
    fresh_home.set_aliases("light.bed_light", ["night lamp"])
    fresh_home.set_area("light.bed_light", "bedroom")
    try:
        assert process(fresh_home, "turn on the night lamp")["response"]["response_type"] == "action_done"
        assert fresh_home.state("light.bed_light") == "on"
        assert process(fresh_home, "turn off the lights in the bedroom")["response"]["response_type"] == "action_done"
        assert fresh_home.state("light.bed_light") == "off"
    finally:
        fresh_home.set_aliases("light.bed_light", [])
        fresh_home.set_area("light.bed_light", None)


def test_restart_keeps_the_token_and_the_registry(fresh_home: HomeAssistantServer) -> None:
    fresh_home.set_aliases("light.kitchen_lights", ["stove light"])
    url, token = fresh_home.url, fresh_home.token
    try:
        fresh_home.restart()

        assert (fresh_home.url, fresh_home.token) == (url, token)
        assert process(fresh_home, "turn off the stove light")["response"]["response_type"] == "action_done"
        assert fresh_home.state("light.kitchen_lights") == "off"
    finally:
        fresh_home.set_aliases("light.kitchen_lights", [])
