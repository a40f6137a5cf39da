"""The box's volume: a speaker that scales what it plays (the level a user sets by voice, remembered)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from daemon.ports import AudioSink


class VolumeSink:
    """An AudioSink that plays through `sink` at `level` (0..100) or not at all while `muted`."""

    def __init__(self, sink: AudioSink, level: int = 100) -> None:
        self._sink = sink
        self.level = level
        self.muted = False

    @property
    def gain(self) -> float:
        """The factor samples are scaled by: the square of the level, closer to how loudness is heard than linear."""
        return 0.0 if self.muted else (self.level / 100.0) ** 2

    def play(self, pcm: bytes, rate_hz: int, on_start: Callable[[], None] | None = None) -> None:
        """Queue `pcm` scaled by the gain (a muted box still plays silence, so timing and barge-in hold)."""
        gain = self.gain
        if gain != 1.0:
            samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32) * gain
            pcm = samples.astype(np.int16).tobytes()
        self._sink.play(pcm, rate_hz, on_start)

    def stop(self) -> float:
        """Silence now."""
        return self._sink.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until everything queued has played."""
        return self._sink.wait(timeout)

    def close(self) -> None:
        """Close the speaker."""
        self._sink.close()
