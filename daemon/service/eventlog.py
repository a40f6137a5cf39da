"""Write every event as one JSON line with a timestamp, so a run can be inspected afterwards."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from daemon.events import Event


class EventLog:
    """Subscribes to the bus; `t` is seconds since the log was opened (monotonic clock)."""

    def __init__(self, path: Path) -> None:
        self._fh: TextIO = path.open("w", encoding="utf-8")
        self._t0 = time.monotonic()
        self._lock = threading.Lock()  # start-up steps are reported from the loading thread

    def __call__(self, event: Event) -> None:
        record = {"t": round(time.monotonic() - self._t0, 4), "event": type(event).__name__, **event.fields()}
        with self._lock:
            self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._fh.flush()

    def close(self) -> None:
        """Close the file."""
        self._fh.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_events(path: Path) -> list[dict[str, Any]]:
    """The records of an event log, in order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
