"""Text-to-speech with Piper, one sentence at a time."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from daemon.config import TtsConfig
from daemon.errors import ModelError

_LOGGER = logging.getLogger(__name__)


ARENA_BYTES: Final = 256 << 20
"""The one memory region every Piper run works in (address space; only what is touched becomes resident)."""


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

    @property
    def sample_rate_hz(self) -> int:
        """Rate of the audio it produces."""
        return int(self._voice.config.sample_rate)

    def synthesize(self, text: str) -> Iterator[bytes]:
        """Yield int16 mono audio, one chunk per sentence, each followed by a short pause."""
        for chunk in self._voice.synthesize(text, self._syn):
            yield chunk.audio_int16_bytes + self._silence
