"""Facts the box knows exactly, from the data packages it keeps: each kind answered right for several items and
wordings, the calendar by a fixed clock (and honestly without one), and what the data lacks never guessed."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest

from daemon.box.asking import SilentSink
from daemon.skills.clock import BoxClock, ClockState, Source
from daemon.skills.facts import calendar_facts, countries, elements, sky
from daemon.skills.honest import UNSET_CLOCK
from daemon.skills.intents import SkillCall, match
from daemon.skills.skills import Skills
from daemon.skills.speech import say_about, say_clock
from daemon.turn.volume import VolumeSink

DECEMBER_1 = datetime.datetime(2026, 12, 1, 12, 0)
"""Local noon, 24 days before Christmas; this year's Easter and Halloween have passed."""


class _FixedClock(BoxClock):
    """The box's clock, trusted and stopped at one local time (or untrusted: nothing vouches for it)."""

    def __init__(self, at: datetime.datetime, trusted: bool = True) -> None:
        super().__init__("system")
        self._at, self._trusted = at.timestamp(), trusted

    def now(self) -> float:
        return self._at

    def state(self) -> ClockState:
        return ClockState(Source.SYSTEM if self._trusted else Source.GUESS, "a test's clock")


def _skills(at: datetime.datetime = DECEMBER_1, trusted: bool = True) -> Skills:
    return Skills(_FixedClock(at, trusted), VolumeSink(SilentSink()), "boot-a", now_boot=lambda: 1000.0)


def _said(said: str, skills: Skills | None = None) -> tuple[str, str]:
    """The skill `said` is routed to and what it answers; fails when it would go to the language model."""
    call = match(said)
    assert call is not None, f"no skill took {said!r}: it would go to the language model"
    return call.skill, (skills or _skills()).run(call).text


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("What is the capital of Italy?", "The capital of Italy is Rome."),
        ("what's the capital of spain", "The capital of Spain is Madrid."),
        ("capital of Japan", "The capital of Japan is Tokyo."),
        ("What is the capital city of Australia?", "The capital of Australia is Canberra."),
        ("which city is the capital of the netherlands", "The capital of the Netherlands is Amsterdam."),
        ("what is the capital of the U.S.A.", "The capital of the USA is Washington D.C."),
        ("what currency does japan use", "Japan uses the Yen."),
        ("what currency do they use in switzerland", "Switzerland uses the Swiss Franc."),
        ("what's the currency of the united states", "The United States uses the US Dollar."),
        (
            "what languages are spoken in switzerland",
            "The main languages of Switzerland are German, French and Italian.",
        ),
        ("what language do they speak in brazil", "The main language of Brazil is Portuguese."),
        ("how many people live in spain", "Spain had about 47 million people around 2014, the latest count I have."),
        ("what is the population of china", "China had about 1.4 billion people around 2014, the latest count I have."),
        ("how big is spain", "Spain covers about 506 thousand square kilometres."),
        ("what is the area of france", "France covers about 641 thousand square kilometres."),
    ],
)
def test_a_country_fact_is_answered_from_the_country_data(said: str, reply: str) -> None:
    assert _said(said) == ("country", reply)


@pytest.mark.parametrize(
    ("said", "starts"),
    [
        ("What's the largest country in the world by area?", "Russia is the largest country in the world, covering"),
        ("what is the biggest country", "Russia is the largest country"),
        ("What's the smallest country in the world?", "Vatican City State is the smallest country in the world"),
        ("which country has the most people", "India has the most people, by the United Nations' estimate since"),
        ("what is the most populous country in the world", "India has the most people"),
    ],
)
def test_the_worlds_largest_smallest_and_most_populous_countries_come_from_the_data(said: str, starts: str) -> None:
    skill, reply = _said(said)
    assert skill == "country" and reply.startswith(starts), reply


