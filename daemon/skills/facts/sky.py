"""The eight planets and Earth's Moon: their order from the Sun, their widths, temperatures, moons and years.

No package the box keeps carries the planets, so this one small table is typed here (and only this one).
Diameters and mean temperatures: NASA's Planetary Fact Sheet (equatorial, km; °C). Moon counts: the IAU Minor Planet
Center's confirmed moons as reported by NASA and the discoverers, checked 2025-08: Jupiter 95 (February 2024), Saturn
274 (March 2025, 128 added at once), Uranus 29 (S/2025 U1 found by JWST, announced August 2025), Neptune 16 (February
2024). The giants' counts still grow, so the box says the year of each count. Orbital periods (sidereal, days): the
same fact sheet, as are the mean distances from the Sun (semimajor axes, millions of km) and the Moon's from the Earth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from daemon.skills.speech import say_about, upper_first


@dataclass(frozen=True)
class Body:
    """A planet or Earth's Moon, as the box can talk about it."""

    name: str
    diameter_km: float
    """Equatorial."""
    moons: int = 0
    counted: int = 0
    """The year of a moon count that is still growing; 0 for a count that is settled."""
    moon_names: tuple[str, ...] = ()
    mean_c: int = 0
    """Mean temperature, °C."""
    year_days: float = 0.0
    """Once around what it goes around (the Sun; the Earth for the Moon), days."""
    away_km: float = 0.0
    """How far it is from what it goes around, on average, km."""


PLANETS: Final = (
    Body("Mercury", 4879, mean_c=167, year_days=88.0, away_km=57.9e6),
    Body("Venus", 12104, mean_c=464, year_days=224.7, away_km=108.2e6),
    Body("Earth", 12756, 1, moon_names=("the Moon",), mean_c=15, year_days=365.2, away_km=149.6e6),
    Body("Mars", 6792, 2, moon_names=("Phobos", "Deimos"), mean_c=-65, year_days=687.0, away_km=228.0e6),
    Body("Jupiter", 142984, 95, 2024, mean_c=-110, year_days=4331, away_km=778.5e6),
    Body("Saturn", 120536, 274, 2025, mean_c=-140, year_days=10747, away_km=1432.0e6),
    Body("Uranus", 51118, 29, 2025, mean_c=-195, year_days=30589, away_km=2867.0e6),
    Body("Neptune", 49528, 16, 2024, mean_c=-200, year_days=59800, away_km=4515.0e6),
)
"""In order from the Sun."""
MOON: Final = Body("the Moon", 3475, year_days=27.3, away_km=384400)
SUN: Final = Body("the Sun", 1392700)
"""Only as what the planets go around (find() never names it: it is no planet to compare)."""
DWARF_PLANETS: Final = frozenset({"pluto", "ceres", "eris", "haumea", "makemake"})
"""The five dwarf planets the IAU recognises (Pluto among them since its 2006 resolution 6A): asked if one is a
planet, the box says what it is."""
COLDEST_MEASURED: Final = ("Uranus", -224)
"""The coldest air measured on a planet, °C (Voyager 2, 1986, as NASA reports it): colder than Neptune's, though
Neptune is colder on average."""


def find(said: str) -> Body | None:
    """The planet (or Earth's Moon) `said` names, or None."""
    name = said.lower().strip().removeprefix("planet ").removeprefix("the planet ")
    if name in ("the moon", "moon", "our moon"):
        return MOON
    name = name.removeprefix("the ")
    return next((p for p in PLANETS if p.name.lower() == name), None)


def in_orbit(said: str) -> Body | None:
    """The planet, the Moon or the Sun `said` names, as one of two bodies asked about going around the other."""
    return SUN if said.lower().strip().removeprefix("the ") == "sun" else find(said)


def _called(body: Body) -> str:
    return "the Earth" if body.name == "Earth" else body.name


def _centre(body: Body) -> Body | None:
    return PLANETS[2] if body is MOON else SUN if body in PLANETS else None


