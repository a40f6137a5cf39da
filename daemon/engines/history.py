"""Conversation memory that always fits the model's context window."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Final

from daemon.ports import Exchange

Message = dict[str, str]
MAX_REMEMBERED_TURNS: Final = 32
"""Beyond this many exchanges the oldest is forgotten even if tokens remain (bounds memory)."""


class Conversation:
    """The exchanges of the current conversation, oldest first."""

    def __init__(self, max_turns: int = MAX_REMEMBERED_TURNS) -> None:
        self._turns: deque[Exchange] = deque(maxlen=max_turns)

    def __len__(self) -> int:
        return len(self._turns)

    def add(self, question: str, answer: str) -> None:
        """Remember a finished exchange."""
        self._turns.append(Exchange(question, answer))

    def amend_last_answer(self, answer: str) -> None:
        """Replace the last answer, e.g. with only the part that was spoken before an interruption."""
        if self._turns:
            last = self._turns.pop()
            self._turns.append(Exchange(last.question, answer))

    def drop_last(self, question: str) -> None:
        """Forget the last exchange if it was the answer to `question`."""
        if self._turns and self._turns[-1].question == question:
            self._turns.pop()

    def exchanges(self) -> tuple[Exchange, ...]:
        """The exchanges, oldest first."""
        return tuple(self._turns)

    def clear(self) -> None:
        """Forget everything."""
        self._turns.clear()

    def drop_oldest(self) -> None:
        """Forget the oldest exchange."""
        self._turns.popleft()

    def messages(self, system: str, question: str) -> list[Message]:
        """Chat messages: system prompt, remembered exchanges, then the new question."""
        msgs = [{"role": "system", "content": system}] if system else []
        for ex in self._turns:
            msgs += [{"role": "user", "content": ex.question}, {"role": "assistant", "content": ex.answer}]
        msgs.append({"role": "user", "content": question})
        return msgs

    def fit(
        self, system: str, question: str, count_tokens: Callable[[list[Message]], int], budget: int
    ) -> tuple[list[Message], int]:
        """Drop the oldest exchanges until the prompt fits in `budget` tokens; return it and its size."""
        while True:
            msgs = self.messages(system, question)
            n = count_tokens(msgs)
            if n <= budget or not self._turns:
                return msgs, n
            self.drop_oldest()
