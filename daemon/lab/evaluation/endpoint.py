"""The endpoint benchmark: when does the box decide a spoken question is over, and does it ever cut one short?

Each spoken question runs through the VAD frame by frame, as the listener runs it. At every pause the words heard
so far are decoded and judged, exactly as the box does (`Listener._ask_judgement`), and the time that took is
kept; then any endpoint rule can be replayed on the recorded pauses: the question ends at the first pause that
lasts as long as the rule waits there. A question that ends at a pause before its last word is a false cut-off.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from daemon.config import ListenConfig
from daemon.engines.heard_words import bare
from daemon.lab.evaluation.corpus import Split
from daemon.lab.evaluation.hearing import SpokenQuestion
from daemon.lab.evaluation.metrics import p90
from daemon.lab.evaluation.vad import EXTRA_TAIL_S
from daemon.lab.evaluation.voices import noise_floor, to_int16
from daemon.ports import AUDIO_RATE_HZ, SpeechToText, VoiceActivityDetector
from daemon.turn.completeness import judge
from daemon.turn.endpoint import Endpointer
from daemon.turn.listener import JUDGE_AFTER_S, hands_over

Features = Callable[[str], tuple[float, bool | None, bool]]
"""The words' P(end of turn) from the model (after prefilling them), whether they parse as a command, and whether
it is one nothing said after would change (`completeness.judge`'s `closed`)."""


@dataclass(frozen=True)
class Pause:
    """One pause in a spoken question, as the box met it."""

    at_s: float
    """Audio time of the last voiced frame before it."""
    length_s: float
    """How long it lasted (to the next voiced frame; the audio's end for the last)."""
    text: str
    p_end: float
    command: bool | None
    judged: bool | None
    judge_s: float
    """Seconds the words took to decode and judge (the judgement counts only from then on)."""
    closed: bool = False


@dataclass(frozen=True)
class Walk:
    """A spoken question's pauses."""

    said: SpokenQuestion
    pauses: tuple[Pause, ...]

    @property
    def split(self) -> Split:
        """The question's half of the corpus."""
        return self.said.split


def walk(
    said: SpokenQuestion, vad: VoiceActivityDetector, stt: SpeechToText, features: Features, punctuated: bool
) -> Walk:
    """Find the pauses of one spoken question and judge the words before each, as the box's judge does."""
    rng = np.random.default_rng(1)
    audio = np.concatenate([said.audio, to_int16(noise_floor(int(EXTRA_TAIL_S * AUDIO_RATE_HZ), rng))])
    vad.reset()
    # NOTE: an endpointer that never ends on silence: it only tells where speech started and pauses fall.
    endpointer = Endpointer(ListenConfig(trailing_silence_s=3.0, max_silence_s=5.0, max_utterance_s=60.0))
    n = vad.frame_bytes // 2
    frame_s = n / AUDIO_RATE_HZ
    pauses: list[Pause] = []
    judged_pause = -1
    # NOTE: the audio the listener has handed to the recogniser when a pause is judged (`hands_over`), and the rest
    # at the pause only if it holds voice (silence alone waits for words to follow).
    fed, pending, pending_voiced = 0, 0, False
    for k in range(0, len(audio) - n + 1, n):
        voiced = vad.is_speech(audio[k : k + n].tobytes())
        pending, pending_voiced = pending + n, pending_voiced or voiced
        if hands_over(pending, pending_voiced, endpointer.speech_started):
            fed, pending, pending_voiced = k + n, 0, False
        endpointer.update(voiced, frame_s)
        if not endpointer.speech_started:
            continue
        if endpointer.silence_s >= JUDGE_AFTER_S and judged_pause != endpointer.pauses:
            judged_pause = endpointer.pauses
            if pending_voiced:
                fed, pending, pending_voiced = k + n, 0, False
            at = endpointer.last_speech
            started = time.perf_counter()
            stream = stt.stream()
            stream.feed(audio[:fed].tobytes())
            text = stream.settle()
            p_end, command, closed = features(text) if text.strip() else (0.0, None, False)
            judged = judge(text, p_end, command, punctuated, closed=closed) if text.strip() else None
            pauses.append(Pause(at, 0.0, text, p_end, command, judged, time.perf_counter() - started, closed))
        if pauses and endpointer.silence_s == 0.0 and pauses[-1].length_s == 0.0:
            pauses[-1] = replace(pauses[-1], length_s=endpointer.last_speech - frame_s - pauses[-1].at_s)
    if pauses and pauses[-1].length_s == 0.0:
        pauses[-1] = replace(pauses[-1], length_s=len(audio) / AUDIO_RATE_HZ - pauses[-1].at_s)
    return Walk(said, tuple(pauses))


def unclosed_walk(w: Walk, punctuated: bool) -> Walk:
    """The same pauses judged as if no command were closed (a short one always waited the unclear pause)."""
    pauses = tuple(
        replace(p, judged=judge(p.text, p.p_end, p.command, punctuated) if p.text.strip() else None, closed=False)
        for p in w.pauses
    )
    return Walk(w.said, pauses)


def wait_at(pause: Pause, config: ListenConfig, answer_s: float = 0.0) -> float:
    """How long the box waits at this pause under `config` (the judgement applies once it has arrived).

    `answer_s`: a pause judged finished starts the answer at once, and ends when it is ready to sound, this long
    after the judgement (0: at once); never later than the unclear pause's wait. A command ends at the judgement
    (a reply prepared early, for a skill that only answers, is ready within the short synthesis of its first clause).
    """
    ready = JUDGE_AFTER_S + pause.judge_s
    if not config.predict_end or pause.judged is None:
        return config.trailing_silence_s
    if pause.judged:
        answer = 0.0 if pause.command else answer_s
        return max(config.min_silence_s, min(ready + answer, config.trailing_silence_s))
    return config.max_silence_s if ready < config.trailing_silence_s else config.trailing_silence_s


def replay(w: Walk, config: ListenConfig, answer_s: float = 0.0) -> tuple[bool, float, bool]:
    """(cut off, seconds from the last word to the decision, words lost) for one question under `config`.

    A cut-off loses no words when the words heard at the cut are the whole question's (the pause fell after the
    last word, with a breath or a click after it).
    """
    for i, pause in enumerate(w.pauses):
        wait = wait_at(pause, config, answer_s)
        if wait <= pause.length_s:
            last = i == len(w.pauses) - 1
            lost = not last and bare(pause.text) != bare(w.pauses[-1].text)
            return (not last, wait if last else float("nan"), lost)
    return False, float("nan"), False


def score(walks: Sequence[Walk], config: ListenConfig, answer_s: float = 0.0) -> dict[str, Any]:
    """False cut-offs and decision delays under one rule, per half."""
    out: dict[str, Any] = {}
    for half in ("tune", "held-out"):
        rows = [replay(w, config, answer_s) for w in walks if w.split == half]
        delays = sorted(d for cut, d, _ in rows if not cut and d == d)
        out[half] = {
            "questions": len(rows),
            "cut_off": sum(cut for cut, _, _ in rows),
            "cut_off_words_lost": sum(lost for _, _, lost in rows),
            "end_after_last_voice_p50_s": round(statistics.median(delays), 3) if delays else float("nan"),
            "end_after_last_voice_p90_s": round(p90(delays), 3),
        }
    return out


def table(report: dict[str, Any]) -> str:
    """One line per rule and condition: cut-offs (those that lost words) and delay, tune / held-out."""
    lines = [f"{'rule':<52}{'condition':<12}{'cut off (words lost)':>26}{'end after last voice p50 / p90':>40}"]
    for rule, conditions in report["rules"].items():
        for condition, halves in conditions.items():
            t, h = halves["tune"], halves["held-out"]
            cut = (
                f"{t['cut_off']}({t['cut_off_words_lost']})/{t['questions']} / "
                f"{h['cut_off']}({h['cut_off_words_lost']})/{h['questions']}"
            )
            delay = (
                f"{t['end_after_last_voice_p50_s']:.2f}/{t['end_after_last_voice_p90_s']:.2f} / "
                f"{h['end_after_last_voice_p50_s']:.2f}/{h['end_after_last_voice_p90_s']:.2f} s"
            )
            lines.append(f"{rule:<52}{condition:<12}{cut:>26}{delay:>40}")
    lines.append(f"judging a pause took {report['judge_s_p50']:.3f} s at the median ({report['judge_s_p90']:.3f} p90)")
    return "\n".join(lines)
