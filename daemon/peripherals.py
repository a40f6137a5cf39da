"""Open the optional parts (OLED, button); a missing one is announced once and the box runs without it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from daemon.config import Config
from daemon.config_hardware import DisplayConfig
from daemon.events import Event
from daemon.gestures import ButtonGestures, Controls
from daemon.ui.display import DisplayController
from hardware.button import ButtonInput, ButtonUnavailable, pin_factory
from hardware.oled import DisplayNotFound, OledDisplay

_LOGGER = logging.getLogger(__name__)


def oled_for(d: DisplayConfig, frames_dir: Path | None = None) -> OledDisplay:
    """The OLED the display settings describe (raises DisplayNotFound)."""
    return OledDisplay.open(
        d.driver,
        interface=d.interface,
        i2c_port=d.i2c_port,
        i2c_address=d.i2c_address,
        spi_port=d.spi_port,
        spi_device=d.spi_device,
        gpio_dc=d.gpio_dc,
        gpio_reset=d.gpio_reset,
        width=d.width,
        height=d.height,
        rotate=d.rotate,
        frames_dir=frames_dir,
    )


def open_display(config: Config, frames_dir: Path | None = None) -> tuple[DisplayController | None, OledDisplay | None]:
    """The display controller (started), or None if there is no display."""
    d = config.display
    if d.driver == "none":
        return None, None
    frames = frames_dir or (Path(d.frames_dir) if d.frames_dir else None)
    try:
        oled = oled_for(d, frames)
    except DisplayNotFound as err:
        _LOGGER.warning('%s; running without a display (set display.driver = "none" to silence this)', err)
        return None, None
    controller = DisplayController(oled, d)
    controller.start()
    return controller, oled


def open_button(config: Config, controls: Controls, emit: Callable[[Event], None]) -> ButtonInput | None:
    """The button wired to the pipeline, or None if it is off or its pin cannot be used."""
    b = config.button
    if not b.enabled:
        return None
    gestures = ButtonGestures(controls, b, emit)
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
