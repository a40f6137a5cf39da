"""`talkbox bench` runs end to end and reports every figure (the figures themselves are not asserted)."""

from __future__ import annotations

import json
import math
import mmap
from pathlib import Path

import pytest

from daemon.cli.main import main


@pytest.mark.slow
def test_bench_reports_every_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "talkbox.toml"
    cfg.write_text(f'[models]\ndir = "{tmp_path}"\n')
    assert main(["--config", str(cfg), "bench", "--quick", "--json", "--out", str(tmp_path / "bench")]) == 0
    report = json.loads(capsys.readouterr().out)
    for key in ("streaming_p50", "sequential_p50", "ratio_p50"):
        assert math.isfinite(report["first_audio_s"][key]) and report["first_audio_s"][key] > 0
    assert report["decode_tok_s"]["bare_llama"] > 0 and report["decode_tok_s"]["pipeline"] > 0
    assert set(report["idle_cpu_pct"]) == {"push_to_talk", "wake_word"}
    assert report["barge_in_s"] > 0
    assert report["decode_limit"]["limit_tok_s"] > 0 and report["peak_rss_mb"] > 0
    assert {"stt_rtf", "tts_rtf", "tts_first_chunk_s", "wake_rtf"} <= set(report["components"])
    work = report["working_memory_mb"]
    assert set(work) == {"voice_longest_sentence", "voice_long_numbers", "stt_utterance", "llm_answer"}
    assert all(isinstance(mb, float) for mb in work.values())
    assert report["rss_mb"]["Loading the voice"] > 0  # the voice's weights and its working memory, taken at load
    assert report["peak_rss_during_load_mb"] >= report["memory_after_load_mb"]["rss"] - 1


def test_the_peak_can_be_reset_to_measure_one_piece_of_work() -> None:
    from daemon.cli.measure import peak_rss_mb, reset_peak_rss, rss_mb

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
