"""`talkbox eval answers`: the question set asked through the box's own assembly, typed and spoken, and judged.

Typed, each question is a turn of its own on the box's assembly (skills first, then the language model), in a fresh
conversation, greedy, or (`--in-conversation`) after the box's own replies to a morning's everyday requests. Spoken,
a voice of the hearing evaluation says it, the box's recogniser hears it (streamed in the box's chunks), and what it
heard is asked typed: cheaper than a whole spoken turn (no listening, endpointing or speaking), it measures what
hearing costs the answers and not the turn's timing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from daemon.box.asking import SilentSink
from daemon.box.assembly import assembled
from daemon.config import Config
from daemon.engines.follow_up import leans_back
from daemon.errors import InputError
from daemon.events import Event, EventBus, SkillCalled, Trigger
from daemon.lab import shipped_assembly
from daemon.lab.evaluation import answers, follow_ups
from daemon.lab.evaluation.answers import Answered, Question
from daemon.lab.evaluation.follow_ups import PAIRS, FollowedUp, Pair
from daemon.lab.evaluation.skills import heard_whole
from daemon.lab.evaluation.voices import Voice
from daemon.ports import Engines, SpeechToText

MODEL: Final = "model"
"""Who answered when no skill did."""
SAY_EVERY: Final = 40
"""Answers between two progress lines."""
SPOKEN_PATH: Final = "said by the voices, heard by the box's recogniser, then asked typed (no whole spoken turn)"
MORNING: Final = (
    "What time is it?",
    "Set a timer for 10 minutes.",
    "How old are you?",
    "What's the capital of Italy?",
    "What is 12 times 12?",
    "Tell me a joke.",
    "What's the weather like tomorrow?",
    "Turn it up.",
)
"""Requests a person makes before a question in the same conversation (`--in-conversation`): skills' replies and a
joke from the model."""

Asked = tuple[Question, str, str, float | None]
"""A question, how it was asked ("typed" or the voice), what the box was asked, and the recogniser's confidence in
it (None typed)."""


def greedy(config: Config, model: str = "") -> Config:
    """`config` with greedy answers (temperature 0), from the manifest model `model` if one is named."""
    llm = dataclasses.replace(config.llm, temperature=0.0, model=model or config.llm.model)
    return dataclasses.replace(config, llm=llm)


def chosen_to_speak(questions: Sequence[Question], count: int) -> tuple[Question, ...]:
    """`count` of the questions (at most all), each kind's share spread evenly over it, every kind said once at
    least when `count` allows; in the set's order."""
    count = min(count, len(questions))
    if count <= 0:
        return ()
    kinds: dict[str, list[int]] = {}
    for i, question in enumerate(questions):
        kinds.setdefault(question.kind, []).append(i)
    # NOTE: spread over the whole set, 30 of 975 questions missed the two smallest kinds (20 and 24 questions).
    least = 1 if count >= len(kinds) else 0
    share = {kind: max(least, count * len(held) // len(questions)) for kind, held in kinds.items()}
    while sum(share.values()) > count:
        share[max(share, key=lambda kind: share[kind])] -= 1
    while sum(share.values()) < count:
        share[max(share, key=lambda kind: count * len(kinds[kind]) / len(questions) - share[kind])] += 1
    chosen = [held[j * len(held) // share[kind]] for kind, held in kinds.items() for j in range(share[kind])]
    return tuple(questions[i] for i in sorted(chosen))


def heard(
    questions: Sequence[Question], voices: Sequence[Voice], stt: SpeechToText, say: Callable[[str], None] = print
) -> list[Asked]:
    """Each question said by one voice in turn and heard by the recogniser."""
    said = []
    for i, question in enumerate(questions):
        voice = voices[i % len(voices)]
        transcript = heard_whole(stt, voice.render(question.text).tobytes())
        said.append((question, voice.name, transcript.text, transcript.confidence))
        if (i + 1) % SAY_EVERY == 0:
            say(f"heard {i + 1}/{len(questions)} spoken questions")
    return said


async def ask_all(
    config: Config, engines: Engines, asked: Sequence[Asked], say: Callable[[str], None], before: Sequence[str]
) -> list[Answered]:
    """Every question a turn of its own in one running assembly, each in a conversation of its own that holds only
    the box's exchanges for `before`."""
    skills: list[str] = []

    def skill_called(event: Event) -> None:
        if isinstance(event, SkillCalled):
            skills.append(event.skill)

    bus = EventBus()
    bus.subscribe(skill_called)
    rows = []
    async with assembled(config, engines, SilentSink(), bus, reminders=False) as box:
        engines.memory.forget()
        for request in before:
            await asyncio.wrap_future(box.keeper.ask(request, Trigger.COMMAND, speak=False))
        earlier = engines.memory.remembered()
        for i, (question, mode, text, confidence) in enumerate(asked):
            engines.memory.forget()
            engines.memory.remember(earlier)
            skills.clear()
            started = time.perf_counter()
            answer = ""
            if text.strip():  # nothing heard: the box would not answer
                # NOTE: asked with the confidence it was heard with, so that words heard too unsurely are asked
                # again, as in a spoken turn.
                ask = box.keeper.ask(text, Trigger.COMMAND, speak=False, confidence=confidence)
                result = await asyncio.wrap_future(ask)
                answer = result.answer
            skill = skills[0] if skills else MODEL
            rows.append(Answered(question, mode, text, answer.strip(), skill, time.perf_counter() - started))
            if (i + 1) % SAY_EVERY == 0:
                say(f"answered {i + 1}/{len(asked)}")
    engines.memory.forget()
    return rows


def run_answers(
    config: Config,
    engines: Engines,
    questions: Sequence[Question],
    spoken: Sequence[Question] = (),
    voices: Sequence[Voice] = (),
    say: Callable[[str], None] = print,
    before: Sequence[str] = (),
) -> dict[str, Any]:
    """Every question typed, and `spoken` said by `voices` and heard by `engines.stt`, each after the exchanges of
    `before` (none: in a fresh conversation); judged and reported."""
    started = time.monotonic()
    asked: list[Asked] = [(q, "typed", q.text, None) for q in questions]
    if spoken:
        asked += heard(spoken, voices, engines.stt, say)
    rows = asyncio.run(ask_all(config, engines, asked, say, before))
    typed_s = sorted(r.seconds for r in rows if not r.spoken)
    return {
        "model": engines.llm.model_name,
        "assembly": shipped_assembly(config),
        "spoken_path": SPOKEN_PATH if spoken else "none",
        "voices": sorted({r.mode for r in rows if r.spoken}),
        "questions": len(questions),
        "questions_held_out": sum(answers.split(q) == "held-out" for q in questions),
        "spoken_questions": len(spoken),
        "asked_after": list(before),
        "answer_s_p50": typed_s[len(typed_s) // 2] if typed_s else 0.0,
        **answers.report(rows),
        "run_s": round(time.monotonic() - started, 1),
    }


def run_follow_ups(config: Config, engines: Engines, pairs: Sequence[Pair] = PAIRS) -> dict[str, Any]:
    """Each pair typed in a fresh conversation: the first question, then the follow-up, judged."""

    async def ask_all() -> list[FollowedUp]:
        rows = []
        async with assembled(config, engines, SilentSink(), EventBus(), reminders=False) as box:
            for pair in pairs:
                engines.memory.forget()
                said = []
                for text in (pair.first, pair.then.text):
                    result = await asyncio.wrap_future(box.keeper.ask(text, Trigger.COMMAND, speak=False))
                    said.append(result.answer.strip())
                rows.append(FollowedUp(pair, said[0], said[1], leans_back(pair.then.text)))
        engines.memory.forget()
        return rows

    return {"model": engines.llm.model_name, **follow_ups.report(asyncio.run(ask_all()))}


def run_eval_answers(
    config: Config,
    quick: bool,
    spoken: int,
    model: str = "",
    half: str = "",
    kind: str = "",
    say: Callable[[str], None] = print,
    in_conversation: bool = False,
    follow_up: bool = False,
) -> dict[str, Any]:
    """The question set (or its quick part, one `half`, one `kind`) typed, and `spoken` of those said, on `model`;
    each after the box's replies to the `MORNING`'s requests if `in_conversation`; or only the follow-up pairs."""
    from daemon.engines.load import load_engines
    from daemon.lab.evaluation.voices import all_voices

    config = greedy(config, model)
    questions = answers.quick() if quick else answers.QUESTIONS
    if half:
        questions = tuple(q for q in questions if answers.split(q) == half)
    if kind and kind not in answers.KINDS:
        raise InputError("eval-kind", f"--kind must be one of {', '.join(answers.KINDS)}")
    if kind:
        questions = tuple(q for q in questions if q.kind == kind)
    engines = load_engines(config)
    try:
        if follow_up:
            say(f"{len(PAIRS)} questions and their follow-ups on {engines.llm.model_name}")
            return run_follow_ups(config, engines)
        say(f"{len(questions)} questions on {engines.llm.model_name}, {spoken} of them spoken")
        voices = all_voices(config) if spoken else ()
        said = chosen_to_speak(questions, spoken)
        return run_answers(config, engines, questions, said, voices, say, MORNING if in_conversation else ())
    finally:
        engines.close()
