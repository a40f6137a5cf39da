"""What a process costs right now: resident memory (now and peak), CPU time, memory bandwidth, percentiles."""

from __future__ import annotations

import resource
import time
from pathlib import Path

import numpy as np


def memory_mb() -> dict[str, float]:
    """Resident memory now, MB: all of it, anonymous (heap, KV cache, arenas) and file-backed (mapped files)."""
    fields: dict[str, float] = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:]:
        name, _, value = line.partition(":")
        fields[name] = int(value.split()[0]) / 1024
    rss, anonymous = fields.get("Rss", 0.0), fields.get("Anonymous", 0.0)
    return {"rss": rss, "anonymous": anonymous, "file": rss - anonymous}


def rss_mb() -> float:
    """Resident memory now, MB."""
    return _status_mb("VmRSS")


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (anonymous and file-backed), MB."""
    return _status_mb("VmHWM")


def _status_mb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_s() -> float:
    """CPU seconds used by this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def memory_bandwidth_gbs() -> float:
    """Bytes read plus written per second by a large array copy (best of three)."""
    src = np.ones(64 * 1024 * 1024, np.float32)  # 256 MB: far beyond any cache
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - started)
    return 2 * src.nbytes / best / 1e9


def reset_peak_rss() -> bool:
    """Start the peak (VmHWM) afresh from the current RSS; False where the kernel does not allow it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")  # 5: reset the peak RSS (Linux >= 4.0)
    except OSError:
        return False
    return True
