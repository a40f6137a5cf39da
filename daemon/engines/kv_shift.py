"""Forgotten exchanges taken out of the model's cache and the rest moved up, so a conversation that forgot its older
half is not read again (llama.cpp's own context shift: the kept entries' rotary positions are shifted, not computed)."""

from __future__ import annotations

import logging
from typing import Any, Final

_LOGGER = logging.getLogger(__name__)

MIN_KEPT_TOKENS: Final = 16
"""The least run of the new prompt that must follow the forgotten stretch in the cache: shorter, reading is as cheap."""


def shared_prefix(cached: list[int], tokens: list[int]) -> int:
    """How many leading tokens `cached` and `tokens` have in common."""
    differ = (i for i, (a, b) in enumerate(zip(cached, tokens, strict=False)) if a != b)
    return next(differ, min(len(cached), len(tokens)))


def _found(cached: list[int], run: list[int], start: int) -> int:
    """Where `run` first begins in `cached` at or after `start`, or -1."""
    first, width = run[0], len(run)
    for at in range(start, len(cached) - width + 1):
        if cached[at] == first and cached[at : at + width] == run:
            return at
    return -1


def shift_out(llm: Any, tokens: list[int]) -> int:
    """If `tokens` is the cached prompt with one stretch after their shared start left out (the older exchanges a
    conversation forgot), take the stretch out of `llm`'s cache and move the rest up; the tokens taken out (0: none)."""
    n = int(llm.n_tokens)
    cached: list[int] = llm.input_ids[:n].tolist()
    common = shared_prefix(cached, tokens)
    run = tokens[common : common + MIN_KEPT_TOKENS]
    if len(run) < MIN_KEPT_TOKENS or common + MIN_KEPT_TOKENS > n:
        return 0
    at = _found(cached, run, common + 1)
    if at < 0:
        return 0
    import llama_cpp

    ctx = llm._ctx
    if ctx.memory is None or not llama_cpp.llama_memory_can_shift(ctx.memory):
        return 0  # the model's cache cannot move its entries: the rest is read again
    gone = at - common
    if not ctx.kv_cache_seq_rm(0, common, at):
        return 0
    ctx.kv_cache_seq_shift(0, at, n, -gone)
    llm.input_ids[common : n - gone] = llm.input_ids[at:n]
    llm.n_tokens = n - gone
    _LOGGER.debug("took %d forgotten tokens out of the cache, moved %d up", gone, n - at)
    return gone
