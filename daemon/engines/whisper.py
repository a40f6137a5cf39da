"""Whisper (CTranslate2) on the question alone: its encoder sees only the seconds spoken, not a 30 s window."""

from __future__ import annotations

import logging
import math
import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np

from daemon.engines.cores import CORES
from daemon.engines.decoder_loops import looped, without_restart
from daemon.engines.heard_words import adds_to, adds_words, bare, left_hanging, spread
from daemon.errors import EngineError, ModelError
from daemon.ports import AUDIO_RATE_HZ, SpeechStream, Transcript

_LOGGER = logging.getLogger(__name__)

FRAMES_PER_S: Final = 100
"""Log-mel frames per second of audio (10 ms hop)."""
MAX_FRAMES: Final = 3000
"""The longest window the encoder takes: 30 s."""
TOKENS_PER_S: Final = 6
"""An answer of more tokens per second of speech than this is a decoding loop, not a question."""
PARTIAL_EVERY_S: Final = 0.6
"""While the user speaks, the question heard so far is decoded again this often (the live transcript)."""
PROMPT: Final = "Set a timer, an alarm, the volume. What time is it?"
"""Said to Whisper as if heard before the question: the words a voice box hears most are then expected."""
NO_SPEECH: Final = 0.6
"""Whisper's own probability that nothing was said, above which (with an unlikely transcript) it heard nothing."""
UNLIKELY_LOGPROB: Final = -1.0
"""Mean log-probability per token below which a transcript is a guess (faster-whisper's own thresholds)."""
SILENCE_UNPROMPTED: Final = (0.38, -0.8)
"""A multilingual model's no-speech probability without the prompt, and the mean log-probability of its prompted
transcript, above and below which it heard nothing (NO_SPEECH and UNLIKELY_LOGPROB for an English-only model)."""
# NOTE: Whisper base, given the prompt, puts silence and noise at a no-speech probability of 0.1-0.5 and then says the
# prompt's words ("What time is it?", "Set a timer, an alarm", "Turn off the lights."): on 30 of 39 clips of
# silence, white noise, hum and music (1-4 s, -60 to -20 dBFS). Asked without the prompt (one more decoder step on
# the same encoder output, ~20 ms), at SILENCE_UNPROMPTED: none of 39, and 7 of 672 tune questions lost (WER 0.147 ->
# 0.151, all key words heard 71.3 -> 71.1 %); at (0.5, -0.8) 1 of 39 ("Turn off the lights." on white noise).
# tiny.en's own, prompted figure works (4 of 39 clips give a word or two, no command among them).
# NOTE: 0.38, not 0.4: on an AMD EPYC host 2 s of white noise at -40 dBFS came out at 0.40 exactly (above 0.4 on the
# host it was chosen on) and was heard as "Time to turn off the light."; the question set was not measured again.
GUESS_UNPROMPTED: Final = (0.25, -1.2)
"""A lower no-speech probability without the prompt, with a far less likely transcript: nothing heard either."""
# NOTE: music at -30 and -20 dBFS came out at 0.32-0.37 unprompted, heard as "Thank you.", "Thanks for watching!" or
# "you." at -1.44 to -2.68 per token (4 of 39 clips, an AMD EPYC AVX2 host). Of 672 tune questions (espeak-ng and
# Piper voices, 8 conditions) none has both; the nearest were already misheard ("Let's see if it's time to leave."
# for "Who painted the Mona Lisa?", 0.18 and -1.53). Held out: 3 of 720, all misheard ("10 minutes. 10 minutes."
# for "Cancel that.").
FINAL_BEAM: Final = 5
"""Beam width of the final transcript (the live one takes the first guess, beam 1)."""
# NOTE: chosen on the tune half of the spoken-question set (84 questions x 8 conditions, 12 voices): the prompt and
# beam 5 together took clean speech from WER 0.121 to 0.071 and key-word recall 0.893 to 0.907, for 20 ms more
# after the end of speech (0.033 -> 0.053 s p50); each alone did less; squeezing pauses out of the audio hurt.
# NOTE: faster-whisper pads every utterance to the 30 s window the model was trained on: 440-480 ms per question
# here. CTranslate2 takes any window up to 3000 frames; the question rounded up to whole seconds plus one, padded
# with zero features (silence now, below), decoded in 49-68 ms, at the same word error rate (6.9 % vs 9.0 % on 60
# questions, 3 voices).
# Without the extra second or with the audio padded instead of the features, the decoder looped ("X? X? X?").
SILENCE_BELOW_LOUDEST: Final = 2.0
"""How far below the loudest value of Whisper's scaled log-mel silence lies (its clamp, 8 / its scale, 4)."""
COMMAND_MARGIN: Final = 0.3
"""How much less likely per token (mean log-probability) another of the final pass's guesses may be than its first
and still be taken, when it is a command of the box's own word for word and the first is not."""
# NOTE: chosen on the tune half of the spoken skill phrasings (595 requests, 234 questions; the same audio heard each
# way): routed right 78.8 % with the first guess alone, 81.8 % within 0.1, 82.9 % within 0.3 and 0.4, 83.0 % with
# any guess but then 2 of 234 questions taken by a skill (none within 0.3). A guess that is the prompt's own words is
# never taken ("What is it?" had "What time is it?" among its guesses).
JUDGE_MARGIN: Final = 0.2
"""How much less likely per token than the final pass's first guess another may be and still be weighed by the judge
(a small language model: which of them a person says)."""
JUDGE_WEIGHT: Final = 0.5
"""The weight of the judge's mean log-probability per token beside Whisper's own when guesses are weighed."""
# NOTE: both chosen on the tune half of `talkbox eval answers` spoken (its 467 tune questions, one of 12 voices each,
# SmolLM2-135M judging): heard word for word, knowable 140 -> 162 of 246, unknowable 120 -> 135 of 221 (weight 0.25:
# 161, 133; margin 0.3: 161, 136). A guess that puts words before all the first one heard ("What is the baby
# asleep?" for "Is the baby asleep?") or says it again is not weighed: those two made most of the judge's slips.
# Three guesses at most (the judge's p90 0.27 s instead of 0.32) answered fewer spoken tune questions right through
# the box (77.8 % against 79.8 % of 99): every guess within the margin is weighed.


