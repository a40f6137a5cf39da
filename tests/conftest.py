"""Shared fixtures: real engines on the dev profile's models, loaded once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from daemon.config import Config, LlmConfig, ModelsConfig, TtsConfig
from daemon.demo import spoken
from daemon.ports import AUDIO_RATE_HZ
from daemon.wavfile import Int16Array

# NOTE: set before llama.cpp starts OpenMP; the engine does the same, this only makes it explicit.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty models directory: the dev profile needs none (its models come from packages)."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def dev_config(models_dir: Path) -> Config:
    """The dev profile with a deterministic LLM, and the voice without its random variation (same audio every run)."""
    return Config(
        models=ModelsConfig(profile="dev", dir=str(models_dir)),
        llm=LlmConfig(seed=7, temperature=0.0),
        tts=TtsConfig(noise_scale=0.0, noise_w=0.0),
    )


@pytest.fixture(scope="session")
def llm(dev_config: Config):  # type: ignore[no-untyped-def]
    """The real chat model (SmolLM2-135M-Instruct)."""
    from daemon.engines.load import load_llm

    return load_llm(dev_config)


@pytest.fixture(scope="session")
def tts(dev_config: Config):  # type: ignore[no-untyped-def]
    """The real Piper voice."""
    from daemon.engines.load import load_tts

    return load_tts(dev_config)


@pytest.fixture(scope="session")
def stt(dev_config: Config):  # type: ignore[no-untyped-def]
    """The dev profile's recogniser (PocketSphinx English)."""
    from daemon.engines.load import load_stt

    return load_stt(dev_config)


@pytest.fixture
def speech(tts) -> Iterator:  # type: ignore[no-untyped-def]
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
