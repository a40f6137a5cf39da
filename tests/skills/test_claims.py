"""Claims checked against the data: a leading yes-or-no question about a country, an element or a planet is answered
from the data, right either way; two things compared name the right one; a claim naming anything the data does not
know stays the model's."""

from __future__ import annotations

import pytest

from daemon.box.asking import SilentSink
from daemon.skills.clock import BoxClock
from daemon.skills.facts import elements
from daemon.skills.intents import match, skill_vocabulary
from daemon.skills.skills import Skills
from daemon.turn.volume import VolumeSink


def _answer(said: str) -> str:
    call = match(said)
    assert call is not None and call.skill in ("claim", "element", "planet"), f"{said!r} went to {call}"
    return Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a").run(call).text


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("Is Sydney the capital of Australia?", "No. The capital of Australia is Canberra."),
        ("isn't sydney the capital of australia", "No. The capital of Australia is Canberra."),
        ("Sydney is the capital of Australia, right?", "No. The capital of Australia is Canberra."),
        # Nairobi misheard: no city the data knows, so the capital is said without a "no".
        ("Is narrow be the capital of Kenya?", "The capital of Kenya is Nairobi."),
        ("is the capital of canada toronto", "No. The capital of Canada is Ottawa."),
        ("Is Madrid the capital of Spain?", "Yes, Madrid is the capital of Spain."),
        ("is new delhi india's capital", "Yes, New Delhi is the capital of India."),
        ("Does Switzerland use the euro?", "No. Switzerland uses the Swiss Franc."),
        ("Do I use a euro in Norway?", "No. Norway uses the Norwegian Krone."),
        ("is the capital of vietnam ho chi minh city", "No. The capital of Vietnam is Hanoi."),
        ("can i pay in euros in poland", "No. Poland uses the Zloty."),
        ("do they use dollars in canada", "Yes. Canada uses the Canadian Dollar."),
        ("does canada use us dollars", "No. Canada uses the Canadian Dollar."),
        ("Does Britain use the euro?", "No. Britain uses the Pound Sterling."),
        (
            "Do they speak Spanish in Brazil?",
            "Spanish is not one of the main languages of Brazil. The main language of Brazil is Portuguese.",
        ),
        ("do mexicans speak spanish", "Yes, Spanish is the main language of Mexico."),
        (
            "is french spoken in belgium",
            "Yes, French is one of the main languages of Belgium. "
            "The main languages of Belgium are Dutch, French and German.",
        ),
    ],
)
def test_a_claim_about_a_country_is_confirmed_or_corrected(said: str, reply: str) -> None:
    assert _answer(said) == reply


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        (
            "Which is bigger, France or Spain?",
            "France is larger than Spain: about 641 thousand square kilometres against 506 thousand.",
        ),
        (
            "is italy bigger than spain",
            "No, Spain is larger than Italy: about 506 thousand square kilometres against 301 thousand.",
        ),
        (
            "which is smaller belgium or the netherlands",
            "Belgium is smaller than the Netherlands: about 30.5 thousand square kilometres against 41.9 thousand.",
        ),
        (
            "Which has more people, Germany or France?",
            "Germany has more people than France: about 81 million against 66 million, in the latest counts I have, "
            "from around 2014.",
        ),
        (
            "does australia have fewer people than canada",
            "Yes, Australia has fewer people than Canada: about 24 million against 36 million, in the latest "
            "counts I have, from around 2014.",
        ),
        # India passed China after the data's counts were made: the later estimate is the one said.
        (
            "does china have more people than india",
            "No. India has more people, by the United Nations' estimate since 2023.",
        ),
    ],
)
def test_two_countries_compared_name_the_right_one(said: str, reply: str) -> None:
    assert _answer(said) == reply


