"""`talkbox soak`: many turns through the box's assembly: memory, fds, threads and turn times must stay flat."""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import gc
import os
import re
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from daemon.box.assembly import assembled
from daemon.box.audio import frames_of
from daemon.box.rehearsal import speak_question
from daemon.config import Config
from daemon.engines.load import load_engines
from daemon.errors import InputError
from daemon.events import Event, EventBus, Trigger, TurnEnded
from daemon.lab import shipped_assembly
from daemon.lab.measure import pct, rss_mb
from daemon.ports import Engines
from daemon.service.statefile import STATE_FILE
from daemon.turn.keeper import TurnKeeper
from hardware.audio import WavFileSink, WavFileSource

QUESTIONS: Final = (
    "Why is the sky blue?",
    "How do plants make food?",
    "Tell me about the history of Paris.",
    "How does a rainbow form?",
    "Why do we have seasons?",
    "How do birds fly?",
)
"""Questions whose answers run to the cap, so every turn does about the same work and times compare."""
SPOKEN_QUESTION: Final = "How many legs does a spider have?"
"""The spoken turns' question: one the language model answers (a skill would skip prefill and the early answer)."""
CONVERSATION_TURNS: Final = 6
"""The conversation is forgotten after this many turns, as a person's conversations end; the prompt stays bounded."""
ANSWER_TOKENS: Final = 24
"""Answers are capped this short (a spoken answer is one to three sentences), so 1,000 turns take minutes, not hours."""
MAX_RSS_GROWTH_MB_PER_100: Final = 0.5
SAMPLE_EVERY: Final = 50
"""RSS is sampled every this many turns, so a reader can tell a leak (a slope) from buffers still settling (steps)."""
MAX_P99_OVER_P50: Final = 1.5
NOWHERE: Final = Path(os.devnull)
_POOL_WORKER: Final = re.compile(r"^(?P<pool>.+)_\d+$")
"""A thread pool's worker ("asyncio_3", "ThreadPoolExecutor-0_1"). A pool starts workers while it is kept busy, up to
its bound, so on a busier machine it grows later in a run (a full test suite beside the soak: 31 threads against
30); a pool made anew each turn would show under a new name."""
"""The speaker: synthesized audio is played into /dev/null at full speed (the SD card is not what is measured)."""


def open_fds() -> int:
    """File descriptors open in this process."""
    return len(os.listdir("/proc/self/fd"))


def native_threads() -> int:
    """Threads of this process, including the engines' own (OpenMP, onnxruntime)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return threading.active_count()


def storage_write_bytes() -> int:
    """Bytes this process caused to be sent to storage so far (/proc/self/io write_bytes)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


@dataclasses.dataclass
class _Snapshot:
    rss_mb: float
    fds: int
    threads: int
    named: tuple[str, ...]
    """The Python threads' names."""

    @classmethod
    def now(cls) -> _Snapshot:
        gc.collect()  # only what is really held counts
        return cls(rss_mb(), open_fds(), native_threads(), tuple(t.name for t in threading.enumerate()))


def pool_workers_added(before: tuple[str, ...], after: tuple[str, ...]) -> int:
    """Threads started since `before` by pools that had workers then: growth up to a pool's bound, not a leak."""
    pools = {m["pool"] for name in before if (m := _POOL_WORKER.match(name))}
    added = collections.Counter(after) - collections.Counter(before)
    return sum(n for name, n in added.items() if (m := _POOL_WORKER.match(name)) and m["pool"] in pools)


