"""Timers and alarms: what is set, when each is due, and what survives a restart (as plain JSON in the state file).

Timers count on the boot clock (CLOCK_BOOTTIME: no wall clock needed, suspend included); their wall-clock end is
kept too, so after a reboot a trusted clock can tell whether one is still running. Alarms ring by the wall clock
and wait for a trusted one. A reminder is removed (or, repeating, moved to its next day) *before* it rings, and
the state file is saved then, so a crash while ringing never rings it twice.
"""

from __future__ import annotations

import datetime
import enum
import re
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Any, Final

MAX_REMINDERS: Final = 20
"""More than this many timers and alarms at once is refused (a runaway loop on the serial link, not a kitchen)."""
MIN_TIMER_S: Final = 1
MAX_TIMER_DAYS: Final = 7
MAX_TIMER_S: Final = MAX_TIMER_DAYS * 86400
"""A timer runs from MIN_TIMER_S to this; anything longer is an alarm's job."""


BY_PLACE: Final = {"next": 0, "first": 0, "soonest": 0, "second": 1, "third": 2}
"""Words that name a timer by its place, not its name: the one that ends first, second, third."""
NEWEST: Final = frozenset({"last", "latest", "newest", "new", "most recent"})
"""Words that name the timer set last."""


class Kind(enum.StrEnum):
    """What a reminder is."""

    TIMER = "timer"
    ALARM = "alarm"


def boot_clock() -> float:
    """Seconds since boot, counting suspend (timers run on it)."""
    return time.clock_gettime(time.CLOCK_BOOTTIME)


@dataclass(frozen=True)
class Reminder:
    """One timer or alarm."""

    id: int
    kind: Kind
    name: str = ""
    seconds: int = 0
    """A timer's length."""
    ends_boot: float = 0.0
    """A timer's end on the boot clock of `boot`."""
    boot: str = ""
    ends_wall: float = 0.0
    """When it is due by the wall clock (a timer: as the clock read when set; an alarm: its next ring; 0: unknown)."""
    hour: int = 0
    minute: int = 0
    days: tuple[int, ...] = ()
    """An alarm's weekdays (0 = Monday); empty: it rings once."""
    note: str = ""
    """What to remind of when it rings ("call your mum"); empty for a plain timer or alarm."""
    once: bool = False
    """An alarm that rings once, on the first of `days` to come ("on Friday", "tomorrow"), instead of every one."""
    paused_left: float | None = None
    """A paused timer's seconds left (it neither counts down nor rings until resumed); None while it runs."""

    @property
    def label(self) -> str:
        """How the box names it: "pasta timer", "10 minute timer", "7:30 alarm", "reminder to call your mum"."""
        if self.note:
            return f"reminder to {self.note}"
        if self.kind is Kind.TIMER:
            return f"{self.name} timer" if self.name else f"{length_as_a_name(self.seconds)} timer"
        return f"{self.hour}:{self.minute:02d} alarm"

    @property
    def paused(self) -> bool:
        """True for a timer paused."""
        return self.paused_left is not None

    def left_s(self, now_boot: float) -> float:
        """Seconds until a timer ends on this boot (a paused one: what was left when it was paused)."""
        return self.paused_left if self.paused_left is not None else self.ends_boot - now_boot


def say_length(seconds: float) -> str:
    """ "1 hour and 30 minutes", "8 minutes", "45 seconds", "2 days and 3 hours"."""
    seconds = max(0, round(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(days, "day"), (hours, "hour")] + ([(minutes, "minute")] if days == 0 else [])
    parts += [(secs, "second")] if days == hours == 0 and minutes < 10 else []
    said = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in parts if n]
    return " and ".join(said) if said else "0 seconds"


def length_as_a_name(seconds: float) -> str:
    """A length naming a timer, as people say it: "10 minute", "1 hour 30 minute" ("10 minutes timer cancelled." read
    as a slip)."""
    return re.sub(r"(\w+?)s\b", r"\1", say_length(seconds)).replace(" and ", " ")


def next_ring(hour: int, minute: int, days: tuple[int, ...], after: float) -> float:
    """The first time after `after` (epoch seconds) that an alarm at hour:minute on `days` rings, local time."""
    start = datetime.datetime.fromtimestamp(after).astimezone()
    for ahead in range(8):
        day = (start + datetime.timedelta(days=ahead)).date()
        at = datetime.datetime.combine(day, datetime.time(hour, minute)).astimezone()
        if at.timestamp() > after and (not days or at.weekday() in days):
            return at.timestamp()
    raise ValueError(f"no ring time for {hour}:{minute:02d} on days {days}")


