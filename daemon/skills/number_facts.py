"""Whether a whole number is prime, odd or even, and its factors: worked out exactly, never guessed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from daemon.skills.amounts import parse_whole
from daemon.skills.call import Arg, SkillCall

INTENTS: Final = frozenset({"TalkboxNumberFact"})
LARGEST: Final = 10**12
"""The largest number looked at: its smallest factor is found by trial division up to a million, in a blink."""
TOO_BIG: Final = "I only look at whole numbers up to a trillion."
MOST_FACTORS: Final = 24
"""Factors said one by one; a number with more has its count said and its prime factors."""


def read(values: Mapping[str, object]) -> SkillCall | None:
    """The call a template match asks for, or None when what it names is no whole number (the model's then)."""
    number = parse_whole(str(values.get("number", "")))
    if number is None:
        return None
    args: dict[str, Arg] = {"number": number, "fact": str(values["fact"])}
    return SkillCall("number_fact", args | ({"prime": True} if values.get("prime") else {}))


def _smallest_factor(n: int) -> int:
    """The smallest factor of n (n > 1) above 1: n itself for a prime."""
    if n % 2 == 0:
        return 2
    k = 3
    while k * k <= n:
        if n % k == 0:
            return k
        k += 2
    return n


def prime_factors(n: int) -> list[int]:
    """n's prime factors, smallest first, each as often as it divides n (n > 1)."""
    found = []
    while n > 1:
        k = _smallest_factor(n)
        found.append(k)
        n //= k
    return found


def _divisors(n: int) -> list[int]:
    small = [k for k in range(1, int(n**0.5) + 1) if n % k == 0]
    return sorted(set(small + [n // k for k in small]))


def _listed(numbers: list[int], joint: str) -> str:
    said = [str(k) for k in numbers]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])}{joint}{said[-1]}"


def answer(args: Mapping[str, object]) -> str:
    """What the box says: yes or no and why, the parity, or the factors."""
    n, fact = int(str(args["number"])), str(args["fact"])
    if abs(n) > LARGEST:
        return TOO_BIG
    if fact in ("odd", "even", "parity"):
        parity = "even" if n % 2 == 0 else "odd"
        if fact == "parity":
            return f"{n} is {parity}."
        return f"Yes, {n} is {parity}." if parity == fact else f"No, {n} is {parity}."
    if n < 2:
        why = "a prime is a whole number above 1 that only 1 and itself divide"
        return f"{n} has no prime factors: {why}." if fact == "factors" else f"No, {n} is not a prime number: {why}."
    if fact == "prime":
        k = _smallest_factor(n)
        return f"Yes, {n} is a prime number." if k == n else f"No, {n} is not a prime number: it's {k} times {n // k}."
    primes = prime_factors(n)
    if len(primes) == 1:
        return f"{n} is a prime number: its only factors are 1 and {n}."
    product = f"{n} is {_listed(primes, ' times ').replace(', ', ' times ')}."
    divisors = _divisors(n)
    if args.get("prime") or len(divisors) > MOST_FACTORS:
        return product if args.get("prime") else f"{n} has {len(divisors)} factors. {product}"
    return f"The factors of {n} are {_listed(divisors, ' and ')}. {product}"