def _words(text: str) -> str:
    """Lower-case words, one space apart and one at each end."""
    return " " + " ".join(re.findall(r"[a-z']+", text.lower())) + " "


_PROMPT_WORDS: Final = _words(PROMPT)


def _echoes_prompt(text: str) -> bool:
    """Whether `text` is a run of the prompt's own words."""
    said = _words(text)
    return said.strip() != "" and said in _PROMPT_WORDS


class WhisperRecogniser:
    """A CTranslate2 Whisper model directory (config.json, model.bin, tokenizer.json), given itself or by its model.bin.

    English-only (tiny.en) and multilingual models (base, told the question is English) alike.
    """

    engine = "whisper"
    punctuates = True
    """Its "?" and "." say where it hears a sentence end."""

    def __init__(
        self,
        model_dir: Path,
        threads: int = 1,
        commands: Callable[[str], bool] | None = None,
        judge: Judge | None = None,
    ) -> None:
        """`commands`: whether words are a command the box does itself, word for word; a final transcript that is none
        then gives way to a nearly as likely guess that is one ("Start it." to "Stop it."). `judge`: a language
        model's score of sentences, which weighs the final pass's nearly as likely guesses ("an acupus" or "an
        octopus")."""
        self._commands = commands
        self._judge = judge
        if model_dir.name == "model.bin":  # a model assembled from parts is selected by its first file
            model_dir = model_dir.parent
        if not (model_dir / "model.bin").is_file():
            raise ModelError("stt-model-missing", f"Whisper model {model_dir} has no model.bin")
        os.environ["HF_HUB_OFFLINE"] = "1"  # nothing below may reach for a model hub
        try:
            import ctranslate2
            import tokenizers
            from faster_whisper.feature_extractor import FeatureExtractor
        except ImportError as err:
            message = "Whisper needs faster-whisper, which is not installed: pip install faster-whisper"
            raise ModelError("stt-whisper-missing", message) from err
        try:
            self._model: Any = ctranslate2.models.Whisper(
                str(model_dir), device="cpu", compute_type="int8", intra_threads=threads
            )
            self._tokens: Any = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        except (RuntimeError, ValueError, OSError) as err:
            raise ModelError("stt-model-corrupt", f"Whisper could not load {model_dir}: {err}") from err
        self._features = FeatureExtractor(feature_size=self._model.n_mels)
        token = self._tokens.token_to_id
        language = [token("<|en|>"), token("<|transcribe|>")] if self._model.is_multilingual else []
        start = [token("<|startoftranscript|>"), *language, token("<|notimestamps|>")]
        before = self._tokens.encode(" " + PROMPT, add_special_tokens=False).ids
        self._prompts = {False: start, True: [token("<|startofprev|>"), *before, *start]}
        self._end = token("<|endoftext|>")
        self._lock = threading.Lock()
        self._ctranslate2 = ctranslate2
        self._encoded: tuple[tuple[int, int], Any] | None = None  # the last audio's encoder output, by its bytes
        self._quick: tuple[tuple[int, int], str] = ((0, 0), "")  # the last quick decode's words, by its audio's bytes
        self._check_memory_rules()

    def _check_memory_rules(self) -> None:
        """Run once on silence: the first run allocates, and shows whether the CPU code may run here at all."""
        try:
            self.transcribe(bytes(2 * AUDIO_RATE_HZ))
        except EngineError as err:
            if "could not create a primitive" not in err.message:
                raise
            # NOTE: CTranslate2's x86 build compiles its convolutions at run time (oneDNN), which needs memory that
            # is writable and executable: the service's MemoryDenyWriteExecute=yes forbids it.
            raise ModelError(
                "stt-whisper-needs-wx",
                "Whisper cannot run here: CTranslate2 needs writable, executable memory on this CPU, which "
                'MemoryDenyWriteExecute=yes forbids; choose another recogniser (stt.model, stt.second_pass = "none") '
                "or allow it for the service",
            ) from err

    def transcribe(self, pcm: bytes, final: bool = True) -> Transcript:
        """The transcript of one whole utterance (16 kHz mono int16), its encoder window cut to fit it.

        `final` takes the time to weigh five guesses with the prompt; a live transcript takes the first.
        """
        audio = np.frombuffer(pcm, np.int16).astype(np.float32) / 32768.0  # Whisper takes -1..1, never raw int16
        seconds = len(audio) / AUDIO_RATE_HZ
        try:
            with self._lock, CORES.working():
                view = self._encode(pcm, audio)
                prompted = final
                text, score = self._decode(view, seconds, prompted=prompted, beam=FINAL_BEAM if final else 1)
                if final and _echoes_prompt(text):
                    # NOTE: a quick voice Whisper hears weakly came back as the prompt itself ("What does
                    # photosynthesis mean?" as "What time is it?", espeak-ng at 180 words a minute); heard again
                    # without it, the question is the user's own words (and "what time is it" is still that).
                    prompted = False
                    text, score = self._decode(view, seconds, prompted=prompted, beam=FINAL_BEAM)
                if not final:
                    self._quick = ((len(pcm), hash(pcm)), text)
                elif left_hanging(text) or self._heard_more_quickly(pcm, text):
                    text = self._heard_on(view, seconds, prompted, text)
        except (RuntimeError, ValueError) as err:
            raise EngineError("stt-whisper-failed", f"Whisper failed: {err}") from err
        return Transcript(text, spread(text, seconds), score if text else None)

    def _decode(self, view: Any, seconds: float, prompted: bool, beam: int) -> tuple[str, float]:
        """The words decoded from the encoder's output, with the prompt before them or not, a restart cut ("" for
        none), and their mean log-probability per token."""
        prompt = self._prompts[prompted]
        result = self._model.generate(
            view,
            [prompt],
            beam_size=beam,
            num_hypotheses=beam if self._commands is not None or self._judge is not None else 1,
            max_length=len(prompt) + int(TOKENS_PER_S * seconds) + 8,
            suppress_blank=True,
            return_scores=True,
            return_no_speech_prob=True,
        )[0]
        # NOTE: on silence or noise Whisper invents a sentence ("I don't know."); it knows, though.
        said = [self._text(ids) for ids in result.sequences_ids]
        if self._heard_nothing(view, result, prompted=prompted, text=said[0]):
            return "", float(result.scores[0])
        guesses = [(without_restart(text), float(other)) for text, other in zip(said, result.scores, strict=True)]
        text, score = guesses[0]
        commands = self._commands or (lambda _: False)
        if len(guesses) < 2 or commands(text):
            return text, score
        for guess, other in guesses[1:]:
            if other < score - COMMAND_MARGIN:
                break
            # NOTE: the recogniser slips on words a command's template spells out ("Software" for "softer", "Who
            # bailed you?"); a guess the box would act on, nearly as likely, is what was said.
            if not _echoes_prompt(guess) and commands(guess):
                return guess, other
        return judged(guesses, self._judge) if self._judge is not None else (text, score)

    def _heard_more_quickly(self, pcm: bytes, text: str) -> bool:
        """Whether the quick decode of the same audio heard all of `text` and more."""
        # NOTE: "Hey Jarvis, set the volume to 30. No. 40." at the pause, and "... to 30." in the final pass of it.
        key, quick = self._quick
        heard, more = bare(text), bare(without_restart(quick))
        return key == (len(pcm), hash(pcm)) and adds_words(heard, more)

    def _heard_on(self, view: Any, seconds: float, prompted: bool, text: str) -> str:
        """`text` as heard again with timestamps when that adds words after all of it, else `text` itself."""
        prompt = self._prompts[prompted][:-1]  # NOTE: without <|notimestamps|>: a sentence each, then the next
        result = self._model.generate(
            view, [prompt], beam_size=FINAL_BEAM, max_length=len(prompt) + int(TOKENS_PER_S * seconds) + 16
        )[0]
        again = without_restart(self._text(result.sequences_ids[0]))  # NOTE: timestamps are tokens after the end's
        return again if adds_words(bare(text), bare(again)) else text

    def _text(self, ids: Any) -> str:
        """The words of one decoded sequence."""
        return str(self._tokens.decode([t for t in ids if t < self._end])).strip()

    def _encode(self, pcm: bytes, audio: np.ndarray) -> Any:
        """The encoder's output for `audio`, its window cut to fit it; the last one again for the same audio."""
        # NOTE: the final pass at a pause hears the audio the quick decode just heard: the encoder's work is the same.
        key = (len(pcm), hash(pcm))
        if self._encoded is not None and self._encoded[0] == key:
            return self._encoded[1]
        features = self._features(audio)
        frames = min(MAX_FRAMES, (math.ceil(features.shape[1] / FRAMES_PER_S) + 1) * FRAMES_PER_S)
        # NOTE: a zero in Whisper's scaled log-mel is a steady sound, not silence: filled with zeros, the end of a
        # quick question was lost ("How do you spell colleague?" heard "How do you spell"). Silence is the loudest
        # value less 2 (the extractor clamps 8 below the loudest, then scales by 4): what the model met in training,
        # where every utterance was padded with silent audio to 30 s.
        window = np.full((features.shape[0], frames), features.max() - SILENCE_BELOW_LOUDEST, np.float32)
        window[:, : min(frames, features.shape[1])] = features[:, :frames]
        encoded = self._model.encode(self._ctranslate2.StorageView.from_array(np.ascontiguousarray(window[None])))
        self._encoded = (key, encoded)
        return encoded

    def _heard_nothing(self, encoded: Any, result: Any, prompted: bool, text: str) -> bool:
        """Whether a transcript is Whisper's invention on silence or noise (`encoded`: the encoder's output)."""
        if not self._model.is_multilingual:
            return bool(result.no_speech_prob > NO_SPEECH and result.scores[0] < UNLIKELY_LOGPROB)
        no_speech = result.no_speech_prob
        if prompted:
            start = self._prompts[False]
            again = self._model.generate(encoded, [start], max_length=len(start) + 1, return_no_speech_prob=True)
            no_speech = again[0].no_speech_prob
        threshold, unlikely = SILENCE_UNPROMPTED
        faint, guessed = GUESS_UNPROMPTED
        # NOTE: music at -20 dBFS came out as the prompt itself ("Set a timer, an alarm, the volume."), confidently
        # (-0.63 per token) but unlikely speech unprompted (0.54) on an AMD EPYC host: words the prompt says, heard
        # where nothing may have been said, are the prompt, not the user (who says "what time is it" with speech
        # that Whisper finds near-certain, no-speech ~0.01).
        score = result.scores[0]
        silent = no_speech > threshold and (score < unlikely or _echoes_prompt(text))
        return bool(silent or (no_speech > faint and score < guessed))

    def stream(self) -> SpeechStream:
        """An utterance heard as it is spoken: decoded again every PARTIAL_EVERY_S, and whole at its end."""
        return WhisperStream(self)

    def close(self) -> None:
        """Free the model (and the judge's)."""
        self._model = None
        if self._judge is not None:
            self._judge.close()


