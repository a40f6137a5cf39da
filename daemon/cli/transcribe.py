"""Speech-to-text of an audio file of any length: a long one is cut at its pauses and heard piece by piece."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

import numpy as np

from daemon.box.wavfile import Int16Array
from daemon.ports import AUDIO_RATE_HZ, SpeechToText, VoiceActivityDetector, Word

FEED_CHUNK_S: Final = 0.1
"""Audio is fed to the recogniser in pieces this long, as a microphone would deliver it."""
MAX_PIECE_S: Final = 30.0
"""The longest piece heard as one utterance; a file no longer than this is heard whole."""
# NOTE: a recogniser's search grows with its utterance: 30 minutes of audio as one utterance did not finish in
# 15 minutes (RSS still climbing past 318 MB), where 60 s took 11 s.
JOIN_PAUSE_S: Final = 0.6
"""Speech separated by a shorter pause stays in one piece."""
PAD_S: Final = 0.3
"""Silence kept around each piece, so its first and last sounds are heard whole."""


@dataclass(frozen=True)
class Heard:
    """The transcript of a file, with word times from its start."""

    text: str
    words: tuple[Word, ...]
    pieces: int
    """How many utterances the file was heard as."""


def voiced_frames(audio: Int16Array, vad: VoiceActivityDetector) -> list[bool]:
    """The VAD's verdict on each frame of the audio."""
    n = vad.frame_bytes // 2
    return [vad.is_speech(audio[i : i + n].tobytes()) for i in range(0, len(audio) - n + 1, n)]


def pieces(audio: Int16Array, vad: VoiceActivityDetector) -> list[tuple[int, int]]:
    """Sample ranges of the speech in `audio`: joined across short pauses, padded, at most MAX_PIECE_S long."""
    if len(audio) <= MAX_PIECE_S * AUDIO_RATE_HZ:
        return [(0, len(audio))]
    frame = vad.frame_bytes // 2
    spans: list[list[int]] = []
    for k, voiced in enumerate(voiced_frames(audio, vad)):
        if not voiced:
            continue
        start, end = k * frame, (k + 1) * frame
        if spans and start - spans[-1][1] < JOIN_PAUSE_S * AUDIO_RATE_HZ:
            spans[-1][1] = end
        else:
            spans.append([start, end])
    pad = int(PAD_S * AUDIO_RATE_HZ)
    padded = [(max(0, a - pad), min(len(audio), b + pad)) for a, b in spans]
    return [cut for a, b in padded for cut in _at_most(audio, a, b)]


def _at_most(audio: Int16Array, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Cut [start, end) into pieces of at most MAX_PIECE_S, each at the quietest 30 ms of its last third."""
    limit = int(MAX_PIECE_S * AUDIO_RATE_HZ)
    step = int(0.03 * AUDIO_RATE_HZ)
    while end - start > limit:
        window = audio[start + 2 * limit // 3 : start + limit].astype(np.float32)
        energy = [float(np.mean(window[i : i + step] ** 2)) for i in range(0, len(window) - step + 1, step)]
        cut = start + 2 * limit // 3 + step * int(np.argmin(energy))
        yield start, cut
        start = cut
    yield start, end


def hear(
    audio: Int16Array,
    stt: SpeechToText,
    vad: VoiceActivityDetector,
    on_partial: Callable[[str], None] = lambda _: None,
) -> Heard:
    """Transcribe `audio` piece by piece, fed in microphone-sized chunks; word times count from the file's start."""
    texts: list[str] = []
    words: list[Word] = []
    ranges = pieces(audio, vad)
    step = int(AUDIO_RATE_HZ * FEED_CHUNK_S)
    for start, end in ranges:
        stream = stt.stream()
        for i in range(start, end, step):
            partial = stream.feed(np.ascontiguousarray(audio[i : min(i + step, end)]).tobytes())
            if partial is not None:
                on_partial(" ".join([*texts, partial]))
        result = stream.finish()
        offset = start / AUDIO_RATE_HZ
        if result.text.strip():
            texts.append(result.text.strip())
        words += [Word(w.text, w.start_s + offset, w.end_s + offset, w.confidence) for w in result.words]
    return Heard(" ".join(texts), tuple(words), len(ranges))