def test_the_most_people_says_how_old_its_count_is() -> None:
    reply = _said("which country has the most people")[1]
    assert "from around 2014, China had about 1.4 billion and India about 1.3 billion" in reply
    assert countries.ranked("most_people") == "CN"  # the data's own count, which the reply says is old


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        # The model said Nigeria was Africa's largest.
        (
            "what's the biggest country in africa",
            "Algeria is the largest country in Africa, covering about 2.4 million square kilometres.",
        ),
        (
            "What is the largest country in South America?",
            "Brazil is the largest country in South America, covering about 8.5 million square kilometres.",
        ),
        ("which country in north america is the biggest", "Canada is the largest country in North America, covering"),
        ("what is the largest country in europe", "Russia is the largest country in Europe, covering"),
        ("which country has the most people in africa", "Nigeria has the most people in Africa. In the latest count"),
        ("what is the most populous country in europe", "Russia has the most people in Europe."),
        ("what's the most populous country in asia", "India has the most people, by the United Nations' estimate"),
    ],
)
def test_a_continents_largest_and_most_populous_country_come_from_the_data(said: str, reply: str) -> None:
    skill, answer = _said(said)
    assert skill == "country" and answer.startswith(reply), answer


def test_asias_largest_country_is_china_wholly_in_it_and_russia_across_it() -> None:
    reply = _said("what is the largest country in asia")[1]
    assert (
        reply.startswith("China is the largest country wholly in Asia")
        and "Russia, which spans Europe and Asia" in reply
    )


@pytest.mark.parametrize(
    "said", ["what is the smallest country in africa", "what is the largest country in antarctica"]
)
def test_a_continents_smallest_country_or_an_unknown_continent_is_left_to_the_language_model(said: str) -> None:
    assert match(said) is None  # the data's smallest in a region is a territory (Macau, Anguilla), not a country


def test_a_country_is_found_by_its_other_names() -> None:
    assert countries.find("holland") == countries.find("the netherlands") == "NL"
    assert countries.find("burma") == countries.find("myanmar") == "MM"
    assert countries.find("eswatini") == countries.find("swaziland") == "SZ"
    assert countries.find("u s a") == countries.find("united states of america") == "US"
    assert countries.find("côte d'ivoire") == countries.find("ivory coast") == "CI"


@pytest.mark.parametrize(
    "said",
    [
        "what is the capital of texas",  # a state: the model may know it, the country data does not
        "what is the capital of atlantis",
        "how many people live in london",
        "what is the population of the world",
        "how big is the universe",
        "how big is it",  # "it" is Italy's code, never a country said
        "what currency do they use in scotland",  # a nation without an ISO code of its own: the data has no answer
        "what is the symbol for peace",  # "symbol for" alone names an element only when it is one
    ],
)
def test_a_place_the_data_does_not_hold_is_left_to_the_language_model(said: str) -> None:
    assert match(said) is None


def test_a_known_country_without_the_fact_says_so() -> None:
    assert _said("what is the capital of antarctica")[1] == "I don't have a capital for Antarctica."
    assert _said("what currency does antarctica use")[1] == "I don't have the currency of Antarctica."


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("what is the chemical symbol for gold", "The chemical symbol for gold is Au, spelled A, U."),
        ("what's the symbol for carbon", "The chemical symbol for carbon is C."),
        ("what is the chemical symbol of aluminium", "The chemical symbol for aluminium is Al, spelled A, L."),
        ("what is the atomic number of carbon", "The atomic number of carbon is 6."),
        ("what's oxygen's atomic number", "The atomic number of oxygen is 8."),
        ("which element has the symbol Fe", "Iron is element number 26, symbol Fe."),
        ("which element has the symbol f e", "Iron is element number 26, symbol Fe."),
        ("what does the symbol Na stand for", "Sodium is element number 11, symbol Na."),
        ("which element has atomic number seventy nine", "Gold is element number 79, symbol Au."),
        ("what is the atomic mass of carbon", "The atomic mass of carbon is 12.01."),
        ("how heavy is a gold atom", "The atomic mass of gold is 196.97."),
    ],
)
def test_an_element_fact_is_answered_from_the_periodic_table(said: str, reply: str) -> None:
    assert _said(said) == ("element", reply)


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("what is the chemical symbol for unobtainium", "I don't know an element called unobtainium."),
        ("what is the atomic number of water", "I don't know an element called water."),
        ("which element has the symbol Xq", "No element has the symbol Xq."),
        (
            "which element has the atomic number two hundred",
            "No element has atomic number 200: the known ones go up to 118, oganesson.",
        ),
    ],
)
def test_an_element_the_table_does_not_hold_is_answered_plainly_not_guessed(said: str, reply: str) -> None:
    assert _said(said) == ("element", reply)


