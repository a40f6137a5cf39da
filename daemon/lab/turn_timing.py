"""Spoken turns through the box's own assembly in real time, timed as a person feels them: from the last word.

The headline of `talkbox bench`, its split, and the same turns projected onto a Pi 4 and a Pi 5.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import statistics
import time
from collections.abc import AsyncIterator, Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from daemon.box.assembly import Assembly, assembled
from daemon.box.audio import frames_of
from daemon.box.rehearsal import sequential_first_audio, speak_question
from daemon.channels.control_server import ControlServer
from daemon.config import Config
from daemon.events import (
    AnswerDropped,
    AnswerFinished,
    AnswerKept,
    AnswerStartedEarly,
    BargeSource,
    Event,
    EventBus,
    ListeningEnded,
    SentenceReady,
    SkillCalled,
    SpeakingStarted,
    ThinkingStarted,
    TokenGenerated,
    TranscriptReady,
)
from daemon.home.client import CONNECTING
from daemon.lab.measure import pct
from daemon.ports import AUDIO_RATE_HZ, Engines
from daemon.turn.keeper import TurnKeeper
from hardware.audio import WavFileSink, WavFileSource, read_audio_file

QUESTIONS: Final = (
    "Why do we need sleep?",
    "How do vaccines work?",
    "What is the largest ocean?",
    "What causes the seasons?",
    "What should I cook for dinner tonight?",
)
"""What people ask a voice assistant: how/why questions answered in two to four sentences, and one factoid.

Chosen among questions the dev profile's PocketSphinx hears intact in the box's voice: a misheard question gets
an answer to something else (often one line), which says nothing about the pipeline.
"""
QUICK_QUESTIONS: Final = 3
BRIDGE_WAIT_S: Final = 30.0
"""Longest wait for the bridge to find a new control socket (it looks every 2 s) and reach Home Assistant."""


@dataclass
class TurnTimes:
    """One spoken turn through the pipeline, timed from the end of speech (seconds)."""

    transcript: str = ""
    stt_final_s: float = math.nan
    first_token_s: float = math.nan
    first_sentence_s: float = math.nan
    first_audio_s: float = math.nan
    first_sentence: str = ""
    barge_in_s: float = 0.0
    last_word_to_first_audio_s: float = math.nan
    """What a person feels: from the end of their last word (in the audio) to the box's first sound."""
    endpoint_wait_s: float = math.nan
    """From the last word to the decision that the question was over."""
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    """Prompt tokens evaluated after the decision (the rest were prefilled while the user spoke)."""
    first_clause_tokens: int = 0
    """Tokens generated up to the first chunk the voice speaks."""
    first_clause_audio_s: float = math.nan
    answer_start_s: float = math.nan
    """From the last word to the start of the answer that was spoken (early, at a pause, or after the decision)."""
    early: str = "none"
    """The answer started early: "kept", "dropped" (then answered again after the decision), or "none"."""
    question_to_audio_s: float = math.nan
    skill_reply_s: float = math.nan
    """From the end of speech to a skill's reply (a home command: Home Assistant's words, through the bridge)."""
    """From the moment the box had the question (the early answer's start, else the decision) to the first sound."""


def warm_up(engines: Engines) -> None:
    """Forget the conversation and leave only the system prompt evaluated, as a box is before a first question."""
    engines.memory.forget()
    engines.llm.warm_up()


def last_word_s(mic: Path) -> float:
    """Where the last word of a recorded question ends, in seconds from the file's start (its last loud sample)."""
    audio = np.abs(read_audio_file(mic).astype(np.int32))
    loud = np.flatnonzero(audio > 0.01 * 32768)
    return float(loud[-1] + 1) / AUDIO_RATE_HZ if len(loud) else 0.0


