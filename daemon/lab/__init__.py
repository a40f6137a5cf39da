"""The lab: what measures the box (bench, soak, turn timing, the hearing and routing evaluations).

For developers, from a source checkout (`pip install -e .`): the wheel, and so the SD-card image, leaves it out
(pyproject.toml excludes `daemon.lab*`). The box never imports it; `talkbox bench`, `soak` and `eval` do, when run.
It drives the box through its one assembly (`daemon.box.assembly`), so what is measured is what ships.
"""

from __future__ import annotations

from daemon.config import Config


def shipped_assembly(config: Config) -> str:
    """What the lab drives, as its reports say: the box's own assembly with the skills this config turns on."""
    skills = config.skills
    on = {True: "on", False: "off"}
    return f"box (skills {on[skills.enabled]}, tool calls {on[skills.enabled and skills.tool_calls]})"
