"""The crash-loop guard: starts that die before READY add up to a permanent fault; a READY clears them."""

from __future__ import annotations

from pathlib import Path

import pytest

from daemon.errors import TalkboxError
from daemon.service.startguard import MAX_FAILED_STARTS, StartGuard


def test_five_starts_that_never_got_ready_end_in_exit_78(tmp_path: Path) -> None:
    for _ in range(MAX_FAILED_STARTS):
        StartGuard(str(tmp_path)).starting()  # each process dies before READY
    with pytest.raises(TalkboxError) as err:
        StartGuard(str(tmp_path)).starting()
    assert err.value.exit_status == 78 and err.value.code == "start-crash-loop"
    StartGuard(str(tmp_path)).starting()  # after the give-up, a manual restart gets a fresh count


def test_a_crash_after_ready_never_adds_up(tmp_path: Path) -> None:
    for _ in range(3 * MAX_FAILED_STARTS):  # e.g. kill -9 many times, each time after READY
        guard = StartGuard(str(tmp_path))
        guard.starting()
        guard.ready()
    StartGuard(str(tmp_path)).starting()


def test_outside_systemd_there_is_no_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    for _ in range(2 * MAX_FAILED_STARTS):
        StartGuard().starting()
