"""Build each engine from the config: select and verify its model first, then open it."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeVar

from daemon.config import Config
from daemon.engines.heap import keep_big_blocks_out_of_the_heap, return_freed_memory
from daemon.engines.vad import WebRtcVad
from daemon.errors import ModelError, TalkboxError
from daemon.modelstore.select import (
    SelectedModel,
    check_given_paths,
    select,
    select_judge,
    select_knowledge,
    select_meaning,
    select_second_opinion,
    select_second_pass,
)
from daemon.ports import Engines, SpeechToText, VoiceActivityDetector, WakeWordDetector

if TYPE_CHECKING:
    from daemon.engines.judge import SentenceJudge
    from daemon.engines.llm import LlamaModel
    from daemon.engines.second_opinion import SecondOpinion
    from daemon.engines.stt import PocketsphinxSpeechToText, VoskSpeechToText
    from daemon.engines.tts import PiperTextToSpeech
    from daemon.engines.whisper import WhisperRecogniser
    from daemon.knowledge.lookup import Knowledge
    from daemon.skills.meaning import MeaningRouter

_LOGGER = logging.getLogger(__name__)
T = TypeVar("T")

SPOTTER_MODEL: Final = "pocketsphinx-en-us"
"""The acoustic model and dictionary a wake phrase of the user's own is spotted with."""