class _Soak:
    """The engines and one speaker, put together by the box's assembly with history kept (the worst case for writes)."""

    def __init__(self, engines: Engines, config: Config, out: Path) -> None:
        self.engines = engines
        self.config = dataclasses.replace(
            config,
            listen=dataclasses.replace(config.listen, follow_up_s=0.0, chime=False),
            state=dataclasses.replace(config.state, keep_history=True),
        )
        self.state_dir = out / "state"
        self.state_file = _StateFile(self.state_dir / STATE_FILE)
        self.bus = EventBus()
        self.outcomes: list[str] = []
        self.bus.subscribe(self._ended)
        self.sink = WavFileSink(NOWHERE, engines.tts.sample_rate_hz, realtime=False)
        self.question_wav = speak_question(engines.tts, out / "question.wav", SPOKEN_QUESTION)
        self.turn = 0

    def _ended(self, event: Event) -> None:
        if isinstance(event, TurnEnded):  # the assembly's saver has written the state file by now
            self.outcomes.append(event.outcome)
            self.state_file.look()

    async def text_turn(self, keeper: TurnKeeper) -> float:
        """One typed question answered out loud, through a whole turn; seconds it took."""
        self.turn += 1
        if self.turn % CONVERSATION_TURNS == 1:
            self.engines.memory.forget()
        question = QUESTIONS[self.turn % len(QUESTIONS)]
        started = time.monotonic()
        await asyncio.wrap_future(keeper.ask(question, Trigger.SOCKET, speak=True))
        return time.monotonic() - started

    async def spoken_turn(self, keeper: TurnKeeper) -> None:
        """The recorded question through the whole turn: wake word, VAD, STT, LLM, TTS."""
        self.engines.memory.forget()
        await keeper.hear(frames_of(WavFileSource(self.question_wav, realtime=False), keeper.listener))

    def close(self) -> None:
        self.sink.close()


class _StateFile:
    """Bytes written to the state file, counted from each new file that replaced it (it is written whole, renamed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.bytes_written = 0
        self._seen: tuple[int, int] | None = None

    def look(self) -> None:
        """Count the file if it was written since the last look."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return
        if (stat.st_ino, stat.st_mtime_ns) != self._seen:
            self._seen = (stat.st_ino, stat.st_mtime_ns)
            self.bytes_written += stat.st_size


