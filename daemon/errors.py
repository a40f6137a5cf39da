"""One error vocabulary: every failure carries a kebab-case code, a sentence and an exit status."""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2
EXIT_DATAERR: Final = 65
"""sysexits EX_DATAERR: an input file is unreadable or invalid."""
EXIT_SOFTWARE: Final = 70
EXIT_TEMPFAIL: Final = 75
"""sysexits EX_TEMPFAIL: a transient fault; systemd may restart us."""
EXIT_CONFIG: Final = 78
"""sysexits EX_CONFIG: a permanent fault (bad config, missing or corrupt model); never restart."""


class TalkboxError(Exception):
    """Base of every error talkbox reports to a person."""

    exit_status: int = EXIT_SOFTWARE

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{message} [{code}]")
        self.code = code
        self.message = message


class ConfigError(TalkboxError, ValueError):
    """The configuration is invalid; permanent until a person fixes it."""

    exit_status = EXIT_CONFIG


class ModelError(TalkboxError):
    """A model is missing, corrupt or unusable; permanent until a person fixes it."""

    exit_status = EXIT_CONFIG


class InputError(TalkboxError, ValueError):
    """An input file or value given to a command is unreadable or invalid."""

    exit_status = EXIT_DATAERR


class EngineError(TalkboxError, RuntimeError):
    """An engine failed while running (not at load time)."""

    exit_status = EXIT_SOFTWARE


class TransientError(TalkboxError):
    """A fault that may clear by itself (an audio device not there yet); systemd restarts us."""

    exit_status = EXIT_TEMPFAIL
