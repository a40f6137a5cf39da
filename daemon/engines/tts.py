"""Text-to-speech with Piper, one sentence at a time."""

from __future__ import annotations

import collections
import dataclasses
import functools
import json
import logging
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np

from daemon.config import TtsConfig
from daemon.engines.cores import CORES
from daemon.errors import ModelError

_LOGGER = logging.getLogger(__name__)


ARENA_BYTES: Final = 256 << 20
"""The one memory region every Piper run works in (address space; only what is touched becomes resident)."""
MAX_PHONEMES: Final = 120
"""Most phonemes one run of the voice gets at length_scale 1 (~7 s of speech); a longer sentence is spoken in parts."""
# NOTE: the sentence splitter bounds characters, not speech: 99 characters of digits ("It is 123456789012 or
# ...") are 765 phonemes, 36.5 s of audio, +730 MB of RSS and 8 s before the first sound. Ordinary text is
# about one phoneme per character, so a sentence the splitter lets through (<= 100 characters) is one run.
KEEP_CHARS: Final = 48
"""Replies this short are kept once synthesized and said again from memory."""
KEEP_REPLIES: Final = 32
"""At most this many (a second of speech is ~44 KB: about 3 MB in all)."""
PAUSES: Final = frozenset(",;:.!?")
"""Phonemes after which a sentence may be cut with no change to how it sounds."""
WARM_UP_TEXT: Final = "123456789012 " * 12
"""Read in any language the voice speaks and far longer than one run: its first run is as long as a run gets."""
WARM_UP_SLOWER: Final = 1.3
"""The warm-up run is spoken this much slower, so it needs more memory than any real run of as many phonemes."""


@functools.cache
def _register_arena() -> None:
    """Give the process one CPU arena for Piper, big enough at the start that it never has to grow."""
    import onnxruntime

    info = onnxruntime.OrtMemoryInfo(
        "Cpu", onnxruntime.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, onnxruntime.OrtMemType.DEFAULT
    )
    config = {"arena_extend_strategy": 0, "initial_chunk_size_bytes": ARENA_BYTES}
    onnxruntime.create_and_register_allocator(info, onnxruntime.OrtArenaCfg(config))


def session_options(config: TtsConfig) -> Any:
    """onnxruntime settings for a Piper voice: few threads, and memory that does not grow per sentence length."""
    import onnxruntime

    # NOTE: a session's own arena starts small and doubles when sentences of new lengths leave no free block
    # big enough. 300 sentences of 3-30 words: its RSS went 358 -> 363 MB over the run, and the 1,000-turn
    # soaks saw one ~40 MB step at a random turn (225-480). One 256 MB region from the start: 338 MB at the
    # first sample and at the last, same speed (112.7 s vs 110.8 s of synthesis); the longest sentence the
    # splitter lets through needs ~100 MB of it. Long soaks still show pages of the region touched for the
    # first time now and then (3-9 MB steps in /proc/self/smaps), bounded by its size.
    _register_arena()
    options = onnxruntime.SessionOptions()
    options.add_session_config_entry("session.use_env_allocators", "1")
    if config.threads:
        # NOTE: onnxruntime spins one thread per core by default; sentences are synthesized while the
        # LLM is still decoding, and two pools on the same cores slow both (bench: in-pipeline decode
        # 0.85 -> 0.90 of bare llama.cpp, first-audio p90 1.29 -> 0.48 s, with threads 0 -> 1).
        options.intra_op_num_threads = config.threads
        options.inter_op_num_threads = 1
    # NOTE: a memory pattern is planned and kept per input shape, and every sentence has a new length: after
    # fifteen syntheses of five sentences (0.3-11 s of speech) the voice held +480 MB with it and +280 MB
    # without, at the same speed; over seven real answers the peak RSS fell by ~45 MB.
    options.enable_mem_pattern = False
    options.log_severity_level = 3  # errors only: warnings about unused initializers are noise
    return options


