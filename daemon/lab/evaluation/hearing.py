"""The hearing benchmark: spoken questions in every condition through each recogniser, as the box streams them."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from daemon.lab.evaluation import corpus
from daemon.lab.evaluation.conditions import CONDITIONS, Condition
from daemon.lab.evaluation.corpus import QUESTIONS, Question, Split, split
from daemon.lab.evaluation.metrics import keywords_heard, word_errors
from daemon.lab.evaluation.voices import Int16Array, Voice, stable_seed
from daemon.ports import AUDIO_RATE_HZ, SpeechToText
from hardware.audio import CHUNK_S, read_audio_file

ALL: Final = "all"
"""The condition (or voice) of a row that sums up every one."""
SAY_EVERY: Final = 40
"""Spoken questions between two progress lines."""


@dataclass(frozen=True, eq=False)
class SpokenQuestion:
    """A question as the box receives it: said by one voice, in one condition, read back from its file."""

    question: Question
    voice: str
    condition: str
    audio: Int16Array
    """16 kHz mono int16, as `hardware.audio.read_audio_file` returned it."""

    @property
    def split(self) -> Split:
        """The question's half of the corpus."""
        return split(self.question)


@dataclass(frozen=True)
class _Heard:
    """One spoken question through one recogniser."""

    said: SpokenQuestion
    text: str
    errors: int
    words: int
    keywords: int
    keywords_heard: int
    final_s: float
    """From the last chunk fed to the final transcript."""
    busy_s: float
    """Feeding and finishing, all together."""


def spoken_questions(
    voices: Sequence[Voice],
    questions: Sequence[Question] = QUESTIONS,
    conditions: Sequence[Condition] = CONDITIONS,
    quick: bool = False,
) -> Iterator[SpokenQuestion]:
    """Every question once in every condition, each pair said by one voice in turn, made as they are asked for.

    Question i in condition j is said by voice (i + j) mod len(voices): every condition hears every voice about
    equally often, and a question is said by a different voice in each condition while there are as many voices.
    Sizes: the whole corpus is 174 questions x 8 conditions = 1,392 spoken questions; the quick set
    (`quick`, see `corpus.quick`) 40 x 8 = 320, half of them held out.
    """
    chosen = corpus.quick(questions) if quick else tuple(questions)
    with tempfile.TemporaryDirectory(prefix="talkbox-hearing-") as tmp:
        path = Path(tmp) / "question.wav"
        for i, question in enumerate(chosen):
            for j, condition in enumerate(conditions):
                voice = voices[(i + j) % len(voices)]
                rng = np.random.default_rng(stable_seed(question.text, voice.name, condition.name))
                path.write_bytes(condition.make(voice.render, question.text, rng))
                yield SpokenQuestion(question, voice.name, condition.name, read_audio_file(path))


def _hear(engine: SpeechToText, said: SpokenQuestion) -> _Heard:
    """Stream the audio in the box's chunks, then end the utterance; time the end apart."""
    step = int(CHUNK_S * AUDIO_RATE_HZ)
    stream = engine.stream()
    started = time.perf_counter()
    for k in range(0, len(said.audio), step):
        stream.feed(said.audio[k : k + step].tobytes())
    fed = time.perf_counter()
    text = stream.finish().text
    done = time.perf_counter()
    errors, words = word_errors(said.question.text, text)
    keywords = said.question.keywords
    heard = len(keywords_heard(keywords, text))
    return _Heard(said, text, errors, words, len(keywords), heard, done - fed, done - started)


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def score(rows: Sequence[_Heard]) -> dict[str, float]:
    """WER and key-word recall over all their words, the share with every key word heard, timings, count."""
    audio_s = sum(len(r.said.audio) for r in rows) / AUDIO_RATE_HZ
    finals = [r.final_s for r in rows]
    return {
        "wer": sum(r.errors for r in rows) / max(1, sum(r.words for r in rows)),
        "keyword_recall": sum(r.keywords_heard for r in rows) / max(1, sum(r.keywords for r in rows)),
        "all_keywords": sum(r.keywords_heard == r.keywords for r in rows) / len(rows),
        "final_p50_s": statistics.median(finals),
        "final_p90_s": _quantile(finals, 0.9),
        "rtf": sum(r.busy_s for r in rows) / audio_s,
        "n": len(rows),
    }


def _scores(rows: Sequence[_Heard], by: Callable[[_Heard], str]) -> dict[str, dict[str, dict[str, float]]]:
    """Scores per group (and ALL) per split, groups in the order first seen."""
    groups: dict[str, dict[str, list[_Heard]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        groups[by(r)][r.said.split].append(r)
        groups[ALL][r.said.split].append(r)
    groups[ALL] = groups.pop(ALL)  # last
    order = ("tune", "held-out")
    return {g: {s: score(split_rows[s]) for s in order if s in split_rows} for g, split_rows in groups.items()}


def run_hearing(
    engines: Mapping[str, SpeechToText], utterances: Iterable[SpokenQuestion], say: Callable[[str], None] = print
) -> dict[str, Any]:
    """Every spoken question through every recogniser; scores per engine x condition x split, and per voice.

    The end of speech to the final transcript is the time `finish()` takes: on the box the audio arrives in real
    time, so everything before it was heard while the person spoke. Misheard tune questions are listed with what
    was heard; held-out transcripts are left out, so nothing gets tuned on them.
    """
    heard: dict[str, list[_Heard]] = {name: [] for name in engines}
    started = time.monotonic()
    for n, said in enumerate(utterances, 1):
        for name, engine in engines.items():
            heard[name].append(_hear(engine, said))
        if n % SAY_EVERY == 0:
            say(f"heard {n} spoken questions in {time.monotonic() - started:.0f} s")
    return {
        "conditions": _scores_by(heard, lambda r: r.said.condition),
        "voices": _scores_by(heard, lambda r: r.said.voice),
        "misheard": {
            name: [
                {"said": r.said.question.text, "heard": r.text, "voice": r.said.voice, "condition": r.said.condition}
                for r in rows
                if r.said.split == "tune" and r.keywords_heard < r.keywords
            ]
            for name, rows in heard.items()
        },
        "spoken_questions": len(next(iter(heard.values()), [])),
        "run_s": time.monotonic() - started,
    }


def _scores_by(
    heard: Mapping[str, Sequence[_Heard]], by: Callable[[_Heard], str]
) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    return {name: _scores(rows, by) for name, rows in heard.items() if rows}


def table(report: dict[str, Any]) -> str:
    """The report as aligned rows: engine, condition (then voice), split, and the scores."""
    lines = []
    for part in ("conditions", "voices"):
        for engine, groups in report[part].items():
            for group, splits in groups.items():
                for half, s in splits.items():
                    lines.append(
                        f"{engine:14} {group:20} {half:9} WER {s['wer']:5.3f}  recall {s['keyword_recall']:5.3f}  "
                        f"all-keywords {s['all_keywords']:5.3f}  final p50/p90 {s['final_p50_s']:.3f} / "
                        f"{s['final_p90_s']:.3f} s  RTF {s['rtf']:.3f}  n {s['n']}"
                    )
        lines.append("")
    return "\n".join(lines).rstrip()
