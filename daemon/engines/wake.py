"""Wake word detection: microWakeWord models (pymicro-wakeword), or a phrase of the user's own spotted by
PocketSphinx (no training)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from daemon.errors import ConfigError, ModelError
from daemon.ports import AUDIO_RATE_HZ

MIN_PHONES: Final = 6
"""A wake phrase shorter than this many sounds is too easily heard in other speech: it is refused."""
RESTART_EVERY_S: Final = 20.0
"""The spotter's utterance is restarted this often, so listening for hours keeps its memory flat."""


class MicroWakeWordDetector:
    """Listens for one phrase, e.g. "Hey Jarvis"; feed it 16 kHz mono int16 audio."""

    def __init__(self, config_path: Path, threshold: float = 0.0) -> None:
        from pymicro_wakeword import MicroWakeWord, MicroWakeWordFeatures

        try:
            self._model = MicroWakeWord.from_config(config_path)
        except (OSError, ValueError, KeyError) as err:
            raise ModelError("wake-model-corrupt", f"cannot load wake word {config_path}: {err}") from err
        if threshold:
            self._model.probability_cutoff = threshold
        self._features = MicroWakeWordFeatures()

    @property
    def phrase(self) -> str:
        """What the user says."""
        return str(self._model.wake_word)

    def process(self, pcm: bytes) -> bool:
        """Take 16 kHz mono int16 audio; True once the phrase was heard."""
        heard = False
        for features in self._features.process_streaming(pcm):
            if self._model.process_streaming(features):
                heard = True
        return heard

    def reset(self) -> None:
        """Forget what was heard so far."""
        self._model.reset()
        self._features.reset()

    def close(self) -> None:
        """Free the TFLite interpreter."""
        self._model.close()


class PhraseSpotter:
    """Listens for a phrase the user wrote in the config ("hey computer"), with PocketSphinx's keyphrase search."""

    def __init__(self, model_dir: Path, phrase: str, threshold: float) -> None:
        from pocketsphinx import Decoder

        words = phrase.lower().split()
        if not words:
            raise ConfigError("wake-phrase-empty", "wake.phrase is empty")
        try:
            self._decoder = Decoder(
                hmm=str(model_dir / "en-us"),
                dict=str(model_dir / "cmudict-en-us.dict"),
                keyphrase=" ".join(words),
                kws_threshold=threshold,
                samprate=AUDIO_RATE_HZ,
                loglevel="FATAL",
            )
        except (RuntimeError, ValueError) as err:
            raise ModelError("wake-model-corrupt", f"PocketSphinx could not load {model_dir}: {err}") from err
        unknown = [w for w in words if self._decoder.lookup_word(w) is None]
        if unknown:
            raise ConfigError(
                "wake-phrase-unknown",
                f"wake.phrase = {phrase!r}: the spotter does not know how to say {', '.join(map(repr, unknown))}; "
                "choose words from an English dictionary",
            )
        phones = sum(len(self._decoder.lookup_word(w).split()) for w in words)
        if phones < MIN_PHONES:
            raise ConfigError(
                "wake-phrase-too-short",
                f"wake.phrase = {phrase!r} has {phones} sounds: shorter than {MIN_PHONES}, it would be heard in "
                'ordinary speech far too often; choose a longer phrase ("hey computer", "okay talk box")',
            )
        self._phrase = " ".join(w.capitalize() for w in words)
        self._heard_s = 0.0
        self._decoder.start_utt()

    @property
    def phrase(self) -> str:
        """What the user says."""
        return self._phrase

    def process(self, pcm: bytes) -> bool:
        """Take 16 kHz mono int16 audio; True once the phrase was heard."""
        self._decoder.process_raw(pcm, False, False)
        self._heard_s += len(pcm) / 2 / AUDIO_RATE_HZ
        if self._decoder.hyp() is not None:
            self.reset()
            return True
        if self._heard_s >= RESTART_EVERY_S:
            self.reset()
        return False

    def reset(self) -> None:
        """Forget what was heard so far."""
        self._decoder.end_utt()
        self._decoder.start_utt()
        self._heard_s = 0.0

    def close(self) -> None:
        """End the search."""
        self._decoder.end_utt()