def test_the_table_holds_every_named_element() -> None:
    assert [elements.by_number(n).name for n in (1, 26, 118)] == ["hydrogen", "iron", "oganesson"]  # type: ignore[union-attr]
    assert elements.by_number(119) is None and elements.by_symbol("Og") is not None


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("how many moons does mars have", "Mars has 2 moons: Phobos and Deimos."),
        ("how many moons has the earth got", "Earth has one moon: the Moon."),
        ("does venus have any moons", "Venus has no moons."),
        (
            "how many moons does jupiter have",
            "Jupiter has 95 known moons, as counted in 2024; more are still being found.",
        ),
        ("what is the largest planet", "Jupiter is the largest planet, about 143 thousand kilometres across."),
        (
            "what's the biggest planet in the solar system",
            "Jupiter is the largest planet, about 143 thousand kilometres across.",
        ),
        ("which planet is closest to the sun", "Mercury is the planet closest to the Sun."),
        ("how big is mars", "Mars is about 6790 kilometres across."),
        ("how big is the moon", "The Moon is about 3480 kilometres across."),
        ("which planet has the most moons", "Saturn has the most moons: 274 known, as counted in 2025."),
        (
            "which planet is the hottest",
            "Venus is the hottest planet, about 464 degrees Celsius on average: its thick air holds the heat, so it "
            "is hotter than Mercury, which is closer to the Sun.",
        ),
        (
            "what's the coldest planet",
            "Neptune is the coldest planet on average, about minus 200 degrees Celsius; the coldest air measured on "
            "a planet was on Uranus, minus 224.",
        ),
        # the model said the Sun was 1.5 million kilometres away, and the Moon 384,401 "approximately"
        ("How far away is the moon?", "The Moon is about 384 thousand kilometres from the Earth, on average."),
        ("what is the distance to the sun", "The Earth is about 150 million kilometres from the Sun, on average."),
        (
            "how far away is neptune",
            "Neptune is about 4.5 billion kilometres from the Sun, on average; its distance from the Earth changes "
            "as both go around the Sun.",
        ),
    ],
)
def test_the_planets_are_answered_from_the_small_table(said: str, reply: str) -> None:
    assert _said(said) == ("planet", reply)


def test_the_table_is_the_eight_planets_in_order() -> None:
    assert [p.name for p in sky.PLANETS] == [
        "Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"
    ]  # fmt: skip
    assert match("how many moons does pluto have") is None  # a dwarf planet: for the model


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("what day is christmas next year", "In 2027, Christmas Day falls on a Saturday."),
        ("what day of the week is christmas this year", "In 2026, Christmas Day falls on a Friday."),
        ("what day is christmas 2030", "In 2030, Christmas Day falls on a Wednesday."),
        ("is christmas day on a weekend this year", "In 2026, Christmas Day falls on a Friday."),
        ("when is easter next year", "In 2027, Easter Sunday falls on March the twenty eighth."),
        ("when is easter", "In 2027, Easter Sunday falls on March the twenty eighth."),  # 2026's has passed
        (
            "what day of the week was july the fourth 1976",
            "In 1976, Independence Day in the United States fell on a Sunday.",
        ),
        ("how many days until christmas", "There are 24 days until Christmas Day."),
        ("how many sleeps till christmas", "There are 24 days until Christmas Day."),
        ("how long until new year", "There are 31 days until New Year's Day."),
        ("how many days until halloween", "There are 334 days until Halloween."),  # next year's
        (
            "when is thanksgiving next year",
            "In 2027, Thanksgiving Day in the United States falls on Thursday, November the twenty fifth.",
        ),
    ],
)
def test_a_holiday_is_dated_by_the_holidays_calendars_and_the_trusted_clock(said: str, reply: str) -> None:
    assert _said(said) == ("holiday", reply)


