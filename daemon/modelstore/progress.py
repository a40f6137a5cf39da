"""A terminal progress bar for long model operations (fetch, quantize)."""

from __future__ import annotations

import sys
import time
from typing import Final, TextIO

_BAR_CELLS: Final = 28
_LOG_STEP_PERCENT: Final = 10
"""Without a terminal, print a line every this many percent instead of redrawing."""
_REDRAW_S: Final = 0.1


class ProgressBar:
    """Redraws one line on a terminal; prints sparse lines into logs and pipes."""

    def __init__(self, label: str, total: int, unit: str = "B", stream: TextIO | None = None) -> None:
        self._label, self._total, self._unit = label, max(total, 0), unit
        self._out = stream or sys.stderr
        self._tty = self._out.isatty()
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._last_step = -1
        self._done = 0

    def _amount(self, n: float) -> str:
        if self._unit == "B":
            return f"{n / 1e6:.1f} MB"
        return f"{int(n)}"

    def update(self, done: int) -> None:
        """Record progress: `done` units of `total` so far."""
        self._done = done
        pct = int(100 * done / self._total) if self._total else 0
        now = time.monotonic()
        if self._tty:
            if now - self._last_draw < _REDRAW_S and done < self._total:
                return
            self._last_draw = now
            filled = _BAR_CELLS * pct // 100
            rate = done / max(now - self._started, 1e-6)
            speed = f" {rate / 1e6:.1f} MB/s" if self._unit == "B" else ""
            self._out.write(
                f"\r{self._label} [{'#' * filled}{'.' * (_BAR_CELLS - filled)}] {pct:3d}% "
                f"{self._amount(done)}/{self._amount(self._total)}{speed}  "
            )
        else:
            step = pct // _LOG_STEP_PERCENT
            if step == self._last_step:
                return
            self._last_step = step
            self._out.write(f"{self._label}: {pct}% ({self._amount(done)}/{self._amount(self._total)})\n")
        self._out.flush()

    def close(self) -> None:
        """Finish the line."""
        if self._tty:
            self._out.write("\n")
            self._out.flush()