class Reminders:
    """The timers and alarms that are set (used on the box's event loop)."""

    def __init__(self, boot: str) -> None:
        self._items: dict[int, Reminder] = {}
        self._next_id = 1
        self._boot = boot

    def __len__(self) -> int:
        return len(self._items)

    def all(self) -> list[Reminder]:
        """Everything set, timers first, each kind soonest first."""
        return sorted(
            self._items.values(), key=lambda r: (r.kind is Kind.ALARM, r.paused, r.ends_boot or r.ends_wall, r.id)
        )

    def timers(self) -> list[Reminder]:
        """The running timers, soonest first."""
        return [r for r in self.all() if r.kind is Kind.TIMER]

    def alarms(self) -> list[Reminder]:
        """The alarms, soonest first (an alarm waiting for a trusted clock last)."""
        return sorted((r for r in self.all() if r.kind is Kind.ALARM), key=lambda r: (not r.ends_wall, r.ends_wall))

    def add(self, reminder: Reminder) -> Reminder:
        """Keep `reminder` under a new id; ValueError when too many are set."""
        if len(self._items) >= MAX_REMINDERS:
            raise ValueError(f"{MAX_REMINDERS} timers and alarms are already set")
        added = replace(reminder, id=self._next_id)
        self._items[added.id] = added
        self._next_id += 1
        return added

    def timer(self, seconds: int, name: str, now_boot: float, now_wall: float, note: str = "") -> Reminder:
        """Start a timer; ValueError when its length is outside MIN_TIMER_S..MAX_TIMER_S."""
        if not MIN_TIMER_S <= seconds <= MAX_TIMER_S:
            raise ValueError(f"a timer of {seconds} seconds is outside its limits")
        ends = now_boot + seconds
        return self.add(Reminder(0, Kind.TIMER, name, seconds, ends, self._boot, now_wall + seconds, note=note))

    def alarm(
        self, hour: int, minute: int, days: tuple[int, ...], now_wall: float | None, note: str = "", once: bool = False
    ) -> Reminder:
        """Set an alarm; `now_wall` None: the clock is not trusted, it gets its time once the clock is."""
        ends = next_ring(hour, minute, days, now_wall) if now_wall is not None else 0.0
        said = Reminder(0, Kind.ALARM, hour=hour, minute=minute, days=days, ends_wall=ends, note=note, once=once)
        return self.add(said)

    def remove(self, reminders: Iterable[Reminder]) -> list[Reminder]:
        """Remove these; the ones that were there."""
        return [r for r in reminders if self._items.pop(r.id, None) is not None]

    def extend(self, timer: Reminder, seconds: int) -> Reminder:
        """`timer` running `seconds` longer, or shorter when negative (its length changes by as much)."""
        if timer.paused_left is not None:
            longer = replace(timer, seconds=timer.seconds + seconds, paused_left=timer.paused_left + seconds)
            self._items[timer.id] = longer
            return longer
        longer = replace(
            timer,
            seconds=timer.seconds + seconds,
            ends_boot=timer.ends_boot + seconds,
            ends_wall=timer.ends_wall + seconds,
        )
        self._items[timer.id] = longer
        return longer

    def restart(self, timer: Reminder, seconds: int, now_boot: float, now_wall: float) -> Reminder:
        """`timer` set to run `seconds` from now (its name and note kept); ValueError outside the limits."""
        if not MIN_TIMER_S <= seconds <= MAX_TIMER_S:
            raise ValueError(f"a timer of {seconds} seconds is outside its limits")
        again = replace(
            timer,
            seconds=seconds,
            ends_boot=now_boot + seconds,
            boot=self._boot,
            ends_wall=now_wall + seconds,
            paused_left=None,
        )
        self._items[timer.id] = again
        return again

    def skip(self, alarm: Reminder) -> Reminder | None:
        """`alarm` not ringing next time: a repeating one moves to the ring after, a one-off one goes (None)."""
        if not alarm.days or alarm.once or not alarm.ends_wall:
            self._items.pop(alarm.id, None)
            return None
        later = replace(alarm, ends_wall=next_ring(alarm.hour, alarm.minute, alarm.days, alarm.ends_wall))
        self._items[alarm.id] = later
        return later

    def pause(self, timer: Reminder, now_boot: float) -> Reminder:
        """`timer` stopped where it is: it keeps what is left and neither counts down nor rings."""
        paused = replace(timer, paused_left=max(0.0, timer.left_s(now_boot)))
        self._items[timer.id] = paused
        return paused

    def resume(self, timer: Reminder, now_boot: float, now_wall: float) -> Reminder:
        """`timer` counting down again from what was left when it was paused."""
        left = timer.left_s(now_boot)
        going = replace(timer, paused_left=None, boot=self._boot, ends_boot=now_boot + left, ends_wall=now_wall + left)
        self._items[timer.id] = going
        return going

    def find_timers(self, name: str, length_s: int | None = None) -> list[Reminder]:
        """Timers with this name, one or many of it alike, or set for `length_s` ("the 2 minute timer"), else the one
        it names by place ("the next timer"); any, when `name` is empty."""
        timers = self.timers()
        named = [t for t in timers if not name.strip() or same_name(t.name, name) or t.seconds == length_s]
        if named:
            return named
        # NOTE: "cancel the next timer" was told "There is no next timer." with one running
        if name.strip() in NEWEST:
            return [max(timers, key=lambda t: t.id)] if timers else []
        place = BY_PLACE.get(name.strip())
        return timers[place : place + 1] if place is not None else []

    def has_timer_named(self, name: str) -> bool:
        """True if a timer has this name, one or many of it alike ("eggs" is the egg timer)."""
        return bool(name) and any(t.name and same_name(t.name, name) for t in self.timers())

    def schedule_alarms(self, now_wall: float) -> None:
        """Give alarms set while the clock was untrusted their next ring time (the clock is trusted now)."""
        for r in list(self._items.values()):
            if r.kind is Kind.ALARM and not r.ends_wall:
                self._items[r.id] = replace(r, ends_wall=next_ring(r.hour, r.minute, r.days, now_wall))

    def due(self, now_boot: float, now_wall: float | None) -> list[Reminder]:
        """What is due now (alarms only when the wall clock is trusted: `now_wall` not None)."""
        due = []
        for r in self._items.values():
            timer_due = r.kind is Kind.TIMER and not r.paused and r.boot == self._boot and r.ends_boot <= now_boot
            alarm_due = r.kind is Kind.ALARM and now_wall is not None and 0 < r.ends_wall <= now_wall
            if timer_due or alarm_due:
                due.append(r)
        return sorted(due, key=lambda r: r.id)

    def seconds_to_next(self, now_boot: float, now_wall: float | None) -> float | None:
        """Seconds until the next thing is due, or None when nothing can come due."""
        waits = [r.ends_boot - now_boot for r in self.timers() if r.boot == self._boot and not r.paused]
        if now_wall is not None:
            waits += [r.ends_wall - now_wall for r in self.alarms() if r.ends_wall]
        return max(0.0, min(waits)) if waits else None

    def rang(self, reminder: Reminder, now_wall: float | None) -> None:
        """It is ringing now: a timer or a one-off alarm goes, a repeating alarm moves to its next day."""
        if reminder.kind is Kind.ALARM and reminder.days and not reminder.once and now_wall is not None:
            after = max(now_wall, reminder.ends_wall)
            self._items[reminder.id] = replace(
                reminder, ends_wall=next_ring(reminder.hour, reminder.minute, reminder.days, after)
            )
        else:
            self._items.pop(reminder.id, None)

    # -- across restarts ----------------------------------------------------------------------------------

    def to_plain(self) -> list[dict[str, Any]]:
        """For the state file."""
        return [asdict(r) | {"days": list(r.days)} for r in self.all()]

    def restore(self, plain: list[dict[str, Any]], now_boot: float, now_wall: float | None) -> list[Reminder]:
        """Bring back saved reminders; returns those that came due while the box was off (already removed)."""
        missed: list[Reminder] = []
        for item in plain:
            try:
                r = Reminder(**(item | {"kind": Kind(item["kind"]), "days": tuple(item.get("days", ()))}))
            except (TypeError, ValueError, KeyError):
                continue  # a damaged entry is dropped, the rest come back
            self._next_id = max(self._next_id, r.id + 1)
            if r.paused:
                self._items[r.id] = replace(r, boot=self._boot)  # NOTE: a paused timer keeps what it had left
                continue
            if r.kind is Kind.TIMER and r.boot == self._boot and r.ends_boot <= now_boot:
                missed.append(r)  # the daemon was stopped while it ended
                continue
            if r.kind is Kind.TIMER and r.boot != self._boot:
                # A reboot: the boot clock started again. A trusted wall clock says how long is left;
                # without one nobody knows how long the box was off, so the timer is taken to have ended.
                if now_wall is not None and r.ends_wall > now_wall:
                    r = replace(r, boot=self._boot, ends_boot=now_boot + (r.ends_wall - now_wall))
                else:
                    missed.append(r)
                    continue
            elif r.kind is Kind.ALARM and now_wall is not None and r.ends_wall and r.ends_wall <= now_wall:
                missed.append(r)
                if not r.days or r.once:
                    continue
                r = replace(r, ends_wall=next_ring(r.hour, r.minute, r.days, now_wall))
            self._items[r.id] = r
        return missed


def same_name(a: str, b: str) -> bool:
    """True if two timer names are one, one or many of it alike: a timer set "for the eggs" is "the egg timer"."""
    first, second = a.strip().lower().split(), b.strip().lower().split()
    if not first or not second or first[:-1] != second[:-1]:
        return False
    return bool(_forms(first[-1]) & _forms(second[-1]))


def _forms(word: str) -> set[str]:
    """`word` and what it would be with a plural's ending taken off ("eggs": egg, "potatoes": potato)."""
    forms = {word}
    if word.endswith("s") and not word.endswith("ss"):
        forms |= {word[:-1], word[:-2] if word.endswith("es") else word[:-1]}
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    return forms
