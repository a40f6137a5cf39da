"""Speech-to-text: Vosk (the box's engine) and PocketSphinx (bundled English fallback), streaming."""

from __future__ import annotations

import json
import logging
import re
import threading
from pathlib import Path
from typing import Any, Final

import numpy as np
import soxr

from daemon.errors import ModelError
from daemon.ports import AUDIO_RATE_HZ, SpeechStream, Transcript, Word

_LOGGER = logging.getLogger(__name__)

_SPHINX_FRAMES_PER_S: Final = 100
_SPHINX_FILLERS: Final = re.compile(r"^(<.*>|\[.*\]|\+\+.*\+\+)$")
_SAMPLE_FREQUENCY: Final = re.compile(r"--sample-frequency=(\d+)")


class _Resampler:
    """Streams the box's 16 kHz audio to a model's own rate with soxr (identity when equal)."""

    def __init__(self, to_hz: int) -> None:
        self._stream = None if to_hz == AUDIO_RATE_HZ else soxr.ResampleStream(AUDIO_RATE_HZ, to_hz, 1, dtype="int16")

    def __call__(self, pcm: bytes, last: bool = False) -> bytes:
        if self._stream is None:
            return pcm
        out: bytes = self._stream.resample_chunk(np.frombuffer(pcm, "<i2"), last=last).tobytes()
        return out


def _vosk_rate(model_dir: Path) -> int:
    """The model's sample rate, from its conf/mfcc.conf (Vosk models are 8 or 16 kHz)."""
    conf = model_dir / "conf" / "mfcc.conf"
    match = _SAMPLE_FREQUENCY.search(conf.read_text()) if conf.is_file() else None
    return int(match.group(1)) if match else AUDIO_RATE_HZ


class VoskStream:
    """One utterance through a KaldiRecognizer; Vosk may split it into several segments at pauses."""

    def __init__(self, model: object, rate_hz: int) -> None:
        from vosk import KaldiRecognizer

        self._rec = KaldiRecognizer(model, rate_hz)
        self._rec.SetWords(True)
        self._resample = _Resampler(rate_hz)
        self._segments: list[dict[str, object]] = []
        self._partial = ""

    def _text(self, tail: str = "") -> str:
        parts = [str(s.get("text", "")) for s in self._segments] + [tail]
        return " ".join(p for p in parts if p)

    def feed(self, pcm: bytes) -> str | None:
        """Take 16 kHz mono int16 audio; return the partial transcript when it changed."""
        if self._rec.AcceptWaveform(self._resample(pcm)):
            self._segments.append(json.loads(self._rec.Result()))
            partial = self._text()
        else:
            partial = self._text(json.loads(self._rec.PartialResult()).get("partial", ""))
        if partial != self._partial:
            self._partial = partial
            return partial
        return None

    def settle(self, final: bool = False) -> str:
        """The partial transcript: a streaming decoder is always up to date."""
        return self._partial

    def finish(self) -> Transcript:
        """End the utterance and return its final transcript with word timings."""
        tail = self._resample(b"", last=True)
        if tail:
            self._rec.AcceptWaveform(tail)
        self._segments.append(json.loads(self._rec.FinalResult()))
        words = tuple(
            Word(str(w["word"]), float(w["start"]), float(w["end"]), float(w.get("conf", 1.0)))
            for s in self._segments
            for w in s.get("result", [])  # type: ignore[attr-defined]
        )
        return Transcript(self._text(), words)


class VoskSpeechToText:
    """Vosk/Kaldi recogniser for one model directory."""

    engine = "vosk"
    punctuates = False

    def __init__(self, model_dir: Path) -> None:
        from vosk import Model, SetLogLevel

        SetLogLevel(-1)
        try:
            self._model = Model(str(model_dir))
        except Exception as err:  # vosk raises a bare Exception("Failed to create a model")
            raise ModelError("stt-model-corrupt", f"Vosk could not load {model_dir}: {err}") from err
        self.rate_hz = _vosk_rate(model_dir)

    def stream(self) -> SpeechStream:
        """Start a new utterance."""
        return VoskStream(self._model, self.rate_hz)

    def transcribe(self, pcm: bytes) -> Transcript:
        """A whole utterance at once."""
        stream = VoskStream(self._model, self.rate_hz)
        stream.feed(pcm)
        return stream.finish()

    def close(self) -> None:
        """Nothing to free early: Vosk frees the model with its last reference."""


