"""Saved state survives power cuts, full disks and foreign files, and never takes the daemon down."""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from daemon.config import Config, StateConfig, parse
from daemon.engines.llm import LlamaModel
from daemon.errors import ConfigError
from daemon.events import Outcome, Trigger, TurnEnded, TurnStarted
from daemon.ports import Engines, Exchange
from daemon.service.statefile import (
    STATE_FILE,
    SavedState,
    StateStore,
    TurnSaver,
    atomic_write,
    decode,
    encode,
)

KILLS = 200
KILL_BUDGET_S = 20.0


def version(n: int) -> SavedState:
    """A state whose every part is derived from n, with a size that changes from one version to the next."""
    history = tuple(Exchange(f"question {n}.{j}", f"answer {n} " * (1 + (n * 7 + j) % 40)) for j in range(n % 9))
    return SavedState({"n": n, "volume": n % 10 / 10, "json": n % 2 == 0, "name": "x" * (n % 300)}, history)


def test_a_saved_state_loads_back(tmp_path: Path) -> None:
    store = StateStore(tmp_path, keep_history=True)
    assert store.save(version(17))
    assert StateStore(tmp_path, keep_history=True).load() == version(17)


def test_history_is_only_written_when_kept(tmp_path: Path) -> None:
    assert StateStore(tmp_path, keep_history=False).save(version(5))
    saved = json.loads((tmp_path / STATE_FILE).read_text())
    assert saved["history"] == [] and saved["settings"]["n"] == 5
    assert StateStore(tmp_path, keep_history=True).load().history == ()


def test_a_file_with_history_loses_it_when_history_is_no_longer_kept(tmp_path: Path) -> None:
    StateStore(tmp_path, keep_history=True).save(version(5))
    store = StateStore(tmp_path, keep_history=False)
    loaded = store.load()
    assert loaded.history == () and loaded.settings == version(5).settings
    assert store.save(loaded)
    assert json.loads((tmp_path / STATE_FILE).read_text())["history"] == []


def test_an_unchanged_state_is_not_written_again(tmp_path: Path) -> None:
    store = StateStore(tmp_path, keep_history=True)
    store.save(version(3))
    written = store.bytes_written
    stamp = (tmp_path / STATE_FILE).stat().st_mtime_ns
    assert store.save(version(3))
    assert store.bytes_written == written and (tmp_path / STATE_FILE).stat().st_mtime_ns == stamp


def test_nothing_is_written_when_there_is_nothing_to_keep(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state", keep_history=False)
    assert store.load() == SavedState()
    assert store.save(SavedState())
    assert not (tmp_path / "state").exists() and store.bytes_written == 0


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b'{"format": "talkbox-state", "version": 1, "settings": {}, "hist',  # half-written
        b"\x00" * 4096,  # a block the card never finished writing
        b"\xff\xfe garbage",
        b"[1, 2, 3]",
        b'{"format": "something-else"}',
        b'{"format": "talkbox-state", "version": 99, "settings": {}, "history": []}',
        b'{"format": "talkbox-state", "version": 1, "settings": {"a": [1]}, "history": []}',
        b'{"format": "talkbox-state", "version": 1, "settings": {"a": NaN}, "history": []}',
        b'{"format": "talkbox-state", "version": 1, "settings": {}, "history": [{"question": 1}]}',
        b"[" * 100_000,
        b" " * (2 * 1024 * 1024),
    ],
    ids=lambda c: repr(c[:24]),
)
def test_an_unusable_file_is_moved_aside_with_a_warning(
    tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / STATE_FILE).write_bytes(content)
    store = StateStore(tmp_path, keep_history=True)
    with caplog.at_level(logging.WARNING, logger="daemon.service.statefile"):
        assert store.load() == SavedState()
    assert (tmp_path / "state.json.corrupt").read_bytes() == content
    assert not (tmp_path / STATE_FILE).exists()
    assert any("unusable" in r.getMessage() and "state.json.corrupt" in r.getMessage() for r in caplog.records)
    assert store.save(version(1)) and StateStore(tmp_path, keep_history=True).load() == version(1)


def test_an_unwritable_place_is_logged_once_and_never_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = StateStore(blocker / "state", keep_history=True)
    with caplog.at_level(logging.WARNING, logger="daemon.service.statefile"):
        assert not store.save(version(1))
        assert not store.save(version(2))
    assert store.last_error and len([r for r in caplog.records if "cannot save state" in r.getMessage()]) == 1


def test_a_turn_saver_restores_and_saves_the_conversation(short_llm: LlamaModel, tmp_path: Path) -> None:
    short_llm.conversation.forget()
    saver = TurnSaver(StateStore(tmp_path, keep_history=True), short_llm.conversation)
    saver.restore()
    short_llm.conversation.remember((Exchange("What is the capital of France?", "Paris."),))
    saver.on_event(TurnStarted(turn=1, trigger=Trigger.BUTTON))
    assert not (tmp_path / STATE_FILE).exists()
    saver.on_event(TurnEnded(turn=1, outcome=Outcome.ANSWERED))
    short_llm.conversation.remember((Exchange("And of Spain?", "Madrid."),))
    saver.on_event(TurnEnded(turn=2, outcome=Outcome.ANSWERED))
    short_llm.conversation.forget()  # a restart begins with an empty model
    TurnSaver(StateStore(tmp_path, keep_history=True), short_llm.conversation).restore()
    assert short_llm.conversation.remembered() == (
        Exchange("What is the capital of France?", "Paris."),
        Exchange("And of Spain?", "Madrid."),
    )
    short_llm.conversation.forget()


