"""What the box does and says for a request about its timers and alarms: start, tell what is left, set, list,
cancel; and what came due while it was off."""

from __future__ import annotations

import datetime
import re
from typing import Final

from ovos_number_parser import pronounce_number

from daemon.skills import honest
from daemon.skills.amounts import digits, read_duration
from daemon.skills.call import SkillCall
from daemon.skills.reminders import MAX_TIMER_S, MIN_TIMER_S, Kind, Reminder, Reminders, same_name, say_length
from daemon.skills.replies import (
    ALARM_CANCELLED,
    ALL_ALARMS_CANCELLED,
    ALL_REMINDERS_CANCELLED,
    ALL_TIMERS_CANCELLED,
    NO_ALARMS,
    NO_REMINDERS,
    NO_TIMERS,
    NOTHING_SET,
    Reply,
)
from daemon.skills.speech import DAYS, say_alarm, say_clock, say_days, say_list, upper_first


def find_timers(reminders: Reminders, name: str) -> list[Reminder]:
    """The timers `name` means: by their name, or by the length they were set for when it says one ("2 minute")."""
    length = read_duration(name) if re.search(r"\d", digits(name)) else None
    return reminders.find_timers(name, length)


_CANCEL_NAMED: Final = re.compile(
    r"(?:please )?(?:cancel|stop|end|kill|scrap|turn off|switch off) (?:the |my )?([a-z]+(?: [a-z]+)??)(?: one)?"
    r"(?: please)?"
)


def timer_named(reminders: Reminders, said: str) -> SkillCall | None:
    """ "cancel the rice" or "the rice one" (normalised) when a timer is named rice: that timer, though "timer" was
    not said (the model said "Sorry, I can't cancel the rice timer.")."""
    found = _CANCEL_NAMED.fullmatch(said)
    if found is None or not reminders.has_timer_named(found[1]):
        return None
    return SkillCall("timer_cancel", {"name": found[1]})


def start_timer(
    reminders: Reminders, seconds: int, name: str, now_boot: float, now_wall: float, note: str = ""
) -> Reply:
    """Start a timer of `seconds`, named `name` ("" for none), or a reminder of `note` in `seconds`, unless its
    length or name cannot be."""
    if not MIN_TIMER_S <= seconds <= MAX_TIMER_S:
        return Reply(honest.TIMER_LIMITS)
    if reminders.has_timer_named(name):
        return Reply(f"There is already {_a_or_an(name)} timer. Cancel it first, or give this one another name.")
    try:
        timer = reminders.timer(seconds, name, now_boot, now_wall, note)
    except ValueError as err:
        return Reply(f"I can't: {err}.")
    if note:
        return Reply(f"OK. In {say_length(seconds)}, I'll remind you to {note}.", changed=True)
    what = upper_first(f"{_a_or_an(name)} timer") if name else "A timer"
    return Reply(f"{what} for {say_length(seconds)}, starting now.", changed=bool(timer))


def start_timers(reminders: Reminders, lengths: tuple[int, ...], now_boot: float, now_wall: float) -> Reply:
    """Start an unnamed timer of each of `lengths`, asked for at once; none when one of them cannot be."""
    if not all(MIN_TIMER_S <= seconds <= MAX_TIMER_S for seconds in lengths):
        return Reply(honest.TIMER_LIMITS)
    started: list[Reminder] = []
    for seconds in lengths:
        try:
            started.append(reminders.timer(seconds, "", now_boot, now_wall))
        except ValueError as err:
            reminders.remove(started)  # NOTE: all or none: "the first two are set" is harder to follow than a retry
            return Reply(f"I can't: {err}.")
    many = pronounce_number(len(lengths), "en")
    said = say_list([say_length(seconds) for seconds in lengths])
    return Reply(f"{upper_first(many)} timers, for {said}, starting now.", changed=True)


def timers_left(reminders: Reminders, name: str, now_boot: float) -> Reply:
    """What is left on the timer named `name`, or on every timer ("" for any)."""
    timers = find_timers(reminders, name)
    if not timers:
        return Reply(f"There is no {name} timer." if name else NO_TIMERS)
    said = [
        f"{t.label} {'is paused with' if t.paused else 'has'} {say_length(t.left_s(now_boot))} left" for t in timers
    ]
    return Reply(upper_first("; ".join(said)) + ".")


