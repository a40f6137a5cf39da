"""Whether a whole number is prime, odd or even, and its factors: worked out exactly; the rest left to the model."""

from __future__ import annotations

import pytest

from daemon.skills import number_facts
from daemon.skills.intents import match
from tests.skills.test_facts import _said


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("is 17 a prime number", "Yes, 17 is a prime number."),
        ("is ninety one prime", "No, 91 is not a prime number: it's 7 times 13."),
        ("is 1 a prime number", "No, 1 is not a prime number: a prime is a whole number above 1 that only 1 and itself "
         "divide."),
        ("is 999999999989 a prime number", "Yes, 999999999989 is a prime number."),
        ("is 343 an odd number", "Yes, 343 is odd."),
        ("is zero an even number", "Yes, 0 is even."),
        ("is 7 even", "No, 7 is odd."),
        ("is 12 odd or even", "12 is even."),
        ("what are the factors of 36", "The factors of 36 are 1, 2, 3, 4, 6, 9, 12, 18 and 36. 36 is 2 times 2 times 3 "
         "times 3."),
        ("what are the prime factors of 60", "60 is 2 times 2 times 3 times 5."),
        ("what are the factors of 720", "720 has 30 factors. 720 is 2 times 2 times 2 times 2 times 3 times 3 "
         "times 5."),
        ("is 10000000000000 prime", number_facts.TOO_BIG),
    ],
)  # fmt: skip
def test_a_numbers_facts_are_worked_out_exactly(said: str, reply: str) -> None:
    assert _said(said) == ("number_fact", reply)


def test_prime_factors_multiply_back_to_the_number() -> None:
    for n in (2, 97, 360, 1001, 65536, 999999999989, 600851475143):
        factors = number_facts.prime_factors(n)
        product = 1
        for k in factors:
            product *= k
        assert product == n and all(number_facts.prime_factors(k) == [k] for k in set(factors))


@pytest.mark.parametrize(
    "said",
    ["what is a prime number", "is 2.5 prime", "who is the prime minister of canada", "what is an odd number",
     "what are the factors that cause climate change"],
)  # fmt: skip
def test_questions_about_numbers_in_general_stay_the_models(said: str) -> None:
    assert match(said) is None
