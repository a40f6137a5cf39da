"""Big buffers never settle into the C heap: each gets pages of its own, given back when it is freed."""

from __future__ import annotations

import ctypes

import pytest

from daemon.heap import BIG_BLOCK_BYTES, keep_big_blocks_out_of_the_heap


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks")
    ] + [("keepcost", ctypes.c_size_t)]


def _mapped_blocks() -> int:
    """Blocks glibc gave pages of their own (mmap), from mallinfo2."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallinfo2 = libc.mallinfo2
    except (OSError, AttributeError):
        pytest.skip("needs glibc 2.33 or later")
    mallinfo2.restype = _MallInfo2
    return int(mallinfo2().hblks)


def test_a_big_buffer_gets_pages_of_its_own_even_after_a_bigger_one_was_freed() -> None:
    keep_big_blocks_out_of_the_heap()
    big = bytearray(8 * 1024 * 1024)
    del big  # glibc's own rule would now serve anything under 8 MB from the heap
    before = _mapped_blocks()
    audio = bytearray(4 * BIG_BLOCK_BYTES)
    assert _mapped_blocks() == before + 1
    del audio
    assert _mapped_blocks() == before  # and freeing it gave the pages back