@pytest.mark.parametrize(
    ("said", "start"),
    [
        ("Is the symbol for gold Ag?", "No, the symbol for gold is Au. Ag is silver."),
        ("is fe the symbol for iron", "Yes, Fe is the symbol for iron."),
        (
            "Is gold heavier than silver?",
            "Yes, gold is heavier than silver for its size: 19.3 grams a cubic centimetre against 10.5.",
        ),
        # "Heavier" is for its size, as people mean it; atom for atom where that differs, and for two gases.
        (
            "which is heavier, lead or gold",
            "Gold is heavier than lead for its size: 19.3 grams a cubic centimetre against 11.3. "
            "Atom for atom, though, lead is heavier.",
        ),
        ("which is lighter helium or hydrogen", "Hydrogen is lighter than helium, atom for atom"),
        ("Is it the symbol for iron?", "The symbol for iron is Fe."),  # misheard: no symbol said, so no "no"
        ("How many elements are there?", "118 elements have been found and named, from hydrogen to oganesson."),
        ("What's the heaviest element?", "The heaviest element known is oganesson, element 118"),
        ("what is the lightest element", "The lightest element is hydrogen, element 1."),
        ("Is Pluto a planet?", "No, Pluto has been called a dwarf planet since 2006, not a planet."),
        ("is the sun a planet", "No, the Sun is a star."),
        ("is mars bigger than earth", "No, Earth is bigger than Mars: about 13,000 kilometres across against 6,800."),
        ("Is Mars' bigger than Earth?", "No, Earth is bigger than Mars"),  # a recogniser's possessive
        ("which planet is bigger venus or earth", "Earth is bigger than Venus: about 12,800 kilometres across against"),
        ("Is Venus the closest planet to the sun?", "No, Mercury is the closest planet to the Sun."),
        ("is neptune the farthest planet from the sun", "Yes, Neptune is the farthest planet from the Sun."),
        ("does mercury have a moon", "Mercury has no moons."),
        # what goes around what: the model said "Yes, the sun goes around the Earth."
        ("Does the sun go around the earth?", "No, the Earth goes around the Sun, once a year."),
        ("is the sun orbiting the earth", "No, the Earth goes around the Sun"),
        ("does the moon orbit the earth", "Yes, the Moon goes around the Earth, once every 27 days."),
        ("Does the Earth go around the Moon?", "No, the Earth goes around the Sun, once a year. The Moon goes around"),
        ("does the moon go around the sun", "Yes, with the Earth: the Moon goes around the Earth"),
        ("Does Mars revolve around the Earth?", "No, Mars goes around the Sun, once every 687 days."),
        ("does neptune go round the sun", "Yes, Neptune goes around the Sun, about once every 164 years."),
    ],
)
def test_a_claim_about_an_element_or_a_planet_is_checked(said: str, start: str) -> None:
    assert _answer(said).startswith(start)


@pytest.mark.parametrize(
    "said",
    [
        "is the capital of france beautiful",  # no city named last: an opinion asked
        "is it the capital of france",
        "is texas bigger than france",  # a state, not a country the data has
        "do they speak klingon in france",  # no language any country speaks
        "does france use bitcoin",
        "is the capital of scotland glasgow",  # not a country of the data: the model's
        "is gold a metal",
        "does the moon go around the earth or the sun",  # a choice asked, not a claim
        "how long does it take the earth to go around the sun",
        "does pluto go around the sun",  # no planet of the table
    ],
)
def test_a_claim_naming_what_the_data_does_not_know_stays_the_models(said: str) -> None:
    call = match(said)
    assert call is None or call.skill not in ("claim", "country", "element", "planet"), call


def test_the_claims_words_are_not_read_towards_when_a_command_is_misheard() -> None:
    # NOTE: "than" and "heavier" are every comparison's: a misheard command is never read as one.
    assert not {"than", "heavier", "lighter", "smaller"} & skill_vocabulary()


def test_an_element_heavier_in_nature_is_named_beside_the_heaviest_made() -> None:
    uranium = elements.by_number(elements.HEAVIEST_IN_NATURE)
    assert uranium is not None and str(uranium.name) == "uranium"
