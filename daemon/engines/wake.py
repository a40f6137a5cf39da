"""Wake word detection with microWakeWord models (pymicro-wakeword)."""

from __future__ import annotations

from pathlib import Path

from daemon.errors import ModelError


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
