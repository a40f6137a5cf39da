"""What reaches the voice: no markdown, emoji, code or URLs, but every word and number kept."""

from __future__ import annotations

import pytest

from daemon.turn.speakable import speakable


@pytest.mark.parametrize(
    ("raw", "spoken"),
    [
        ("The **capital** of _France_ is *Paris*.", "The capital of France is Paris."),
        ("It is 3.5 km long and costs $4.", "It is 3.5 km long and costs $4."),
        ("Great question! 😀🎉 Yes.", "Great question! Yes."),
        ("# Answer\nParis", "Answer. Paris."),
        ("- one\n- two\n1. three", "one. two. three."),
        ("Run `ls -l` now.", "Run ls -l now."),
        ("Code:\n```python\nprint(1)\n```\nDone.", "Code: Done."),
        ("See [the docs](https://example.org/x) or https://example.org.", "See the docs or."),
        ("snake_case_name and 2 * 3 = 6", "snake_case_name and 2 * 3 = 6."),
        ("It is 20°C 🇫🇷", "It is 20°C."),
        ("", ""),
    ],
)
def test_speakable(raw: str, spoken: str) -> None:
    assert speakable(raw) == spoken


def test_a_clause_cut_before_a_word_keeps_its_comma_so_the_voice_goes_on() -> None:
    assert speakable("Vaccines work by introducing a weakened,") == "Vaccines work by introducing a weakened,"
    assert speakable("| a | b |") == "a, b."  # a table row's pipes are no clause
