"""Times and dates in words, as the voice should say them ("seven oh five pm", "Tuesday, December the first")."""

from __future__ import annotations

import datetime
import time
from typing import Final

from ovos_number_parser import pronounce_number

DAYS: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def upper_first(text: str) -> str:
    """`text` with its first letter in upper case (the rest as it is): a sentence that begins with a name."""
    return text[:1].upper() + text[1:]


def say_clock(hour: int, minute: int, half: bool = True) -> str:
    """ "seven oh five pm", "twelve noon", "midnight"; "seven oh five" without its `half` of the day (as a request
    named it)."""
    if half and (hour, minute) == (0, 0):
        return "midnight"
    if half and (hour, minute) == (12, 0):
        return "twelve noon"
    h12 = hour % 12 or 12
    # NOTE: on the hour, "seven am", as people say it: "seven o'clock am" is nobody's.
    if minute == 0:
        mins = ""
    elif minute < 10:
        mins = f" oh {pronounce_number(minute, 'en')}"
    else:
        mins = f" {pronounce_number(minute, 'en')}"
    return f"{pronounce_number(h12, 'en')}{mins}" + (f" {'am' if hour < 12 else 'pm'}" if half else "")


def say_time(epoch: float) -> str:
    """The local time at `epoch` in words."""
    t = time.localtime(epoch)
    return say_clock(t.tm_hour, t.tm_min)


def say_date(epoch: float) -> str:
    """ "Tuesday, December the first"."""
    t = time.localtime(epoch)
    month = time.strftime("%B", t)
    return f"{DAYS[t.tm_wday]}, {month} the {pronounce_number(t.tm_mday, 'en', ordinals=True)}"


def say_day(epoch: float) -> str:
    """ "Tuesday"."""
    return DAYS[time.localtime(epoch).tm_wday]


def say_days(days: tuple[int, ...], once: bool = False) -> str:
    """ "every weekday", "every Monday and Friday", "on Friday" for once on a day, "" for once."""
    if not days:
        return ""
    if once:
        return f"on {DAYS[days[0]]}"
    if days == (0, 1, 2, 3, 4):
        return "every weekday"
    if days == (5, 6):
        return "every weekend"
    if len(days) == 7:
        return "every day"
    return "every " + say_list([DAYS[d] for d in days])


def say_list(items: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def say_alarm(hour: int, minute: int, days: tuple[int, ...], once: bool = False) -> str:
    """An alarm's time and days: "seven am every weekday", "six thirty pm", "seven am on Friday"."""
    return " ".join(filter(None, [say_clock(hour, minute), say_days(days, once)]))


def say_number(value: float) -> str:
    """A result as the box says it: whole numbers plainly, others to at most two decimals (three figures)."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    digits_after = 2 if abs(value) >= 1 else 3
    text = f"{value:.{digits_after}f}".rstrip("0").rstrip(".")
    return text if text not in ("0", "-0") else f"{value:.2g}"


def say_about(value: float) -> str:
    """A large amount rounded as people say it: "about 47 million", "about 1.4 billion", "about 506 thousand"."""
    # NOTE: millions and billions whole from ten up, one decimal below; thousands keep three figures, since an area
    # or a width in thousands is read more exactly than a head count.
    for size, name, whole_from in ((1e9, "billion", 10), (1e6, "million", 10), (1e3, "thousand", 100)):
        if abs(value) >= max(size, 1e4):  # below ten thousand the number itself is short enough
            scaled = value / size
            return f"about {_figures(round(scaled, 0 if abs(scaled) >= whole_from else 1))} {name}"
    return f"about {_figures(float(f'{value:.3g}'))}"


def _figures(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value}"


def say_month_day(day: datetime.date) -> str:
    """ "March the twenty eighth"."""
    return f"{day.strftime('%B')} the {pronounce_number(day.day, 'en', ordinals=True)}"


def say_weekday(day: datetime.date) -> str:
    """ "Saturday"."""
    return DAYS[day.weekday()]


def say_letters(text: str) -> str:
    """A word or words letter by letter, as the voice reads them: "N, E, C, E, S, S, A, R, Y"."""
    names = {"'": "apostrophe", "-": "hyphen", " ": "space"}
    return ", ".join(names.get(c, c.upper()) for c in " ".join(text.split()))
