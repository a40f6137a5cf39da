"""The box's one push button, through gpiozero (lgpio on a Pi, MockFactory in tests and on laptops).

Wiring: a momentary switch between GPIO17 (pin 11) and GND (pin 9); the internal pull-up is used.
Usage:
    button = ButtonInput(17, on_press=start, on_release=lambda held_s: stop())
    button.on_held = lambda held_s: print(f"held {held_s:.0f} s")
    button.close()
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Callable
from typing import Any, Final

_LOGGER = logging.getLogger(__name__)

HELD_EVERY_S: Final = 0.5
"""While the button is held, `on_held` reports the hold time this often."""


class ButtonUnavailable(OSError):
    """The pin cannot be used (no GPIO chip, pin busy, no permission); the message names the pin."""


def pin_factory(name: str) -> Any:
    """A gpiozero pin factory by name ("" lets gpiozero choose; "mock" needs no hardware)."""
    if not name:
        return None
    from gpiozero.pins import mock

    if name == "mock":
        return mock.MockFactory()
    import importlib

    module, cls = {
        "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
        "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
        "native": ("gpiozero.pins.native", "NativeFactory"),
    }[name]
    return getattr(importlib.import_module(module), cls)()


class ButtonInput:
    """Reports presses, releases (with how long it was held) and the hold time while held."""

    def __init__(
        self,
        pin: int = 17,
        *,
        pull_up: bool = True,
        bounce_s: float = 0.02,
        pin_factory: Any = None,
        on_press: Callable[[], None] | None = None,
        on_release: Callable[[float], None] | None = None,
        on_held: Callable[[float], None] | None = None,
    ) -> None:
        from gpiozero import Button
        from gpiozero.exc import GPIOZeroError, PinFactoryFallback

        self.on_press, self.on_release, self.on_held = on_press, on_release, on_held
        self._pressed_at = 0.0
        # NOTE: choosing a pin factory, gpiozero warns once per library it could not use (four tracebacks-worth of
        # noise on a board without GPIO); the first reason goes into the one error instead.
        with warnings.catch_warnings(record=True) as fallbacks:
            warnings.simplefilter("always", PinFactoryFallback)
            try:
                self._button = Button(
                    pin,
                    pull_up=pull_up,
                    bounce_time=bounce_s or None,
                    hold_time=HELD_EVERY_S,
                    hold_repeat=True,
                    pin_factory=pin_factory,
                )
            except (GPIOZeroError, OSError, RuntimeError) as err:
                tried = [str(w.message) for w in fallbacks if issubclass(w.category, PinFactoryFallback)]
                why = f"{err} ({tried[0]})" if tried else str(err)
                raise ButtonUnavailable(f"the button on GPIO{pin} cannot be used: {why}") from err
        # NOTE: gpiozero calls these on its own thread; the receivers must hand over to their loop.
        self._button.when_pressed = self._pressed
        self._button.when_released = self._released
        self._button.when_held = self._held

    @property
    def is_pressed(self) -> bool:
        """True while the button is down."""
        return bool(self._button.is_pressed)

    def _pressed(self) -> None:
        self._pressed_at = time.monotonic()
        if self.on_press:
            self.on_press()

    def _released(self) -> None:
        if self.on_release:
            self.on_release(time.monotonic() - self._pressed_at)

    def _held(self) -> None:
        if self.on_held:
            self.on_held(time.monotonic() - self._pressed_at)

    def close(self) -> None:
        """Release the pin."""
        self._button.close()

    def __enter__(self) -> ButtonInput:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
