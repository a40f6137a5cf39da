"""Manners for native libraries: what they print straight to file descriptor 2 is kept out of reports."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


@contextlib.contextmanager
def quiet_native_stderr() -> Iterator[None]:
    """Silence what native code writes to file descriptor 2 (Python's own stderr is left alone)."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
