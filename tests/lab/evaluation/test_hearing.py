"""A small hearing run with the real recogniser: spoken tune questions in, scores per condition and voice out."""

from __future__ import annotations

import math

import numpy as np

from daemon.lab.evaluation.conditions import CONDITIONS
from daemon.lab.evaluation.corpus import tune
from daemon.lab.evaluation.hearing import ALL, run_hearing, spoken_questions, table
from daemon.lab.evaluation.voices import ESPEAK_VOICES, piper_voice

SCORES = {"wer", "keyword_recall", "all_keywords", "final_p50_s", "final_p90_s", "rtf", "n"}


def test_each_question_is_said_by_the_voices_in_turn(tts) -> None:  # type: ignore[no-untyped-def]
    voices = (piper_voice(tts), ESPEAK_VOICES[0], ESPEAK_VOICES[1])
    questions = tune()[:2]
    said = list(spoken_questions(voices, questions, CONDITIONS[:3]))
    assert [(s.question, s.condition) for s in said] == [(q, c.name) for q in questions for c in CONDITIONS[:3]]
    names = [v.name for v in voices]
    assert [s.voice for s in said] == [names[(i + j) % 3] for i in range(2) for j in range(3)]
    for s in said:
        assert s.split == "tune" and s.audio.dtype == np.int16 and len(s.audio) > 16000


def test_a_small_run_scores_every_condition_and_voice(stt, tts) -> None:  # type: ignore[no-untyped-def]
    voices = (piper_voice(tts), ESPEAK_VOICES[0])
    conditions = (CONDITIONS[0], CONDITIONS[5])  # clean-16k, noise-10db
    said = spoken_questions(voices, tune()[:4], conditions)
    progress: list[str] = []
    report = run_hearing({"pocketsphinx": stt}, said, progress.append)
    assert report["spoken_questions"] == 8
    by_condition = report["conditions"]["pocketsphinx"]
    assert list(by_condition) == ["clean-16k", "noise-10db", ALL]
    assert list(report["voices"]["pocketsphinx"]) == [voices[0].name, voices[1].name, ALL]
    for group, splits in [*by_condition.items(), *report["voices"]["pocketsphinx"].items()]:
        assert list(splits) == ["tune"], group  # only tune questions went in
        s = splits["tune"]
        assert set(s) == SCORES
        assert 0.0 <= s["wer"] <= 2.0
        assert 0.0 <= s["all_keywords"] <= s["keyword_recall"] <= 1.0
        assert 0.0 < s["final_p50_s"] <= s["final_p90_s"] and math.isfinite(s["final_p90_s"])  # speed: the bench's
        assert s["rtf"] > 0.0 and math.isfinite(s["rtf"])
    assert [by_condition[c]["tune"]["n"] for c in ("clean-16k", "noise-10db", ALL)] == [4, 4, 8]
    assert by_condition["clean-16k"]["tune"]["wer"] < 1.0  # it heard something of the box's own format
    for m in report["misheard"]["pocketsphinx"]:
        assert set(m) == {"said", "heard", "voice", "condition"}
    rows = table(report).splitlines()
    assert len([r for r in rows if r.startswith("pocketsphinx")]) == 6
    assert rows[0].split()[:3] == ["pocketsphinx", "clean-16k", "tune"] and "RTF" in rows[0]