def add_to_timer(reminders: Reminders, seconds: int, name: str, now_boot: float, take_off: bool = False) -> Reply:
    """Run the timer named `name` (or the only one) `seconds` longer, or shorter (`take_off`: "take 2 minutes off");
    ask which when several could be meant."""
    timers = find_timers(reminders, name)
    if not timers:
        return Reply(f"There is no {name} timer." if name else f"{NO_TIMERS} {honest.TIMER_HOW}")
    if len(timers) > 1:
        names = ", ".join(t.label for t in timers)
        return Reply(f"{len(timers)} timers are running: {names}. Which one should I change?")
    timer, change = timers[0], -seconds if take_off else seconds
    left = timer.left_s(now_boot) + change
    if take_off and seconds >= MIN_TIMER_S and left < MIN_TIMER_S:
        return Reply(f"The {timer.label} has only {say_length(timer.left_s(now_boot))} left.")
    if seconds < MIN_TIMER_S or left > MAX_TIMER_S:
        return Reply(honest.TIMER_LIMITS)
    reminders.extend(timer, change)
    return Reply(f"The {timer.label} now has {say_length(left)} left.", changed=True)


def cancel_timers(reminders: Reminders, name: str, everything: bool, which: int | None = None) -> Reply:
    """Cancel the timer named `name`, the only one, or `everything`; ask which when several could be meant.
    `which`: the id of the one meant ("cancel it" just after it was set)."""
    timers = reminders.timers() if everything else find_timers(reminders, name)
    timers = [t for t in timers if t.id == which] if which is not None else timers
    if not timers:
        return Reply(f"There is no {name} timer." if name else NO_TIMERS)
    if len(timers) > 1 and not everything and not name:
        names = ", ".join(t.label for t in timers)
        return Reply(f"{len(timers)} timers are running: {names}. Which one? Or say cancel all timers.")
    reminders.remove(timers)
    said = ALL_TIMERS_CANCELLED if len(timers) > 1 else f"{upper_first(timers[0].label)} cancelled."
    return Reply(said, changed=True)


TELL_THE_TIME: Final = "Tell me the time, for example: set the time to seven fifteen pm."


def set_alarm(
    reminders: Reminders,
    hour: int,
    minute: int,
    days: tuple[int, ...],
    now_wall: float | None,
    note: str = "",
    once: bool = False,
) -> Reply:
    """Set an alarm (on `days` of the week, on the first of them `once`, or once), or a reminder of `note` then;
    without a trusted clock (`now_wall` None) it waits for one; one the same as an alarm held is not set twice."""
    when = say_alarm(hour, minute, days, once)
    same = (hour, minute, days, once, note)
    if any((r.hour, r.minute, r.days, r.once, r.note) == same for r in reminders.alarms()):
        held = f"I'll already remind you to {note} at {when}." if note else f"An alarm is set for {when} already."
        return Reply(held)
    try:
        reminders.alarm(hour, minute, days, now_wall, note, once)
    except ValueError as err:
        return Reply(f"I can't: {err}.")
    done = f"OK. At {when}, I'll remind you to {note}" if note else f"Alarm set for {when}"
    if now_wall is None:
        wait = "once my clock is set" if note else "but it can't ring until my clock is set"
        return Reply(f"{done}, {wait}. {TELL_THE_TIME}", changed=True)
    return Reply(f"{done}.", changed=True)


def move_alarm(
    reminders: Reminders,
    at: tuple[int, int] | None,
    to: tuple[int, int],
    days: tuple[int, ...],
    once: bool,
    now_wall: float | None,
    near: bool = False,
    which: int | None = None,
    from_either_half: bool = False,
) -> Reply:
    """Move the alarm `at` (hour, minute), the one of id `which` (a reminder too: "make it 7" just after one), or the
    only one, to `to`: on `days` if the request named any, else on its own; ask which when several could be meant;
    set one when there is none to move. `near`: `to` named no half of the day, so it is the one nearer the alarm moved
    ("change my 7 am alarm to 6" is 6 am); `from_either_half`: `at` named none ("move the 7 alarm")."""
    if which is not None:
        alarms = [r for r in reminders.alarms() if r.id == which]
    else:
        times = _either_half(at, from_either_half) if at is not None else set()
        alarms = [r for r in reminders.alarms() if not r.note and (at is None or (r.hour, r.minute) in times)]
    # NOTE: with no alarm at all, "an alarm for seven, not eight thirty" wants one at seven, not a question
    if not alarms and at is not None and any(not r.note for r in reminders.alarms()):
        return Reply(f"There is no alarm at {say_clock(*at, half=not from_either_half)}.")
    if not alarms:
        made = set_alarm(reminders, *to, days, now_wall, once=once)
        return Reply(f"There was no alarm to change, so I set one. {made.text}", changed=made.changed)
    if len(alarms) > 1:
        said = ", ".join(say_alarm(r.hour, r.minute, r.days, r.once) for r in alarms)
        return Reply(
            f"{len(alarms)} alarms are set: {said}. Say which, for example: move the "
            f"{say_clock(alarms[0].hour, alarms[0].minute)} alarm to {say_clock(*to)}."
        )
    old = alarms[0]
    to = _nearer(to, (old.hour, old.minute)) if near else to
    days, once = (days, once) if days else (old.days, old.once)
    made = set_alarm(reminders, *to, days, now_wall, old.note, once)
    if not made.changed:
        return made  # it could not be set: the old one stays
    reminders.remove([old])
    if old.note:
        when = f"{say_alarm(*to, days, once)}, not {say_clock(old.hour, old.minute)}"
        moved = f"OK. I'll remind you to {old.note} at {when}"
    else:
        moved = f"Your alarm is now {say_alarm(*to, days, once)}, not {say_clock(old.hour, old.minute)}"
    return Reply(
        f"{moved}, but it can't ring until my clock is set. {TELL_THE_TIME}" if now_wall is None else f"{moved}.",
        changed=True,
    )