class PocketsphinxStream:
    """One utterance through the shared PocketSphinx decoder."""

    def __init__(self, decoder: object, lock: threading.Lock) -> None:
        self._decoder = decoder
        self._lock = lock
        self._partial = ""
        self.open = True
        """False once the utterance was ended (finished, or dropped for a newer one)."""
        with lock:
            decoder.start_utt()  # type: ignore[attr-defined]

    def end(self) -> None:
        """End the utterance without a transcript (the decoder is shared: the next one needs it)."""
        with self._lock:
            if self.open:
                self.open = False
                self._decoder.end_utt()  # type: ignore[attr-defined]

    def feed(self, pcm: bytes) -> str | None:
        """Take 16 kHz mono int16 audio; return the partial transcript when it changed."""
        with self._lock:
            self._decoder.process_raw(pcm, False, False)  # type: ignore[attr-defined]
            hyp = self._decoder.hyp()  # type: ignore[attr-defined]
        partial = hyp.hypstr if hyp else ""
        if partial != self._partial:
            self._partial = partial
            return partial
        return None

    def settle(self, final: bool = False) -> str:
        """The partial transcript: a streaming decoder is always up to date."""
        return self._partial

    def finish(self) -> Transcript:
        """End the utterance and return its final transcript with word timings."""
        with self._lock:
            if self.open:
                self.open = False
                self._decoder.end_utt()  # type: ignore[attr-defined]
            hyp = self._decoder.hyp()  # type: ignore[attr-defined]
            segs = list(self._decoder.seg() or ())  # type: ignore[attr-defined]
        return Transcript(hyp.hypstr if hyp else "", _words(segs))


def _words(segs: list[Any]) -> tuple[Word, ...]:
    """PocketSphinx's segments as words with times, fillers and pronunciation variants left out."""
    return tuple(
        Word(
            re.sub(r"\(\d+\)$", "", s.word),
            s.start_frame / _SPHINX_FRAMES_PER_S,
            (s.end_frame + 1) / _SPHINX_FRAMES_PER_S,
            float(s.prob),
        )
        for s in segs
        if not _SPHINX_FILLERS.match(s.word)
    )


class PocketsphinxSpeechToText:
    """CMU PocketSphinx with the English model bundled in its wheel."""

    engine = "pocketsphinx"
    punctuates = False

    def __init__(self, model_dir: Path) -> None:
        from pocketsphinx import Decoder

        try:
            self._decoder = Decoder(
                hmm=str(model_dir / "en-us"),
                lm=str(model_dir / "en-us.lm.bin"),
                dict=str(model_dir / "cmudict-en-us.dict"),
                samprate=AUDIO_RATE_HZ,
                # NOTE: the flat-lexicon second pass costs ~110 ms after the user stopped (143 vs 29 ms to the
                # final transcript); without it the word error rate matched on 24 questions, but the suite's
                # spoken turns misheard more ("how many days or a week"), so it stays on.
                fwdflat=True,
                loglevel="FATAL",
            )
        except (RuntimeError, ValueError) as err:
            raise ModelError("stt-model-corrupt", f"PocketSphinx could not load {model_dir}: {err}") from err
        # One decoder serves every stream: utterances are sequential on the box.
        self._lock = threading.Lock()
        self._current: PocketsphinxStream | None = None
        # NOTE: the live cepstral mean carries over between utterances, so what was heard before changed what is
        # heard next; every utterance starts from the model's own mean instead (it adapts within a second).
        self._initial_cmn = self._decoder.get_cmn()

    def transcribe(self, pcm: bytes) -> Transcript:
        """A whole utterance at once, its cepstral mean taken from all of it (a second pass over a streamed one)."""
        if self._current is not None:
            self._current.end()
        with self._lock:
            self._decoder.set_cmn(self._initial_cmn)
            self._decoder.start_utt()
            self._decoder.process_raw(pcm, False, True)  # full_utt: the mean of the whole utterance, not a live one
            self._decoder.end_utt()
            hyp = self._decoder.hyp()
            segs = list(self._decoder.seg() or ())
        return Transcript(hyp.hypstr if hyp else "", _words(segs))

    def stream(self) -> SpeechStream:
        """Start a new utterance; one that was never finished (a cancelled question) is ended first."""
        if self._current is not None:
            self._current.end()
        with self._lock:
            self._decoder.set_cmn(self._initial_cmn)
        self._current = PocketsphinxStream(self._decoder, self._lock)
        return self._current

    def close(self) -> None:
        """Nothing to free early: the decoder goes with its last reference."""
