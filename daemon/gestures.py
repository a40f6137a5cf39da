"""What the button means: hold to talk, tap to start or stop, hold 3 s to forget, 8 s to shut down."""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Callable
from typing import Protocol

from daemon.config_hardware import ButtonConfig
from daemon.events import Event, Notice, ShuttingDown

_LOGGER = logging.getLogger(__name__)


class Controls(Protocol):
    """The pipeline's thread-safe inputs."""

    @property
    def hearing_speech(self) -> bool: ...

    def press(self) -> None: ...
    def release(self) -> None: ...
    def forget(self) -> None: ...


def power_off() -> None:
    """Ask systemd for a clean power-off."""
    subprocess.run(["systemctl", "poweroff"], check=False, timeout=10)


class ButtonGestures:
    """Receives plain button callbacks (any thread) and drives the pipeline's controls."""

    def __init__(
        self,
        controls: Controls,
        config: ButtonConfig,
        emit: Callable[[Event], None],
        shutdown: Callable[[], None] = power_off,
    ) -> None:
        self._controls, self._cfg, self._emit, self._shutdown = controls, config, emit, shutdown
        self._forgot = self._stopping = False

    def pressed(self) -> None:
        """Button down: talk (or stop the answer, if it is speaking)."""
        self._forgot = self._stopping = False
        self._controls.press()

    def released(self, held_s: float) -> None:
        """Button up after `held_s` seconds."""
        if not self._forgot:
            self._controls.release()

    def held(self, held_s: float) -> None:
        """Still held after `held_s` seconds: the long gestures."""
        if self._controls.hearing_speech:
            return  # a long push-to-talk question, not a gesture
        if held_s >= self._cfg.forget_hold_s and not self._forgot:
            self._forgot = True
            self._controls.forget()
        if held_s >= self._cfg.shutdown_hold_s and not self._stopping:
            self._stopping = True
            if not self._cfg.shutdown:
                self._emit(Notice(text="Shutdown by button is off in the settings."))
                return
            _LOGGER.warning("shutdown requested with the button")
            self._emit(ShuttingDown(reason="Shutting down. Wait for the light to go out."))
            self._shutdown()
