"""The model's doubt: about what it claims (a number or a name it gave little chance as it said it), and about
answering at all (an apology it considered before its first word).

A wrong answer from the 1.5B is as fluent as a right one, but the tokens that carry its claim (a year, a price, a
name) are often ones it was unsure of; the box then says so after the answer, so that the listener knows which
answers to check. Asked what no offline box can know ("Who won the Formula One race this weekend?"), it often
answers with a guess, yet gives its first word being an apology a chance it never gives a question it can answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import numpy as np

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
_MADE_UP: Final = re.compile(
    r"(please |(can|could|will|would) you )?(write|compose|make up|invent|create|sing) (me |us )?(a|an|some|another)\b"
)
"""A poem or a story asked for: no claim at all ("Write me a haiku about autumn." ended "Silence fills the air. I'm
not sure of that, though."). Only as the request itself: "how do I write a cheque" asks how it is done."""
_SENTENCE_END: Final = (".", "!", "?", ":")


_TO_THE_BOX: Final = re.compile(r"\b(you|your|yours|yourself)\b")
"""A question put to the box itself: the model answers it as itself ("How are you today?", "Are you sentient?" gave
an apology 0.016 and 0.009, and were answered "Sorry, I can't know today's news or weather." and "Sorry, but I can't
know that offline.")."""


def asks_for_a_choice(question: str) -> bool:
    """Whether `question` asks for a suggestion, a name, a joke or a poem: any of many answers would do."""
    asked = question.lower()
    return _CHOICE.search(asked) is not None or _MADE_UP.match(asked) is not None


class Doubt:
    """Follows one answer token by token: whether a claim in it was one the model gave little chance."""

    def __init__(self, below: float, question: str = "") -> None:
        """`below`: a claim's log-probability under which the answer is doubted (llm.hedge_below); a `question`
        asking for a choice is never doubted."""
        self._below = below if not asks_for_a_choice(question) else float("-inf")
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


APOLOGIES: Final = ("Sorry", "Unfortunately")
"""Words an answer opens with when the model would rather not answer (their first tokens are weighed)."""


class Apology:
    """A llama-cpp-python logits processor: the answer opens with the model's likelier apology when, before its first
    word, the model gave the apologies together at least `above` chance (a question asking for a choice, or put to
    the box itself, never)."""

    def __init__(self, starts: Sequence[int], above: float, question: str = "") -> None:
        self._starts = np.asarray(starts, dtype=np.intp)
        put_to_it = _TO_THE_BOX.search(question.lower()) is not None
        self._above = above if not asks_for_a_choice(question) and not put_to_it else float("inf")
        self._first = True
        self.chance = 0.0
        """The chance the model gave the apologies before its first word."""
        self.taken = False
        """The answer was made to open with an apology."""

    def over(self, text: str) -> bool:
        """Whether an answer made to apologise is over with this piece of it: at the end of its first sentence."""
        # NOTE: what followed was as often a guess as advice ("Unfortunately, I don't have real-time information
        # about the latest Formula One race results. The winner of this weekend's race was ...").
        return self.taken and text.rstrip().endswith((".", "!", "?"))

    def __call__(self, _input_ids: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """The first token's logits, with the apology made certain if it is taken; later ones as they are."""
        if not self._first or not len(self._starts):
            return scores
        self._first = False
        logits = scores.astype(np.float64)
        weights = np.exp(logits - logits.max())
        self.chance = float(weights[self._starts].sum() / weights.sum())
        if self.chance < self._above:
            return scores
        self.taken = True
        chosen = scores.copy()
        best = self._starts[int(np.argmax(logits[self._starts]))]
        chosen[best] = scores.max() + 50.0  # NOTE: certain under any temperature, and the rest left as it was
        return chosen