PROBE_TIMEOUT_S: Final = 300.0
"""A model that has not opened in a child process after this long is refused (a Pi 4 opens 1 GB in ~10 s)."""
# The child opens the model as the daemon will and evaluates one token, so aborts in loading or compute show here.
_PROBE: Final = """
import sys, llama_cpp
llm = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=int(sys.argv[2]), n_threads=1, n_threads_batch=1, verbose=False)
llm.eval(llm.tokenize(b"Hello", add_bos=True)[:1])
"""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def probe_gguf(path: Path, context_tokens: int, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Open a GGUF nobody pinned in a child process first: a llama.cpp abort (GGML_ASSERT) kills only the child."""
    started = time.monotonic()
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    try:
        child = subprocess.run(
            [sys.executable, "-c", _PROBE, str(path), str(context_tokens)],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            env=env,
        )
    except subprocess.TimeoutExpired as err:
        raise ModelError("llm-model-corrupt", f"LLM model {path} did not open within {timeout_s:.0f} s") from err
    except OSError as err:
        raise ModelError("llm-model-unreadable", f"cannot test-open LLM model {path}: {err}") from err
    if child.returncode == 0:
        _LOGGER.info("%s opened cleanly in a child process in %.1f s", path, time.monotonic() - started)
        return
    lines = [line for line in child.stderr.splitlines() if line.strip()]
    detail = " / ".join(line.strip()[:200] for line in lines[-2:]) or "no message"
    how = (
        f"killed llama.cpp with {_signal_name(-child.returncode)}"
        if child.returncode < 0
        else f"could not be opened (exit {child.returncode})"
    )
    raise ModelError("llm-model-corrupt", f"LLM model {path} {how}: {detail}")


def _timed(what: str, selected: SelectedModel, started: float) -> None:
    _LOGGER.info("%s %s ready in %.2f s", what, selected.name, time.monotonic() - started)


def _optional(
    selecting: Callable[[Config], SelectedModel | None], make: Callable[[SelectedModel], T], config: Config, what: str
) -> T | None:
    """The engine of an optional role, made from its verified model; None if the profile has none or it cannot be
    used (after one warning that says what the box does without it)."""
    started = time.monotonic()
    try:
        selected = selecting(config)
        if selected is None:
            return None
        made = make(selected)
    except TalkboxError as err:
        _LOGGER.warning("%s: %s [%s]", _WITHOUT[what], err.message, err.code)
        return None
    _timed(what, selected, started)
    return made


_WITHOUT: Final = {
    "encyclopedia": "the language model answers without its encyclopedia",
    "reading by meaning": "requests are read by their templates alone",
    "hearing judge": "a question's final transcript is the recogniser's likeliest guess",
    "second opinion": "a short request is heard by one recogniser only",
}


def load_knowledge(config: Config) -> Knowledge | None:
    """The profile's encyclopedia, its index verified (built once); None if the profile has none or it cannot be
    used: the model then answers from what it knows, after one warning."""
    from daemon.knowledge.lookup import Knowledge

    if not config.llm.encyclopedia:
        return None
    return _optional(select_knowledge, lambda selected: Knowledge(selected.path), config, "encyclopedia")


def load_meaning(config: Config) -> MeaningRouter | None:
    """The profile's reader of requests by meaning, verified; None if the profile or config has none or it cannot
    be used: requests are then read by their templates alone, after one warning."""
    from daemon.engines.embed import SentenceEmbedder
    from daemon.skills.meaning import MeaningRouter

    if not (config.skills.enabled and config.skills.by_meaning):
        return None

    def make(selected: SelectedModel) -> MeaningRouter:
        # NOTE: the examples are made beside the model by `talkbox models verify` (the set-up and the image build);
        # the service may not write the models directory, so any it makes itself go to its own cache directory.
        cache = [Path(os.environ["CACHE_DIRECTORY"])] if os.environ.get("CACHE_DIRECTORY") else []
        return MeaningRouter(SentenceEmbedder(selected.path), [*cache, selected.path.parent], selected.name)

    return _optional(select_meaning, make, config, "reading by meaning")


def load_llm(config: Config) -> LlamaModel:
    """The chat model, verified then loaded, with the profile's encyclopedia if it has one."""
    from daemon.engines.llm import LlamaModel

    selected = select(config, "llm")
    if selected.entry is None:  # a user's own file: only its header was checked, it may still abort llama.cpp
        probe_gguf(selected.path, config.llm.context_tokens)
    knowledge = load_knowledge(config)
    # NOTE: the service's own cache directory only: a run by hand or a test reads the system prompt at each start.
    kept_in = Path(os.environ["CACHE_DIRECTORY"]) / "llm" if os.environ.get("CACHE_DIRECTORY") else None
    try:
        return LlamaModel(selected.path, config.llm, knowledge=knowledge, kept_in=kept_in)
    except Exception:
        if knowledge is not None:
            knowledge.close()
        raise


def _judge(config: Config) -> SentenceJudge | None:
    """The profile's judge of the final pass's guesses, verified; None if it names none or it cannot be used."""
    from daemon.engines.judge import SentenceJudge

    return _optional(select_judge, lambda selected: SentenceJudge(selected.path), config, "hearing judge")


def _second_opinion(
    config: Config, first: WhisperRecogniser, name: str, commands: Callable[[str], bool], judge: SentenceJudge | None
) -> SecondOpinion | None:
    """`first` (the model `name`) with the profile's second opinion on short utterances, verified, and `judge` (the
    first's) weighing both; None if it names none or `name` itself, or it cannot be used (after one warning)."""
    from daemon.engines.second_opinion import SecondOpinion
    from daemon.engines.whisper import WhisperRecogniser

    def make(selected: SelectedModel) -> SecondOpinion:
        if selected.engine != "whisper":
            raise ModelError("stt-second-opinion-not-whisper", f"stt.second_opinion = {selected.name!r} is no Whisper")
        second = WhisperRecogniser(selected.path, threads=config.stt.threads or 1, commands=commands, judge=judge)
        return SecondOpinion(first, second, commands, judge)

    def selecting(config: Config) -> SelectedModel | None:
        selected = select_second_opinion(config)
        return selected if selected is not None and selected.name != name else None

    return _optional(selecting, make, config, "second opinion")


def _recogniser(
    config: Config, selected: SelectedModel, final: bool = True
) -> VoskSpeechToText | PocketsphinxSpeechToText | WhisperRecogniser | SecondOpinion:
    """The recogniser of `selected`; `final`: it hears each question's last words (a Whisper one is then judged)."""
    from daemon.engines.stt import PocketsphinxSpeechToText, VoskSpeechToText
    from daemon.engines.whisper import WhisperRecogniser

    if selected.engine == "vosk":
        return VoskSpeechToText(selected.path)
    if selected.engine == "pocketsphinx":
        return PocketsphinxSpeechToText(selected.path)
    if selected.engine == "whisper":
        from daemon.skills.intents import match_as_heard

        # NOTE: the final pass prefers a nearly as likely guess that is a command, word for word, when its first is
        # none: only where the skills listen.
        commands = (lambda text: match_as_heard(text) is not None) if config.skills.enabled else None
        judge = _judge(config) if final else None
        try:
            heard = WhisperRecogniser(selected.path, threads=config.stt.threads or 1, commands=commands, judge=judge)
        except Exception:
            if judge is not None:
                judge.close()
            raise
        if not final or commands is None:
            return heard
        return _second_opinion(config, heard, selected.name, commands, judge) or heard
    raise ModelError("stt-engine-unknown", f"STT model {selected.name} names no known engine")


def load_stt(config: Config) -> SpeechToText:
    """The recogniser for the configured model, and the second pass over each question when one is chosen."""
    from daemon.engines.second_pass import SecondPass

    started = time.monotonic()
    selected = select(config, "stt")
    second = select_second_pass(config)
    engine = _recogniser(config, selected, final=second is None or second.name == selected.name)
    _timed("STT", selected, started)
    if second is None:
        return engine
    final = engine if second.name == selected.name else _recogniser(config, second)
    _timed("second pass", second, started)
    return SecondPass(engine, final)


def load_tts(config: Config) -> PiperTextToSpeech:
    """The Piper voice."""
    from daemon.engines.tts import PiperTextToSpeech

    started = time.monotonic()
    selected = select(config, "tts")
    engine = PiperTextToSpeech(selected.path, config.tts)
    _timed("TTS", selected, started)
    return engine


def load_wake(config: Config) -> WakeWordDetector:
    """The wake word detector: the phrase of the user's own if there is one, else the wake-word model."""
    from daemon.engines.wake import MicroWakeWordDetector, PhraseSpotter

    started = time.monotonic()
    if config.wake.phrase:
        sphinx = select(dataclasses.replace(config, stt=dataclasses.replace(config.stt, model=SPOTTER_MODEL)), "stt")
        return PhraseSpotter(sphinx.path, config.wake.phrase, config.wake.phrase_threshold)
    selected = select(config, "wake")
    engine = MicroWakeWordDetector(selected.path, config.wake.threshold)
    _timed("wake word", selected, started)
    return engine


def load_vad(config: Config) -> VoiceActivityDetector:
    """The voice activity detector the config chooses."""
    if config.listen.vad == "silero":
        from daemon.engines.vad import SileroVad

        return SileroVad(select(config, "vad").path, config.listen.vad_threshold)
    return WebRtcVad(config.listen.vad_aggressiveness)


def load_engines(config: Config, progress: Callable[[str, float], None] | None = None) -> Engines:
    """Verify and load every engine; the LLM's system prompt is evaluated before the first question."""
    report = progress or (lambda step, fraction: None)
    # NOTE: a model path mistyped in the config was said only after the skills' examples loaded (~50 s on a first start)
    check_given_paths(config)
    keep_big_blocks_out_of_the_heap()
    # NOTE: first: making its session frees ~60 MB of folded weights that the engines loaded after it reuse; loaded
    # last it raised the peak RSS by 202 MB instead of 109 (dev profile, VmHWM after load_engines, two runs each).
    report("Loading the skills' sentences", 0.02)
    meaning = load_meaning(config)
    try:
        report("Checking and loading the language model", 0.05)
        llm = load_llm(config)
        report("Preparing the conversation", 0.45)
        llm.warm_up(lambda share: report("Preparing the conversation", 0.45 + 0.1 * share))
        report("Loading speech recognition", 0.55)
        stt = load_stt(config)
        report("Loading the voice", 0.75)
        tts = load_tts(config)
        report("Loading the wake word", 0.9)
        wake = load_wake(config) if config.listen.wake_word else None
        report("Opening audio", 0.97)
        vad = load_vad(config)
    except BaseException:
        if meaning is not None:
            meaning.close()
        raise
    # NOTE: model loading frees ~28 MB of parse buffers that glibc keeps; trimming them before the first
    # turn lowered the peak RSS over seven answers from ~700 to ~635 MB (dev profile, one run each).
    return_freed_memory()
    return Engines(stt=stt, llm=llm, memory=llm.conversation, tts=tts, vad=vad, wake=wake, meaning=meaning)


def check_config(config: Config) -> list[str]:
    """What stops the box from starting with `config`, checked as the box checks it; the models each role runs.

    Raises the error the box would stop with (ConfigError, ModelError): an unknown profile, a model that is
    missing, unpinned or corrupt, a system prompt the context cannot hold, a wake phrase it cannot listen for.
    """
    from daemon.engines.chat import check_room_of

    roles = ["llm", "stt", "tts"] + (["wake"] if config.listen.wake_word and not config.wake.phrase else [])
    roles += ["vad"] if config.listen.vad == "silero" else []
    chosen = [f"{role} {select(config, role).name}" for role in roles]
    if (second := select_second_pass(config)) is not None:
        chosen.append(f"second pass {second.name}")
    if (knowledge := load_knowledge(config)) is not None:  # never stops the box: only named when usable
        chosen.append(f"knowledge {knowledge.path.parent.name}")
        knowledge.close()
    with contextlib.suppress(TalkboxError):  # never stops the box: requests are then read by templates alone
        if config.skills.by_meaning and (meaning := select_meaning(config)) is not None:
            chosen.append(f"meaning {meaning.name}")
    check_room_of(select(config, "llm").path, config.llm)
    if config.listen.wake_word and config.wake.phrase:
        spotter = load_wake(config)
        chosen.append(f"wake phrase {spotter.phrase!r}")
        spotter.close()
    return chosen
