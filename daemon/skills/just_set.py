"""The timer or alarm a request just set or asked about: what "cancel it" and "make it 15" mean for a minute."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from daemon.skills import make_it
from daemon.skills.call import Arg, SkillCall
from daemon.skills.reminder_replies import find_timers
from daemon.skills.reminders import Kind, Reminder, Reminders

IT_WITHIN_S: Final = 60.0
"""How long the timer or alarm a request just set or asked about stays what "cancel it" means."""


class JustSet:
    """Which of `reminders` a request last set or asked about, and when (`now_boot`: the boot clock)."""

    def __init__(self, reminders: Reminders, now_boot: Callable[[], float]) -> None:
        self._reminders, self._now_boot = reminders, now_boot
        self._it: tuple[int, float] | None = None

    def it(self) -> Reminder | None:
        """The timer or alarm just set or asked about, if it is still there ("cancel it")."""
        if self._it is None or self._now_boot() - self._it[1] > IT_WITHIN_S:
            return None
        return next((r for r in self._reminders.all() if r.id == self._it[0]), None)  # None: cancelled, or rung

    def change(self, said: SkillCall) -> SkillCall | None:
        """The call that changes the timer or alarm just set or asked about, or the only one held, to what "make it
        …" says (daemon/skills/make_it.py)."""
        held = self._reminders.all()
        return make_it.resolve(said, self.it() or (held[0] if len(held) == 1 else None))

    def cancel(self, said: SkillCall) -> SkillCall | None:
        """The call that cancels the timer or alarm just set or asked about, if it is still there ("cancel it")."""
        it = self.it()
        if it is None:
            return None
        if it.kind is Kind.TIMER:
            return SkillCall("timer_cancel", {"id": it.id}, read_as=said.read_as, by_meaning=said.by_meaning)
        at: dict[str, Arg] = {"hour": it.hour, "minute": it.minute}
        return SkillCall("alarm_cancel", at, read_as=said.read_as, by_meaning=said.by_meaning)

    def note(self, call: SkillCall, held: set[int]) -> None:
        """Remember which timer or alarm `call` set or asked about (`held`: the ids there before it), when it was one:
        "cancel it" then means it."""
        if call.skill in ("timer_start", "alarm_set", "alarm_move"):
            found = [r for r in self._reminders.all() if r.id not in held]
        elif call.skill == "timer_left":
            found = find_timers(self._reminders, str(call.args.get("name", "")))
        elif call.skill == "alarm_list":
            found = self._reminders.alarms()
        else:
            return
        self._it = (found[0].id, self._now_boot()) if len(found) == 1 else None
