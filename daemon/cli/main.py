"""The `talkbox` command: thin subcommands over the library."""

from __future__ import annotations

import argparse
import importlib.util
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from daemon import __version__, config
from daemon.errors import EXIT_OK, EXIT_USAGE, TalkboxError

LAB_COMMANDS: Final = frozenset({"bench", "soak", "eval"})
"""Developer commands: they run the lab (daemon.lab), which a source checkout has and the image does not."""


def _common(top: bool) -> argparse.ArgumentParser:
    """--config and --debug, accepted before or after any subcommand."""
    # NOTE: a subparser's defaults overwrite values parsed before the subcommand, so only the
    # top-level parser has defaults; the subcommands' copies are SUPPRESSed unless given.
    default: dict[str, Any] = {} if top else {"default": argparse.SUPPRESS}
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        help=f"config file (default: {config.DEFAULT_CONFIG_PATH} if it exists)",
        **default,
    )
    common.add_argument("--debug", action="store_true", help="log what happens inside", **default)
    return common


def _count_arg(text: str) -> int:
    """A count for an option: a whole number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The whole command line."""
    common = _common(top=False)
    parser = argparse.ArgumentParser(
        prog="talkbox", description="An offline voice assistant.", parents=[_common(top=True)]
    )
    parser.add_argument("--version", action="version", version=f"talkbox {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ask = sub.add_parser("ask", parents=[common], help="answer a question (streams to stdout)")
    ask.add_argument("text", help="the question")
    ask.add_argument("--speak", action="store_true", help="the running box also speaks the answer out loud")
    ask.add_argument("--wav", type=Path, metavar="OUT", help="also speak the answer into this WAV file")
    ask.add_argument("--stats", action="store_true", help="print timings and tokens/s to stderr")
    ask.add_argument("--local", action="store_true", help="load the models here even if the box is running")
    ask.add_argument("--events", type=Path, metavar="FILE.jsonl", help="write the turn's events (answered here)")
    st = sub.add_parser("status", parents=[common], help="what the running box is doing")
    st.add_argument("--json", action="store_true")

    run = sub.add_parser("run", parents=[common], help="run the box: microphone in, spoken answers out")
    run.add_argument(
        "--mic",
        default="alsa",
        metavar="SOURCE",
        help='a WAV file, "-" for raw 16 kHz s16le on stdin, or "alsa[:NAME]" (default: alsa)',
    )
    run.add_argument(
        "--speaker", default="alsa", metavar="SINK", help='a WAV file to write, or "alsa[:NAME]" (default: alsa)'
    )
    run.add_argument("--fast", action="store_true", help="play a microphone file as fast as it can be read")
    run.add_argument("--events", type=Path, metavar="FILE.jsonl", help="write every event with a timestamp")
    run.add_argument("--no-wake", action="store_true", help="no wake word: only the button starts a turn")

    demo = sub.add_parser("demo", parents=[common], help="one complete spoken turn, no hardware needed")
    demo.add_argument("--out", type=Path, default=Path("talkbox-demo"), help="directory for the demo's files")
    demo.add_argument("--question", help="what the demo asks (default: a question for the language model)")
    demo.add_argument("--fast", action="store_true", help="do not pace the microphone in real time")
    demo.add_argument(
        "--compare", action="store_true", help="also time a sequential STT -> LLM -> TTS run on the same question"
    )

    bench = sub.add_parser("bench", parents=[common], help="measure latency, speed, memory and idle CPU (developers)")
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--quick", action="store_true", help="three questions and 10 s idle instead of five and 30 s")
    bench.add_argument("--out", type=Path, default=Path("talkbox-bench"), help="where the audio goes")

    soak = sub.add_parser(
        "soak", parents=[common], help="many turns in a row: do memory, fds, threads stay flat? (developers)"
    )
    soak.add_argument("--turns", type=_count_arg, default=1000, metavar="N", help="text turns (default: 1000)")
    soak.add_argument("--spoken", type=_count_arg, default=0, metavar="K", help="also K spoken turns from a WAV mic")
    soak.add_argument("--json", action="store_true")
    soak.add_argument("--out", type=Path, help="keep the state file and question here (default: a temporary dir)")

    ev = sub.add_parser("eval", parents=[common], help="measure how the box hears, routes and answers (developers)")
    esub = ev.add_subparsers(dest="eval_command", required=True, metavar="WHAT")
    hearing = esub.add_parser("hearing", parents=[common], help="speech-to-text accuracy per recogniser and condition")
    hearing.add_argument("--quick", action="store_true", help="40 questions instead of 174 (each in 8 conditions)")
    hearing.add_argument(
        "--recognisers",
        default="pocketsphinx,whisper",
        help="comma-separated, of pocketsphinx, pocketsphinx+full, pocketsphinx+whisper, whisper, whisper-unjudged, "
        "whisper-base",
    )
    hearing.add_argument("--json", action="store_true")
    vad = esub.add_parser("vad", parents=[common], help="WebRTC's VAD against Silero's: speech missed, cut off, noise")
    vad.add_argument("--quick", action="store_true", help="40 questions instead of 174 (each in 4 conditions)")
    vad.add_argument("--json", action="store_true")
    wake = esub.add_parser("wake", parents=[common], help="wake words and phrases: misses and false accepts per hour")
    wake.add_argument("--minutes", type=float, default=30.0, help="of ordinary speech to listen to (default 30)")
    wake.add_argument("--json", action="store_true")
    ep = esub.add_parser("endpoint", parents=[common], help="when a question is judged over: cut-offs and delays")
    ep.add_argument("--quick", action="store_true", help="40 questions instead of 174 (clean and with a pause)")
    ep.add_argument("--json", action="store_true")
    sk = esub.add_parser("skills", parents=[common], help="skill routing: the right skill and slots, typed and spoken")
    sk.add_argument("--spoken", type=int, default=0, metavar="N", help="also speak N phrases (0: all) by many voices")
    sk.add_argument("--typed-only", action="store_true", help="only the typed phrases (seconds)")
    sk.add_argument("--tool-calls", action="store_true", help="also route through the model's grammar-bound tool call")
    sk.add_argument(
        "--heard",
        type=Path,
        metavar="FILE",
        help="keep what the voices were heard saying in FILE, or route what it holds without speaking again",
    )
    sk.add_argument("--json", action="store_true")
    an = esub.add_parser("answers", parents=[common], help="answers right, honest or wrong, per kind, typed and spoken")
    an.add_argument("--quick", action="store_true", help="60 questions instead of all (over 320)")
    an.add_argument("--spoken", type=_count_arg, default=0, metavar="N", help="also say N questions by many voices")
    an.add_argument("--model", default="", metavar="NAME", help="a manifest LLM (default: the profile's)")
    an.add_argument("--half", choices=("tune", "held-out"), default="", help="only one half (tune on the tune half)")
    an.add_argument("--kind", default="", metavar="KIND", help="only one kind of question (e.g. unknowable)")
    an.add_argument(
        "--in-conversation", action="store_true", help="each question after the box's replies to 8 everyday requests"
    )
    an.add_argument("--follow-ups", action="store_true", help="only questions that lean on the one before them")
    an.add_argument("--json", action="store_true")

    doctor = sub.add_parser("doctor", parents=[common], help="check every part of the box")
    doctor.add_argument("--json", action="store_true")
    sub.add_parser("devices", parents=[common], help="list audio devices")

    tr = sub.add_parser("transcribe", parents=[common], help="speech-to-text of a WAV file")
    tr.add_argument("wav", type=Path, help="a PCM WAV file (any rate, width, channel count)")
    tr.add_argument("--json", action="store_true", help="print text, words and timings as JSON")

    say = sub.add_parser("say", parents=[common], help="text-to-speech into a WAV file")
    say.add_argument("text", help="what to say")
    say.add_argument("--wav", type=Path, metavar="OUT", required=True, help="the WAV file to write")

    models = sub.add_parser("models", parents=[common], help="list, verify, fetch, quantize models")
    msub = models.add_subparsers(dest="models_command", required=True, metavar="ACTION")
    mlist = msub.add_parser("list", parents=[common], help="every model in the manifest")
    mlist.add_argument("--json", action="store_true")
    mver = msub.add_parser("verify", parents=[common], help="check sha256 pins (default: this profile's)")
    mver.add_argument("names", nargs="*", metavar="NAME")
    mver.add_argument("--all", action="store_true", help="every model present on this machine")
    mver.add_argument(
        "--pins-only", action="store_true", help="only the files against their pins: no example sentences embedded"
    )
    mfetch = msub.add_parser("fetch", parents=[common], help="download models (needs the network)")
    mfetch.add_argument("names", nargs="*", metavar="NAME", help="default: the profile's models")
    mfetch.add_argument(
        "--pin", action="append", default=[], metavar="FILE=SHA256", help="pin a file the manifest leaves unpinned"
    )
    mq = msub.add_parser("quantize", parents=[common], help="convert a GGUF to Q4_K_M")
    mq.add_argument("src", type=Path)
    mq.add_argument("dst", type=Path)
    mq.add_argument("--type", default="Q4_K_M", dest="ftype")
    mq.add_argument("--threads", type=int, default=0)
    mq.add_argument("--force", action="store_true", help="overwrite DST")
    mpath = msub.add_parser("path", parents=[common], help="print where a model's files are")
    mpath.add_argument("name", nargs="?", help="a model name or a role (llm, stt, tts, wake)")
    mdigest = msub.add_parser("digest", parents=[common], help="print the sha256 pin for a model given by path")
    mdigest.add_argument("role", choices=("llm", "stt", "tts", "wake"))
    mdigest.add_argument("path", type=Path, help="the .gguf, the speech model's directory, the voice's .onnx, ...")

    ha = sub.add_parser("homeassistant", parents=[common], help="the opt-in link to your own Home Assistant")
    hsub = ha.add_subparsers(dest="homeassistant_command", required=True, metavar="ACTION")
    hrun = hsub.add_parser("run", parents=[common], help="run the bridge (talkbox-homeassistant.service)")
    hcheck = hsub.add_parser("check", parents=[common], help="check the URL, the token and the link; say what is wrong")
    hcheck.add_argument("--say", default="", metavar="TEXT", help='also send one command: "is the front door locked"')
    hcheck.add_argument("--json", action="store_true")
    for action in (hrun, hcheck):
        action.add_argument(
            "--socket", type=Path, default=None, help="the box's control socket (default: the service's)"
        )

    cfg = sub.add_parser("config", parents=[common], help="configuration")
    csub = cfg.add_subparsers(dest="config_command", required=True, metavar="ACTION")
    check = csub.add_parser("check", parents=[common], help="validate a config file")
    check.add_argument("path", type=Path, nargs="?")
    return parser


def lab_installed() -> bool:
    """True where the lab can be imported: a source checkout (`pip install -e .`), not a wheel or the image."""
    return importlib.util.find_spec("daemon.lab") is not None


def _setup_logging(debug: bool, command: str) -> None:
    if command in (
        "run",
        "homeassistant_run",
    ):  # the service: the journal under systemd, INFO so each turn's story is kept
        from daemon.service.journal import setup_logging

        setup_logging(debug)
        return
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `talkbox` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.command in LAB_COMMANDS and not lab_installed():
        print(
            f"talkbox: {args.command} is a developer command, available from a source checkout "
            "(pip install -e .); this installation leaves the lab out [lab-missing]",
            file=sys.stderr,
        )
        return EXIT_USAGE
    action = {"models": "models_command", "eval": "eval_command", "homeassistant": "homeassistant_command"}.get(
        args.command
    )
    name = f"{args.command}_{vars(args)[action]}" if action else args.command
    _setup_logging(args.debug, name)
    from daemon.cli import commands

    try:
        if args.command == "config":
            return commands.config_check(args.path or args.config)
        cfg = config.load(args.config)
        return commands.HANDLERS[name](cfg, args)
    except TalkboxError as err:
        print(f"talkbox: {err.message} [{err.code}]", file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt:
        print("talkbox: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `talkbox ask ... | head`
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
