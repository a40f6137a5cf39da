"""The requests that only answer, from their words and the clock alone: the time and the date, a sum, a conversion,
a fact, a coin tossed, what the box cannot know offline."""

from __future__ import annotations

import datetime
import random
from typing import Final

from daemon.skills import chance, counting, facts, honest, number_facts, time_ahead, unfollowed
from daemon.skills.calc import calculate
from daemon.skills.call import SkillCall, float_arg, int_arg
from daemon.skills.facts.calendar_facts import day_ahead
from daemon.skills.money import CURRENCIES, say_money
from daemon.skills.replies import Reply
from daemon.skills.speech import say_date, say_day, say_number, say_time
from daemon.skills.units import Conversion

HELP: Final = (
    "I answer questions, and I can tell you the time and the date, set timers, alarms and reminders, "
    "change my volume and how fast I speak, do sums and convert units, spell words, and tell you facts about "
    "countries, the elements, the planets, the calendar and how far apart cities are. Say stop to stop me, or "
    "repeat that to hear me again."
)


def plain_answer(call: SkillCall, wall: float | None, luck: random.Random) -> Reply | None:
    """The reply to `call` if it is one of these requests, or None; `wall`: the time now if the clock can be trusted
    (None: the box says its clock is not set), `luck`: what tosses the coins."""
    a = call.args
    if call.skill in ("time", "date", "day"):
        return _of_the_clock(call, wall) if wall is not None else Reply(honest.UNSET_CLOCK)
    match call.skill:
        case "calculate" if "impossible" in a:
            return Reply(honest.no_answer(str(a["impossible"]), float_arg(a, "number")))
        case "calculate" if str(a.get("currency", "")) in CURRENCIES:
            return Reply(f"That's {say_money(float_arg(a, 'value'), str(a['currency']))}.")
        case "calculate":
            return Reply(f"That's {say_number(float_arg(a, 'value'))}.")
        case "convert":
            amount, value = float_arg(a, "amount"), float_arg(a, "value")
            said_as = str(a.get("said_as", ""))
            return Reply(Conversion(value, amount, str(a["from_unit"]), str(a["unit"]), said_as).spoken())
        case "expression":
            result = calculate(str(a.get("expression", "")))
            return Reply(f"That's {say_number(result)}." if result is not None else "I couldn't work that out.")
        case "help":
            return Reply(HELP)
        case "offline":
            return Reply(honest.offline(str(a.get("topic", ""))))
        case unfollowed.SKILL if "number" in a:
            return Reply(unfollowed.no_unit(int_arg(a, "number")))
        case unfollowed.SKILL:
            return Reply(unfollowed.REPLIES[str(a.get("job", ""))])
        case "chance":
            return Reply(chance.answer(a, luck))
        case "count":
            return Reply(counting.answer(a))
        case "number_fact":
            return Reply(number_facts.answer(a))
        case skill if skill in facts.SKILLS:
            return Reply(facts.answer(skill, a, lambda: wall))
    return None


def _of_the_clock(call: SkillCall, wall: float) -> Reply:
    """The time or the date asked for, `wall` being the trusted time now."""
    a = call.args
    match call.skill:
        case "time" if "ahead_s" in a:
            return Reply(time_ahead.ahead(wall, int_arg(a, "ahead_s")))
        case "time" if "until_hour" in a:
            hour, minute = int_arg(a, "until_hour"), int_arg(a, "until_minute")
            return Reply(time_ahead.until(wall, hour, minute, near=bool(a.get("near"))))
        case "time":
            return Reply(f"It's {say_time(wall)}.")
        case "date" if a.get("year"):
            return Reply(f"It's {datetime.datetime.fromtimestamp(wall).year}.")
        case "date" if "on" in a or "ahead" in a:
            return Reply(day_ahead(wall, a))
        case "date":
            return Reply(f"Today is {say_date(wall)}.")
    return Reply(f"Today is {say_day(wall)}.")