class PiperTextToSpeech:
    """A Piper voice (.onnx + .onnx.json) run by onnxruntime on the CPU."""

    def __init__(self, model_path: Path, config: TtsConfig) -> None:
        import onnxruntime
        from piper import PiperVoice, SynthesisConfig
        from piper.config import PiperConfig

        options = session_options(config)
        try:
            voice_config = json.loads(Path(f"{model_path}.json").read_text(encoding="utf-8"))
            session = onnxruntime.InferenceSession(
                str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
            self._voice = PiperVoice(session=session, config=PiperConfig.from_dict(voice_config))
        except (OSError, ValueError, KeyError) as err:
            raise ModelError("tts-voice-corrupt", f"Piper could not load {model_path}: {err}") from err
        except Exception as err:  # onnxruntime raises its own non-standard exception types
            raise ModelError("tts-voice-corrupt", f"onnxruntime could not load {model_path}: {err}") from err
        self._syn = SynthesisConfig(
            length_scale=config.length_scale,
            volume=config.volume,
            noise_scale=config.noise_scale if config.noise_scale >= 0 else None,
            noise_w_scale=config.noise_w if config.noise_w >= 0 else None,
        )
        self._silence = bytes(2 * int(self.sample_rate_hz * config.sentence_silence_s))
        self._length_scale, self._pace = config.length_scale, 1.0
        self._max_phonemes = int(MAX_PHONEMES / max(1.0, config.length_scale))  # slower speech: longer audio
        self._kept: collections.OrderedDict[str, tuple[bytes, ...]] = collections.OrderedDict()
        self._keeping = threading.Lock()
        self._stock: dict[str, tuple[bytes, ...]] = {}
        self._restock: set[str] = set()
        """Replies kept for good before the pace changed: kept again, at the new pace, the next time they are said."""
        self._warm_up()

    def _warm_up(self) -> None:
        """Run the voice once on as big a piece as it will ever get, before the first sentence needs it."""
        # NOTE: onnxruntime's arena hands out the lowest free addresses, so a run touches new pages of it only
        # when it needs more than every run before: soaks saw 3-9 MB of RSS appear at random turns. A run of
        # 120 phonemes of digits is 5.9 s of speech, and after it 300 random sentences still added 13 MB; at
        # 1.3x slower (7.7 s; the longest real run seen was 6.5 s) the region stayed at 132 MB throughout.
        phonemes = self._voice.phonemize(WARM_UP_TEXT)[0]
        slower = dataclasses.replace(self._syn, length_scale=(self._syn.length_scale or 1.0) * WARM_UP_SLOWER)
        self._run(next(phoneme_runs(phonemes, self._max_phonemes)), slower)

    @property
    def sample_rate_hz(self) -> int:
        """Rate of the audio it produces."""
        return int(self._voice.config.sample_rate)

    @property
    def pace(self) -> float:
        """How slowly it speaks relative to tts.length_scale: 1.0 as configured, above 1 slower."""
        return self._pace

    @pace.setter
    def pace(self, pace: float) -> None:
        """Speak at `pace` from the next sentence on; what was said from memory is made again at it."""
        scale = self._length_scale * pace
        with self._keeping:
            self._syn = dataclasses.replace(self._syn, length_scale=scale)
            self._max_phonemes = int(MAX_PHONEMES / max(1.0, scale))
            self._pace = pace
            self._kept.clear()
            self._restock.update(self._stock)
            self._stock.clear()

    def synthesize(self, text: str) -> Iterator[bytes]:
        """Yield int16 mono audio, one chunk per sentence (or part of a long one), each sentence then a pause."""
        with self._keeping:
            if (kept := self._kept.get(text)) is not None:
                self._kept.move_to_end(text)
            kept, syn = self._stock.get(text, kept), self._syn
        if kept is not None:
            yield from kept
            return
        chunks: list[bytes] = []
        for chunk in self._synthesized(text):
            chunks.append(chunk)
            yield chunk
        with self._keeping:  # voices of two answers may finish at once
            if self._syn is not syn:
                return  # NOTE: the pace changed while it was said: what was made is not the voice's now
            if text in self._restock:
                self._stock[text] = tuple(chunks)
                self._restock.discard(text)
            elif len(text) <= KEEP_CHARS:
                # NOTE: a skill says the same short things again and again ("Timer cancelled.", "That's 4."): said
                # from memory they sound at once instead of after a run of the voice (0.1-0.3 s here, more on a Pi).
                self._kept[text] = tuple(chunks)
                if len(self._kept) > KEEP_REPLIES:
                    self._kept.popitem(last=False)

    def keep(self, text: str) -> None:
        """Synthesize `text` now and keep it for good: a reply given word for word, said at once when it is."""
        if text not in self._stock:
            syn = self._syn
            audio = tuple(self._synthesized(text))
            with self._keeping:
                if self._syn is syn:
                    self._stock[text] = audio
                else:
                    self._restock.add(text)

    def _synthesized(self, text: str) -> Iterator[bytes]:
        syn, most = self._syn, self._max_phonemes  # one pace for the whole text, even if it changes meanwhile
        for sentence in self._voice.phonemize(said_as_letters(text)):
            runs = list(phoneme_runs(sentence, most))
            for k, run in enumerate(runs, 1):
                audio = self._run(run, syn)
                yield audio + self._silence if k == len(runs) else audio

    def close(self) -> None:
        """Nothing to free early: the session goes with its last reference (its arena stays, process-wide)."""

    def _run(self, phonemes: list[str], syn: Any) -> bytes:
        """One onnxruntime run: phonemes in, int16 audio out, normalized and scaled as Piper does."""
        from piper import AudioChunk

        ids = self._voice.phonemes_to_ids(phonemes)
        with CORES.working():
            audio = np.asarray(self._voice.phoneme_ids_to_audio(ids, syn), dtype=np.float32)
        if syn.normalize_audio:
            peak = float(np.max(np.abs(audio))) if audio.size else 0.0
            audio = audio / peak if peak >= 1e-8 else np.zeros_like(audio)
        audio = np.clip(audio * syn.volume, -1.0, 1.0)
        chunk = AudioChunk(self.sample_rate_hz, 2, 1, audio, phonemes=phonemes, phoneme_ids=ids)
        return chunk.audio_int16_bytes


def phoneme_runs(phonemes: list[str], limit: int) -> Iterator[list[str]]:
    """Cut one sentence's phonemes into runs of at most `limit`, after a pause mark or else between words."""
    rest = phonemes
    while len(rest) > limit:
        breaks = [i for i in range(1, limit) if rest[i] == " "]
        after_pause = [i for i in breaks if rest[i - 1] in PAUSES and i >= limit // 2]
        cut = (after_pause or breaks or [limit - 1])[-1]
        run = rest[:cut]
        yield run if run[-1] in PAUSES else [*run, ","]  # a comma: the part ends as a phrase, not mid-word
        rest = rest[cut:]
        while rest and rest[0] == " ":
            rest = rest[1:]
    if rest:
        yield rest


_AM_PM: Final = re.compile(
    r"\b(\d{1,2}(?::\d\d)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|\w+ty|o'clock)"
    r" (am|pm)\b",
    re.IGNORECASE,
)


def said_as_letters(text: str) -> str:
    """`text` with "am" and "pm" after a time written as the letters they are read as ("seven thirty AM")."""
    # NOTE: espeak-ng reads a lower-case "am" as the word ("seven thirty 'm"): every alarm said in the morning.
    return _AM_PM.sub(lambda m: f"{m[1]} {m[2].upper()}", text)
