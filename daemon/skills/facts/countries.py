"""Countries' capitals, currencies, languages, populations and areas, from countryinfo and pycountry's ISO names."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import Any, Final

from daemon.skills.speech import say_about, say_list, upper_first

POPULATION_YEAR: Final = 2014
"""About when countryinfo's head counts were made (Spain's is the INE's of 1 January 2014, Australia's mid-2014):
the box says so rather than pass an old count off as today's."""
SHORT_NAMES: Final = frozenset({"us", "usa", "uk", "uae", "drc", "prc"})
"""Letter codes people say as a country's name; the other two- and three-letter codes ("it", "in", "no", "me") are
ordinary words a wildcard must not take for a country."""
FUNDS: Final = frozenset({"BOV", "CHE", "CHW", "CLF", "COU", "MXV", "USN", "USS", "UYI", "UYW"})
"""ISO 4217 codes of funds and accounting units, not money anyone pays with (countryinfo lists some beside the
currency: Switzerland's CHE and CHW, the United States' USN and USS)."""
_SMALL_WORDS: Final = frozenset({"and", "of", "the", "da", "de", "du", "la"})
_JOIN_LETTERS: Final = re.compile(r"\b([a-zA-Z]) (?=[a-zA-Z]\b)")
"""Letters said one by one ("u s a", as the matcher reads "U.S.A."), to be joined into the name they spell."""


NEWER_CAPITALS: Final = {"KZ": "Astana", "BI": "Gitega"}
"""Capitals that changed after countryinfo 1.0.1's data: Kazakhstan's took back the name Astana in September 2022;
Burundi moved its capital to Gitega in 2019 (its data still says Nur-Sultan and Bujumbura)."""


def key(name: str) -> str:
    """A country's name as looked up: lower case, no accents, no dots, "the" and spaced-out letters joined."""
    plain = unicodedata.normalize("NFKD", name.lower()).encode("ascii", "ignore").decode()
    plain = re.sub(r"[.\u2019]", lambda m: "" if m[0] == "." else "'", plain)
    plain = " ".join(re.sub(r"[^a-z0-9' -]", " ", plain).split())
    plain = _JOIN_LETTERS.sub(r"\1", plain)
    return plain.removeprefix("the ")


def _code(record: dict[str, Any]) -> str:
    return str((record.get("ISO") or {}).get("alpha2") or "").upper()


@functools.cache
def _countries() -> dict[str, dict[str, Any]]:
    """countryinfo's record for each ISO country code (its own choice where two records share one)."""
    from countryinfo import CountryInfo

    by_code: dict[str, dict[str, Any]] = {}
    for record in CountryInfo.all().values():
        code = _code(dict(record))
        if code and code not in by_code:
            # NOTE: countryinfo resolves a code to one record (Myanmar, not its older twin "Burma"); ask it which.
            by_code[code] = dict(CountryInfo(code).info())
    return by_code


@functools.cache
def _names() -> dict[str, str]:
    """Every name the data knows for a country, as `key` writes it, to its ISO code."""
    import pycountry
    from countryinfo import CountryInfo

    countries = _countries()
    codes = {c.alpha_2.lower() for c in pycountry.countries} | {c.alpha_3.lower() for c in pycountry.countries}
    spellings: list[tuple[str, str]] = []
    for record in CountryInfo.all().values():
        code = _code(dict(record))
        # NOTE: a second record under a code is another name for the same country only if it agrees on the
        # capital ("Burma" for Myanmar); "Wales" is filed under GB, and its capital would be London's.
        if code in countries and record.get("capital") == countries[code].get("capital"):
            spellings += [(code, str(s)) for s in [record["name"], *(record.get("altSpellings") or [])]]
    for country in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            name = str(getattr(country, attr, ""))
            # "Holy See (Vatican City State)" is also said "Vatican City State"
            spellings += [(country.alpha_2, part) for part in re.split(r"[()]", name)] if name else []
    names: dict[str, str] = {}
    for code, spelling in spellings:
        said = key(spelling)
        if code in countries and said and (said not in codes or said in SHORT_NAMES):
            names.setdefault(said, code)
    return names | {said: code for said, code in ALSO_SAID.items() if said not in names}


