"""A short soak through the box's assembly: memory, file descriptors and threads stay flat (times are not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from daemon.cli.main import main
from daemon.config import Config
from daemon.lab.soak import _late_slope, pool_workers_added, run_soak, table

pytestmark = pytest.mark.slow
TEXT_TURNS = 60
WARM_UP = 20
MAX_GROWTH_MB_PER_100_TURNS = 50.0
"""Half a megabyte per turn: a leak of each turn's audio or prompt shows; the allocators' step growth over the
first hundred turns does not (the 0.5 MB per 100 turns target is checked by `talkbox soak --turns 1000`)."""


def test_sixty_text_turns_and_two_spoken_leave_no_trace(dev_config: Config, tmp_path: Path) -> None:
    report = run_soak(
        dev_config, TEXT_TURNS, spoken=2, out=tmp_path, say=lambda _: None, answer_tokens=16, warm_up=WARM_UP
    )
    assert report["assembly"] == "box (skills on, tool calls off)"
    assert "the shipped assembly: box (skills on, tool calls off)" in table(report)
    assert report["turns"]["spoken"] == 2
    assert report["turns"]["outcomes"] == {"answered": TEXT_TURNS + 3}  # + the spoken warm-up turn
    assert report["fds"]["end"] <= report["fds"]["start"]
    assert report["threads"]["end"] - report["threads"]["pool_workers_added"] <= report["threads"]["start"]
    assert report["rss_mb"]["growth_per_100_turns"] <= MAX_GROWTH_MB_PER_100_TURNS
    # With history kept, every turn rewrites the state file once: a few kB, never the whole conversation twice.
    state = json.loads((tmp_path / "state" / "state.json").read_text())
    assert 0 < report["bytes_written_per_turn"]["state_file"] <= 2 * len(json.dumps(state)) + 1024
    assert set(report["checks"]) == {"rss_growth", "fds_flat", "threads_flat", "p99_within_1_5x_median"}


def test_only_workers_of_pools_already_running_count_as_bounded_growth() -> None:
    start = ("MainThread", "asyncio_0", "ThreadPoolExecutor-0_0")
    later = (*start, "asyncio_1", "ThreadPoolExecutor-0_1")  # the same pools, busier: not a leak
    assert pool_workers_added(start, later) == 2
    leaked = (*start, "ThreadPoolExecutor-7_0", "Thread-12 (reader)")  # a new pool, a plain thread: leaks
    assert pool_workers_added(start, leaked) == 0


def test_the_soak_command_refuses_too_few_turns(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soak", "--turns", "1"]) == 65
    assert "a soak needs more turns (1) than warm-up turns (1)" in capsys.readouterr().err


def test_the_late_slope_tells_a_leak_from_settling() -> None:
    turns = range(100, 1050, 50)
    leak = [(t, 500 + 0.02 * t) for t in turns]  # 2 MB per 100 turns, all along
    settling = [(t, 600 - 40 * 0.5 ** (t / 50)) for t in turns]  # growth that halves every 50 turns
    assert _late_slope(leak) == pytest.approx(2.0)
    assert 0 < _late_slope(settling) < 0.1
    assert _late_slope(leak[:2]) == 0.0  # too few samples to fit a line