def test_days_until_a_holiday_on_its_eve_and_on_the_day() -> None:
    assert _said("how many days until christmas", _skills(datetime.datetime(2026, 12, 24, 9)))[1] == (
        "Christmas Day is tomorrow."
    )
    assert _said("how many days until christmas", _skills(datetime.datetime(2026, 12, 25, 9)))[1] == (
        "It's Christmas Day today."
    )


def test_without_a_trusted_clock_only_a_year_said_is_answered() -> None:
    unset = _skills(trusted=False)
    assert _said("how many days until christmas", unset)[1] == UNSET_CLOCK
    assert _said("what day is christmas next year", unset)[1] == UNSET_CLOCK
    assert _said("is next year a leap year", unset)[1] == UNSET_CLOCK
    assert _said("what day is christmas 2027", unset)[1] == "In 2027, Christmas Day falls on a Saturday."
    assert _said("is 2028 a leap year", unset)[1] == "Yes, 2028 is a leap year."


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("what's the date next tuesday", "Tuesday is December the eighth."),  # the model: "March 15th"
        ("what date is friday", "Friday is December the fourth."),
        ("what date is it on tuesday", "Today is December the first."),
        ("what's the date next tuesday", "Tuesday is December the eighth."),
        ("what's tomorrow's date", "Tomorrow is Wednesday, December the second."),
        ("what is the date tomorrow", "Tomorrow is Wednesday, December the second."),
        ("What day is it tomorrow?", "Tomorrow is Wednesday, December the second."),  # was read as today's day
        ("which day is tomorrow", "Tomorrow is Wednesday, December the second."),
        ("what day was it yesterday", "Yesterday was Monday, November the thirtieth."),
        ("what was yesterday's date", "Yesterday was Monday, November the thirtieth."),
        ("what day will it be the day after tomorrow", "The day after tomorrow is Thursday, December the third."),
    ],
)
def test_the_date_of_a_day_ahead_is_read_off_the_clock(said: str, reply: str) -> None:
    assert _said(said) == ("date", reply)  # December 1st, 2026 is a Tuesday
    assert _said(said, _skills(trusted=False)) == ("date", UNSET_CLOCK)


@pytest.mark.parametrize(
    ("said", "zone", "place"),
    [
        ("what's the time in tokyo", "Asia/Tokyo", "Tokyo"),
        ("what time is it in new york right now", "America/New_York", "New York"),
        ("time in paris", "Europe/Paris", "Paris"),
        ("what's the time in japan", "Asia/Tokyo", "Japan"),  # a country with one zone
        ("what time is it in new delhi", "Asia/Kolkata", "New Delhi"),  # the capital of one
    ],
)
def test_the_time_in_another_place_is_the_boxs_clock_in_that_zone(said: str, zone: str, place: str) -> None:
    # NOTE: the model said "Sorry, I can't know the current time in Tokyo offline."
    at = datetime.datetime.fromtimestamp(DECEMBER_1.timestamp(), zoneinfo.ZoneInfo(zone))
    skill, reply = _said(said)
    assert skill == "world_time" and reply.startswith(f"In {place}, it's {say_clock(at.hour, at.minute)}")
    assert _said(said, _skills(trusted=False)) == ("world_time", UNSET_CLOCK)


