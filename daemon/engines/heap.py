"""Give memory the C heap holds but no longer uses back to the OS."""

from __future__ import annotations

import ctypes
import functools
from typing import Final

M_MMAP_THRESHOLD: Final = -3
"""mallopt's parameter number (malloc.h)."""
BIG_BLOCK_BYTES: Final = 128 * 1024
"""Blocks this big or bigger get pages of their own, returned to the OS when freed (glibc's starting value)."""


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
    except OSError:  # not glibc: its allocator keeps nothing this could release
        return None


def return_freed_memory() -> None:
    """malloc_trim(0): free pages in every glibc arena go back to the OS, not only the top of the main heap."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


def keep_big_blocks_out_of_the_heap() -> None:
    """Fix glibc's mmap threshold, so audio and logits buffers never settle into the heap between small objects."""
    # NOTE: glibc raises the threshold to the size of every mmapped block freed (up to 32 MB), after which
    # a sentence's audio buffers came from the heap: over 1,000 turns RSS rose ~3 MB per 50 turns and fell
    # ~15 MB every 400 or so. Fixed at 128 kB, the same soak rose 555 -> 560 MB, evenly.
    libc = _libc()
    if libc is not None:
        libc.mallopt(M_MMAP_THRESHOLD, BIG_BLOCK_BYTES)
