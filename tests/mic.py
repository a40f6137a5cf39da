"""A microphone for tests: silence in real time, with speech played in when the test says so."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator

import numpy as np

from hardware.audio import ChunkHint

RATE_HZ = 16000
FRAME = 480  # 30 ms
STALL_MAX_S = 10.0  # a stall nobody ends ends by itself


class ScriptedMic:
    """Implements the AudioSource port; `say()` and `end()` may be called from any thread (e.g. a bus subscriber)."""

    def __init__(self, speed: float = 1.0, max_s: float = 120.0) -> None:
        self._speed, self._max_s = speed, max_s
        self._queue: queue.Queue[np.ndarray | tuple[threading.Event, threading.Event | None]] = queue.Queue()
        self._ending = threading.Event()
        self._closed = threading.Event()
        self.delivered_s: list[float] = []
        """Length of every chunk handed on, seconds."""
        self.said_at: list[float] = []
        """Stream time (seconds) at which each queued utterance started playing."""

    def say(self, audio: np.ndarray) -> None:
        """Play `audio` (16 kHz int16) into the stream after whatever is already queued."""
        self._queue.put(audio.astype(np.int16))

    def stall(self, until: threading.Event, reached: threading.Event | None = None) -> None:
        """After what is queued, deliver nothing until `until` is set (as a device that stalls); `reached` is set
        when the stream gets there."""
        self._queue.put((until, reached))

    def end(self) -> None:
        """Finish once everything queued has been played."""
        self._ending.set()

    def close(self) -> None:
        """Stop at once."""
        self._closed.set()

    def frames(self, chunk_s: ChunkHint | None = None) -> Iterator[bytes]:
        """30 ms frames in real time, handed on in chunks as long as `chunk_s()` asks (like the real sources)."""
        chunk: list[bytes] = []
        wanted = 0.0
        for frame in self._frames():
            if not chunk:  # like a device read: the length is fixed when the read starts
                wanted = chunk_s() if chunk_s is not None else 0.0
            chunk.append(frame)
            if len(chunk) * FRAME / RATE_HZ >= wanted - 1e-9:
                yield self._hand_on(chunk)
                chunk = []
        if chunk:
            yield self._hand_on(chunk)

    def _hand_on(self, chunk: list[bytes]) -> bytes:
        self.delivered_s.append(round(len(chunk) * FRAME / RATE_HZ, 3))
        return b"".join(chunk)

    def _frames(self) -> Iterator[bytes]:
        buf = np.zeros(0, np.int16)
        started = time.monotonic()
        n = 0
        while not self._closed.is_set() and n * FRAME / RATE_HZ < self._max_s:
            if len(buf) == 0:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    if self._ending.is_set():
                        return
                else:
                    if isinstance(item, tuple):  # a stall
                        until, reached = item
                        if reached is not None:
                            reached.set()
                        until.wait(STALL_MAX_S)
                        started = time.monotonic() - n * FRAME / RATE_HZ / self._speed
                        continue
                    buf = item
                    self.said_at.append(n * FRAME / RATE_HZ)
            frame, buf = buf[:FRAME], buf[FRAME:]
            if len(frame) < FRAME:
                frame = np.concatenate([frame, np.zeros(FRAME - len(frame), np.int16)])
            n += 1
            delay = started + n * FRAME / RATE_HZ / self._speed - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            yield frame.tobytes()
