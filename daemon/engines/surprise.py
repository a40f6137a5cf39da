"""How unlikely the model finds the words it read: each token's log-probability, kept by position in its cache.

Misheard words read as nonsense to a language model ("How many brands are in a cute brand?"), however sure the
recogniser was of them; the turn asks again instead of answering them (daemon/turn/run.py).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence

import numpy as np


def log_softmax_at(logits: np.ndarray, token: int) -> float:
    """log P(token) under one row of logits."""
    row = logits.astype(np.float64)
    top = row.max()
    return float(row[token] - top - math.log(np.exp(row - top).sum()))


def _score(logits: np.ndarray | None, token: int) -> float:
    return math.nan if logits is None else log_softmax_at(logits, token)


class TokenScores:
    """The log-probability of each token the model read with its logits kept, for the tokens before it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # NOTE: read by the turn while the model's thread may be recording
        self._tokens: list[int] = []
        self._logprobs: list[float] = []
        """`_logprobs[k]`: log P(`_tokens[k]` | `_tokens[:k]`); NaN where not known."""
        self._last: np.ndarray | None = None
        """The last row read (the next token's logits), for the prefix `_tokens`."""

    def known_at(self, prompt: Sequence[int], position: int) -> bool:
        """Whether the score of `prompt[position]` is known, or will be from the last row kept."""
        with self._lock:
            return self._known_at(list(prompt), position)

    def _known_at(self, prompt: list[int], position: int) -> bool:
        if self._tokens[: position + 1] == list(prompt[: position + 1]) and not math.isnan(self._logprobs[position]):
            return True
        return self._last is not None and self._tokens == list(prompt[:position])

    def record(self, prompt: Sequence[int], start: int, row: Callable[[int], np.ndarray | None]) -> None:
        """Score `prompt` read from position `start` on, row i of `row` holding the logits after prompt[start + i]
        (None where they were not kept)."""
        prompt = list(prompt)
        if start >= len(prompt):
            return
        with self._lock:
            self._record(prompt, start, row)

    def _record(self, prompt: list[int], start: int, row: Callable[[int], np.ndarray | None]) -> None:
        if self._last is not None and self._tokens == prompt[:start]:
            first = log_softmax_at(self._last, prompt[start])
        elif self._tokens[: start + 1] == prompt[: start + 1]:
            first = self._logprobs[start]
        else:
            first = math.nan
        same = next((i for i, (a, b) in enumerate(zip(self._tokens, prompt[:start], strict=False)) if a != b), None)
        kept = min(start, len(self._tokens)) if same is None else same
        read = prompt[start:]
        self._logprobs = [
            *self._logprobs[:kept],
            *([math.nan] * (start - kept)),
            first,
            *(_score(row(i), read[i + 1]) for i in range(len(read) - 1)),
        ]
        self._tokens = prompt
        last = row(len(read) - 1)
        self._last = None if last is None else last.copy()

    def mean(self, prompt: Sequence[int], start: int, end: int) -> float | None:
        """The mean log-probability of prompt[start:end] (None unless every one is known for these tokens)."""
        with self._lock:
            return self._mean(list(prompt), start, end)

    def _mean(self, prompt: list[int], start: int, end: int) -> float | None:
        if end <= start or len(self._tokens) < end or self._tokens[:end] != list(prompt[:end]):
            return None
        span = self._logprobs[start:end]
        return None if any(math.isnan(x) for x in span) else sum(span) / len(span)
