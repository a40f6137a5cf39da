"""`talkbox eval`: how well the box hears, measured on spoken questions it generates (held-out half apart)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from daemon.config import Config, ListenConfig, SttConfig, WakeConfig
from daemon.engines.load import load_stt, load_vad, load_wake
from daemon.lab.evaluation import corpus
from daemon.lab.evaluation.conditions import CONDITIONS
from daemon.lab.evaluation.hearing import run_hearing, spoken_questions
from daemon.lab.evaluation.metrics import p90
from daemon.lab.evaluation.vad import run_vad
from daemon.lab.evaluation.voices import all_voices
from daemon.lab.evaluation.wake import run_wake
from daemon.ports import SpeechToText, WakeWordDetector

RECOGNISERS: Final = {
    "pocketsphinx": SttConfig(model="pocketsphinx-en-us", second_pass="none"),
    "pocketsphinx+full": SttConfig(model="pocketsphinx-en-us", second_pass="pocketsphinx-en-us"),
    "pocketsphinx+whisper": SttConfig(model="pocketsphinx-en-us", second_pass="whisper-tiny-en"),
    "whisper": SttConfig(model="whisper-tiny-en", second_pass="none"),
    "whisper-unjudged": SttConfig(model="whisper-tiny-en", second_pass="none", judge="none"),
    "whisper-base": SttConfig(model="whisper-base", second_pass="none"),
}
"""The recognisers (and second passes) the hearing benchmark compares, as the box would be configured for each
("whisper-unjudged": its first guess alone, without the profile's judge)."""


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
    config: Config,
    spoken: int | None,
    tool_calls: bool,
    say: Callable[[str], None] = print,
    heard_file: Path | None = None,
) -> dict[str, Any]:
    """Every phrase typed, and `spoken` of them (0: all; None: none) said by the voices and heard by the box; with
    `heard_file`, what was heard is kept there, or read from it when it exists (a router compared on the same words)."""
    from daemon.engines.load import load_llm, load_meaning
    from daemon.lab.evaluation import skills as ev
    from daemon.lab.evaluation.skill_phrases import PHRASES
    from daemon.lab.meaning_folds import by_meaning
    from daemon.skills import intents
    from daemon.skills.tools import ToolCaller
    from daemon.skills.unfollowed import unfollowed

    phrases = PHRASES
    said = [(p, "typed", p.text) for p in phrases]
    if spoken is not None and heard_file is not None and heard_file.exists():
        said += ev.read_heard(heard_file, phrases)
    elif spoken is not None:
        chosen = phrases if spoken == 0 else phrases[:: max(1, len(phrases) // spoken)][:spoken]
        stt = load_stt(config)
        heard = list(ev.spoken(chosen, all_voices(config), stt, say))
        stt.close()
        if heard_file is not None:
            ev.keep_heard(heard_file, heard)
        said += heard
    intents.warm_up()
    as_heard = ev.route_all(intents.match_as_heard, said)
    routed = ev.route_all(intents.match, said)
    report: dict[str, Any] = {"templates, word for word": ev.report(as_heard), "templates": ev.report(routed)}
    report["read loosely"] = ev.read_loosely(routed, as_heard)
    if (meaning := load_meaning(config)) is not None:
        read = by_meaning(meaning)
        report["templates + meaning"] = ev.report(ev.route_all(read, said))
        # NOTE: what the box does with a request nothing read: says nothing was done when it names a job of the box's
        report["… + a job named"] = ev.report(ev.route_all(lambda text: read(text) or unfollowed(text), said))
        meaning.close()
    if tool_calls:
        caller = ToolCaller(load_llm(config))

        def both(text: str) -> intents.SkillCall | None:
            return intents.match(text) or caller(text)

        # NOTE: the box asks the model only what no template took; asking it every phrase as well ("tool calls
        # alone") tripled the run with the 1.5B brain and decides nothing the box does.
        report["templates + tool calls"] = ev.report(ev.route_all(both, said))
        say(f"the model was asked {caller.calls} times")
    return report


ENDPOINT_RULES: Final = {
    "fixed 0.7 s (before)": (ListenConfig(predict_end=False, trailing_silence_s=0.7), 0.0),
    "fixed 1.0 s": (ListenConfig(predict_end=False, trailing_silence_s=1.0), 0.0),
    "judged: 0.3 / 0.7 / 1.5 s": (ListenConfig(predict_end=True, trailing_silence_s=0.7, min_silence_s=0.3), 0.0),
    "judged: 0.3 / 1.0 / 1.5 s, at once": (ListenConfig(predict_end=True, min_silence_s=0.3), 0.0),
    "judged: 0.3 / 1.0 / 1.5 s, answer ready": (ListenConfig(predict_end=True, min_silence_s=0.3), 0.5),
    "judged: 0.2 / 1.0 / 1.5 s, answer ready (default)": (ListenConfig(predict_end=True, min_silence_s=0.2), 0.5),
    "judged: 0.15 / 1.0 / 1.5 s, answer ready": (ListenConfig(predict_end=True, min_silence_s=0.15), 0.5),
}
"""Endpoint rules compared: finished / unclear / unfinished waits for the judged ones, and how long after the
judgement an answer begun at a finished pause is ready to sound (`talkbox bench` on the development machine: ~0.5 s
from the answer's start to its first chunk; a board is slower, and so waits longer)."""
DEFAULT_RULE: Final = "judged: 0.2 / 1.0 / 1.5 s, answer ready (default)"
"""The box's own rule."""


def run_eval_endpoint(config: Config, quick: bool, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Every spoken question (clean and with a pause inside) walked once, then each endpoint rule replayed on it."""
    import statistics

    from daemon.engines.load import load_llm
    from daemon.lab.evaluation.endpoint import score, unclosed_walk, walk
    from daemon.skills import going_on, intents

    stt, vad, llm = load_stt(config), load_vad(config), load_llm(config)
    llm.warm_up()
    intents.warm_up()

    def features(text: str) -> tuple[float, bool | None, bool]:  # as completeness.make_judge gathers them
        command = intents.match(text) is not None
        return (0.0 if command else llm.prefill(text)), command, command and going_on.finished_command(text)

    from daemon.lab.evaluation.align import whisper_word_gaps
    from daemon.lab.evaluation.conditions import Condition, paused_in_one_breath

    one_breath = Condition("one-breath", paused_in_one_breath(whisper_word_gaps(config)))
    conditions = [c for c in CONDITIONS if c.name in ("clean-16k", "pauses")] + [one_breath]
    walks = []
    for i, said in enumerate(spoken_questions(all_voices(config), conditions=conditions, quick=quick)):
        walks.append(walk(said, vad, stt, features, punctuated=stt.punctuates))
        if (i + 1) % 40 == 0:
            say(f"walked {i + 1} spoken questions")
    judge_s = sorted(p.judge_s for w in walks for p in w.pauses)
    rules = {
        name: {c.name: score([w for w in walks if w.said.condition == c.name], rule, answer_s) for c in conditions}
        for name, (rule, answer_s) in ENDPOINT_RULES.items()
    }
    # NOTE: the default once more on the same pauses, judged as before closed commands ended at once.
    unclosed = [unclosed_walk(w, stt.punctuates) for w in walks]
    rule, answer_s = ENDPOINT_RULES[DEFAULT_RULE]
    rules[f"{DEFAULT_RULE}, short commands wait"] = {
        c.name: score([w for w in unclosed if w.said.condition == c.name], rule, answer_s) for c in conditions
    }
    return {
        "rules": rules,
        "judge_s_p50": statistics.median(judge_s) if judge_s else 0.0,
        "judge_s_p90": p90(judge_s, empty=0.0),
        "pauses": [
            {
                "said": w.said.question.text,
                "voice": w.said.voice,
                "condition": w.said.condition,
                "split": w.split,
                "pauses": [dataclasses.asdict(p) for p in w.pauses],
            }
            for w in walks
        ],
    }
