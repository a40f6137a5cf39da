"""The end-of-turn judge's own llama.cpp context: P(the turn ends after these words), beside the answer's context.

It shares the model's weights (loaded once) and holds its own cache of the plain prompt (the conversation and the
words, no passage), so a judgement costs the new words only, whatever the answer's context is reading meanwhile.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

PIECE_TOKENS: Final = 32
"""Tokens evaluated at a time: the judge reads words, never a passage, so its context needs no bigger batch (and
llama.cpp sizes the context's working memory by it)."""


class JudgeContext:
    """A second context on a loaded model, evaluating one growing prompt and giving its last token's logits."""

    def __init__(self, llm: Any, n_ctx: int, threads: tuple[int, int]) -> None:
        import llama_cpp
        from llama_cpp import _internals

        # NOTE: the answer context's settings (RoPE, attention, cache types), so P(end) is the one it would give.
        params = llama_cpp.llama_context_params.from_buffer_copy(llm.context_params)
        params.n_ctx = n_ctx
        params.n_batch = params.n_ubatch = PIECE_TOKENS
        params.n_threads, params.n_threads_batch = threads
        self._ctx = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
        self._batch = _internals.LlamaBatch(n_tokens=PIECE_TOKENS, embd=0, n_seq_max=1, verbose=False)
        self._vocab: int = llm.n_vocab()
        self._ids: list[int] = []

    def set_threads(self, n_threads: int, n_threads_batch: int) -> None:
        """Threads for the next evaluation."""
        self._ctx.set_n_threads(n_threads, n_threads_batch)

    def last_logits(self, tokens: list[int]) -> np.ndarray:
        """Evaluate `tokens` (reusing the common cached prefix, its last token again) and return that token's logits."""
        import llama_cpp

        common = next((i for i, (a, b) in enumerate(zip(self._ids, tokens, strict=False)) if a != b), None)
        common = min(len(self._ids), len(tokens)) if common is None else common
        common = min(common, len(tokens) - 1)
        self._ctx.kv_cache_seq_rm(-1, common, -1)
        del self._ids[common:]
        for start in range(common, len(tokens), PIECE_TOKENS):
            piece = tokens[start : start + PIECE_TOKENS]
            self._batch.set_batch(piece, n_past=len(self._ids), logits_all=False)
            try:
                self._ctx.decode(self._batch)
            except RuntimeError:
                self.forget()  # what the failed piece left in the cache is unknown
                raise
            self._ids.extend(piece)
        pointer = llama_cpp.llama_get_logits_ith(self._ctx.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._vocab,)).astype(np.float64)

    def forget(self) -> None:
        """Drop everything evaluated."""
        self._ctx.kv_cache_clear()  # type: ignore[no-untyped-call]
        self._ids.clear()

    def close(self) -> None:
        """Free the context (before its model)."""
        self._batch.close()  # type: ignore[no-untyped-call]
        self._ctx.close()  # type: ignore[no-untyped-call]
