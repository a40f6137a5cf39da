"""What each `talkbox` subcommand does; the CLI only parses arguments and calls these."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from daemon import config as config_mod
from daemon.box.wavfile import check_writable, read_wav, write_wav
from daemon.cli.homeassistant import homeassistant_check, homeassistant_run
from daemon.cli.models import (
    models_digest,
    models_fetch,
    models_list,
    models_path,
    models_quantize,
    models_verify,
)
from daemon.config import Config
from daemon.engines.load import load_stt, load_tts
from daemon.errors import EXIT_CONFIG, EXIT_OK, EXIT_TEMPFAIL, InputError, TalkboxError
from daemon.ports import AUDIO_RATE_HZ
from daemon.turn.speakable import speakable


def _speak_to_wav(cfg: Config, text: str, out: Path) -> str:
    """Synthesize `text` into `out`; return a line saying how much audio and how fast."""
    check_writable(out)  # before seconds of synthesis, not after
    tts = load_tts(cfg)
    started = time.monotonic()
    audio = b"".join(tts.synthesize(text))
    elapsed = time.monotonic() - started
    write_wav(out, audio, tts.sample_rate_hz)
    seconds = len(audio) / 2 / tts.sample_rate_hz
    return f"{seconds:.1f} s of audio into {out} (synthesized in {elapsed:.2f} s, RTF {elapsed / seconds:.2f})"


def ask(cfg: Config, args: argparse.Namespace) -> int:
    """Stream the answer to a question to stdout; optionally speak it into a WAV."""
    if not args.text.strip():
        raise InputError("input-empty", "the question is empty")
    from daemon.channels.control_client import connect_if_running

    client = None if args.local else connect_if_running()
    if client is not None and args.events:
        raise InputError("input-invalid", "--events is for a question answered here (--local); the box logs its own")
    if client is not None:  # the running box answers (its model is loaded and it remembers the conversation)
        answer = "".join(_echo(client.ask(args.text, speak=args.speak))).strip()
        if args.wav:
            print(f"spoke {_speak_to_wav(cfg, speakable(answer) or 'No answer.', args.wav)}", file=sys.stderr)
        return EXIT_OK
    if args.speak:
        raise InputError("input-invalid", "--speak needs the running box (to hear the answer here: --wav OUT)")
    return _ask_here(cfg, args)


def _ask_here(cfg: Config, args: argparse.Namespace) -> int:
    """A turn with no microphone, on models loaded here, through the box's own assembly (skills, clock, state)."""
    from daemon.box.asking import ask_here
    from daemon.engines.load import load_engines
    from daemon.events import AnswerFinished, Event, SkillCalled

    if args.wav:
        check_writable(args.wav)
    started = time.monotonic()
    engines = load_engines(cfg)
    loaded_s = time.monotonic() - started
    seen: list[Event] = []
    try:

        def piece(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()

        result = ask_here(cfg, engines, args.text, wav=args.wav, events=args.events, on_piece=piece,
                          subscribers=(seen.append,))  # fmt: skip
    finally:
        engines.close()
    sys.stdout.write("\n")
    if result.error is not None:
        raise result.error
    if args.stats:
        skill = next((e.skill for e in seen if isinstance(e, SkillCalled)), "")
        finished = next((e for e in seen if isinstance(e, AnswerFinished)), None)
        llm = engines.llm
        line = f"models loaded in {loaded_s:.2f} s; "
        if skill:
            line += f"answered by the {skill} skill"
        elif finished is not None:
            line += (
                f"model {llm.model_name}: prompt {finished.evaluated_tokens} of {finished.prompt_tokens} tokens "
                f"evaluated, first token after {finished.prompt_s:.2f} s; answer {finished.tokens} tokens at "
                f"{finished.tokens_per_s:.1f} tok/s; threads {llm.threads[0]}/{llm.threads[1]}"
            )
        print(line, file=sys.stderr)
    if args.wav:
        print(f"spoke the answer into {args.wav}", file=sys.stderr)
    return EXIT_OK


def _echo(pieces: Iterator[str]) -> Iterator[str]:
    """Print streamed pieces as they come, and pass them on."""
    for piece in pieces:
        sys.stdout.write(piece)
        sys.stdout.flush()
        yield piece
    sys.stdout.write("\n")


def status(cfg: Config, args: argparse.Namespace) -> int:
    """What the running box is doing (through its control socket); exit 3 if it is not running, 1 if it is hung."""
    from daemon.channels.control_client import connect_if_running, default_socket_path

    try:
        client = connect_if_running()
    except TalkboxError as err:  # it listens but does not answer
        print(f"talkbox is not answering: {err.message}")
        return 1
    if client is None:
        print(f"talkbox is not running (nothing listens on {default_socket_path()})")
        return 3
    state = client.status()
    print(json.dumps(state) if args.json else "  ".join(f"{k}={v}" for k, v in state.items()))
    return EXIT_OK


def transcribe(cfg: Config, args: argparse.Namespace) -> int:
    """Speech-to-text of an audio file; a long one is cut at its pauses and heard piece by piece."""
    from daemon.cli.transcribe import hear
    from daemon.engines.vad import WebRtcVad

    audio = read_wav(args.wav, AUDIO_RATE_HZ)
    stt = load_stt(cfg)
    live = sys.stderr.isatty() and not args.json

    def show(partial: str) -> None:
        if live:
            sys.stderr.write(f"\r… {partial[-70:]:<72}")

    started = time.monotonic()
    # NOTE: WebRTC's VAD whatever listen.vad says: cutting at pauses needs no finesse, and it is ~4x faster
    result = hear(audio, stt, WebRtcVad(cfg.listen.vad_aggressiveness), show)
    elapsed = time.monotonic() - started
    if live:
        sys.stderr.write("\r" + " " * 76 + "\r")
    audio_s = len(audio) / AUDIO_RATE_HZ
    if args.json:
        print(
            json.dumps(
                {
                    "text": result.text,
                    "engine": stt.engine,
                    "audio_s": round(audio_s, 3),
                    "elapsed_s": round(elapsed, 3),
                    "rtf": round(elapsed / audio_s, 4) if audio_s else None,
                    "pieces": result.pieces,
                    "words": [
                        {"word": w.text, "start_s": w.start_s, "end_s": w.end_s, "confidence": round(w.confidence, 3)}
                        for w in result.words
                    ],
                },
                ensure_ascii=False,
            )
        )
    else:
        print(result.text)
    return EXIT_OK


def say(cfg: Config, args: argparse.Namespace) -> int:
    """Text-to-speech into a WAV file."""
    text = speakable(args.text)
    if not text:
        raise InputError("input-empty", "there is nothing to say")
    print(f"wrote {_speak_to_wav(cfg, text, args.wav)}", file=sys.stderr)
    return EXIT_OK


def run(cfg: Config, args: argparse.Namespace) -> int:
    """Run the box until the microphone ends (a file) or SIGTERM; faults exit 78 (permanent) or 75."""
    from daemon.box.root import Box, RunOptions
    from daemon.cli.console import ConsoleView
    from daemon.events import BoxReady, Event
    from daemon.service.startguard import StartGuard

    if args.no_wake:
        cfg = dataclasses.replace(cfg, listen=dataclasses.replace(cfg.listen, wake_word=False))
    guard = StartGuard()
    guard.starting()

    def ready(event: Event) -> None:
        if isinstance(event, BoxReady):
            guard.ready()

    subscribers: list[Callable[[Event], None]] = [ready]
    # Under systemd the journal already has the story; the live console view is for a person at a terminal.
    if not os.environ.get("INVOCATION_ID"):
        subscribers.append(ConsoleView())
    options = RunOptions(
        mic=args.mic, speaker=args.speaker, fast=args.fast, events=args.events, signals=True, subscribers=subscribers
    )
    box = Box(cfg, options)
    try:
        box.run()
    except TalkboxError as err:
        if err.exit_status != EXIT_CONFIG:
            guard.ready()  # a transient exit (no microphone yet) is deliberate, not a crash
        box.notifier.status(f"Error {err.code}: {err.message}")
        box.close(keep_screen=err.exit_status == EXIT_CONFIG)
        raise
    guard.ready()
    box.close("Restarting." if box.reloading else "")
    if box.reloading:
        print("talkbox: stopped to read the configuration again; systemd starts it anew", file=sys.stderr)
        return EXIT_TEMPFAIL
    return EXIT_OK


def demo(cfg: Config, args: argparse.Namespace) -> int:
    """One complete spoken turn on the default models, written into --out."""
    from daemon.box.rehearsal import QUESTION, sequential_first_audio
    from daemon.cli.demo import run_demo
    from daemon.engines.load import load_engines

    question = args.question or QUESTION
    if cfg.tts.noise_scale < 0 and cfg.tts.noise_w < 0:
        # NOTE: Piper varies its voice at random from run to run; the question it says was heard as "What two plants
        # need to grow?" in one run of three here. Without the variation, every run plays and hears the same one.
        cfg = dataclasses.replace(cfg, tts=dataclasses.replace(cfg.tts, noise_scale=0.0, noise_w=0.0))
    started = time.monotonic()
    engines = load_engines(cfg)
    print(f"[models ready in {time.monotonic() - started:.1f} s]")
    # NOTE: closed before the interpreter exits: the conversation read ahead after a skill's reply otherwise met a
    # model thread already stopped by the exit ("reading the conversation ahead failed"), a warning after every demo.
    try:
        result = run_demo(engines, cfg, args.out, realtime=not args.fast, question=question)
        print(f"\nwrote {result.question_wav}, {result.answer_wav} and {result.events}")
        if args.compare and result.question_to_audio_s is not None:
            baseline = sequential_first_audio(engines, question)
            streamed = result.question_to_audio_s
            print(
                f"question -> first audio: streaming {streamed:.2f} s vs sequential {baseline:.2f} s "
                f"(ratio {streamed / baseline:.2f})"
            )
    finally:
        engines.close()
    return EXIT_OK


def bench(cfg: Config, args: argparse.Namespace) -> int:
    """Run the benchmark and print the table (or JSON)."""
    from daemon.lab.bench import run_bench, table

    report = run_bench(cfg, args.out, args.quick, say=(lambda _: None) if args.json else print)
    print(json.dumps(report, indent=2) if args.json else table(report))
    return EXIT_OK


def soak(cfg: Config, args: argparse.Namespace) -> int:
    """Run many turns and check memory, fds, threads and turn times stay flat; exit 1 if a target fails."""
    from daemon.lab.soak import run_soak, table

    report = run_soak(cfg, args.turns, args.spoken, args.out, say=(lambda _: None) if args.json else print)
    print(json.dumps(report, indent=2) if args.json else table(report))
    return EXIT_OK if all(report["checks"].values()) else 1


def _progress(args: argparse.Namespace) -> Callable[[str], None]:
    """Progress lines go to the terminal, beside a JSON report on stderr."""
    return (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else print


def _report(report: dict[str, Any], table: Callable[[dict[str, Any]], str], as_json: bool) -> int:
    """Print an evaluation's report as JSON or as its table."""
    print(json.dumps(report, indent=2) if as_json else table(report))
    return EXIT_OK


def eval_hearing(cfg: Config, args: argparse.Namespace) -> int:
    """Speech-to-text accuracy of the named recognisers, per condition and voice, tune and held-out apart."""
    from daemon.lab.evaluate import RECOGNISERS, run_eval_hearing
    from daemon.lab.evaluation.hearing import table

    names = [n.strip() for n in args.recognisers.split(",") if n.strip()]
    if unknown := [n for n in names if n not in RECOGNISERS]:
        raise InputError("input-invalid", f"unknown recogniser {unknown[0]!r}: one of {', '.join(RECOGNISERS)}")
    return _report(run_eval_hearing(cfg, names, args.quick, say=_progress(args)), table, args.json)


def eval_vad(cfg: Config, args: argparse.Namespace) -> int:
    """Voice activity detection compared: speech missed, speakers cut off, false starts on non-speech."""
    from daemon.lab.evaluate import run_eval_vad
    from daemon.lab.evaluation.vad import table

    return _report(run_eval_vad(cfg, args.quick, say=_progress(args)), table, args.json)


def eval_wake(cfg: Config, args: argparse.Namespace) -> int:
    """Wake words and phrases compared: misses by many voices, false accepts per hour of speech and on noise."""
    from daemon.lab.evaluate import run_eval_wake
    from daemon.lab.evaluation.wake import table

    return _report(run_eval_wake(cfg, args.minutes, say=_progress(args)), table, args.json)


def eval_endpoint(cfg: Config, args: argparse.Namespace) -> int:
    """Endpoint rules compared on spoken questions with and without a pause inside: cut-offs and delays."""
    from daemon.lab.evaluate import run_eval_endpoint
    from daemon.lab.evaluation.endpoint import table

    return _report(run_eval_endpoint(cfg, args.quick, say=_progress(args)), table, args.json)


def eval_skills(cfg: Config, args: argparse.Namespace) -> int:
    """Skill routing on the phrase set, typed and spoken, tune and held-out apart."""
    from daemon.lab.evaluate import run_eval_skills
    from daemon.lab.evaluation.skills import table

    spoken = None if args.typed_only else args.spoken
    result = run_eval_skills(cfg, spoken, args.tool_calls, say=_progress(args), heard_file=args.heard)
    return _report(result, table, args.json)


def eval_answers(cfg: Config, args: argparse.Namespace) -> int:
    """Questions answered right, honestly or wrongly, per kind and half, typed and spoken, greedy."""
    from daemon.lab.answers_eval import run_eval_answers
    from daemon.lab.evaluation import answers, follow_ups

    report = run_eval_answers(
        cfg, args.quick, args.spoken, args.model, args.half, args.kind, _progress(args), args.in_conversation,
        args.follow_ups,
    )  # fmt: skip
    return _report(report, follow_ups.table if args.follow_ups else answers.table, args.json)


def doctor(cfg: Config, args: argparse.Namespace) -> int:
    """Check every part; exit 1 if a required part fails."""
    from daemon.cli.doctor import as_dicts, report, run_checks

    checks = run_checks(cfg)
    print(json.dumps(as_dicts(checks), indent=2) if args.json else report(checks))
    return 1 if any(c.required and not c.ok for c in checks) else EXIT_OK


def devices(cfg: Config, args: argparse.Namespace) -> int:
    """List the audio devices sounddevice (PortAudio/ALSA) can see."""
    import sounddevice as sd

    found = sd.query_devices()
    if not len(found):
        print("no audio devices found (is the microphone/speaker plugged in? is the user in the audio group?)")
        return EXIT_OK
    default_in, default_out = sd.default.device
    for i, d in enumerate(found):
        marks = ("<in " if i == default_in else "") + ("<out" if i == default_out else "")
        print(
            f"{i:3} {d['name'][:40]:40} in {d['max_input_channels']:2} out {d['max_output_channels']:2} "
            f"{int(d['default_samplerate']):6} Hz {marks}"
        )
    print('\nuse audio.input = "alsa:NAME" / audio.output = "alsa:NAME" with part of a name above')
    return EXIT_OK


def config_check(path: Path | None) -> int:
    """Validate a config file (or the default one) as `talkbox run` would, models included, and say so."""
    from daemon.engines.load import check_config

    cfg = config_mod.load(path)
    where = path or (config_mod.DEFAULT_CONFIG_PATH if config_mod.DEFAULT_CONFIG_PATH.exists() else None)
    models = check_config(cfg)
    print(f"{where or 'built-in defaults'}: ok (profile {cfg.models.profile}: {', '.join(models)})")
    return EXIT_OK


Handler = Callable[[Config, argparse.Namespace], int]
HANDLERS: Final[dict[str, Handler]] = {
    "ask": ask,
    "status": status,
    "transcribe": transcribe,
    "say": say,
    "run": run,
    "demo": demo,
    "bench": bench,
    "soak": soak,
    "doctor": doctor,
    "devices": devices,
    "models_list": models_list,
    "models_verify": models_verify,
    "models_fetch": models_fetch,
    "models_quantize": models_quantize,
    "models_path": models_path,
    "models_digest": models_digest,
    "eval_hearing": eval_hearing,
    "eval_vad": eval_vad,
    "eval_wake": eval_wake,
    "eval_skills": eval_skills,
    "eval_endpoint": eval_endpoint,
    "eval_answers": eval_answers,
    "homeassistant_run": homeassistant_run,
    "homeassistant_check": homeassistant_check,
}
"""Each subcommand's function, by name (models actions as models_ACTION)."""
