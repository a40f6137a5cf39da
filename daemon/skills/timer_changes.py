"""What the box does and says when a running timer is changed: paused, resumed, or set to another length."""

from __future__ import annotations

from daemon.skills import honest
from daemon.skills.reminder_replies import find_timers
from daemon.skills.reminders import MAX_TIMER_S, MIN_TIMER_S, Reminders, say_length
from daemon.skills.replies import NO_TIMERS, Reply


def pause_timers(
    reminders: Reminders, name: str, resume: bool, everything: bool, now_boot: float, now_wall: float
) -> Reply:
    """Pause (or `resume`) the timer named `name`, the only one, or `everything`; ask which when several could be
    meant, and say so when it already is as asked."""
    named = reminders.timers() if everything else find_timers(reminders, name)
    if not named:
        return Reply(f"There is no {name} timer." if name else NO_TIMERS)
    timers = [t for t in named if t.paused == resume]
    if not timers:
        label = f"The {named[0].label} is" if len(named) == 1 else "The timers are"
        return Reply(f"{label} {'not paused' if resume else 'already paused'}.")
    if len(timers) > 1 and not everything and not name:
        names = ", ".join(t.label for t in timers)
        verb = "resume" if resume else "pause"
        held = "paused" if resume else "running"
        return Reply(f"{len(timers)} timers are {held}: {names}. Which one should I {verb}? Or say {verb} all timers.")
    done = [reminders.resume(t, now_boot, now_wall) if resume else reminders.pause(t, now_boot) for t in timers]
    state = "running again" if resume else "paused"
    if len(done) == 1:
        return Reply(f"The {done[0].label} is {state}, with {say_length(done[0].left_s(now_boot))} left.", changed=True)
    said = "; ".join(f"the {t.label}, {say_length(t.left_s(now_boot))} left" for t in done)
    return Reply(f"{len(done)} timers are {state}: {said}.", changed=True)


def change_timer(
    reminders: Reminders, seconds: int, name: str, now_boot: float, now_wall: float, which: int | None = None
) -> Reply:
    """Set the timer named `name`, the only one, or the one of id `which`, to run `seconds` from now instead (its name
    kept); ask which when several could be meant."""
    timers = find_timers(reminders, name)
    timers = [t for t in timers if t.id == which] if which is not None else timers
    if not timers:
        return Reply(f"There is no {name} timer." if name else f"{NO_TIMERS} {honest.TIMER_HOW}")
    if len(timers) > 1:
        names = ", ".join(t.label for t in timers)
        return Reply(f"{len(timers)} timers are running: {names}. Which one should I change?")
    if not MIN_TIMER_S <= seconds <= MAX_TIMER_S:
        return Reply(honest.TIMER_LIMITS)
    old = timers[0]
    new = reminders.restart(old, seconds, now_boot, now_wall)
    what = f"The {old.name} timer" if old.name else "Your timer"
    return Reply(f"{what} is now {say_length(new.seconds)}, starting now.", changed=True)
