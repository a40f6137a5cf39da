"""Skills inside the running box: a typed timer rings, is silenced, and timers survive a restart."""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path

import pytest

from daemon.config import ButtonConfig, Config, DisplayConfig, SkillsConfig, StateConfig
from daemon.events import Event, Outcome, Ringing, SkillCalled, Trigger, TurnEnded, TurnStarted
from daemon.ports import Engines
from tests.box.test_root import running_box, silence_wav

pytestmark = pytest.mark.slow


def _config(dev_config: Config, state: Path) -> Config:
    return dataclasses.replace(
        dev_config,
        display=DisplayConfig(driver="none"),
        button=ButtonConfig(enabled=False),
        state=StateConfig(dir=str(state)),
        skills=SkillsConfig(trust_clock="system", ring_s=20.0),
    )


def test_a_typed_timer_rings_until_stopped_and_is_never_rung_twice(
    engines: Engines, dev_config: Config, tmp_path: Path
) -> None:
    events: list[Event] = []
    rang = threading.Event()

    def watch(event: Event) -> None:
        events.append(event)
        if isinstance(event, Ringing):
            rang.set()

    cfg = _config(dev_config, tmp_path / "state")
    with running_box(engines, cfg, tmp_path, silence_wav(tmp_path, 20), watch) as box:
        assert box.keeper is not None
        result = box.keeper.ask("Set a tea timer for 2 seconds.", Trigger.SOCKET).result(30)
        assert result.answer == "A tea timer for 2 seconds, starting now."
        assert rang.wait(10), "the timer did not ring"
        saved = json.loads((tmp_path / "state" / "state.json").read_text())
        assert saved["reminders"] == []  # removed (and saved) before it sounded
        stopped = box.keeper.ask("stop", Trigger.SOCKET).result(30)
        assert stopped.answer == ""
    skill_calls = [e for e in events if isinstance(e, SkillCalled)]
    assert [(e.skill, e.by) for e in skill_calls] == [("timer_start", "template"), ("stop", "template")]
    ring_turn = next(e.turn for e in events if isinstance(e, TurnStarted) and e.trigger is Trigger.REMINDER)
    ends = [e.outcome for e in events if isinstance(e, TurnEnded) and e.turn == ring_turn]
    assert ends == [Outcome.INTERRUPTED]  # the typed line silenced it long before ring_s
    assert sum(isinstance(e, Ringing) for e in events) == 1
    assert not any(isinstance(e, SkillCalled) and e.skill != "stop" and e.turn > ring_turn for e in events)


def test_timers_and_the_volume_survive_a_restart(engines: Engines, dev_config: Config, tmp_path: Path) -> None:
    cfg = _config(dev_config, tmp_path / "state")
    with running_box(engines, cfg, tmp_path, silence_wav(tmp_path, 8)) as box:
        assert box.keeper is not None
        box.keeper.ask("set a pasta timer for ten minutes", Trigger.SOCKET).result(30)
        assert box.keeper.ask("turn it down", Trigger.SOCKET).result(30).answer == "Volume 90."
    saved = json.loads((tmp_path / "state" / "state.json").read_text())
    assert [r["name"] for r in saved["reminders"]] == ["pasta"] and saved["settings"]["volume"] == 90
    with running_box(engines, cfg, tmp_path, silence_wav(tmp_path, 8)) as box:
        assert box.keeper is not None and box.skills is not None
        left = box.keeper.ask("how long is left on the pasta timer", Trigger.SOCKET).result(30).answer
        assert left.startswith("Pasta timer has 9 minutes") or left.startswith("Pasta timer has 10 minutes")
        assert box.skills.volume.level == 90
        general = box.keeper.ask("What is the capital of France?", Trigger.SOCKET).result(60)
        assert "Paris" in general.answer  # a question still reaches the model
