"""A morning's requests in one conversation, a person's pause between them: how long each model answer waits for its
first word (`python -m daemon.lab.conversation_timing [--pause S] [--follow-ups]`, the dev profile's models)."""

from __future__ import annotations

import argparse
import functools
import json
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Final

from daemon.box.asking import ask_here
from daemon.config import Config, LlmConfig, ModelsConfig, StateConfig
from daemon.engines.load import load_engines
from daemon.events import AnswerFinished, Event, TokenGenerated

MORNING: Final = (
    "Cancel everything.",
    "Cancel all my timers.",
    "Stop all the timers please",
    "What timers do I have?",
    "How many alarms have I set?",
    "Set a timer for a minute and a half.",
    "Set a timer for 90 seconds called pasta",
    "Set an alarm for half past six every weekday.",
    "Remind me to call mum at 5.",
    "What is 15 percent of 80?",
    "What's 2 to the power of 100?",
    "What is seventeen squared?",
    "What is the square root of 144?",
    "What's 7 factorial?",
    "Round 3.14159 to two decimal places.",
    "How many days until new year?",
    "How many weeks are in a year?",
    "What year is it?",
    "Is 2028 a leap year?",
    "What day of the week was I born if my birthday is 3 March 1990?",
    "How do you spell rhythm?",
    "What's the capital of Australia?",
    "What currency do they use in Japan?",
    "How many people live in Canada?",
    "Which is bigger, France or Spain?",
    "What is the tallest mountain in the world?",
    "Who wrote Romeo and Juliet?",
    "Who painted the Mona Lisa?",
    "What is the speed of light?",
    "How far is the moon from the earth?",
    "What is the chemical symbol for gold?",
    "What's the atomic number of carbon?",
    "How many planets are in the solar system?",
    "What is the largest planet?",
    "How long does it take light from the sun to reach earth?",
    "What is photosynthesis?",
    "Why is the sky blue?",
    "How do airplanes fly?",
    "What does DNA stand for?",
    "Translate hello into French.",
    "Tell me a joke.",
    "What's the weather like?",
    "Who won the match last night?",
    "What's the price of bitcoin?",
    "What's on TV tonight?",
    "Turn on the kitchen lights.",
    "Play some jazz.",
    "What's your name?",
    "How old are you?",
    "Can you hear me?",
    "Thank you.",
    "Good morning!",
    "I'm bored.",
    "What should I have for breakfast?",
    "How many ounces in a pound?",
    "Convert 100 fahrenheit to celsius.",
    "What's 30 miles in kilometres?",
    "What's the boiling point of water in fahrenheit?",
    "Set the volume to 11.",
    "Louder please.",
)
"""Skills, facts and questions for the model, as a person asks them over a morning (none from an evaluation set)."""
FOLLOWING: Final = (
    "What time is it?",
    "Set a timer for 10 minutes.",
    "What's the capital of Italy?",
    "Tell me a joke.",
    "Who wrote Romeo and Juliet?",
    "When was he born?",
    "What is the largest ocean?",
    "How deep is it?",
    "Who painted Starry Night?",
    "Which country was he from?",
    "What is 12 times 12?",
    "Why is the sea salty?",
    "What is the tallest animal?",
    "What does it eat?",
    "Who was Albert Einstein?",
    "When did he die?",
)
"""Questions standing on their own, each but one followed by one that leans on it (`--follow-ups`)."""
FOLLOW_UPS: Final = frozenset(
    ("When was he born?", "How deep is it?", "Which country was he from?", "What does it eat?", "When did he die?")
)


def _timed(config: Config, pause_s: float, requests: tuple[str, ...]) -> list[dict[str, float | int | str]]:
    """Each model answer's question, seconds to its first token and the prompt tokens it read."""
    engines = load_engines(config, lambda stage, fraction: None)
    rows: list[dict[str, float | int | str]] = []
    for question in requests:
        seen: list[tuple[float, Event]] = []
        started = time.monotonic()
        ask_here(config, engines, question, subscribers=(functools.partial(_heard, seen),))
        first = next((at for at, e in seen if isinstance(e, TokenGenerated)), None)
        finished = next((e for _, e in seen if isinstance(e, AnswerFinished) and e.prompt_tokens), None)
        if finished is not None and first is not None:
            rows.append(
                {
                    "question": question,
                    "first_token_s": round(first - started, 3),
                    "read_tokens": finished.evaluated_tokens,
                    "prompt_tokens": finished.prompt_tokens,
                }
            )
        time.sleep(pause_s)  # the user thinks of the next question
    return rows


def _followed(rows: list[dict[str, float | int | str]]) -> dict[str, float]:
    """The follow-ups' median and worst wait, if any were asked."""
    waits = sorted(float(r["first_token_s"]) for r in rows if r["question"] in FOLLOW_UPS)
    return {"follow_up_p50_s": statistics.median(waits), "follow_up_worst_s": waits[-1]} if waits else {}


def _heard(seen: list[tuple[float, Event]], event: Event) -> None:
    seen.append((time.monotonic(), event))


def main() -> None:
    """Print each model answer's wait and their summary as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between turns")
    parser.add_argument("--models", default=str(Path.home() / ".local/share/talkbox/models"))
    parser.add_argument("--follow-ups", action="store_true", help="questions and their follow-ups (FOLLOWING)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="talkbox-conversation-") as state:
        config = Config(
            models=ModelsConfig(profile="dev", dir=args.models),
            llm=LlmConfig(seed=7, temperature=0.0),
            state=StateConfig(state),
        )
        rows = _timed(config, args.pause, FOLLOWING if args.follow_ups else MORNING)
    waits = sorted(float(r["first_token_s"]) for r in rows)
    print(json.dumps({"answers": rows}, indent=1))
    print(
        json.dumps(
            {
                "model_answers": len(rows),
                "first_token_p50_s": statistics.median(waits),
                "first_token_p90_s": waits[math.ceil(0.9 * len(waits)) - 1],
                "worst_s": waits[-1],
                "over_2_s": sum(w > 2.0 for w in waits),
                "most_tokens_read": max(int(r["read_tokens"]) for r in rows),
                **_followed(rows),
            }
        )
    )


if __name__ == "__main__":
    main()
