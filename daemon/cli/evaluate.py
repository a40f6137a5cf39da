"""`talkbox eval`: how well the box hears, measured on spoken questions it generates (held-out half apart)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

from daemon.config import Config, ListenConfig, SttConfig, WakeConfig
from daemon.engines.load import load_stt, load_vad, load_wake
from daemon.evaluation import corpus
from daemon.evaluation.conditions import CONDITIONS
from daemon.evaluation.hearing import run_hearing, spoken_questions
from daemon.evaluation.vad import run_vad
from daemon.evaluation.voices import all_voices
from daemon.evaluation.wake import run_wake
from daemon.ports import SpeechToText, WakeWordDetector

RECOGNISERS: Final = {
    "pocketsphinx": SttConfig(model="pocketsphinx-en-us", second_pass="none"),
    "pocketsphinx+full": SttConfig(model="pocketsphinx-en-us", second_pass="pocketsphinx-en-us"),
    "pocketsphinx+whisper": SttConfig(model="pocketsphinx-en-us", second_pass="whisper-tiny-en"),
    "whisper": SttConfig(model="whisper-tiny-en", second_pass="none"),
}
"""The recognisers (and second passes) the hearing benchmark compares, as the box would be configured for each."""


def recognisers(config: Config, names: list[str]) -> dict[str, SpeechToText]:
    """Each named recogniser, loaded as the box loads it."""
    return {name: load_stt(dataclasses.replace(config, stt=RECOGNISERS[name])) for name in names}


def run_eval_hearing(
    config: Config, names: list[str], quick: bool, say: Callable[[str], None] = print
) -> dict[str, Any]:
    """The hearing benchmark: every spoken question through every named recogniser."""
    engines = recognisers(config, names)
    voices = all_voices(config)
    say(f"{len(voices)} voices: {', '.join(v.name for v in voices)}")
    report = run_hearing(engines, spoken_questions(voices, quick=quick), say)
    report["voices_used"] = [v.name for v in voices]
    return report


VAD_CONDITIONS: Final = ("clean-16k", "noise-20db", "noise-10db", "pauses")
"""Where a VAD earns its keep: clean speech, speech in noise, and a pause inside a question."""
WAKE_WORDS: Final = ("hey_jarvis", "alexa", "hey_mycroft", "okay_nabu")
"""The shipped microWakeWord models."""
PHRASES: Final = (("hey jarvis", 1e-20), ("hey computer", 1e-20), ("hey computer", 1e-30), ("okay talk box", 1e-20))
"""Phrases of the user's own, with the spotter's threshold, measured beside the shipped models."""


def run_eval_vad(config: Config, quick: bool, say: Callable[[str], None] = print) -> dict[str, Any]:
    """WebRTC's VAD with its noise gate against Silero's, on spoken questions and on non-speech."""
    vads = {name: load_vad(dataclasses.replace(config, listen=ListenConfig(vad=name))) for name in ("webrtc", "silero")}
    conditions = [c for c in CONDITIONS if c.name in VAD_CONDITIONS]
    questions = list(spoken_questions(all_voices(config), conditions=conditions, quick=quick))
    return run_vad(vads, questions, config.listen, say)


def run_eval_wake(config: Config, minutes: float, say: Callable[[str], None] = print) -> dict[str, Any]:
    """The shipped wake words and phrases of the user's own: misses, and false accepts per hour."""
    detectors: dict[str, tuple[str, WakeWordDetector]] = {}
    for model in WAKE_WORDS:
        detector = load_wake(dataclasses.replace(config, wake=WakeConfig(model=model)))
        detectors[f"{model} (microWakeWord)"] = (detector.phrase, detector)
    for phrase, threshold in PHRASES:
        wake = WakeConfig(phrase=phrase, phrase_threshold=threshold)
        detectors[f"{phrase!r} at {threshold:g}"] = (phrase, load_wake(dataclasses.replace(config, wake=wake)))
    voices = all_voices(config)
    report = run_wake(detectors, voices, minutes, say)
    report["questions_held_out"] = len(corpus.QUESTIONS) - len(corpus.tune())
    return report


def run_eval_skills(
    config: Config, spoken: int | None, tool_calls: bool, say: Callable[[str], None] = print
) -> dict[str, Any]:
    """Every phrase typed, and `spoken` of them (0: all; None: none) said by the voices and heard by the box."""
    from daemon.engines.load import load_llm
    from daemon.evaluation import skills as ev
    from daemon.evaluation.skill_phrases import PHRASES
    from daemon.skills import intents
    from daemon.skills.tools import ToolCaller

    phrases = PHRASES
    said = [(p, "typed", p.text) for p in phrases]
    if spoken is not None:
        chosen = phrases if spoken == 0 else phrases[:: max(1, len(phrases) // spoken)][:spoken]
        stt = load_stt(config)
        said += list(ev.spoken(chosen, all_voices(config), stt, say))
        stt.close()
    intents.warm_up()
    report = {"templates": ev.report(ev.route_all(intents.match, said))}
    if tool_calls:
        caller = ToolCaller(load_llm(config))

        def both(text: str) -> intents.SkillCall | None:
            return intents.match(text) or caller(text)

        report["templates + tool calls"] = ev.report(ev.route_all(both, said))
        report["tool calls alone"] = ev.report(ev.route_all(caller, said))
        say(f"the model was asked {caller.calls} times")
    return report