class Hearing(Protocol):
    """A Whisper recogniser: a whole utterance's words, quickly or as its final pass would hear them."""

    @property
    def engine(self) -> str:
        """Which recogniser this is, for reports."""
        ...

    def transcribe(self, pcm: bytes, final: bool = True) -> Transcript:
        """The transcript of one whole utterance of 16 kHz mono int16 audio."""
        ...

    def close(self) -> None:
        """Free the model."""
        ...


class WhisperStream:
    """Buffers an utterance; partial transcripts from decoding what was heard so far, now and then."""

    def __init__(self, recogniser: Hearing) -> None:
        self._recogniser = recogniser
        self._audio = bytearray()
        self._decoded_at = 0
        self._partial = ""
        self._settled: tuple[int, Transcript] | None = None  # the final pass, and how much audio it heard

    @property
    def audio(self) -> bytes:
        """All the audio fed so far (16 kHz mono int16)."""
        return bytes(self._audio)

    def feed(self, pcm: bytes) -> str | None:
        """Take 16 kHz mono int16 audio; return the partial transcript when it changed."""
        self._audio += pcm
        if len(self._audio) - self._decoded_at < PARTIAL_EVERY_S * AUDIO_RATE_HZ * 2:
            return None
        self._decoded_at = len(self._audio)
        partial = self._recogniser.transcribe(bytes(self._audio), final=False).text
        if partial == self._partial or looped(partial):  # a first word said again and again: not worth showing
            return None
        self._partial = partial
        return partial

    def settle(self, final: bool = False) -> str:
        """Decode what was heard so far now: quickly (the live way), or as the final pass would (`final`)."""
        if final:
            return self._final().text
        if len(self._audio) > self._decoded_at:
            self._decoded_at = len(self._audio)
            partial = self._recogniser.transcribe(bytes(self._audio), final=False).text
            self._partial = "" if looped(partial) else partial
        return self._partial

    def finish(self) -> Transcript:
        """Hear the whole utterance (what the final pass heard at a pause, when nothing followed it)."""
        return self._final()

    def _final(self) -> Transcript:
        """The final pass over all the audio so far, made once for as much audio."""
        if self._settled is None or self._settled[0] != len(self._audio):
            self._settled = (len(self._audio), self._recogniser.transcribe(bytes(self._audio)))
        return self._settled[1]


class Judge(Protocol):
    """A language model's score of sentences as what a person says to the box."""

    def __call__(self, sentences: Sequence[str]) -> Sequence[float] | None:
        """Each sentence's mean log-probability per token; None when they cannot be judged (too long)."""
        ...

    def close(self) -> None:
        """Free the model."""
        ...


def judged(guesses: Sequence[tuple[str, float]], judge: Judge) -> tuple[str, float]:
    """The guess (words, Whisper's mean log-probability per token) Whisper and the judge together find likeliest
    among those within JUDGE_MARGIN of the first; the first when no other differs from it in its words."""
    first, best = guesses[0]
    heard = bare(first)
    weighed = {heard: (first, best)}
    for guess, score in guesses[1:]:
        if score < best - JUDGE_MARGIN:
            break
        words = bare(guess)
        if words and words not in weighed and not _echoes_prompt(guess) and not adds_to(heard, words):
            weighed[words] = (guess, score)
    if len(weighed) < 2:
        return first, best
    scores = judge([guess for guess, _ in weighed.values()])
    if scores is None:
        return first, best
    return max(zip(weighed.values(), scores, strict=True), key=lambda c: c[0][1] + JUDGE_WEIGHT * c[1])[0]