def run_soak(
    config: Config,
    turns: int,
    spoken: int = 0,
    out: Path | None = None,
    say: Callable[[str], None] = print,
    *,
    answer_tokens: int = ANSWER_TOKENS,
    warm_up: int | None = None,
) -> dict[str, Any]:
    """Run `turns` text turns (+ `spoken` turns from a WAV microphone) and report the figures and the verdicts."""
    # NOTE: the engines grow their buffers to the longest sentence and prompt seen, in steps, over the first
    # tens of turns; only growth after that is a leak.
    warm_up = max(1, min(100, turns // 10)) if warm_up is None else warm_up
    if turns - warm_up < 1:
        raise InputError("input-invalid", f"a soak needs more turns ({turns}) than warm-up turns ({warm_up})")
    config = dataclasses.replace(config, llm=dataclasses.replace(config.llm, max_answer_tokens=answer_tokens))
    with tempfile.TemporaryDirectory(prefix="talkbox-soak-") as scratch:
        where = out or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        engines = load_engines(config)
        soak = _Soak(engines, config, where)
        try:
            report = asyncio.run(_measure(soak, turns, warm_up, spoken, say))
        finally:
            soak.close()
            engines.close()
    return {"assembly": shipped_assembly(soak.config)} | report


async def _measure(soak: _Soak, turns: int, warm_up: int, spoken: int, say: Callable[[str], None]) -> dict[str, Any]:
    async with assembled(soak.config, soak.engines, soak.sink, soak.bus, state_dir=soak.state_dir) as box:
        return await _turns(soak, box.keeper, turns, warm_up, spoken, say)


async def _turns(
    soak: _Soak, keeper: TurnKeeper, turns: int, warm_up: int, spoken: int, say: Callable[[str], None]
) -> dict[str, Any]:
    for _ in range(warm_up):
        await soak.text_turn(keeper)
    if spoken:
        await soak.spoken_turn(keeper)  # the first spoken turn allocates the recogniser's buffers: not a leak
    start, written, saved = _Snapshot.now(), storage_write_bytes(), soak.state_file.bytes_written
    measured = turns - warm_up
    every = max(1, measured // spoken) if spoken else 0
    times: list[float] = []
    samples: list[tuple[int, float]] = [(warm_up, start.rss_mb)]
    done_spoken = 0
    for i in range(measured):
        times.append(await soak.text_turn(keeper))
        if every and done_spoken < spoken and (i + 1) % every == 0:
            await soak.spoken_turn(keeper)
            done_spoken += 1
        if (i + 1) % SAMPLE_EVERY == 0:
            samples.append((i + 1 + warm_up, _Snapshot.now().rss_mb))  # collected, as start and end are
            say(f"  {i + 1 + warm_up} turns, RSS {samples[-1][1]:.1f} MB, median {statistics.median(times):.2f} s")
    end = _Snapshot.now()
    pooled = pool_workers_added(start.named, end.named)
    per_turn = max(1, measured + done_spoken)
    growth = (end.rss_mb - start.rss_mb) / max(1, measured + done_spoken) * 100
    p50, p99 = statistics.median(times), pct(times, 0.99)
    report: dict[str, Any] = {
        "turns": {"text": turns, "spoken": done_spoken, "warm_up": warm_up, "outcomes": _count(soak.outcomes)},
        "rss_mb": {
            "after_warm_up": start.rss_mb,
            "end": end.rss_mb,
            "growth_per_100_turns": growth,
            "late_slope_per_100_turns": _late_slope(samples),
            "samples": [{"turn": turn, "rss_mb": mb} for turn, mb in samples],
        },
        "fds": {"start": start.fds, "end": end.fds},
        "threads": {"start": start.threads, "end": end.threads, "pool_workers_added": pooled},
        "turn_s": {"p50": p50, "p99": p99, "p99_over_p50": p99 / p50 if p50 else 0.0},
        "bytes_written_per_turn": {
            "storage": (storage_write_bytes() - written) / per_turn,
            "state_file": (soak.state_file.bytes_written - saved) / per_turn,
        },
    }
    report["checks"] = {
        "rss_growth": growth <= MAX_RSS_GROWTH_MB_PER_100,
        "fds_flat": end.fds <= start.fds,
        "threads_flat": end.threads - pooled <= start.threads,
        "p99_within_1_5x_median": p99 <= MAX_P99_OVER_P50 * p50,
    }
    return report


def _late_slope(samples: list[tuple[int, float]]) -> float:
    """MB per 100 turns fitted to the second half of the samples: a leak keeps its slope, settling loses it."""
    late = samples[len(samples) // 2 :]
    if len(late) < 3:
        return 0.0
    return 100 * statistics.linear_regression([t for t, _ in late], [mb for _, mb in late]).slope


def _count(outcomes: list[str]) -> dict[str, int]:
    return {o: outcomes.count(o) for o in sorted(set(outcomes))}


def table(report: dict[str, Any]) -> str:
    """The report as aligned lines with PASS/FAIL verdicts."""
    r, c = report, report["checks"]

    def verdict(ok: bool) -> str:
        return "PASS" if ok else "FAIL"

    rows = [
        ("ran", f"the shipped assembly: {r['assembly']}"),
        ("turns (text / spoken / warm-up)", f"{r['turns']['text']} / {r['turns']['spoken']} / {r['turns']['warm_up']}"),
        ("outcomes", ", ".join(f"{k} {v}" for k, v in r["turns"]["outcomes"].items())),
        ("RSS after warm-up / end", f"{r['rss_mb']['after_warm_up']:.1f} / {r['rss_mb']['end']:.1f} MB"),
        (
            "RSS growth per 100 turns",
            f"{r['rss_mb']['growth_per_100_turns']:+.2f} MB (<= {MAX_RSS_GROWTH_MB_PER_100}) "
            f"{verdict(c['rss_growth'])}",
        ),
        (
            "  slope over the second half of the samples",
            f"{r['rss_mb']['late_slope_per_100_turns']:+.2f} MB per 100 turns",
        ),
        ("open fds start / end", f"{r['fds']['start']} / {r['fds']['end']} {verdict(c['fds_flat'])}"),
        (
            "threads start / end (pools' workers added)",
            f"{r['threads']['start']} / {r['threads']['end']} ({r['threads']['pool_workers_added']}) "
            f"{verdict(c['threads_flat'])}",
        ),
        (
            "turn time p50 / p99",
            f"{r['turn_s']['p50']:.2f} / {r['turn_s']['p99']:.2f} s = {r['turn_s']['p99_over_p50']:.2f}x "
            f"(<= {MAX_P99_OVER_P50}) {verdict(c['p99_within_1_5x_median'])}",
        ),
        (
            "bytes written per turn (storage / state file)",
            f"{r['bytes_written_per_turn']['storage']:.0f} / {r['bytes_written_per_turn']['state_file']:.0f}",
        ),
    ]
    return "\n".join(f"{name:46} {value}" for name, value in rows)