def _nearer(to: tuple[int, int], old: tuple[int, int]) -> tuple[int, int]:
    """The hour and minute of `to`, in the morning or the afternoon, whichever is nearer `old` on the clock."""
    minutes = [(to[0] % 12 + half) * 60 + to[1] for half in (0, 12)]
    start = old[0] * 60 + old[1]
    best = min(minutes, key=lambda m: min(abs(m - start), 1440 - abs(m - start)))
    return divmod(best, 60)


def list_alarms(reminders: Reminders, now_wall: float | None = None) -> Reply:
    """Every alarm set, with its days, and how long until the next rings (`now_wall`: the trusted time now)."""
    alarms = reminders.alarms()
    if not alarms:
        return Reply(NO_ALARMS)
    said = [
        say_alarm(r.hour, r.minute, r.days, r.once) + (f", to remind you to {r.note}" if r.note else "") for r in alarms
    ]
    head = "One alarm is set" if len(said) == 1 else f"{len(said)} alarms are set"
    soonest = alarms[0].ends_wall
    if now_wall is None or not soonest:
        return Reply(f"{head}: {', '.join(said)}.")
    # NOTE: "how long until my alarm goes off" is asked as often as which alarms there are
    which = "It rings" if len(said) == 1 else "The next rings"
    return Reply(f"{head}: {', '.join(said)}. {which} in {say_length(round((soonest - now_wall) / 60) * 60)}.")


def skip_alarm(reminders: Reminders, now_wall: float | None) -> Reply:
    """The next alarm to ring not ringing then: a repeating one rings again on its next day, a one-off one goes."""
    alarms = [r for r in reminders.alarms() if r.ends_wall]
    if not alarms:
        return Reply(NO_ALARMS if not reminders.alarms() or now_wall is not None else honest.UNSET_CLOCK)
    alarm = alarms[0]
    day = DAYS[datetime.datetime.fromtimestamp(alarm.ends_wall).weekday()]
    later = reminders.skip(alarm)
    if later is None:
        return Reply(
            f"Your {say_clock(alarm.hour, alarm.minute)} alarm on {day} is cancelled: it was set to ring once.",
            changed=True,
        )
    again = DAYS[datetime.datetime.fromtimestamp(later.ends_wall).weekday()]
    return Reply(
        f"Your {say_clock(alarm.hour, alarm.minute)} alarm won't ring on {day}; it rings again on {again}.",
        changed=True,
    )


def _either_half(at: tuple[int, int], either: bool) -> set[tuple[int, int]]:
    """The times an alarm named `at` may be: at either half of the day when the request named no half."""
    return {at, ((at[0] + 12) % 24, at[1])} if either else {at}


def cancel_alarms(
    reminders: Reminders,
    at: tuple[int, int] | None,
    everything: bool,
    days: tuple[int, ...] = (),
    either_half: bool = False,
) -> Reply:
    """Cancel the alarm `at` (hour, minute; at either half of the day when its half was not said), the one on `days`
    ("the weekend alarm"), the only one, or `everything`; ask which when several could be meant."""
    alarms = reminders.alarms()
    if at is not None:
        alarms = [r for r in alarms if (r.hour, r.minute) in _either_half(at, either_half)]
        if len({(r.hour, r.minute) for r in alarms}) > 1:
            held = say_list([say_clock(*t) for t in sorted({(r.hour, r.minute) for r in alarms})])
            return Reply(f"Alarms are set for {held}. Say which one to cancel.")
    if days:
        alarms = [r for r in alarms if r.days == days] or [r for r in alarms if set(days) <= set(r.days)]
    if not alarms:
        if days:
            return Reply(f"There is no alarm {say_days(days)}.")
        if at is not None:
            return Reply(f"There is no alarm at {say_clock(*at, half=not either_half)}.")
        return Reply(NO_ALARMS)
    if len(alarms) > 1 and not everything and at is None:
        return Reply(f"{len(alarms)} alarms are set. Say which time, or say cancel all alarms.")
    reminders.remove(alarms)
    if len(alarms) == 1 and alarms[0].note:
        return Reply(f"{upper_first(alarms[0].label)} cancelled.", changed=True)
    return Reply(ALARM_CANCELLED if len(alarms) == 1 else ALL_ALARMS_CANCELLED, changed=True)


