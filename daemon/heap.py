"""Give memory the C heap holds but no longer uses back to the OS."""

from __future__ import annotations

import ctypes
import functools
from typing import Any


@functools.cache
def _libc() -> Any:
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:  # not glibc: its allocator keeps nothing this could release
        return None


def return_freed_memory() -> None:
    """malloc_trim(0): free pages in every glibc arena go back to the OS, not only the top of the main heap."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
