"""The eight planets and Earth's Moon: their order from the Sun, their widths, temperatures and moons.

No package the box keeps carries the planets, so this one small table is typed here (and only this one).
Diameters and mean temperatures: NASA's Planetary Fact Sheet (equatorial, km; °C). Moon counts: the IAU Minor Planet
Center's confirmed moons as reported by NASA and the discoverers, checked 2025-08: Jupiter 95 (February 2024), Saturn
274 (March 2025, 128 added at once), Uranus 29 (S/2025 U1 found by JWST, announced August 2025), Neptune 16 (February
2024). The giants' counts still grow, so the box says the year of each count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from daemon.skills.speech import say_about


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


PLANETS: Final = (
    Body("Mercury", 4879, mean_c=167),
    Body("Venus", 12104, mean_c=464),
    Body("Earth", 12756, 1, moon_names=("the Moon",), mean_c=15),
    Body("Mars", 6792, 2, moon_names=("Phobos", "Deimos"), mean_c=-65),
    Body("Jupiter", 142984, 95, 2024, mean_c=-110),
    Body("Saturn", 120536, 274, 2025, mean_c=-140),
    Body("Uranus", 51118, 29, 2025, mean_c=-195),
    Body("Neptune", 49528, 16, 2024, mean_c=-200),
)
"""In order from the Sun."""
MOON: Final = Body("the Moon", 3475)
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


def _moons(body: Body) -> str:
    if body.moons == 0:
        return f"{body.name} has no moons."
    if body.counted:
        return f"{body.name} has {body.moons} known moons, as counted in {body.counted}; more are still being found."
    listed = " and ".join(body.moon_names)
    return f"{body.name} has {'one moon' if body.moons == 1 else f'{body.moons} moons'}: {listed}."


def _across(body: Body) -> str:
    return f"{say_about(body.diameter_km)} kilometres across"


def answer(fact: str, body: Body | None) -> str:
    """What the box says to `fact` (about `body`, for the facts that name one)."""
    largest = max(PLANETS, key=lambda p: p.diameter_km)
    smallest = min(PLANETS, key=lambda p: p.diameter_km)
    match fact:
        case "moons" if body is not None:
            return _moons(body)
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
