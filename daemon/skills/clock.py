"""Whether the box's clock can be trusted, and the time as the box knows it (the system's, or one the user set).

A Pi 4 has no real-time clock and the box has no network: after a power cut the system clock is only a guess
(fake-hwclock restores the time of the last shutdown). The box states a time only when something vouches for it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import enum
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

TIME_ERROR: Final = 5
"""adjtimex(2)'s answer while no NTP client has synchronised the kernel's clock."""
BUILT: Final = 1_780_000_000
"""A time before this (2026-05-28) cannot be now: the software is newer."""
RTC: Final = Path("/sys/class/rtc/rtc0")
BOOT_ID: Final = Path("/proc/sys/kernel/random/boot_id")


class Source(enum.StrEnum):
    """What vouches for the time."""

    NTP = "ntp"
    RTC = "rtc"
    USER = "user"
    SYSTEM = "system"
    """The configuration says to trust the system clock."""
    GUESS = "guess"
    """Nothing: the clock may be hours or days wrong."""


@dataclass(frozen=True)
class ClockState:
    """The clock's trust, for answers, alarms and `talkbox doctor`."""

    source: Source
    detail: str

    @property
    def trusted(self) -> bool:
        """True when the time may be stated and alarms may ring by it."""
        return self.source is not Source.GUESS


def boot_id() -> str:
    """This boot's identity (a new one after every reboot)."""
    try:
        return BOOT_ID.read_text().strip()
    except OSError:
        return ""


def ntp_synchronised() -> bool:
    """True when an NTP client (timesyncd, chrony, ntpd) keeps the kernel's clock in step."""
    buf = ctypes.create_string_buffer(512)  # struct timex with modes = 0: a read-only query
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        return int(libc.adjtimex(buf)) not in (-1, TIME_ERROR)
    except (OSError, AttributeError):
        return False


def rtc_set_the_clock(rtc: Path = RTC) -> bool:
    """True when a real-time clock set the system time at boot and holds a plausible time (a battery kept it)."""
    with contextlib.suppress(OSError, ValueError):
        return (rtc / "hctosys").read_text().strip() == "1" and int((rtc / "since_epoch").read_text()) > BUILT
    return False


class BoxClock:
    """The time as the box knows it: the system clock, shifted by what the user said the time is on this boot."""

    def __init__(self, trust: str = "auto") -> None:
        self._trust = trust
        self.offset_s = 0.0
        """Seconds added to the system clock: the user set the time (only on the boot where they did)."""
        self.set_on_boot = ""

    def now(self) -> float:
        """Seconds since the epoch, as the box believes."""
        return time.time() + self.offset_s

    def state(self) -> ClockState:
        """Who vouches for the time now."""
        if self._trust == "system":
            return ClockState(Source.SYSTEM, "the configuration trusts the system clock (skills.trust_clock)")
        if ntp_synchronised():
            return ClockState(Source.NTP, "synchronised by NTP")
        if self.set_on_boot and self.set_on_boot == boot_id():
            return ClockState(Source.USER, "set by the user since the box started")
        if rtc_set_the_clock():
            return ClockState(Source.RTC, "kept by the real-time clock")
        if time.time() < BUILT:
            return ClockState(Source.GUESS, "the clock is before this software was built: it is certainly wrong")
        return ClockState(Source.GUESS, "nothing has set the clock since power-up (no network, no real-time clock)")

    def set(self, hour: int, minute: int) -> float:
        """The user says it is hour:minute (local time) now; the date stays. Returns the shift in seconds."""
        now = self.now()
        local = time.localtime(now)
        said = time.mktime((*local[:3], hour, minute, 0, 0, 0, -1))
        # NOTE: the nearest such time, so "it's 11:55 pm" said just after midnight by the box's clock means yesterday.
        if said - now > 12 * 3600:
            said -= 86400
        elif now - said > 12 * 3600:
            said += 86400
        self.offset_s += said - now
        self.set_on_boot = boot_id()
        return said - now

    def restore(self, offset_s: float, on_boot: str) -> None:
        """Bring back a time the user set earlier on this boot (a restarted daemon keeps it; a reboot does not)."""
        if on_boot and on_boot == boot_id():
            self.offset_s, self.set_on_boot = offset_s, on_boot
