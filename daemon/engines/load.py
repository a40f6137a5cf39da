"""Build each engine from the config: select and verify its model first, then open it."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from daemon.config import Config
from daemon.errors import ModelError
from daemon.selection import SelectedModel, select

if TYPE_CHECKING:
    from daemon.engines.llm import LlamaResponder
    from daemon.engines.stt import PocketsphinxSpeechToText, VoskSpeechToText
    from daemon.engines.tts import PiperTextToSpeech
    from daemon.engines.wake import MicroWakeWordDetector

_LOGGER = logging.getLogger(__name__)


def _timed(what: str, selected: SelectedModel, started: float) -> None:
    _LOGGER.info("%s %s ready in %.2f s", what, selected.name, time.monotonic() - started)


def load_llm(config: Config) -> LlamaResponder:
    """The chat model, verified then loaded."""
    from daemon.engines.llm import LlamaResponder

    selected = select(config, "llm")
    return LlamaResponder(selected.path, config.llm)


def load_stt(config: Config) -> VoskSpeechToText | PocketsphinxSpeechToText:
    """The recogniser for the configured model (Vosk, or PocketSphinx as the fallback)."""
    from daemon.engines.stt import PocketsphinxSpeechToText, VoskSpeechToText

    started = time.monotonic()
    selected = select(config, "stt")
    engine: VoskSpeechToText | PocketsphinxSpeechToText
    if selected.engine == "vosk":
        engine = VoskSpeechToText(selected.path)
    elif selected.engine == "pocketsphinx":
        engine = PocketsphinxSpeechToText(selected.path)
    else:
        raise ModelError("stt-engine-unknown", f"STT model {selected.name} names no known engine")
    engine.fallback_reason = selected.fallback_reason
    _timed("STT", selected, started)
    return engine


def load_tts(config: Config) -> PiperTextToSpeech:
    """The Piper voice."""
    from daemon.engines.tts import PiperTextToSpeech

    started = time.monotonic()
    selected = select(config, "tts")
    engine = PiperTextToSpeech(selected.path, config.tts)
    _timed("TTS", selected, started)
    return engine


def load_wake(config: Config) -> MicroWakeWordDetector:
    """The wake word detector."""
    from daemon.engines.wake import MicroWakeWordDetector

    started = time.monotonic()
    selected = select(config, "wake")
    engine = MicroWakeWordDetector(selected.path, config.wake.threshold)
    _timed("wake word", selected, started)
    return engine
