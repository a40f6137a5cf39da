"""One set of questions of `answers.toml` (those after a line that names it, e.g. "[claim]" or "# A second set"),
typed and said once each by the evaluation's voices in turn, answered through the box's assembly, judged by half.

    python -m daemon.lab.answer_set_eval "[claim]"
    python -m daemon.lab.answer_set_eval "# A second set, written after the first had been measured"
"""

from __future__ import annotations

import argparse
import asyncio
import re
from pathlib import Path

from daemon.lab.evaluation import answers
from daemon.skills.learned import QUESTIONS_FILE

_QUESTION = re.compile(r'^"((?:[^"\\]|\\.)*)"\s*=')


def texts_of(source: str, mark: str) -> list[str]:
    """The questions from the line that starts with `mark` up to the next comment or table after one of them."""
    found: list[str] = []
    for line in source.split(mark, 1)[1].splitlines()[1:]:
        if (question := _QUESTION.match(line)) is not None:
            found.append(question[1].replace('\\"', '"'))
        elif found and line.startswith(("#", "[")):
            break
    return found


def main() -> None:
    """Print the set's questions right and confidently wrong, typed and spoken, by half."""
    from daemon.config.file import load as load_config
    from daemon.engines.load import load_engines
    from daemon.lab import answers_eval
    from daemon.lab.evaluation.voices import all_voices

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mark", help='how the line that opens the set starts, e.g. "[claim]"')
    parser.add_argument("--typed-only", action="store_true", help="no voices")
    parser.add_argument("--config", help="a config file (a system prompt to try, say)")
    parser.add_argument("--show", action="store_true", help="each question's answer and verdict")
    args = parser.parse_args()
    texts = set(texts_of(QUESTIONS_FILE.read_text(encoding="utf-8"), args.mark))
    questions = tuple(q for q in answers.QUESTIONS if q.text in texts)
    config = answers_eval.greedy(load_config(Path(args.config) if args.config else None))
    engines = load_engines(config)
    try:
        asked: list[answers_eval.Asked] = [(q, "typed", q.text, None) for q in questions]
        if not args.typed_only:
            said = answers_eval.chosen_to_speak(questions, len(questions))
            asked += answers_eval.heard(said, all_voices(config), engines.stt, lambda _: None)
        rows = asyncio.run(answers_eval.ask_all(config, engines, asked, lambda _: None, ()))
    finally:
        engines.close()
    for row in rows if args.show else []:
        print(f"{answers.split(row.question):8} {row.verdict.outcome:6} {row.heard!r} -> {row.answer!r}")
    for spoken in (False, True):
        for half in ("tune", "held-out"):
            kept = [r for r in rows if r.spoken == spoken and answers.split(r.question) == half]
            right = sum(r.verdict.outcome == "right" for r in kept)
            wrong = sum(r.verdict.outcome == "wrong" and r.verdict.confident for r in kept)
            mode = "spoken" if spoken else "typed"
            print(f"{mode:6} {half:8} right {right}/{len(kept)}, confidently wrong {wrong}/{len(kept)}")


if __name__ == "__main__":
    main()
