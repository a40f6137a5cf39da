"""Open the box's optional parts (OLED, button, serial link, control socket); a missing one is announced once
and the box runs without it."""

from __future__ import annotations

import grp
import logging
from pathlib import Path

from daemon.channels.control_client import default_socket_path
from daemon.channels.control_server import ControlServer
from daemon.channels.serial_chat import SerialChat
from daemon.channels.turns import Status, Turns
from daemon.config import ButtonConfig, DisplayConfig, SerialConfig
from daemon.errors import TalkboxError
from daemon.home.link import HomeLink
from daemon.turn.button import ButtonGestures
from daemon.turn.button import Turns as ButtonTurns
from daemon.ui.display import DisplayController, oled_for
from hardware.button import ButtonInput, ButtonUnavailable, pin_factory
from hardware.oled import DisplayNotFound, OledDisplay
from hardware.serial_link import SerialLink

_LOGGER = logging.getLogger(__name__)


def open_display(d: DisplayConfig, frames_dir: Path | None = None) -> tuple[DisplayController, OledDisplay] | None:
    """The display controller (started) and its OLED, or None if there is no display."""
    if d.driver == "none":
        return None
    frames = frames_dir or (Path(d.frames_dir) if d.frames_dir else None)
    try:
        oled = oled_for(d, frames)
    except DisplayNotFound as err:
        _LOGGER.warning('%s; running without a display (set display.driver = "none" to silence this)', err)
        return None
    controller = DisplayController(oled, d)
    controller.start()
    return controller, oled


def open_button(b: ButtonConfig, turns: ButtonTurns) -> ButtonInput | None:
    """The button wired to the turns, or None if it is off or its pin cannot be used."""
    if not b.enabled:
        return None
    gestures = ButtonGestures(turns, b)
    try:
        return ButtonInput(
            b.pin,
            pull_up=b.pull_up,
            bounce_s=b.bounce_s,
            pin_factory=pin_factory(b.pin_factory),
            on_press=gestures.pressed,
            on_release=gestures.released,
            on_held=gestures.held,
        )
    except (ButtonUnavailable, ImportError, OSError) as err:
        _LOGGER.warning("%s; running without the button (set button.enabled = false to silence this)", err)
        return None


def open_serial(s: SerialConfig, turns: Turns, status: Status) -> SerialChat | None:
    """The serial chat (started), or None if the link is off or its URL cannot be used."""
    if not s.enabled:
        return None
    try:
        link = SerialLink(s.url, s.baudrate, max_line_chars=s.max_line_chars)
    except ValueError as err:
        _LOGGER.warning("serial link %s cannot be used (%s); running without it", s.url, err)
        return None
    chat = SerialChat(link, turns, status=status, json_mode=s.json)
    chat.start()
    return chat


async def open_control(turns: Turns, status: Status, home: HomeLink | None = None) -> ControlServer | None:
    """The control socket (listening on the running loop), or None if it cannot be opened."""
    group = "talkbox" if _group_exists("talkbox") else None
    server = ControlServer(default_socket_path(), turns=turns, status=status, group=group, home=home)
    try:
        await server.start()
    except TalkboxError as err:  # e.g. a second daemon: this one still works, without its own socket
        _LOGGER.warning("no control socket: %s", err.message)
        return None
    return server


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True
