"""Talk to systemd: READY/STATUS/STOPPING/EXTEND_TIMEOUT/WATCHDOG through sd_notify."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Final

from daemon.events import (
    BootProgress,
    BoxReady,
    Event,
    Fault,
    ListeningStarted,
    ShuttingDown,
    SpeakingStarted,
    ThinkingStarted,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)

_LOGGER = logging.getLogger(__name__)

START_LIMIT_S: Final = 900.0
"""Each start-up step's progress asks systemd for this much more time (TimeoutStartSec stays tight for the rest): a
start that has shown no progress for this long is stuck, and systemd ends it.

One step can outlast any short extension on a slow card or CPU, and a thread sending extensions while a step runs
cannot be relied on: under emulation a restart was ended mid-step (the voice's ONNX session is made holding
Python's lock for minutes), where each step's own extension carries it."""


def _sd_notify() -> Callable[[str], object] | None:
    if not os.environ.get("NOTIFY_SOCKET"):
        return None
    # NOTE: the repo's systemd/ folder (unit files) shadows the package for mypy, not at run time.
    from systemd import daemon  # type: ignore[attr-defined]

    return daemon.notify  # type: ignore[no-any-return]


class Notifier:
    """sd_notify messages; does nothing when not started by systemd (no NOTIFY_SOCKET)."""

    def __init__(self, send: Callable[[str], object] | None = None) -> None:
        self._send = send if send is not None else _sd_notify()
        self._status = ""
        self._failed = False

    @property
    def active(self) -> bool:
        """True under systemd."""
        return self._send is not None

    def notify(self, message: str) -> None:
        """Send one sd_notify message; a broken notify socket is logged once and never stops the box."""
        if self._send is None:
            return
        try:
            self._send(message)
        except OSError as err:
            if not self._failed:
                _LOGGER.warning("cannot notify systemd (%s): %s", os.environ.get("NOTIFY_SOCKET"), err)
            self._failed = True

    def ready(self, status: str) -> None:
        """Models loaded and audio open."""
        self.notify(f"READY=1\nSTATUS={status}")

    def status(self, text: str) -> None:
        """STATUS= mirrors the display; repeated texts are not resent."""
        if text != self._status:
            self._status = text
            self.notify(f"STATUS={text}")

    def extend_start(self, seconds: float = START_LIMIT_S) -> None:
        """More time for the start: it made progress (a slow step on an SD card or an emulated CPU)."""
        self.notify(f"EXTEND_TIMEOUT_USEC={int(seconds * 1_000_000)}")

    def stopping(self) -> None:
        """We are shutting down."""
        self.notify("STOPPING=1\nSTATUS=Stopping")

    def watchdog(self) -> None:
        """One watchdog ping."""
        self.notify("WATCHDOG=1")


def watchdog_interval_s() -> float | None:
    """Half of systemd's WatchdogSec for this process, or None when no watchdog is armed."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 1_000_000 / 2


def status_text(event: Event) -> str | None:
    """The STATUS= line for an event: the same story the display tells."""
    match event:
        case BootProgress(step=step, fraction=fraction):
            return f"{step} ({round(fraction * 100)}%)"
        case BoxReady(wake_phrase=phrase):
            return f'Ready: say "{phrase}" or press the button' if phrase else "Ready: press the button"
        case TurnStarted(trigger=trigger, question=question) if not trigger.spoken:
            return f"Typed question ({trigger}): {question[:60]}"
        case ListeningStarted():
            return "Listening"
        case ThinkingStarted():
            return "Thinking"
        case SpeakingStarted():
            return "Speaking"
        case TurnEnded():
            return "Ready"
        case TurnFailed(code=code, message=message) | Fault(code=code, message=message):
            return f"Error {code}: {message}"
        case ShuttingDown():
            return "Stopping"
    return None


class StatusMirror:
    """Bus subscriber: STATUS= follows the turn; start-up steps also extend the start timeout."""

    def __init__(self, notifier: Notifier) -> None:
        self._notifier = notifier

    def __call__(self, event: Event) -> None:
        if isinstance(event, BootProgress) and event.fraction < 1.0:
            self._notifier.extend_start()
        if (text := status_text(event)) is not None:
            self._notifier.status(text)
