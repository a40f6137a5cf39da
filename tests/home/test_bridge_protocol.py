"""The daemon's end of the bridge, over its real control socket: what a bridge may send, what a broken or vanished
bridge does to a turn (nothing worse than a sentence saying so), and which sentences are home commands at all."""

from __future__ import annotations

import concurrent.futures
import json
import socket
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from daemon.cli.doctor import homeassistant_link
from daemon.config import Config, HomeAssistantConfig
from daemon.events import Notice, Ringing
from daemon.home.commands import HomeCommands
from daemon.home.names import MAX_ENTITIES, Entity, HomeNames
from daemon.skills.call import SkillCall
from daemon.skills.honest import DEVICES
from tests.fast.script import ANSWER, QUESTION
from tests.home.box import WAIT_S, LinkedBox

HOME = HomeNames(
    (
        Entity("Kitchen Lights", "light"),
        Entity("Front Door", "lock"),
        Entity("Garage Door", "cover", "garage"),
        Entity("Outside Temperature", "sensor", "temperature"),
    ),
    ("Kitchen", "Living Room"),
)


class FakeBridgeEnd:
    """The test's end of a bridge connection: JSON lines out and in, on the box's real socket."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(WAIT_S)
        self.sock.connect(str(path))
        self.stream: BinaryIO = self.sock.makefile("rb")

    def send(self, message: dict[str, Any] | bytes) -> None:
        self.sock.sendall(message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n")

    def receive(self) -> dict[str, Any]:
        reply: dict[str, Any] = json.loads(self.stream.readline())
        return reply

    def register(self, names: HomeNames = HOME, connected: bool = True) -> None:
        self.send({"cmd": "home", "connected": connected, "reason": "" if connected else "it is down", "version": "1"})
        assert self.receive() == {"type": "ok", "cmd": "home"}
        assert self.receive() == {"type": "home-settings", "muted": False, "volume": 100}
        self.send({"cmd": "home-names", **names.to_plain(), "more": False})

    def close(self) -> None:
        self.stream.close()
        self.sock.close()


def test_without_a_bridge_nothing_is_a_home_command_and_a_device_is_said_to_be_out_of_reach(box: LinkedBox) -> None:
    assert box.status() == {
        "bridge": False,
        "connected": False,
        "reason": box.status()["reason"],
        "version": "",
        "names": 0,
    }
    assert box.ask(QUESTION) == ANSWER
    assert box.parts.skills is not None
    assert box.parts.skills.route("Turn off the kitchen lights.") == SkillCall("offline", {"topic": "devices"})
    assert box.ask("Turn off the kitchen lights.") == DEVICES  # said so, never pretended


def test_a_command_goes_to_the_bridge_and_its_reply_is_said(box: LinkedBox) -> None:
    bridge = FakeBridgeEnd(box.socket)
    try:
        bridge.register()
        box.wait_for(lambda s: s["names"] == 4 and s["connected"] is True)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            said = pool.submit(box.ask, "Close the garage door.")
            command = bridge.receive()
            assert command["type"] == "home-command" and command["text"] == "Close the garage door."
            bridge.send({"cmd": "home-reply", "id": command["id"] + 1000, "speech": "a stranger's reply"})
            bridge.send({"cmd": "home-reply", "id": command["id"], "speech": "Closed", "kind": "action_done"})
            assert said.result(WAIT_S) == "Closed."
    finally:
        bridge.close()


def test_what_a_broken_bridge_sends_is_refused_and_the_box_goes_on(box: LinkedBox) -> None:
    bridge = FakeBridgeEnd(box.socket)
    try:
        bridge.send({"cmd": "home", "connected": "yes"})
        assert bridge.receive()["code"] == "control-bad-request"
        bridge.register()
        bridge.send(b"{not json\n")
        assert bridge.receive()["code"] == "control-bad-json"
        bridge.send({"cmd": "ask", "text": "a question from the bridge"})
        assert bridge.receive()["code"] == "control-bad-request"
        part = [["lamp", "light", ""]] * 100
        for _ in range(MAX_ENTITIES // 100 + 1):
            bridge.send({"cmd": "home-names", "entities": part, "more": True})
        assert bridge.receive()["message"] == f"at most {MAX_ENTITIES} entities"
        bridge.send({"cmd": "home-names", "entities": [], "more": False})  # the rest of that list is dropped
        assert box.status()["names"] == 4, "the names before a list too long are kept"
        bridge.send({"cmd": "home-names", "entities": [["a\nb " * 200, "light", ""], ["Lamp", "light", ""]]})
        box.wait_for(lambda s: s["names"] == 1)  # a name nobody could say is dropped, the others taken
        assert box.ask(QUESTION) == ANSWER
    finally:
        bridge.close()


def test_a_bridge_that_vanishes_mid_command_ends_the_turn_with_a_reason(box: LinkedBox) -> None:
    bridge = FakeBridgeEnd(box.socket)
    bridge.register()
    box.wait_for(lambda s: s["names"] == 4)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        said = pool.submit(box.ask, "Is the front door locked?")
        assert bridge.receive()["type"] == "home-command"
        bridge.close()
        assert said.result(WAIT_S) == "I can't reach Home Assistant: the Home Assistant bridge stopped."
    box.wait_for(lambda s: s["bridge"] is False)
    assert box.ask(QUESTION) == ANSWER


def test_a_bridge_that_cannot_reach_home_assistant_says_why_at_once(box: LinkedBox) -> None:
    bridge = FakeBridgeEnd(box.socket)
    try:
        bridge.register(connected=False)
        box.wait_for(lambda s: s["names"] == 4)
        assert box.ask("Turn off the kitchen lights.") == "I can't reach Home Assistant: it is down."
    finally:
        bridge.close()


@pytest.mark.parametrize(
    ("said", "intent"),
    [
        ("Turn off the kitchen lights.", "HassTurnOff"),
        ("Is the front door locked?", "HassGetState"),
        ("Set the kitchen lights to 50 percent.", "HassLightSet"),
        ("Close the garage door.", "HassTurnOff"),
        ("What is the outside temperature?", "HassGetState"),
        ("Turn on the lights in the living room.", "HassTurnOn"),
    ],
)
def test_home_commands_are_recognised_by_home_assistants_own_sentences(said: str, intent: str) -> None:
    call = HomeCommands(HOME).recognise(said)
    assert call is not None and call.skill == "home" and call.args["intent"] == intent


@pytest.mark.parametrize(
    "said",
    ["What is the capital of France?", "Turn on the moon.", "Tell me a story about a kitchen.", "pause", ""],
)
def test_other_sentences_are_not_home_commands(said: str) -> None:
    assert HomeCommands(HOME).recognise(said) is None
    assert HomeCommands(HomeNames()).recognise("Turn off the kitchen lights.") is None


def test_the_box_s_own_jobs_win_over_the_home(box: LinkedBox) -> None:
    bridge = FakeBridgeEnd(box.socket)
    try:
        bridge.register()
        box.wait_for(lambda s: s["names"] == 4)
        skills = box.parts.skills
        assert skills is not None
        for said, skill in (
            ("Set a timer for ten minutes.", "timer_start"),
            ("What time is it?", "time"),
            ("Set the volume to 50 percent.", "volume"),
            ("Turn off the kitchen lights.", "home"),
            ("What's the weather like?", "home"),  # the home knows its weather; offline the box says it can't
        ):
            call = skills.route(said)
            assert call is not None and call.skill == skill, (said, call)
    finally:
        bridge.close()


def test_doctor_reads_the_link_from_the_running_box(box: LinkedBox, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("a-token\n")
    config = Config(homeassistant=HomeAssistantConfig(url="http://192.168.1.20:8123", token_file=str(token)))
    assert homeassistant_link(config, box.socket).detail == "the bridge is not running"
    bridge = FakeBridgeEnd(box.socket)
    try:
        bridge.register(connected=False)
        box.wait_for(lambda s: s["names"] == 4)
        assert homeassistant_link(config, box.socket).detail == "not reached: it is down"
        bridge.send({"cmd": "home", "connected": True, "version": "2024.3.3"})
        box.wait_for(lambda s: s["connected"] is True)
        check = homeassistant_link(config, box.socket)
        assert check.ok and check.detail == "Home Assistant 2024.3.3 at http://192.168.1.20:8123, 4 names"
    finally:
        bridge.close()
    assert not homeassistant_link(Config(homeassistant=HomeAssistantConfig(url="http://h:1", token_file="/nope"))).ok


def test_home_assistant_s_announcement_is_said_once_and_its_end_told(box: LinkedBox) -> None:
    bridge = FakeBridgeEnd(box.socket)
    try:
        bridge.register()
        bridge.send({"cmd": "home-announce", "id": 7, "text": "The washing machine is done.", "chime": True})
        assert bridge.receive() == {"type": "home-announced", "id": 7, "spoken": True}
        assert Notice(text="The washing machine is done.") in box.events
        assert not any(isinstance(e, Ringing) for e in box.events)  # said once, not rung until stopped
        bridge.send({"cmd": "home-announce", "id": 8, "text": "   "})
        assert bridge.receive()["message"] == "an announcement needs words to say"
        assert box.ask(QUESTION) == ANSWER
    finally:
        bridge.close()


def test_home_assistant_sets_the_volume_and_hears_of_spoken_changes(box: LinkedBox) -> None:
    bridge = FakeBridgeEnd(box.socket)
    try:
        bridge.register()
        bridge.send({"cmd": "home-set", "volume": 40, "muted": True})
        assert bridge.receive() == {"type": "home-settings", "muted": True, "volume": 40}
        assert box.ask("Set the volume to 70 percent.") == "Volume 70."
        assert bridge.receive() == {"type": "home-settings", "muted": False, "volume": 70}
        bridge.send({"cmd": "home-set", "volume": 101})
        assert bridge.receive()["message"] == '"volume" is a whole number from 0 to 100'
    finally:
        bridge.close()
