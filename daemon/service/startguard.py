"""Crash-loop guard: after several starts in a row that died before READY, stop asking systemd for restarts."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Final

from daemon.errors import ConfigError
from daemon.service.statefile import atomic_write

log = logging.getLogger("daemon.service.startguard")
MAX_FAILED_STARTS: Final = 5
FILE_NAME: Final = "failed-starts"


class StartGuard:
    """Counts starts that never reached READY, in systemd's RuntimeDirectory (kept across restarts, not stops).

    A crash after READY (kill -9, a watchdog restart) resets the count, so the box always comes back from those;
    a fault that kills every start is a permanent fault and ends in exit 78, which systemd does not restart.
    """

    def __init__(self, runtime_dir: str | None = None) -> None:
        directory = runtime_dir if runtime_dir is not None else os.environ.get("RUNTIME_DIRECTORY", "")
        self._path = Path(directory.split(":")[0]) / FILE_NAME if directory else None

    def starting(self) -> None:
        """Count this start; refuse it if the previous starts all died before READY."""
        failed = self._read()
        if failed >= MAX_FAILED_STARTS:
            self._write(0)  # a start after fixing the cause (systemctl restart) gets a fresh count
            raise ConfigError(
                "start-crash-loop",
                f"talkbox died {failed} times in a row before it was ready; not restarting "
                "(the journal has each error; fix it, then: systemctl restart talkbox)",
            )
        self._write(failed + 1)

    def ready(self) -> None:
        """The box reached READY (or exits on purpose): this start does not count as failed."""
        self._write(0)

    def _read(self) -> int:
        if self._path is None:
            return 0
        try:
            return int(self._path.read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    def _write(self, count: int) -> None:
        if self._path is None:
            return
        try:
            atomic_write(self._path, f"{count}\n".encode())
        except OSError as err:  # the guard must never be the reason the box does not start
            log.warning("cannot keep the start count in %s: %s", self._path, err)
