"""llama.cpp's logits read in place, and batches decoded with the rows asked for kept (llama-cpp-python keeps one)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def logits_of(llm: Any, i: int = -1) -> np.ndarray:
    """The logits llama.cpp kept for output `i` of the last batch (-1: its last token), without a copy."""
    import llama_cpp

    return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, i), shape=(llm.n_vocab(),))


def decode_keeping(
    llm: Any, tokens: list[int], keep: Callable[[int], bool], give_way: Callable[[], bool] | None = None, piece: int = 0
) -> dict[int, np.ndarray]:
    """Evaluate `tokens` after the cached ones (in batches of the context's size, or of `piece`), keeping the logits
    after each position `keep` says (and the last); copies of those rows, by position in `tokens`.

    With `give_way`, asked before each batch: True stops there, with `llm.n_tokens` where the evaluation got to.
    """
    start = llm.n_tokens
    llm._ctx.kv_cache_seq_rm(-1, start, -1)
    rows: dict[int, np.ndarray] = {}
    step = min(piece, llm.n_batch) if piece > 0 else llm.n_batch
    for first in range(0, len(tokens), step):
        if give_way is not None and give_way():
            break
        batch = tokens[first : first + step]
        llm._batch.set_batch(batch=batch, n_past=start + first, logits_all=False)
        kept = [j for j in range(len(batch)) if keep(first + j) or first + j == len(tokens) - 1]
        for j in kept:
            llm._batch.batch.logits[j] = True
        llm._ctx.decode(llm._batch)
        llm.input_ids[start + first : start + first + len(batch)] = batch
        llm.n_tokens = start + first + len(batch)
        rows.update({first + j: logits_of(llm, j).copy() for j in kept})
    return rows
