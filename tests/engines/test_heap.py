"""Big buffers never settle into the C heap: each gets pages of its own, given back when it is freed."""

from __future__ import annotations

import subprocess
import sys

import pytest

# NOTE: in a fresh interpreter: in the suite's process other tests' threads allocate and free big blocks too,
# and glibc's count of mapped blocks is process-wide.
PROBE = """
import ctypes, sys
from daemon.engines.heap import BIG_BLOCK_BYTES, keep_big_blocks_out_of_the_heap
class MallInfo2(ctypes.Structure):
    names = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
    _fields_ = [(n, ctypes.c_size_t) for n in names.split()]
libc = ctypes.CDLL("libc.so.6")
if not hasattr(libc, "mallinfo2"):
    sys.exit(3)
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "fixed":
    keep_big_blocks_out_of_the_heap()
big = bytearray(8 * 1024 * 1024)
del big  # glibc's own rule would now serve anything under 8 MB from the heap
before = libc.mallinfo2().hblks
audio = bytearray(4 * BIG_BLOCK_BYTES)
during = libc.mallinfo2().hblks
del audio
print(during - before, libc.mallinfo2().hblks - before)
"""


def _probe(mode: str) -> tuple[int, int]:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, timeout=60)
    if done.returncode == 3:
        pytest.skip("needs glibc 2.33 or later (mallinfo2)")
    assert done.returncode == 0, done.stderr
    mapped, after_free = done.stdout.split()
    return int(mapped), int(after_free)


def test_a_big_buffer_gets_pages_of_its_own_even_after_a_bigger_one_was_freed() -> None:
    assert _probe("fixed") == (1, 0)  # mapped while alive, unmapped once freed


def test_without_the_fixed_threshold_glibc_would_keep_it_in_the_heap() -> None:
    assert _probe("dynamic") == (0, 0)  # what the fix is for: the probe can tell the two apart
