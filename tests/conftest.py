"""Shared fixtures: real engines on the dev profile's models, loaded once per session."""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from daemon.box.rehearsal import spoken
from daemon.box.wavfile import Int16Array
from daemon.config import Config, LlmConfig, ModelsConfig, StateConfig, TtsConfig
from daemon.ports import AUDIO_RATE_HZ, Engines

# NOTE: set before llama.cpp starts OpenMP (the default config's policy); the engine does the same, this only makes
# it explicit for tests that import llama_cpp first.
os.environ.pop("OMP_WAIT_POLICY", None)
os.environ.setdefault("GOMP_SPINCOUNT", "10000")
# NOTE: CTranslate2 picks its matrix kernels by the CPU (Intel MKL on Intel, oneDNN elsewhere; AVX2 or AVX-512), and
# Whisper's words on a clip follow their rounding: six test clips were heard apart on two CI hosts. The tests that
# name what Whisper hears on a clip were chosen on the kernels pinned here (oneDNN, AVX2), which any x86-64 host
# with AVX2 runs alike. Read at the first model load, so setting them after the import is in time.
os.environ.setdefault("CT2_USE_MKL", "0")
os.environ.setdefault("CT2_FORCE_CPU_ISA", "AVX2")
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")


@pytest.fixture(autouse=True)
def _root_logging_restored() -> Iterator[None]:
    """The CLI's `main()` installs the journal's handler (and its repeat filter) on the root logger: undo it."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty models directory: the dev profile needs none (its models come from packages)."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def dev_config(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Config:
    """The dev profile with a deterministic LLM, and the voice without its random variation (same audio every run);
    its state kept apart from the machine's own box (a timer a demo left there rang in a test)."""
    return Config(
        models=ModelsConfig(profile="dev", dir=str(models_dir)),
        llm=LlmConfig(seed=7, temperature=0.0),
        tts=TtsConfig(noise_scale=0.0, noise_w=0.0),
        state=StateConfig(str(tmp_path_factory.mktemp("state"))),
    )


@pytest.fixture(scope="session")
def llm(dev_config: Config):  # type: ignore[no-untyped-def]
    """The real chat model (the dev profile's brain, Qwen2.5-Coder-1.5B-Instruct Q4_K_M)."""
    from daemon.engines.load import load_llm

    return load_llm(dev_config)


@pytest.fixture(scope="session")
def tts(dev_config: Config):  # type: ignore[no-untyped-def]
    """The real Piper voice."""
    from daemon.engines.load import load_tts

    return load_tts(dev_config)


@pytest.fixture(scope="session")
def stt(dev_config: Config):  # type: ignore[no-untyped-def]
    """The dev profile's recogniser (Whisper tiny.en)."""
    from daemon.engines.load import load_stt

    return load_stt(dev_config)


@pytest.fixture(scope="session")
def pocketsphinx(dev_config: Config):  # type: ignore[no-untyped-def]
    """PocketSphinx English, the streaming recogniser bundled in its wheel (the fallback, and a second-pass partner)."""
    from daemon.config import SttConfig
    from daemon.engines.load import load_stt

    return load_stt(dataclasses.replace(dev_config, stt=SttConfig(model="pocketsphinx-en-us", second_pass="none")))


@pytest.fixture(scope="session")
def short_llm(dev_config: Config):  # type: ignore[no-untyped-def]
    """A second copy of the chat model with short answers, for tests that ask many questions."""
    import dataclasses

    from daemon.engines.load import load_llm

    model = load_llm(dataclasses.replace(dev_config, llm=dataclasses.replace(dev_config.llm, max_answer_tokens=24)))
    yield model
    model.close()


@pytest.fixture(scope="session")
def quick_engines(engines: Engines, short_llm) -> Engines:  # type: ignore[no-untyped-def]
    """The real engines with the short-answer model."""
    import dataclasses

    return dataclasses.replace(engines, llm=short_llm, memory=short_llm.conversation)


@pytest.fixture(scope="session")
def engines(llm, stt, tts, dev_config: Config) -> Engines:  # type: ignore[no-untyped-def]
    """Every real engine of the dev profile, the wake word included."""
    from daemon.engines.load import load_vad, load_wake

    wake = load_wake(dev_config)
    return Engines(stt=stt, llm=llm, memory=llm.conversation, tts=tts, vad=load_vad(dev_config), wake=wake)


@pytest.fixture(scope="session")
def small_engines(stt, tts, dev_config: Config) -> Engines:  # type: ignore[no-untyped-def]
    """The dev engines with the `small` profile's brain (SmolLM2-135M): for tests of the turn's timing, which the
    dev brain (Qwen2.5-Coder-1.5B, ~6 tokens/s on one thread here) would make tests of this machine's speed."""
    from daemon.engines.load import load_llm, load_vad, load_wake

    small = load_llm(dataclasses.replace(dev_config, models=dataclasses.replace(dev_config.models, profile="small")))
    return Engines(
        stt=stt, llm=small, memory=small.conversation, tts=tts, vad=load_vad(dev_config), wake=load_wake(dev_config)
    )


Speech = Callable[..., Int16Array]
"""text, lead_s=0.3, tail_s=0.5 -> 16 kHz int16 speech in the box's own voice, with silence around it."""


@pytest.fixture
def speech(tts) -> Iterator[Speech]:  # type: ignore[no-untyped-def]
    """A function: text -> 16 kHz int16 speech made by the real TTS, with silence around it."""

    def make(text: str, lead_s: float = 0.3, tail_s: float = 0.5) -> Int16Array:
        audio = spoken(tts, text)
        lead = np.zeros(int(lead_s * AUDIO_RATE_HZ), np.int16)
        tail = np.zeros(int(tail_s * AUDIO_RATE_HZ), np.int16)
        return np.concatenate([lead, audio, tail])

    yield make


def feed(stream, audio: Int16Array, chunk_s: float = 0.1) -> list[str]:  # type: ignore[no-untyped-def]
    """Feed audio to a speech stream in microphone-sized chunks; return the partials seen."""
    step = int(AUDIO_RATE_HZ * chunk_s)
    partials = []
    for i in range(0, len(audio), step):
        p = stream.feed(np.ascontiguousarray(audio[i : i + step]).tobytes())
        if p is not None:
            partials.append(p)
    return partials
