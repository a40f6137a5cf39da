"""Rings timers and alarms when they come due, announces the ones missed while the box was off (a loop task)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Final

from daemon.events import Event, RemindersChanged, SkillCalled
from daemon.skills.reminder_replies import missed_text
from daemon.skills.reminders import Reminder
from daemon.skills.skills import Skills
from daemon.turn.keeper import TurnKeeper

_LOGGER = logging.getLogger(__name__)

CHECK_S: Final = 30.0
"""The longest sleep: the clock may become trusted (NTP, the user) and alarms then get their time."""
CHANGING: Final = frozenset(
    {
        "timer_start",
        "timer_add",
        "timer_pause",
        "timer_change",
        "timer_cancel",
        "alarm_set",
        "alarm_cancel",
        "alarm_move",
        "alarm_skip",
        "reminder_cancel",
        "cancel_what",
        "set_time",
    }
)


class AlarmClock:
    """Subscribe `on_event` to the bus and run `run()` on the box's loop."""

    def __init__(
        self, skills: Skills, keeper: TurnKeeper, emit: Callable[[Event], None], save: Callable[[], object]
    ) -> None:
        self._skills, self._keeper, self._emit, self._save = skills, keeper, emit, save
        self._changed = asyncio.Event()
        self._missed: list[Reminder] = []

    def on_event(self, event: Event) -> None:
        """A skill changed the timers, the alarms or the clock: look again (on the loop)."""
        if isinstance(event, SkillCalled) and event.skill in CHANGING:
            self.changed()

    def changed(self) -> None:
        """Tell the display what is set, and recompute the next wake-up."""
        reminders, boot = self._skills.reminders, self._skills.now_boot()
        timers = tuple((t.label, round(t.left_s(boot), 1)) for t in reminders.timers() if not t.paused)
        paused = tuple((t.label, round(t.left_s(boot), 1)) for t in reminders.timers() if t.paused)
        alarms = tuple(a.label for a in reminders.alarms())
        self._emit(RemindersChanged(timers=timers, alarms=alarms, paused=paused))
        self._changed.set()

    def missed(self, reminders: list[Reminder]) -> None:
        """Reminders that came due while the box was off: said once the box is ready."""
        self._missed += reminders

    async def run(self) -> None:
        """Until cancelled: sleep until the next reminder is due, then ring it."""
        if self._missed:
            text = missed_text(self._missed)
            self._missed = []
            self._keeper.ring(text, "while I was off", chime=False)
        while True:
            wait = self._skills.seconds_to_next()
            timeout = CHECK_S if wait is None else min(wait, CHECK_S)
            with contextlib.suppress(TimeoutError):
                # NOTE: not asyncio.wait_for: on 3.11 it swallows a cancel that lands as the event is set, and this
                # loop then never ended (a box stopped just after restoring a reminder hung on its way out)
                async with asyncio.timeout(timeout):
                    await self._changed.wait()
            self._changed.clear()
            if (now := self._skills.wall()) is not None:
                self._skills.reminders.schedule_alarms(now)
            for reminder in self._skills.due():
                text = self._skills.ringing(reminder)
                self._save()  # before it sounds: a crash while ringing never rings it twice
                self.changed()
                _LOGGER.info("%s is due: ringing", reminder.label)
                self._keeper.ring(text, reminder.label)  # now, or once the user's answer is over