def list_reminders(reminders: Reminders, now_boot: float) -> Reply:
    """Every reminder set (a timer or an alarm with a note), soonest alarm first after the timers."""
    held = [r for r in (*reminders.timers(), *reminders.alarms()) if r.note]
    if not held:
        return Reply(NO_REMINDERS)
    said = [f"to {r.note} {_when(r, now_boot)}" for r in held]
    head = "One reminder is set" if len(said) == 1 else f"{len(said)} reminders are set"
    return Reply(f"{head}: {'; '.join(said)}.")


def cancel_reminders(reminders: Reminders, note: str, everything: bool) -> Reply:
    """Cancel the reminder of `note`, the only one, or `everything`; ask which when several could be meant."""
    held = [r for r in reminders.all() if r.note and (not note or _about(r.note, note))]
    if not held:
        return Reply(f"There is no reminder to {note}." if note else NO_REMINDERS)
    if len(held) > 1 and not everything and not note:
        notes = ", ".join(f"to {r.note}" for r in held)
        return Reply(f"{len(held)} reminders are set: {notes}. Which one? Or say cancel all reminders.")
    reminders.remove(held)
    return Reply(
        f"{upper_first(held[0].label)} cancelled." if len(held) == 1 else ALL_REMINDERS_CANCELLED, changed=True
    )


_NOT_THE_SUBJECT: Final = frozenset({"the", "my", "a", "an", "to", "about", "your", "for", "of"})


def _about(note: str, said: str) -> bool:
    """True if a reminder of `note` is the one `said` names: every word said that names something is in it, one or
    many of it alike ("the plants" is the reminder to water the plant, "pills" to take your pills)."""
    named = [w for w in said.lower().split() if w not in _NOT_THE_SUBJECT]
    held = note.lower().split()
    return bool(named) and all(any(same_name(w, h) for h in held) for w in named)


def cancel_what(reminders: Reminders, named: str = "") -> Reply:
    """ "Cancel everything": what is set and how to cancel each kind, so the alarms a morning needs are never wiped by
    one loose word; the kinds `named` together ("all my timers and alarms") are cancelled."""
    if named:
        gone = [
            r
            for r in reminders.all()
            if (r.kind is Kind.TIMER and "timer" in named)
            or (r.kind is Kind.ALARM and "alarm" in named)
            or (r.note and "reminder" in named)
        ]
        reminders.remove(gone)
        return Reply(
            f"All {named} cancelled." if gone else f"There were no {named.replace(' and ', ' or ')} to cancel.",
            changed=bool(gone),
        )
    held = [(n, kind) for n, kind in ((len(reminders.timers()), "timer"), (len(reminders.alarms()), "alarm")) if n]
    if not held:
        return Reply(NOTHING_SET)
    said = " and ".join(f"{'one' if n == 1 else n} {kind}{'s' if n > 1 else ''}" for n, kind in held)
    one = sum(n for n, _ in held) == 1
    how = " or ".join(f"cancel all {kind}s" for _, kind in held)
    return Reply(f"{upper_first(said)} {'is' if one else 'are'} set. To cancel {'it' if one else 'them'}, say {how}.")


def _when(reminder: Reminder, now_boot: float) -> str:
    """When a reminder rings, as said in a list: "in 5 minutes", "at six pm on Friday"."""
    if reminder.kind is Kind.TIMER:
        return f"in {say_length(reminder.left_s(now_boot))}"
    return f"at {say_alarm(reminder.hour, reminder.minute, reminder.days, reminder.once)}"


def missed_text(missed: list[Reminder]) -> str:
    """What the box says at start about timers and alarms that came due while it was off."""
    said = [f"your {r.label}" for r in missed]
    if not said:
        return ""
    return upper_first(f"{say_list(said)} {'was' if len(said) == 1 else 'were'} due while I was off.")


def _a_or_an(word: str) -> str:
    """`word` after "a" or "an", as it sounds ("an egg timer", "a unicorn timer")."""
    vowel = word[:1].lower() in "aeio" or (word[:1].lower() == "u" and not word.lower().startswith(("uni", "us", "ut")))
    return f"{'an' if vowel else 'a'} {word}"
