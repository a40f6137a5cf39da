"""The voice-activity benchmark: does a question's speech start and end where it does, and does noise start none?"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import numpy as np

from daemon.config import ListenConfig
from daemon.events import EndReason
from daemon.lab.evaluation.conditions import TAIL_S
from daemon.lab.evaluation.hearing import SpokenQuestion
from daemon.lab.evaluation.metrics import p90
from daemon.lab.evaluation.noises import babble, hum, music, white_noise
from daemon.lab.evaluation.voices import Int16Array, noise_floor, to_int16
from daemon.ports import AUDIO_RATE_HZ, VoiceActivityDetector
from daemon.turn.endpoint import Endpointer

EXTRA_TAIL_S: Final = 2.0
"""Quiet added after each question, so the end of speech can be decided after the trailing silence."""
NOISE_CLIP_S: Final = 6.0
"""Each non-speech clip is as long as the wait for a question after the wake word (listen.no_speech_timeout_s)."""
NOISE_LEVELS_DBFS: Final = (-40.0, -30.0, -20.0)


def _endpoint(
    vad: VoiceActivityDetector, audio: Int16Array, config: ListenConfig
) -> tuple[EndReason | None, float, bool]:
    """Run the VAD and the box's endpointer over `audio`; the reason it ended, when (s), whether speech started."""
    vad.reset()
    endpointer = Endpointer(config)
    n = vad.frame_bytes // 2
    for k in range(0, len(audio) - n + 1, n):
        reason = endpointer.update(vad.is_speech(audio[k : k + n].tobytes()), n / AUDIO_RATE_HZ)
        if reason is not None:
            return reason, (k + n) / AUDIO_RATE_HZ, endpointer.speech_started
    return None, len(audio) / AUDIO_RATE_HZ, endpointer.speech_started


def non_speech() -> dict[str, Int16Array]:
    """Clips of every kind of non-speech at three levels."""
    clips: dict[str, Int16Array] = {}
    for level in NOISE_LEVELS_DBFS:
        clips[f"white {level:.0f} dBFS"] = white_noise(NOISE_CLIP_S, level, seed=int(-level))
        clips[f"hum {level:.0f} dBFS"] = hum(NOISE_CLIP_S, level)
        clips[f"music {level:.0f} dBFS"] = music(NOISE_CLIP_S, level + 5, seed=int(-level))
        clips[f"babble {level:.0f} dBFS"] = babble(NOISE_CLIP_S, level_dbfs=level, seed=int(-level))
    return clips


def run_vad(
    vads: Mapping[str, VoiceActivityDetector],
    questions: Sequence[SpokenQuestion],
    config: ListenConfig,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Per VAD: speech missed, end decided early (cutting the speaker off) or how late, false starts on noise."""
    rng = np.random.default_rng(0)
    report: dict[str, Any] = {}
    clips = non_speech()
    for name, vad in vads.items():
        missed, early, late = 0, 0, list[float]()
        by_condition: dict[str, dict[str, int]] = {}
        for said in questions:
            tail = to_int16(noise_floor(int(EXTRA_TAIL_S * AUDIO_RATE_HZ), rng))
            audio = np.concatenate([said.audio, tail])
            speech_end = len(said.audio) / AUDIO_RATE_HZ - TAIL_S  # the conditions add TAIL_S after the last word
            reason, at, started = _endpoint(vad, audio, config)
            row = by_condition.setdefault(said.condition, {"n": 0, "missed": 0, "early": 0})
            row["n"] += 1
            if not started:
                missed += 1
                row["missed"] += 1
            elif at < speech_end:  # ended before the last word: the speaker would be cut off
                early += 1
                row["early"] += 1
            elif reason is EndReason.SILENCE:
                late.append(at - speech_end)
        false_starts = [label for label, clip in clips.items() if _endpoint(vad, clip, config)[2]]
        report[name] = {
            "questions": len(questions),
            "missed": missed,
            "cut_off": early,
            "end_after_last_word_p50_s": statistics.median(late) if late else float("nan"),
            "end_after_last_word_p90_s": p90(late),
            "by_condition": by_condition,
            "noise_clips": len(clips),
            "false_starts": false_starts,
        }
        say(f"{name}: missed {missed}, cut off {early}, false starts {len(false_starts)}/{len(clips)}")
    return report


def table(report: dict[str, Any]) -> str:
    """One line per VAD, then its false starts."""
    lines = []
    for name, r in report.items():
        lines.append(
            f"{name:8} speech missed {r['missed']}/{r['questions']}  cut off {r['cut_off']}/{r['questions']}  "
            f"end decided {r['end_after_last_word_p50_s']:.2f} / {r['end_after_last_word_p90_s']:.2f} s after the "
            f"last word (p50/p90)  false starts on non-speech {len(r['false_starts'])}/{r['noise_clips']}"
        )
        if r["false_starts"]:
            lines.append(f"         started on: {', '.join(r['false_starts'])}")
    return "\n".join(lines)