def test_a_country_with_several_zones_asks_for_a_city_and_an_unknown_place_is_left_to_the_model() -> None:
    assert _said("what time is it in the united states") == (
        "world_time",
        "The United States has several time zones. Name a city, for example: what time is it in New York?",
    )
    assert _said("what time is it in australia")[1].endswith("what time is it in Canberra?")  # its capital's
    for said in ("what time is it in narnia", "what time is it in texas", "what time is it in beijing"):
        assert match(said) is None, said  # Beijing: China has two zones and the database does not say its


def test_without_a_clock_a_holiday_that_keeps_its_date_is_still_dated() -> None:
    unset = _skills(trusted=False)
    assert _said("what date is halloween", unset) == ("holiday", "Halloween is on October the thirty first every year.")
    assert _said("when is new year's day", unset)[1] == "New Year's Day is on January the first every year."
    day = _said("what day is christmas", unset)[1]
    assert day.startswith("Christmas Day is on December the twenty fifth; its weekday depends on the year")
    easter = _said("when is easter", unset)[1]
    assert easter.startswith("Easter Sunday moves from year to year") and "when is easter 2027" in easter


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("How many days are there in February 2024?", "February 2024 had 29 days."),  # the model said 28
        ("how many days does february 2028 have", "February 2028 has 29 days."),
        ("how many days were there in february 1900", "February 1900 had 28 days."),
        ("how many days in february", "February 2026 has 28 days."),  # this year's, from the trusted clock
        ("how many days are there in february next year", "February 2027 has 28 days."),
        ("how many days does june have", "June has 30 days."),
        ("how many days are in sept", "September has 30 days."),
        ("how many days has december got", "December has 31 days."),
    ],
)
def test_the_days_of_a_month_by_the_calendar(said: str, reply: str) -> None:
    assert _said(said) == ("month_days", reply)


def test_without_a_trusted_clock_februarys_days_depend_on_a_year_said() -> None:
    unset = _skills(trusted=False)
    assert _said("how many days are in february", unset)[1] == "February has 28 days, or 29 in a leap year."
    assert _said("how many days in february 2032", unset)[1] == "February 2032 has 29 days."
    assert _said("how many days in march", unset)[1] == "March has 31 days."
    assert _said("how many days in february next year", unset)[1] == "February has 28 days, or 29 in a leap year."
    assert _said("how many days are in a month")[0] == "convert"  # any month: the units' own answer


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("is 2028 a leap year", "Yes, 2028 is a leap year."),
        ("is twenty twenty eight a leap year", "Yes, 2028 is a leap year."),
        ("was 1900 a leap year", "No, 1900 isn't a leap year: a year ending in 00 is one only if it divides by 400."),
        ("was 2000 a leap year", "Yes, 2000 is a leap year."),
        ("will 2027 be a leap year", "No, 2027 isn't a leap year."),
        ("is this year a leap year", "No, 2026 isn't a leap year."),
        ("is it a leap year", "No, 2026 isn't a leap year."),  # the model answered "Yes, it is a leap year."
        ("are we in a leap year", "No, 2026 isn't a leap year."),
        ("when is the next leap year", "The next leap year is 2028."),
    ],
)
def test_leap_years_by_the_gregorian_rule(said: str, reply: str) -> None:
    assert _said(said) == ("leap_year", reply)


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("how do you spell necessary", "Necessary is spelled N, E, C, E, S, S, A, R, Y."),
        ("spell necessary", "Necessary is spelled N, E, C, E, S, S, A, R, Y."),
        ("can you spell rhythm for me", "Rhythm is spelled R, H, Y, T, H, M."),
        ("how is accommodate spelled", "Accommodate is spelled A, C, C, O, M, M, O, D, A, T, E."),
        ("spell the word mother-in-law", "Mother-in-law is spelled M, O, T, H, E, R, hyphen, I, N, hyphen, L, A, W."),
    ],
)
def test_a_word_is_spelled_letter_by_letter(said: str, reply: str) -> None:
    assert _said(said) == ("spell", reply)


