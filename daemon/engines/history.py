"""Conversation memory that always fits the model's context window."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Final

from daemon.engines.kv_shift import shared_prefix
from daemon.ports import Exchange

_LOGGER = logging.getLogger(__name__)

Message = dict[str, str]
MAX_REMEMBERED_TURNS: Final = 16
"""Reaching this many exchanges, the older half is forgotten even if tokens remain (bounds memory and prompt)."""


def question_begins(tokens: Callable[[list[Message]], list[int]], messages: list[Message], asked: list[int]) -> int:
    """Where the words of the last (user) message begin in `asked`, the tokens of `messages`."""
    return shared_prefix(asked, tokens([*messages[:-1], {"role": "user", "content": "!"}]))


class Conversation:
    """The exchanges of the current conversation, oldest first; the box's `ConversationMemory` (any thread).

    Old exchanges are forgotten in halves, not one by one: the model's cache holds the prompt it read last, and
    forgetting the oldest exchange at every turn changed the prompt's start at every turn, so each question read the
    whole conversation again (1,100 tokens, 17 s of a 1.5B brain's reading here, after 32 exchanges).
    """

    def __init__(
        self,
        max_turns: int = MAX_REMEMBERED_TURNS,
        forget_after_s: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._turns: deque[Exchange] = deque()
        self._max_turns = max(1, max_turns)
        self._forget_after_s = forget_after_s
        self._clock = clock
        self._last = clock()
        self.lock = threading.RLock()
        """Held across a read and a change that must see the same exchanges (the model fitting its prompt)."""

    # -- the ConversationMemory port ---------------------------------------------------------------------

    def forget(self) -> None:
        """Drop the conversation history."""
        self.clear()

    def truncate_answer(self, question: str, spoken: str) -> None:
        """Remember only what the user heard of the latest answer to `question`."""
        with self.lock:
            if (i := self._latest(question)) is not None:
                self._turns[i] = Exchange(self._turns[i].question, spoken)

    def retract(self, question: str) -> None:
        """Forget the latest exchange that answered `question` (an early answer nobody heard)."""
        with self.lock:
            if (i := self._latest(question)) is not None:
                del self._turns[i]

    def remembered(self) -> tuple[Exchange, ...]:
        """The conversation, oldest exchange first."""
        return self.exchanges()

    def remember(self, exchanges: tuple[Exchange, ...]) -> None:
        """Put exchanges back into the conversation (after a restart)."""
        with self.lock:
            for ex in exchanges:
                self.add(ex.question, ex.answer)

    # -- the model's side ----------------------------------------------------------------------------------

    def __len__(self) -> int:
        with self.lock:
            self._expire()
            return len(self._turns)

    def add(self, question: str, answer: str) -> bool:
        """Remember a finished exchange; whether the older half of a full conversation was forgotten first."""
        with self.lock:
            self._expire()
            full = len(self._turns) >= self._max_turns
            if full:
                self._drop_oldest_half()
            self._turns.append(Exchange(question, answer))
            self._last = self._clock()
            return full

    def _expire(self) -> None:
        """Forget a conversation nobody added to for `forget_after_s`: a question asked later starts afresh."""
        # NOTE: a question an hour later is rarely about the last one, and the exchanges before it still cost their
        # tokens in every prompt; Home Assistant ends its chat sessions after 5 minutes too.
        idle = self._clock() - self._last
        if self._turns and 0 < self._forget_after_s < idle:
            _LOGGER.info("forgot a conversation of %d exchange(s), idle %.0f s", len(self._turns), idle)
            self._turns.clear()

    def _latest(self, question: str) -> int | None:
        """Where the latest exchange answering `question` is (another answer may have come after it)."""
        # NOTE: an early answer nobody heard can finish after the next answer was remembered: not always the last.
        question = " ".join(question.split())
        return next((i for i in reversed(range(len(self._turns))) if self._turns[i].question == question), None)

    def exchanges(self) -> tuple[Exchange, ...]:
        """The exchanges, oldest first."""
        with self.lock:
            self._expire()
            return tuple(self._turns)

    def clear(self) -> None:
        """Forget everything."""
        with self.lock:
            self._turns.clear()

    def _drop_oldest_half(self) -> None:
        """Forget the older half of the exchanges (at least one): the prompt then keeps its start for many turns."""
        for _ in range((len(self._turns) + 1) // 2):
            self._turns.popleft()

    def messages(self, system: str, question: str, alone: bool = False) -> list[Message]:
        """Chat messages: system prompt, remembered exchanges (none if the question is asked `alone`), then the new
        question."""
        with self.lock:
            self._expire()
            return self._messages(system, question, alone)

    def _messages(self, system: str, question: str, alone: bool = False) -> list[Message]:
        msgs = [{"role": "system", "content": system}] if system else []
        for ex in () if alone else self._turns:
            msgs += [{"role": "user", "content": ex.question}, {"role": "assistant", "content": ex.answer}]
        msgs.append({"role": "user", "content": question})
        return msgs

    def fit(
        self,
        system: str,
        question: str,
        count_tokens: Callable[[list[Message]], int],
        budget: int,
        alone: bool = False,
    ) -> tuple[list[Message], int]:
        """Forget the older half of the exchanges until the prompt fits in `budget` tokens; return it and its size
        (a question asked `alone` is asked without them, and they are kept)."""
        with self.lock:
            self._expire()
            while True:
                msgs = self._messages(system, question, alone)
                n = count_tokens(msgs)
                if n <= budget or not self._turns or alone:
                    return msgs, n
                self._drop_oldest_half()


def referenced(messages: list[Message], reference: str) -> list[Message]:
    """`messages` with `reference` after the question, in its message: the prompt up to the question's end stays
    the one prefilled while the user spoke, and the conversation remembers the question alone."""
    *before, question = messages
    return [*before, {**question, "content": f"{question['content']}\n\n{reference}"}]


def whole_sentences(text: str) -> str:
    """`text` up to the end of its last whole sentence (all of it if none ends): an answer cut at its token limit."""
    ends = [m.end() for m in re.finditer(r"[.!?](?=[\s\"')]|$)", text)]
    return text[: ends[-1]] if ends else text
