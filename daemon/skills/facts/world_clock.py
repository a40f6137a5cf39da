"""The time in another place, from the box's own clock and the tz database (zoneinfo, the `tzdata` package): a city
that names a time zone ("Tokyo", "New York"), a country with one zone, or a capital of one."""

from __future__ import annotations

import datetime
import functools
import zoneinfo
from importlib import resources
from typing import Final

from daemon.skills.facts import countries
from daemon.skills.speech import say_clock, upper_first

_NOT_PLACES: Final = ("Etc/", "SystemV/", "US/", "Canada/", "Mexico/", "Brazil/", "Chile/")
"""Zone names that are no city ("Etc/GMT+5", "US/Eastern")."""


def _spoken(zone: str) -> str:
    """A zone's place as said: "America/New_York" -> "new york"."""
    return zone.rsplit("/", 1)[-1].replace("_", " ").lower()


@functools.cache
def _country_zones() -> dict[str, tuple[str, ...]]:
    """Each ISO country code's zones, from the database's zone.tab; the one of "most areas" first where it says."""
    table = resources.files("tzdata").joinpath("zoneinfo", "zone.tab").read_text(encoding="utf-8")
    zones: dict[str, list[tuple[bool, str]]] = {}
    for line in table.splitlines():
        if line and not line.startswith("#"):
            code, _, zone, *comment = line.split("\t")
            zones.setdefault(code, []).append(("most " not in " ".join(comment), zone))
    return {code: tuple(zone for _, zone in sorted(found, key=lambda f: f[0])) for code, found in zones.items()}


@functools.cache
def _cities() -> dict[str, str]:
    """Each city a zone is named for, as said, to the zone (the database's own zones before its older links)."""
    listed = {zone for zones in _country_zones().values() for zone in zones}
    named: dict[str, str] = {}
    for zone in sorted(zoneinfo.available_timezones(), key=lambda z: (z not in listed, z)):
        if "/" in zone and not zone.startswith(_NOT_PLACES):
            named.setdefault(_spoken(zone), zone)
    return named


def zones_of(place: str) -> tuple[str, tuple[str, ...]]:
    """The place as it will be said, and its zones: one for a city or a country with one zone, several for a country
    with several, none for a place the database does not name."""
    said = countries.key(place)
    if said in _cities():
        return place.strip().title(), (_cities()[said],)
    if (code := countries.find(said)) is not None:
        zones = _country_zones().get(code, ())
        capital = _cities().get(countries.key(countries.capital(code)))
        return countries.named(place), (capital, *(z for z in zones if z != capital)) if capital else zones
    code = countries.find_capital(said)
    zones = _country_zones().get(code, ()) if code is not None else ()
    # NOTE: a capital of a country with several zones is in one of them, and the database does not say which.
    return place.strip().title(), zones if len(zones) == 1 else ()


def answer(place: str, zones: tuple[str, ...], now: float | None) -> str:
    """What the box says to "what time is it in `place`"; "" without a trusted clock (`now` None)."""
    if len(zones) > 1:
        example = _spoken(zones[0]).title()
        return f"{upper_first(place)} has several time zones. Name a city, for example: what time is it in {example}?"
    if now is None:
        return ""
    at = datetime.datetime.fromtimestamp(now, zoneinfo.ZoneInfo(zones[0]))
    here = datetime.datetime.fromtimestamp(now).astimezone()
    day = (at.date() - here.date()).days
    when = {0: "", 1: " tomorrow", -1: " yesterday"}.get(day, "")
    return f"In {place}, it's {say_clock(at.hour, at.minute)}{when}."
