"""The machine's cores, shared: the language model decodes on all of them while the recogniser and the voice rest."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Final

from daemon.config import LlmConfig

_LOGGER = logging.getLogger(__name__)

BRIEF_SPIN_COUNT: Final = 10_000
"""Spins an idle OpenMP thread makes before it sleeps, under the BRIEF wait policy (microseconds' worth)."""


def openmp_environment(policy: str) -> dict[str, str | None]:
    """The environment (None: unset) that gives OpenMP's threads the wait `policy`."""
    if policy == "BRIEF":
        # NOTE: GNU OpenMP spins GOMP_SPINCOUNT times only with OMP_WAIT_POLICY unset; PASSIVE sleeps at once.
        return {"OMP_WAIT_POLICY": None, "GOMP_SPINCOUNT": str(BRIEF_SPIN_COUNT)}
    return {"OMP_WAIT_POLICY": policy, "GOMP_SPINCOUNT": None}


def configure_openmp(policy: str) -> None:
    """Set OpenMP's wait policy; it only takes effect before llama.cpp's OpenMP runtime starts."""
    wanted = openmp_environment(policy)
    current = {name: os.environ.get(name) for name in wanted}
    if "llama_cpp" in sys.modules and current != wanted:
        _LOGGER.warning("OpenMP wait policy %s requested after llama.cpp was loaded; it stays %s", policy, current)
        return
    # NOTE: spinning without end (ACTIVE, or GNU's default 300,000 spins) burns the cores STT and TTS need: on a
    # shared 2-core machine decode fell from ~77 to ~5-12 tok/s. Sleeping at once (PASSIVE) makes every step of a
    # token wake its threads: the 1.5B decoded on both cores at 9.9 tok/s instead of 13.2 with brief spins.
    for name, value in wanted.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def thread_counts(config: LlmConfig, cores: int | None = None) -> tuple[int, int]:
    """Decode and prompt threads: decode leaves a core for STT/TTS/audio, prompt uses all cores."""
    cores = cores or os.cpu_count() or 1
    decode = config.threads or max(1, cores - 1)
    batch = config.batch_threads or cores
    return decode, batch


BACK_OFF_TOKENS: Final = 64
"""Tokens decoded on the usual threads after every core proved slower (another process had a core)."""
SLOWER: Final = 1.15
"""Every core "proved slower" when its tokens take this much longer than the usual threads' (noise stays below)."""
SMOOTHING: Final = 0.3
"""Weight of the newest token in the running mean of token times."""


class Cores:
    """Counts the engines computing beside the language model (the recogniser's decodes, the voice's runs)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._working = 0

    @contextlib.contextmanager
    def working(self) -> Iterator[None]:
        """Mark one engine computing for the block."""
        with self._lock:
            self._working += 1
        try:
            yield
        finally:
            with self._lock:
                self._working -= 1

    @property
    def others_working(self) -> bool:
        """Whether an engine other than the language model computes now."""
        return self._working > 0


CORES: Final = Cores()
"""The process's one count: the engines that take turns on the cores all live in it."""


class DecodeThreads:
    """Threads for each next llama.cpp call: `alone` while no other engine computes (unless that proved slower), else
    `usual`.

    # NOTE: measured here (2 cores, the 1.5B brain): 7.7 tok/s on one thread, 14 on both; but 4-5 on both while
    another thread computes (llama.cpp's threads wait for each other at every step), so both only while the
    recogniser and the voice rest. Another process on a core looks the same, so both cores back off when slower.
    """

    def __init__(
        self, usual: tuple[int, int], alone: tuple[int, int], apply: Callable[[int, int], None], cores: Cores
    ) -> None:
        self._usual = usual
        self._every = alone
        self._apply = apply
        self._cores = cores
        self._now = (-1, -1)  # whatever llama.cpp was made with: the first call sets its own
        self._mean: dict[tuple[int, int], float] = {}
        self._back_off = 0

    @property
    def now(self) -> tuple[int, int]:
        """Decode and prompt threads of the next call."""
        return self._now

    def choose(self) -> tuple[int, int]:
        """Set the threads for the next call, and return them."""
        wanted = self._usual
        if self._every != self._usual and not self._cores.others_working:
            if self._back_off:
                self._back_off -= 1
            elif self._every in self._mean and self._usual not in self._mean:
                pass  # one token on the usual threads, to have something to compare with
            else:
                wanted = self._every
        if wanted != self._now:
            self._apply(*wanted)
            self._now = wanted
        return wanted

    def took(self, seconds: float) -> None:
        """Record one generated token's time on the threads it ran on."""
        last = self._mean.get(self._now)
        self._mean[self._now] = seconds if last is None else last + SMOOTHING * (seconds - last)
        every, usual = self._mean.get(self._every), self._mean.get(self._usual)
        if self._now == self._every and every is not None and usual is not None and every > usual * SLOWER:
            _LOGGER.debug("decoding on every core took %.3f s a token, %.3f on fewer: backing off", every, usual)
            self._back_off = BACK_OFF_TOKENS
            del self._mean[self._every]  # tried afresh after the back-off, not judged by this slow stretch
