"""A real Home Assistant for the bridge's tests, booted once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fast.script import ANSWERS
from tests.home.box import LinkedBox
from tests.home.homeassistant_server import DEFAULT_VENV, HomeAssistantServer, homeassistant_venv
from tests.inprocess import ScriptedModel, stand_in_engines


@pytest.fixture(scope="session")
def home_assistant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HomeAssistantServer]:
    """Home Assistant 2024.3.3 with the demo entities, a user and a long-lived token."""
    venv = homeassistant_venv()
    if venv is None:
        where = os.environ.get("TALKBOX_HA_VENV") or DEFAULT_VENV
        missing = f"no Home Assistant for the tests in {where} ($TALKBOX_HA_VENV)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing}: .ci/setup should have installed it")
        pytest.skip(f"{missing}; install it with: bash .ci/setup")
    with HomeAssistantServer(venv, tmp_path_factory.mktemp("homeassistant")) as server:
        yield server


@pytest.fixture
def fresh_home(home_assistant: HomeAssistantServer) -> HomeAssistantServer:
    """The session's Home Assistant with the demo states the tests rely on put back."""
    home_assistant.call("light", "turn_on", "light.kitchen_lights", brightness=180)
    home_assistant.call("light", "turn_off", "light.bed_light")
    return home_assistant


@pytest.fixture
def box(tmp_path: Path) -> Iterator[LinkedBox]:
    """The box's one assembly on the stand-in engines, serving its control socket in `tmp_path`."""
    linked = LinkedBox(stand_in_engines(ScriptedModel(answers=ANSWERS)), tmp_path)
    try:
        yield linked
    finally:
        linked.close()
