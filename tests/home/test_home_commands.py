"""Home commands through a real Home Assistant: typed to the box, carried out by Home Assistant, its words said.

The box runs its one assembly on the stand-in engines (the model is not what is tested here); the bridge runs as
the unit runs it, a process of its own; Home Assistant is the real 2024.3.3 with its demo home.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from daemon.config import Config, HomeAssistantConfig, SkillsConfig
from daemon.events import HomeAssistantChanged, SkillCalled
from daemon.skills.honest import DEVICES
from tests.fast.script import ANSWER, ANSWERS, QUESTION
from tests.home.box import LinkedBox, start_bridge, write_config
from tests.home.homeassistant_server import HomeAssistantServer
from tests.inprocess import ScriptedModel, stand_in_engines


@pytest.fixture
def bridge(box: LinkedBox, fresh_home: HomeAssistantServer, tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    config = write_config(tmp_path, fresh_home.url, fresh_home.token)
    process = start_bridge(config, box.socket, tmp_path / "state")
    try:
        box.wait_for(lambda s: bool(s["connected"]))
        yield process
    finally:
        process.terminate()
        process.wait(10)


def test_a_home_command_is_carried_out_by_home_assistant_and_its_words_are_said(
    box: LinkedBox, bridge: subprocess.Popen[str], fresh_home: HomeAssistantServer
) -> None:
    assert fresh_home.state("light.kitchen_lights") == "on"
    assert box.ask("Turn off the kitchen lights.") == "Turned off the light."
    assert fresh_home.state("light.kitchen_lights") == "off"
    assert box.ask("Is the front door locked?") == "Yes."
    # NOTE: a device Home Assistant does not have is its to say, not the model's to pretend it switched on.
    assert box.ask("Turn on the garden lights.") == "Sorry, I am not aware of any device called garden lights."
    called = [e for e in box.events if isinstance(e, SkillCalled)]
    assert [(c.skill, c.by, c.reply) for c in called] == [
        ("home", "homeassistant", "Turned off the light."),
        ("home", "homeassistant", "Yes."),
        ("home", "homeassistant", "Sorry, I am not aware of any device called garden lights."),
    ]
    assert called[0].args["intent"] == "HassTurnOff"


def test_the_box_keeps_its_own_jobs_and_questions(
    box: LinkedBox, bridge: subprocess.Popen[str], fresh_home: HomeAssistantServer
) -> None:
    assert box.ask("What is 17 times 23?") == "That's 391."
    assert "Madrid" in box.ask("What is the capital of Spain?")
    assert box.ask(QUESTION) == ANSWER
    assert "1 minute" in box.ask("Set a timer for one minute.")
    assert not any(isinstance(e, SkillCalled) and e.skill == "home" for e in box.events)
    assert fresh_home.state("light.kitchen_lights") == "on"


def test_status_and_display_events_say_whether_home_assistant_is_reached(
    box: LinkedBox, bridge: subprocess.Popen[str], fresh_home: HomeAssistantServer
) -> None:
    status = box.status()
    assert status["bridge"] is True and status["connected"] is True
    assert status["version"] == "2024.3.3" and int(str(status["names"])) >= 20
    assert HomeAssistantChanged(connected=True, reason="", bridge=True) in box.events
    bridge.terminate()
    bridge.wait(10)
    box.wait_for(lambda s: s["bridge"] is False)
    # NOTE: with the bridge gone nothing is a home command: the box says it cannot reach the device.
    assert box.ask("Turn off the kitchen lights.") == DEVICES
    assert fresh_home.state("light.kitchen_lights") == "on"
    gone = HomeAssistantChanged(connected=False, reason="the Home Assistant bridge is not running", bridge=False)
    assert gone in box.events


def test_home_assistant_down_is_said_at_once_and_the_box_carries_on(
    box: LinkedBox, bridge: subprocess.Popen[str], home_assistant: HomeAssistantServer
) -> None:
    home_assistant.stop()
    try:
        box.wait_for(lambda s: s["connected"] is False)
        # NOTE: first "closed the connection"; then, tried again a second later, nothing answers at all.
        box.wait_for(lambda s: str(s["reason"]).startswith("nothing answers"))
        said = box.ask("Turn off the kitchen lights.")
        # NOTE: the reason the bridge already knows, not a wait for the command to time out (the bench times it).
        assert said == "I can't reach Home Assistant: nothing answers at its address. Is it running?"
        assert box.status()["reason"] == f"nothing answers at {home_assistant.url[7:]}; is Home Assistant running?"
        assert box.ask("What is 17 times 23?") == "That's 391."
    finally:
        home_assistant.restart()
    box.wait_for(lambda s: s["connected"] is True, timeout=60)
    assert box.ask("Turn on the bed light.") == "Turned on the light."
    assert home_assistant.state("light.bed_light") == "on"


def test_with_questions_handed_to_home_assistant_its_agent_answers_what_no_skill_takes(
    fresh_home: HomeAssistantServer, tmp_path: Path
) -> None:
    config = Config(
        skills=SkillsConfig(trust_clock="system"), homeassistant=HomeAssistantConfig(questions="homeassistant")
    )
    box = LinkedBox(stand_in_engines(ScriptedModel(answers=ANSWERS)), tmp_path, config)
    process = start_bridge(write_config(tmp_path, fresh_home.url, fresh_home.token), box.socket, tmp_path / "state")
    try:
        box.wait_for(lambda s: bool(s["connected"]))
        # NOTE: Home Assistant's own default agent knows no bees; an LLM agent there would. Its words are said.
        assert box.ask(QUESTION) == "Sorry, I couldn't understand that."
        assert box.ask("What is 17 times 23?") == "That's 391."  # the box's skills still come first
        assert box.ask("Turn off the kitchen lights.") == "Turned off the light."
        process.terminate()
        process.wait(10)
        box.wait_for(lambda s: s["bridge"] is False)
        assert box.ask(QUESTION) == ANSWER  # no Home Assistant: the box's own model answers
    finally:
        process.terminate()
        process.wait(10)
        box.close()