ALSO_SAID: Final = {"britain": "GB", "america": "US"}
"""Names people say for a country that no record of the data lists ("Does Britain use the euro?")."""


def find(said: str) -> str | None:
    """The ISO code of the country `said` names, or None (a state, a city, a region or no place at all)."""
    return _names().get(key(said))


def capital(code: str) -> str:
    """A country's capital as the data (or a newer name) gives it; "" if it has none."""
    return str(NEWER_CAPITALS.get(code) or _countries()[code].get("capital") or "")


def codes() -> tuple[str, ...]:
    """Every country's ISO code the data has."""
    return tuple(_countries())


def capital_at(code: str) -> tuple[float, float] | None:
    """A country's capital's latitude and longitude, as the data gives them; None if it gives none (or the capital
    moved since: NEWER_CAPITALS)."""
    at = _countries()[code].get("capital_latlng")
    if code in NEWER_CAPITALS or not isinstance(at, list) or len(at) != 2:
        return None
    return float(at[0]), float(at[1])


def find_capital(said: str) -> str | None:
    """The ISO code of the country whose capital `said` names ("new delhi"), or None."""
    wanted = key(said)
    for code in _countries():
        if key(capital(code)) == wanted:
            return code
    return None


RANKED_BY: Final = {"most_people": ("population", max), "largest": ("area", max), "smallest": ("area", min)}
"""What each ranking of the world's countries compares, and which end of it is asked for."""
MOST_PEOPLE_SINCE: Final = ("IN", 2023)
"""India has had more people than China since 2023 by the UN's estimate (UN DESA, World Population Prospects 2022,
confirmed in 2024); countryinfo's counts, from around 2014, still put China first."""


Record = dict[str, Any]
CONTINENTS: Final[dict[str, tuple[str, Callable[[Record], bool]]]] = {
    "africa": ("Africa", lambda r: r.get("region") == "Africa"),
    "europe": ("Europe", lambda r: r.get("region") == "Europe"),
    "asia": ("Asia", lambda r: r.get("region") == "Asia"),
    "oceania": ("Oceania", lambda r: r.get("region") == "Oceania"),
    "south america": ("South America", lambda r: r.get("intermediateregion") == "South America"),
    "north america": (
        "North America",
        lambda r: (
            r.get("subregion") == "Northern America" or r.get("intermediateregion") in ("Central America", "Caribbean")
        ),
    ),
}
"""Each continent the templates name (the `continent` list): as said, and which of countryinfo's UN regions it is.
Only the largest and the most populous are asked of one: its smallest would be a territory of the data, not a
country (Anguilla, Macau)."""
WIDER_THAN_ITS_REGION: Final = {"asia": "RU"}
"""A country the data counts in another region that holds most of its land here (Russia: three quarters of it)."""


def ranked(rank: str, continent: str = "") -> str:
    """The ISO code of the country at the end of `rank` ("most_people", "largest", "smallest") in the data, among
    the countries of `continent` (a key of CONTINENTS) if named."""
    field, end = RANKED_BY[rank]
    inside: Callable[[Record], bool] = CONTINENTS[continent][1] if continent else (lambda r: True)
    counted = {c: r[field] for c, r in _countries().items() if isinstance(r.get(field), int | float) and inside(r)}
    return end(counted, key=lambda code: counted[code])


def spoken_name(code: str) -> str:
    """A country's name fit to be said: "Vatican City State", not "Holy See (Vatican City State)"."""
    name = str(_countries()[code].get("name", code))
    inside = re.search(r"\(([^)]+)\)", name)
    return inside[1] if inside else name


def _ranked_answer(rank: str, code: str, name: str, continent: str = "") -> str:
    record = _countries()[code]
    where = f"in {CONTINENTS[continent][0]}" if continent else "in the world"
    if rank == "most_people":
        now, since = MOST_PEOPLE_SINCE
        people = say_about(record["population"])
        counted = f"In the latest count I have, from around {POPULATION_YEAR}, {name} had {people}"
        if continent and not CONTINENTS[continent][1](_countries()[now]):
            return f"{name} has the most people {where}. {counted}."
        if now == code:
            return f"{name} has the most people. {counted}."
        later, other = spoken_name(now), _countries()[now]["population"]
        return (
            f"{later} has the most people, by the United Nations' estimate since {since}. "
            f"{counted} and {later} {say_about(other)}."
        )
    extreme = "largest" if rank == "largest" else "smallest"
    area = f"covering {say_about(record['area'])} square kilometres"
    if rank == "largest" and (wider := WIDER_THAN_ITS_REGION.get(continent)):
        other = spoken_name(wider)
        return (
            f"{name} is the largest country wholly {where}, {area}. {other}, which spans Europe and Asia, is larger, "
            f"and most of its land is {where}."
        )
    return f"{name} is the {extreme} country {where}, {area}."