def timed_turn(
    engines: Engines,
    config: Config,
    mic: Path,
    out: Path,
    interrupt_after_s: float = 0.0,
    control: Path | None = None,
) -> TurnTimes:
    """One spoken turn through the box's assembly in real time; its timings (and barge-in, if interrupted).

    With `control`, the box's control socket listens there and the turn waits for a Home Assistant bridge first.
    """
    times = TurnTimes()
    end = [0.0]
    at: dict[str, float] = {}
    tokens = [0]
    said_until = last_word_s(mic)

    def note(event: Event) -> None:
        now = time.monotonic()
        since_end = now - end[0]
        match event:
            case ListeningEnded():
                end[0] = at["decided"] = now
            case TranscriptReady(text=text):
                times.transcript, times.stt_final_s = text, since_end
            case TokenGenerated():
                tokens[0] += 1
                if math.isnan(times.first_token_s):
                    times.first_token_s = since_end
            case SentenceReady(index=0, text=text):
                times.first_sentence, times.first_sentence_s = text, since_end
                times.first_clause_tokens = tokens[0]
            case SpeakingStarted(latency_s=latency):
                times.first_audio_s = latency
                # NOTE: from the event's own figure: the loop may hand the event on a little later.
                at["sound"] = end[0] + latency
                if interrupt_after_s and keeper is not None:  # the button, pressed while the box speaks
                    asyncio.get_running_loop().call_later(interrupt_after_s, keeper.barge_in, BargeSource.BUTTON)
            case AnswerFinished(prompt_tokens=prompt, evaluated_tokens=evaluated):
                times.prompt_tokens, times.evaluated_tokens = prompt, evaluated
            case AnswerStartedEarly():
                at["started"], times.early = now, "early"
            case AnswerDropped():
                times.early = "dropped"
                at.pop("started", None)
            case AnswerKept():
                times.early = "kept"
            case ThinkingStarted() if times.early in ("none", "dropped"):
                at["started"] = now
            case SkillCalled():
                times.skill_reply_s = since_end

    bus = EventBus()
    bus.subscribe(note)
    sink = WavFileSink(out, engines.tts.sample_rate_hz)
    timed = dataclasses.replace(config, listen=dataclasses.replace(config.listen, follow_up_s=0.0, chime=False))
    source = _Timed(WavFileSource(mic))
    keeper: TurnKeeper | None = None  # the assembly's, once built: the one the button presses

    async def main() -> float:
        nonlocal keeper
        async with assembled(timed, engines, sink, bus) as box, contextlib.AsyncExitStack() as linked:
            keeper = box.keeper
            if control is not None and box.home is not None:
                await linked.enter_async_context(bridged(box, control))
            await keeper.hear(frames_of(source, keeper.listener))
            return keeper.last_barge_in_s

    rate = engines.tts.sample_rate_hz
    warm_up(engines)
    try:
        times.barge_in_s = asyncio.run(main())
    finally:
        sink.close()
    engines.memory.forget()
    if times.first_sentence:  # measured after the turn: synthesizing on the loop would delay the turn
        times.first_clause_audio_s = sum(len(c) for c in engines.tts.synthesize(times.first_sentence)) / 2 / rate
    if "sound" in at and source.started:
        last_word = source.started + said_until  # the file plays in real time from `started`
        times.last_word_to_first_audio_s = at["sound"] - last_word
        times.endpoint_wait_s = at["decided"] - last_word
        times.answer_start_s = at.get("started", at["decided"]) - last_word
    if "sound" in at:
        times.question_to_audio_s = at["sound"] - (at["started"] if times.early == "kept" else at["decided"])
    return times


@contextlib.asynccontextmanager
async def bridged(box: Assembly, control: Path) -> AsyncIterator[None]:
    """The box's control socket at `control`, once a Home Assistant bridge registered there and tried to reach it."""
    assert box.home is not None and box.skills is not None
    server = ControlServer(control, turns=box.keeper, status=box.skills.status, home=box.home)
    await server.start()
    try:
        deadline = time.monotonic() + BRIDGE_WAIT_S
        while not box.home.attached or box.home.state.reason == CONNECTING:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no Home Assistant bridge registered on {control} in {BRIDGE_WAIT_S:g} s")
            await asyncio.sleep(0.02)
        yield
    finally:
        await server.stop()


class _Timed:
    """A WAV microphone that notes when it started playing (sample k then sounds at started + k / rate)."""

    def __init__(self, source: WavFileSource) -> None:
        self._source = source
        self.started = 0.0

    def frames(self, chunk_s: Callable[[], float] | None = None) -> Generator[bytes, None, None]:
        """The source's frames; the first one's arrival, less its length, is when playing started."""
        for frame in self._source.frames(chunk_s):
            if not self.started:
                self.started = time.monotonic() - len(frame) / 2 / AUDIO_RATE_HZ
            yield frame

    def close(self) -> None:
        """Close the source."""
        self._source.close()


