"""The model's doubt about what it claims: a number or a name it gave little chance as it said it.

A wrong answer from the 1.5B is as fluent as a right one, but the tokens that carry its claim (a year, a price, a
name) are often ones it was unsure of; the box then says so after the answer, so that the listener knows which
answers to check.
"""

from __future__ import annotations

import re
from typing import Final

UNSURE: Final = "I'm not sure of that, though."
"""Said after an answer the model was unsure of."""
_DIGIT: Final = re.compile(r"\d")
_CHOICE: Final = re.compile(
    r"\b(suggest|recommend|ideas?|(what|which)('s| is| are)? (a |an |some )?(good|nice|fun|great)|"
    r"(what|which) (\w+ )?(should|shall|could|can) (i|we)|name (my|our|a|the)|tell me a|give me (a|an|some))\b"
)
"""A question asking for a choice (a suggestion, a name, a joke): the model's chance is spread over many good
answers, so a name it picks is not a claim it doubts ("I suggest Monopoly or Clue." was hedged: 5 of the tune half's
9 right answers hedged at -1.5 were suggestions)."""
_SENTENCE_END: Final = (".", "!", "?", ":")


class Doubt:
    """Follows one answer token by token: whether a claim in it was one the model gave little chance."""

    def __init__(self, below: float, question: str = "") -> None:
        """`below`: a claim's log-probability under which the answer is doubted (llm.hedge_below); a `question`
        asking for a choice is never doubted."""
        self._below = below if _CHOICE.search(question.lower()) is None else float("-inf")
        self._sentence_start = True
        self.unsure = False
        """A claim so far fell below the line."""

    def feed(self, text: str, logprob: float) -> None:
        """One generated token's text and the log-probability the model gave it."""
        word = text.strip()
        if not word:
            return
        # NOTE: a claim is a number or a name (capitalised within a sentence): the words around it are phrasing,
        # where a right answer is as often unsure as a wrong one ("The capital ... is" vs "Its capital is").
        claim = bool(_DIGIT.search(word)) or (word[0].isupper() and not self._sentence_start and word != "I")
        if claim and logprob < self._below:
            self.unsure = True
        self._sentence_start = word.endswith(_SENTENCE_END)
