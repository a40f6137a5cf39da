"""The requests about timers, alarms and reminders, each done on the timers and alarms the box holds."""

from __future__ import annotations

from daemon.skills import honest
from daemon.skills.call import SkillCall, int_arg
from daemon.skills.reminder_args import alarm_days
from daemon.skills.reminder_replies import (
    add_to_timer,
    cancel_alarms,
    cancel_reminders,
    cancel_timers,
    cancel_what,
    list_alarms,
    list_reminders,
    move_alarm,
    set_alarm,
    skip_alarm,
    start_timer,
    start_timers,
    timers_left,
)
from daemon.skills.reminders import Reminders
from daemon.skills.replies import Reply
from daemon.skills.timer_changes import change_timer, pause_timers


def reminder_reply(
    call: SkillCall, reminders: Reminders, now_boot: float, now: float, wall: float | None
) -> Reply | None:
    """Do what `call` asks of the timers and alarms and say so, or None if it asks nothing of them; `now`: the box's
    clock, `wall`: the same if it can be trusted (None: an alarm cannot be placed on a day)."""
    a = call.args
    which = int_arg(a, "id") if "id" in a else None
    match call.skill:
        case "timer_start" if isinstance(more := a.get("more"), tuple) and more:
            return start_timers(reminders, (int_arg(a, "seconds"), *more), now_boot, now)
        case "timer_start":
            name, note = str(a.get("name", "")), str(a.get("note", ""))
            return start_timer(reminders, int_arg(a, "seconds"), name, now_boot, now, note)
        case "timer_add":
            name, off = str(a.get("name", "")), bool(a.get("take_off"))
            return add_to_timer(reminders, int_arg(a, "seconds"), name, now_boot, off)
        case "timer_pause":
            resume, everything = bool(a.get("resume")), bool(a.get("all"))
            return pause_timers(reminders, str(a.get("name", "")), resume, everything, now_boot, now)
        case "timer_change":
            return change_timer(reminders, int_arg(a, "seconds"), str(a.get("name", "")), now_boot, now, which)
        case "change_it":
            return Reply(honest.CHANGE_WHICH if len(reminders) else honest.CHANGE_NOTHING)
        case "timer_left":
            return timers_left(reminders, str(a.get("name", "")), now_boot)
        case "timer_cancel":
            return cancel_timers(reminders, str(a.get("name", "")), bool(a.get("all")), which)
        case "alarm_set" | "alarm_move" if a.get("tomorrow") and wall is None:
            return Reply(honest.NO_TOMORROW)
        case "alarm_set":
            days, once = alarm_days(a, wall)
            hour, minute, note = int_arg(a, "hour"), int_arg(a, "minute"), str(a.get("note", ""))
            return set_alarm(reminders, hour, minute, days, wall, note, once)
        case "alarm_move":
            days, once = alarm_days(a, wall)
            at = (int_arg(a, "from_hour"), int_arg(a, "from_minute")) if "from_hour" in a else None
            to, near, from_near = (
                (int_arg(a, "hour"), int_arg(a, "minute")),
                bool(a.get("near")),
                bool(a.get("from_near")),
            )
            return move_alarm(reminders, at, to, days, once, wall, near, which, from_near)
        case "cancel_what":
            return cancel_what(reminders, str(a.get("named", "")))
        case "reminder_list":
            return list_reminders(reminders, now_boot)
        case "reminder_cancel":
            return cancel_reminders(reminders, str(a.get("note", "")), bool(a.get("all")))
        case "alarm_list":
            return list_alarms(reminders, wall)
        case "alarm_skip":
            return skip_alarm(reminders, wall)
        case "alarm_cancel":
            at = (int_arg(a, "hour"), int_arg(a, "minute")) if "hour" in a else None
            said_days = a.get("days", ()) if at is None else ()
            named = tuple(int(d) for d in said_days) if isinstance(said_days, tuple | list) else ()
            return cancel_alarms(reminders, at, bool(a.get("all")), named, either_half=bool(a.get("near")))
    return None