def _once(body: Body) -> str:
    days = body.year_days
    if body.name == "Earth":
        return "once a year"
    return f"once every {round(days)} days" if days < 1000 else f"about once every {round(days / 365.25)} years"


def orbit_answer(mover: Body, centre: Body) -> str:
    """Whether `mover` goes around `centre`, and what goes around what."""
    around = _centre(mover)
    if around is centre:
        return f"Yes, {_called(mover)} goes around {_called(centre)}, {_once(mover)}."
    if mover is MOON and centre is SUN:
        return f"Yes, with the Earth: the Moon goes around the Earth, {_once(MOON)}, and the two go around the Sun."
    if around is None:  # the Sun: what it was asked to go around goes around something else
        told = centre
        said = f"No, {_called(told)} goes around {_called(_centre(told) or SUN)}, {_once(told)}."
    else:
        said = f"No, {_called(mover)} goes around {_called(around)}, {_once(mover)}."
        if _centre(centre) is mover:
            said += f" {upper_first(_called(centre))} goes around {_called(mover)}."
    return said


def _moons(body: Body) -> str:
    if body.moons == 0:
        return f"{body.name} has no moons."
    if body.counted:
        return f"{body.name} has {body.moons} known moons, as counted in {body.counted}; more are still being found."
    listed = " and ".join(body.moon_names)
    return f"{body.name} has {'one moon' if body.moons == 1 else f'{body.moons} moons'}: {listed}."


def _across(body: Body) -> str:
    return f"{say_about(body.diameter_km)} kilometres across"


def _away(body: Body) -> str:
    centre = _centre(body) or SUN
    said = f"{upper_first(_called(body))} is {say_about(body.away_km)} kilometres from {_called(centre)}, on average"
    if centre is SUN and body.name != "Earth":
        # NOTE: asked "how far away", people mean from here: that changes as both go around the Sun.
        return f"{said}; its distance from the Earth changes as both go around the Sun."
    return f"{said}."


def answer(fact: str, body: Body | None) -> str:
    """What the box says to `fact` (about `body`, for the facts that name one)."""
    largest = max(PLANETS, key=lambda p: p.diameter_km)
    smallest = min(PLANETS, key=lambda p: p.diameter_km)
    match fact:
        case "moons" if body is not None:
            return _moons(body)
        case "distance" if body is not None:
            return _away(body)
        case "size" if body is not None:
            return f"{body.name[:1].upper()}{body.name[1:]} is {_across(body)}."
        case "largest":
            return f"{largest.name} is the largest planet, {_across(largest)}."
        case "smallest":
            return f"{smallest.name} is the smallest planet, {_across(smallest)}."
        case "closest":
            return f"{PLANETS[0].name} is the planet closest to the Sun."
        case "farthest":
            return f"{PLANETS[-1].name} is the planet farthest from the Sun."
        case "hottest":
            hottest = max(PLANETS, key=lambda p: p.mean_c)
            closest = PLANETS[0]
            # NOTE: the closest planet is the usual wrong answer: Venus's thick air keeps it hotter than Mercury.
            return (
                f"{hottest.name} is the hottest planet, about {hottest.mean_c} degrees Celsius on average: its thick "
                f"air holds the heat, so it is hotter than {closest.name}, which is closer to the Sun."
            )
        case "coldest":
            coldest = min(PLANETS, key=lambda p: p.mean_c)
            return (
                f"{coldest.name} is the coldest planet on average, about minus {-coldest.mean_c} degrees Celsius; "
                f"the coldest air measured on a planet was on {COLDEST_MEASURED[0]}, minus {-COLDEST_MEASURED[1]}."
            )
        case "count":
            planets = f"There are {len(PLANETS)} planets in the solar system."
            return f"{planets} Pluto has been called a dwarf planet since 2006."
        case "most_moons":
            most = max(PLANETS, key=lambda p: p.moons)
            return f"{most.name} has the most moons: {most.moons} known, as counted in {most.counted}."
    return "I don't know that about the planets."