def currencies(code: str) -> tuple[str, ...]:
    """The ISO 4217 codes of the money a country pays with (funds left out)."""
    return tuple(str(c) for c in _countries()[code].get("currencies") or [] if str(c) not in FUNDS)


def languages(code: str) -> tuple[str, ...]:
    """The names of a country's main languages, as the data lists them."""
    return tuple(_language(str(c)) for c in _countries()[code].get("languages") or [])


def demonym(code: str) -> str:
    """What a country's people are called ("Mexican"), or ""."""
    return str(_countries()[code].get("demonym") or "")


def figure(code: str, field: str) -> float | None:
    """A country's "area" (km²) or "population" as the data gives it, or None if it gives none."""
    value = _countries()[code].get(field)
    return float(value) if isinstance(value, int | float) and value > 0 else None


def _language(code: str) -> str:
    import pycountry

    language = pycountry.languages.get(alpha_2=code) or pycountry.languages.get(alpha_3=code)
    name = str(getattr(language, "name", code)) if language is not None else code
    return re.split(r"[;,(]", name)[0].strip()  # "Modern Greek (1453-)" is said "Modern Greek"


def currency_name(code: str) -> str:
    """A currency's name ("Swiss Franc"), or its code if pycountry has none."""
    import pycountry

    currency = pycountry.currencies.get(alpha_3=code)
    return str(currency.name) if currency is not None else code


def named(said: str) -> str:
    """The country as the user named it, in capitals fit to be read ("the United States", "Bosnia and Herzegovina")."""
    words = []
    for i, word in enumerate(_JOIN_LETTERS.sub(r"\1", said.strip()).split()):
        if word.replace(".", "") in SHORT_NAMES:
            word = word.upper()
        elif not (i and word in _SMALL_WORDS) and word != "the":
            word = word[:1].upper() + word[1:]
        words.append(word)
    return re.sub(r"(-|\b[Dd]')(\w)", lambda m: m[1].lower() + m[2].upper(), " ".join(words))


def answer(code: str, fact: str, said: str, continent: str = "") -> str:
    """What the box says to `fact` about the country with ISO code `code`, named as the user named it (a ranking:
    among the countries of `continent`, if named)."""
    if fact in RANKED_BY:
        return _ranked_answer(fact, code, said, continent)
    record = _countries()[code]
    name = named(said)
    match fact:
        case "capital":
            capital = NEWER_CAPITALS.get(code) or record.get("capital")
            if isinstance(capital, list):
                capital = say_list([str(c) for c in capital])
            if capital:
                return f"The capital of {name} is {str(capital).replace(' / ', ', ').rstrip('.')}."
            return f"I don't have a capital for {name}."
        case "currency":
            codes = list(currencies(code))
            if not codes:
                return f"I don't have the currency of {name}."
            names = [f"the {currency_name(c)}" for c in codes]
            return upper_first(f"{name} uses {say_list(names)}.")
        case "languages":
            spoken = list(languages(code))
            if not spoken:
                return f"I don't have the languages of {name}."
            plural = "languages of {} are" if len(spoken) > 1 else "language of {} is"
            return f"The main {plural.format(name)} {say_list(spoken)}."
        case "population":
            people = record.get("population")
            if not isinstance(people, int) or people <= 0:
                return f"I don't have the population of {name}."
            count = f"{say_about(people)} people around {POPULATION_YEAR}"
            return upper_first(f"{name} had {count}, the latest count I have.")
        case "area":
            area = record.get("area")
            if not isinstance(area, int | float) or area <= 0:
                return f"I don't have the area of {name}."
            return upper_first(f"{name} covers {say_about(area)} square kilometres.")
    return f"I don't know that about {name}."
