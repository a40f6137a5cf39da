"""The conversation's cached prompt kept aside while a question that stands on its own is answered, then put back.

A question asked without the conversation overwrites its cached tokens after the system prompt: the follow-up to it
then read the whole conversation again (178-417 tokens, 4.6-6.9 s before its first word here, the pause before it
too short to read them back in). llama.cpp copies one sequence's cache out and in (`llama_state_seq_get_data`,
`llama_state_seq_set_data`): a few MB per hundred tokens of a 1.5B, in milliseconds.
"""

from __future__ import annotations

import ctypes
import logging
from typing import Any, Final

from daemon.engines.kv_shift import shared_prefix

_LOGGER = logging.getLogger(__name__)

WORTH_KEEPING: Final = 32
"""Cached tokens of the conversation a prompt must overwrite for them to be kept aside (fewer are read again)."""
WORTH_BRINGING: Final = 16
"""Tokens more of a prompt the kept cache must hold than the model's own for it to be put back."""


class Aside:
    """One cached prompt of sequence 0, copied out of a llama-cpp-python model and put back (once, or as often as
    a prompt begins with it if `held`)."""

    def __init__(self, held: bool = False) -> None:
        self._tokens: list[int] = []
        self._state = b""
        self._held = held

    def keep(self, llm: Any, prompt: list[int], conversation: list[int]) -> None:
        """Copy the cache out if evaluating `prompt` would overwrite more of `conversation` (the prompt every next
        question shares) than is kept already."""
        cached: list[int] = llm.input_ids[: llm.n_tokens].tolist()
        held = shared_prefix(cached, conversation)
        if held - shared_prefix(cached, prompt) < WORTH_KEEPING or held <= shared_prefix(self._tokens, conversation):
            return
        self.hold(llm)

    def hold(self, llm: Any) -> None:
        """Copy the cache out as it is."""
        if (copied := copy_out(llm)) is not None:
            self._tokens, self._state = copied
            _LOGGER.debug("kept %d cached tokens aside (%d bytes)", len(self._tokens), len(self._state))

    @property
    def kept(self) -> tuple[list[int], bytes]:
        """The tokens kept and llama.cpp's copy of their cache (none: empty)."""
        return self._tokens, self._state

    def hold_copy(self, tokens: list[int], state: bytes) -> None:
        """Keep a copy made before (by copy_out, in this process or an earlier one)."""
        self._tokens, self._state = tokens, state

    def bring_back(self, llm: Any, prompt: list[int]) -> bool:
        """Put the kept cache back if it holds more of `prompt` than the model's does; whether it did."""
        if not self._tokens:
            return False
        cached: list[int] = llm.input_ids[: llm.n_tokens].tolist()
        if shared_prefix(self._tokens, prompt) < shared_prefix(cached, prompt) + WORTH_BRINGING:
            return False
        tokens, state = self._tokens, self._state
        if not self._held:
            self.drop()
        if not copy_in(llm, tokens, state):
            _LOGGER.warning("the conversation's cache could not be put back: it is read again")
            return False
        _LOGGER.debug("put %d cached tokens back", len(tokens))
        return True

    def drop(self) -> None:
        """Forget what is kept."""
        self._tokens, self._state = [], b""


def copy_out(llm: Any) -> tuple[list[int], bytes] | None:
    """The cached tokens of sequence 0 and llama.cpp's copy of their cache; None if it copied nothing."""
    import llama_cpp

    ctx = llm._ctx.ctx
    size = llama_cpp.llama_state_seq_get_size(ctx, 0)
    buffer = (ctypes.c_uint8 * size)()
    wrote = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
    return (llm.input_ids[: llm.n_tokens].tolist(), ctypes.string_at(buffer, wrote)) if wrote else None


def copy_in(llm: Any, tokens: list[int], state: bytes) -> bool:
    """Make a copy of `tokens`' cache the model's cache; whether llama.cpp took it (if not, nothing is cached)."""
    import llama_cpp

    llm._ctx.kv_cache_seq_rm(0, -1, -1)
    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    if not state or not llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(state), 0):
        llm._ctx.kv_cache_seq_rm(0, -1, -1)  # nothing half put back: the prompt is read again
        llm.n_tokens = 0
        return False
    llm.input_ids[: len(tokens)] = tokens
    llm.n_tokens = len(tokens)
    return True