def first_audio(
    engines: Engines, config: Config, out: Path, questions: tuple[str, ...], say: Callable[[str], None]
) -> dict[str, Any]:
    """The question to first audio, streaming and sequential, on the same transcript and the same answer.

    Streaming counts from when the box had the question: the start of an early answer that was kept, else the end of
    speech; sequential from the end of speech (it hears the whole question first).
    """
    rows = []
    for i, question in enumerate(questions):
        mic = speak_question(engines.tts, out / f"q{i}.wav", question)
        turn = timed_turn(engines, config, mic, out / f"a{i}.wav")
        warm_up(engines)
        sequential = sequential_first_audio(engines, question, heard=turn.transcript)
        rows.append(dataclasses.asdict(turn) | {"question": question, "sequential_s": sequential})
        say(
            f"  {question!r} heard as {turn.transcript!r}: last word -> first audio "
            f"{turn.last_word_to_first_audio_s:.2f} s (answer began {turn.answer_start_s:.2f} s after it, "
            f"{turn.early}); question -> first audio streaming {turn.question_to_audio_s:.2f} s, sequential "
            f"{sequential:.2f} s; first chunk {turn.first_sentence!r}"
        )
    streaming = [r["question_to_audio_s"] for r in rows]
    sequential_s = [r["sequential_s"] for r in rows]
    return {
        "streaming_p50": statistics.median(streaming),
        "streaming_p90": pct(streaming, 0.9),
        "sequential_p50": statistics.median(sequential_s),
        "sequential_p90": pct(sequential_s, 0.9),
        "ratio_p50": statistics.median(streaming) / statistics.median(sequential_s),
        "ratio_paired_median": statistics.median(a / b for a, b in zip(streaming, sequential_s, strict=True)),
        "stt_final_p50": statistics.median(r["stt_final_s"] for r in rows),
        **_from_last_word(rows),
        "first_token_p50": statistics.median(r["first_token_s"] for r in rows),
        "first_sentence_p50": statistics.median(r["first_sentence_s"] for r in rows),
        "turns": rows,
    }


def _from_last_word(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The headline, last word -> first audio, and where its time goes (medians over the questions)."""
    felt = [r["last_word_to_first_audio_s"] for r in rows if not math.isnan(r["last_word_to_first_audio_s"])]
    if not felt:
        return {}

    def median(key: str) -> float:
        return float(statistics.median(float(r[key]) for r in rows))

    split = {
        "endpoint_wait": median("endpoint_wait_s"),
        "answer_start": median("answer_start_s"),
        "final_transcript": median("stt_final_s"),
        "first_token": statistics.median(r["first_token_s"] - r["stt_final_s"] for r in rows),
        "first_clause": statistics.median(r["first_sentence_s"] - r["first_token_s"] for r in rows),
        "first_synthesis": statistics.median(r["first_audio_s"] - r["first_sentence_s"] for r in rows),
    }
    return {
        "last_word_p50": statistics.median(felt),
        "last_word_p90": pct(felt, 0.9),
        "split": split,
        "prompt_tokens_p50": median("prompt_tokens"),
        "evaluated_at_end_p50": median("evaluated_tokens"),
        "first_clause_tokens_p50": median("first_clause_tokens"),
        "first_clause_audio_s_p50": median("first_clause_audio_s"),
        "answers_started_early": sum(r["early"] in ("kept", "dropped") for r in rows),
        "answers_kept": sum(r["early"] == "kept" for r in rows),
        "projected": {name: project(rows, board) for name, board in BOARDS.items()},
    }


@dataclass(frozen=True)
class Board:
    """A board's published speeds for its profile's models (docs/performance.md)."""

    decode_tok_s: float
    prompt_tok_s: float
    tts_rtf: float
    final_transcript_s: float


BOARDS: Final = {
    "pi4": Board(decode_tok_s=4.0, prompt_tok_s=12.0, tts_rtf=0.40, final_transcript_s=0.15),
    "pi5": Board(decode_tok_s=10.0, prompt_tok_s=30.0, tts_rtf=0.11, final_transcript_s=0.15),
}
"""Decode of the profiles' Qwen2.5 1.5B Q4_K_M (1.1 GB): on a Pi 5 as published; on a Pi 4 by size between
published figures (1.1B Q4_K_M, 0.6 GB: 8-12 tokens/s; 3B, 1.9 GB: 2-3); prompt evaluation assumed 3x decode, Piper
lessac-low's real-time factor, Vosk's final result; the same figures as the estimate table in docs/performance.md."""


def project(rows: list[dict[str, Any]], board: Board) -> float:
    """Last word -> first audio on `board`, the median over this run's turns.

    Each turn keeps this run's endpoint wait and the moment its answer started (early, at the pause judged
    finished, or after the decision); from that start the recogniser's last result, the prompt left to evaluate,
    the first chunk's tokens and its synthesis take the board's time. The answer sounds when both are done.
    """
    felt = []
    for r in rows:
        work = (
            board.final_transcript_s
            + float(r["evaluated_tokens"]) / board.prompt_tok_s
            + float(r["first_clause_tokens"]) / board.decode_tok_s
            + float(r["first_clause_audio_s"]) * board.tts_rtf
        )
        early = r["early"] == "kept" and not math.isnan(r["answer_start_s"])
        felt.append(max(r["endpoint_wait_s"], r["answer_start_s"] + work) if early else r["endpoint_wait_s"] + work)
    return float(statistics.median(felt))
