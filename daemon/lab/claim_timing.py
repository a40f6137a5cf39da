"""Yes-or-no questions beside plain ones, timed as a person feels them: typed (question -> the answer's first piece)
and spoken through the box's assembly (last word -> first sound). A benchmark: it prints figures, asserts nothing.

    python -m daemon.lab.claim_timing [--spoken] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Final

from daemon.box.rehearsal import speak_question
from daemon.config import Config
from daemon.engines.claim_note import asks_yes_or_no
from daemon.engines.load import load_engines
from daemon.lab.turn_timing import timed_turn, warm_up
from daemon.ports import Engines

QUESTIONS: Final = (
    "Is a penguin a bird?",
    "Did the Titanic sink in 1920?",
    "Is the heart on the right side of the body?",
    "Is gold a metal?",
    "Does the sun go around the earth?",
    "Is Mount Everest in Africa?",
    "Why do we need sleep?",
    "What is the largest ocean?",
    "Who wrote Hamlet?",
    "How do bees make honey?",
)
"""Six claims to check and four plain questions; only the time is measured here (answers.toml judges the words)."""


def typed(engines: Engines, question: str) -> tuple[float, str]:
    """Seconds from a typed question to its answer's first piece, and the whole answer."""
    warm_up(engines)
    started = time.monotonic()
    pieces = engines.llm.respond(question)
    first = next(pieces, "")
    took = time.monotonic() - started
    return took, first + "".join(pieces)


def spoken(engines: Engines, config: Config, out: Path, i: int, question: str) -> tuple[float, str]:
    """Seconds from the last word of a spoken question to the box's first sound, and its first chunk."""
    mic = out / f"q{i}.wav"
    if not mic.exists():
        speak_question(engines.tts, mic, question)
    warm_up(engines)
    times = timed_turn(engines, config, mic, out / f"a{i}.wav")
    return times.last_word_to_first_audio_s, f"{times.transcript!r} -> {times.first_sentence!r}"


def main() -> None:
    """Time each question `--rounds` times and print the medians per kind."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spoken", action="store_true", help="through the assembly, from WAV files, in real time")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    config = Config()
    engines = load_engines(config)
    out = Path(tempfile.mkdtemp(prefix="claim-timing-"))
    took: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.rounds):
        for i, question in enumerate(QUESTIONS):
            seconds, said = spoken(engines, config, out, i, question) if args.spoken else typed(engines, question)
            took[asks_yes_or_no(question)].append(seconds)
            print(f"{seconds:5.2f} s  {question} {said}")
    what = "last word -> first sound" if args.spoken else "question -> first piece"
    for claim, kept in took.items():
        kind = "yes-or-no" if claim else "plain"
        print(f"{kind:9}: {what} p50 {statistics.median(kept):.2f} s, worst {max(kept):.2f} s, n={len(kept)}")


if __name__ == "__main__":
    main()
