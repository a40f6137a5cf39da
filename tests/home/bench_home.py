"""Spoken home commands timed from the last word against the tests' real Home Assistant, up and then down:
`.venv/bin/python -m tests.home.bench_home OUT [CONFIG]` (docs/homeassistant.md's table)."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from daemon import config as config_mod
from daemon.config import HomeAssistantConfig
from daemon.engines.load import load_engines
from daemon.lab.home_timing import home_delays
from tests.home.homeassistant_server import HomeAssistantServer, homeassistant_venv

COMMANDS = (
    "Turn off the kitchen lights.",
    "Is the front door locked?",
    "Turn on the bed light.",
    "Open the kitchen window.",
    "What is the outside temperature?",
)


def main(out: Path, settings: Path | None) -> None:
    """Two rounds with Home Assistant up, one with it stopped; the figures to stdout and OUT/report.json."""
    venv = homeassistant_venv()
    if venv is None:
        raise SystemExit("no Home Assistant venv: run bash .ci/setup")
    out.mkdir(parents=True, exist_ok=True)
    cfg = config_mod.load(settings)
    engines = load_engines(cfg, lambda *_: None)
    report = {}
    with HomeAssistantServer(venv, out) as home:
        token = out / "homeassistant.token"
        token.write_text(home.token)
        cfg = dataclasses.replace(cfg, homeassistant=HomeAssistantConfig(url=home.url, token_file=str(token)))
        state = out / "bridge-state"  # kept between rounds: names cached, as the unit's state directory
        for name in ("up", "up again"):
            report[name] = home_delays(engines, cfg, out / name.replace(" ", "-"), commands=COMMANDS, state=state)
        home.stop()
        report["down"] = home_delays(engines, cfg, out / "down", commands=COMMANDS, state=state)
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    for name, figures in report.items():
        print(name, {k: round(v, 3) for k, v in figures.items() if k != "turns"})


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None)