@pytest.mark.parametrize(
    "said",
    [
        "how do you spell it",
        "can you spell that",
        "spell 42",
        "spell out the steps",
        "how do you spell check a document",
        "how do you spell your name",
    ],
)
def test_a_spelling_request_without_one_word_to_spell_goes_to_the_model(said: str) -> None:
    assert match(said) is None


@pytest.mark.parametrize(
    "said",
    [
        "how many legs does a spider have",
        "what is the boiling point of water",
        "what is a leap year",
        "why do we have leap years",
        "what is the sun made of",
        "how big is the sun",
        "what's the smallest country in europe",
        "which country has the fewest people",  # the data's smallest counts are territories, not countries
        "who discovered gold in california",
        "what day did the titanic sink",
    ],
)
def test_questions_near_the_facts_but_not_in_the_data_go_to_the_model(said: str) -> None:
    assert match(said) is None


def test_amounts_are_rounded_as_said() -> None:
    assert [say_about(v) for v in (46_507_760, 1_367_110_000, 8_183_800, 505_992, 12_742, 921)] == [
        "about 47 million", "about 1.4 billion", "about 8.2 million", "about 506 thousand", "about 12.7 thousand",
        "about 921",
    ]  # fmt: skip


def test_years_are_read_as_said() -> None:
    said = ("2028", "twenty twenty eight", "nineteen hundred", "the year 2000")
    assert [calendar_facts.read_year(s) for s in said] == [2028, 2028, 1900, 2000]
    assert calendar_facts.read_year("or not") is None


def test_a_fact_call_carries_what_the_answer_needs() -> None:
    assert match("what is the capital of spain") == SkillCall(
        "country", {"fact": "capital", "code": "ES", "country": "spain"}
    )
    assert match("what day is christmas next year") == SkillCall(
        "holiday", {"offset": 1, "holiday": "christmas", "ask": "day"}
    )


def test_a_capital_that_changed_after_the_data_was_made_is_the_new_one() -> None:
    assert countries.answer("KZ", "capital", "kazakhstan") == "The capital of Kazakhstan is Astana."
    assert countries.answer("BI", "capital", "burundi") == "The capital of Burundi is Gitega."


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        # NOTE: the model said "London is approximately 50 miles (80 kilometers) away from Paris."
        ("How far is London from Paris?", "London and Paris are about 340 kilometres, or 210 miles, apart"),
        ("what's the distance between new york and los angeles", "New York and Los Angeles are about 3,900 kilometres"),
        ("how far apart are tokyo and sydney", "Tokyo and Sydney are about 7,800 kilometres, or 4,900 miles,"),
        ("how many miles is it from berlin to moscow", "Berlin and Moscow are about 1,600 kilometres, or 1,000 miles"),
        ("how far is new york city from london", "New York and London are about 5,600 kilometres"),
        # cities no capital and no time zone is named for: GeoNames' (a spoken "Distance from Madrid to Barcelona."
        # went to the model)
        ("Distance from Madrid to Barcelona.", "Madrid and Barcelona are about 500 kilometres, or 310 miles,"),
        ("How far is Tokyo from Osaka?", "Tokyo and Osaka are about 400 kilometres"),
        ("how far is manchester from liverpool", "Manchester and Liverpool are about 50 kilometres"),
    ],
)
def test_the_distance_between_two_places_is_worked_out_from_their_coordinates(said: str, reply: str) -> None:
    skill, answer = _said(said)
    assert skill == "distance" and answer.startswith(reply) and answer.endswith("apart as the crow flies."), answer


@pytest.mark.parametrize(
    "said", ["how far is springfield from paris", "how far is it to the shops", "how far is the moon from paris"]
)
def test_a_distance_to_a_place_the_data_does_not_hold_is_left_to_the_language_model(said: str) -> None:
    assert match(said) is None
