"""`talkbox bench` drives the shipped assembly; the bench itself runs by hand (`talkbox bench --quick`), not here."""

from __future__ import annotations

import mmap
from pathlib import Path

import pytest

from daemon.cli.main import main
from daemon.config import Config, ListenConfig
from daemon.events import AnswerFinished, EventBus, SkillCalled
from daemon.lab import shipped_assembly
from daemon.lab.bench import typed_turn
from daemon.lab.command_timing import timed_commands
from daemon.lab.reminder_timing import STATES, reminder_delays
from daemon.ports import Engines
from hardware.audio import WavFileSink


def test_the_bench_command_is_there_and_says_it_is_for_developers(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert "measure latency, speed, memory and idle CPU (developers)" in capsys.readouterr().out


@pytest.mark.slow
def test_a_bench_question_that_asks_a_skill_is_answered_by_the_skill(
    engines: Engines, dev_config: Config, tmp_path: Path
) -> None:
    bus = EventBus()
    seen: list[object] = []
    bus.subscribe(seen.append)
    sink = WavFileSink(tmp_path / "answer.wav", engines.tts.sample_rate_hz, realtime=False)
    try:
        typed_turn(engines, sink, dev_config, "What time is it?", bus)
    finally:
        sink.close()
        engines.memory.forget()
    (called,) = (e for e in seen if isinstance(e, SkillCalled))
    (finished,) = (e for e in seen if isinstance(e, AnswerFinished))
    assert called.skill == "time"
    assert finished.text == called.reply and finished.tokens == 0  # the language model was not asked


@pytest.mark.slow
def test_a_due_timer_rings_through_the_real_box_in_every_state_it_times(
    engines: Engines, dev_config: Config, tmp_path: Path
) -> None:
    delays = reminder_delays(engines, dev_config, tmp_path)
    assert list(delays) == list(STATES)
    # NOTE: not a speed bound: waiting for the box to be idle, the window would have rung after its 30 s were out.
    assert all(0.0 <= s < 30.0 for s in delays.values()), delays


def test_the_reports_name_the_assembly_they_ran(dev_config: Config) -> None:
    assert shipped_assembly(dev_config) == "box (skills on, tool calls off)"


def test_the_peak_can_be_reset_to_measure_one_piece_of_work() -> None:
    from daemon.lab.measure import peak_rss_mb, reset_peak_rss, rss_mb

    if not reset_peak_rss():
        pytest.skip("this kernel does not let a process reset its peak RSS")
    # NOTE: mapped by hand: a bytearray can come from (and go back to) heap the process already holds, as it
    # did after the rest of the suite, and then neither RSS nor its peak moves.
    block = mmap.mmap(-1, 64 * 1024 * 1024)
    block.write(b"\1" * len(block))  # touched, so resident
    block.close()
    assert peak_rss_mb() - rss_mb() > 50
    assert reset_peak_rss()
    assert peak_rss_mb() - rss_mb() < 20


@pytest.mark.slow
def test_a_spoken_command_nothing_would_change_ends_before_one_that_may_go_on(
    engines: Engines, dev_config: Config, tmp_path: Path
) -> None:
    said = ("What time is it?", "Alarm at 7.")
    report = timed_commands(engines, dev_config, tmp_path, said, say=lambda line: None)
    closed, open_ = report["turns"]
    assert [closed["transcript"].rstrip("?."), open_["transcript"].rstrip("?.")] == [s.rstrip("?.") for s in said]
    # NOTE: not a speed bound: which pause ended each turn. "Alarm at 7" may go on ("... 30").
    assert closed["endpoint_wait_s"] < ListenConfig().trailing_silence_s <= open_["endpoint_wait_s"]
    assert closed["skill_reply_s"] == closed["skill_reply_s"]  # a skill replied (NaN when none did)