def test_the_state_section_is_validated() -> None:
    assert parse('[state]\ndir = "/tmp/x"\nkeep_history = true\n').state == StateConfig("/tmp/x", True)
    assert Config().state == StateConfig("/var/lib/talkbox/state", False)
    with pytest.raises(ConfigError, match=r"state\.keep_history"):
        parse('[state]\nkeep_history = "yes"\n')
    with pytest.raises(ConfigError, match=r"state\.dir"):
        parse('[state]\ndir = " "\n')
    with pytest.raises(ConfigError, match=r"state\.colour"):
        parse("[state]\ncolour = 1\n")


def _write_forever(path: Path, first: int) -> None:
    """The child: write ever newer versions until killed."""
    n = first
    while True:
        atomic_write(path, encode(version(n)))
        n += 1


def test_a_writer_killed_at_random_moments_always_leaves_one_whole_version(tmp_path: Path) -> None:
    path = tmp_path / STATE_FILE
    atomic_write(path, encode(version(0)))
    rng = random.Random(1234)
    latest, kills, deadline = 0, 0, time.monotonic() + KILL_BUDGET_S
    while kills < KILLS and time.monotonic() < deadline:
        pid = os.fork()
        if pid == 0:  # the child: no pytest machinery, just the writer, ended by SIGKILL
            try:
                _write_forever(path, latest + 1)
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        kills += 1
        state = decode(path.read_bytes())  # raises if the file is torn
        n = state.settings["n"]
        assert isinstance(n, int) and n >= latest and state == version(n)
        latest = n
        strays = [p.name for p in tmp_path.iterdir() if p.name != STATE_FILE]
        assert strays in ([], [f".{STATE_FILE}.tmp"])
    assert kills >= 50 and latest > kills  # the writer really ran between kills


_FULL_DISK_CHILD = """
import logging, resource, signal, sys
from pathlib import Path
from daemon.service.statefile import StateStore
from tests.service.test_statefile import version
logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(message)s")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write beyond the limit then fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
store = StateStore(Path(sys.argv[1]), keep_history=True)
store.load()
ok = [store.save(version(n)) for n in (8, 17, 26)]
print(ok, repr(store.last_error))
"""


def test_a_full_disk_keeps_the_old_file_and_is_reported_not_raised(tmp_path: Path) -> None:
    small = version(1)
    StateStore(tmp_path, keep_history=True).save(small)
    before = (tmp_path / STATE_FILE).read_bytes()
    assert len(encode(version(8))) > 1024  # the new versions do not fit under the limit
    run = subprocess.run(
        [sys.executable, "-c", _FULL_DISK_CHILD, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("[False, False, False]") and "File too large" in run.stdout
    assert run.stderr.count("cannot save state") == 1  # logged once, not once per turn
    assert (tmp_path / STATE_FILE).read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [STATE_FILE]


@pytest.mark.slow
def test_the_box_keeps_the_conversation_across_a_restart(engines: Engines, dev_config: Config, tmp_path: Path) -> None:
    import dataclasses

    from daemon.box.rehearsal import speak_question
    from daemon.box.root import Box, RunOptions
    from daemon.config import ButtonConfig, DisplayConfig

    cfg = dataclasses.replace(
        dev_config,
        display=DisplayConfig(driver="none"),
        button=ButtonConfig(enabled=False),
        listen=dataclasses.replace(dev_config.listen, follow_up_s=0.0),
        state=StateConfig(str(tmp_path / "state"), keep_history=True),
    )
    question = speak_question(engines.tts, tmp_path / "q.wav", "What is the largest ocean?")
    options = RunOptions(mic=str(question), speaker=str(tmp_path / "a.wav"), fast=True, control_socket=False)
    for _ in range(2):  # the second start restores what the first one saved
        engines.memory.forget()  # a restart begins with an empty model
        with Box(cfg, options, engines) as box:
            box.run()
    saved = StateStore(tmp_path / "state", keep_history=True).load().history
    assert len(saved) == 2 and engines.memory.remembered() == saved
    assert saved[0].question == saved[1].question and saved[0].answer
    engines.memory.forget()


def test_a_save_that_starts_failing_is_shown_once_and_its_recovery_too(tmp_path: Path) -> None:
    from daemon.events import Event, Fault, Notice

    blocker = tmp_path / "state"
    blocker.write_text("a file where the state directory should be")
    shown: list[Event] = []
    saver = TurnSaver(StateStore(blocker, keep_history=False), None, shown.append)
    saver.settings["volume"] = 5
    for turn in (1, 2, 3):
        saver.on_event(TurnEnded(turn=turn, outcome=Outcome.ANSWERED))
    assert [type(e) for e in shown] == [Fault] and isinstance(shown[0], Fault)
    assert shown[0].code == "state-save-failed" and not shown[0].permanent and str(blocker) in shown[0].message
    assert saver.last_error
    blocker.unlink()
    saver.settings["volume"] = 6
    saver.on_event(TurnEnded(turn=4, outcome=Outcome.ANSWERED))
    assert isinstance(shown[-1], Notice) and not saver.last_error


def test_doctor_checks_that_the_state_can_be_written(tmp_path: Path, dev_config: Config) -> None:
    import dataclasses

    from daemon.cli.doctor import _state

    assert _state(dataclasses.replace(dev_config, state=StateConfig(str(tmp_path / "state")))).ok
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory")
    check = _state(dataclasses.replace(dev_config, state=StateConfig(str(blocker / "state"))))
    assert not check.ok and f"cannot save in {blocker / 'state'}" in check.detail and check.fix
