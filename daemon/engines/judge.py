"""A small chat model's judgement of which of the recogniser's guesses is what a person says to the box."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from daemon.errors import ModelError

CONTEXT_TOKENS: Final = 128
"""The opening and the longest sentence judged."""
UBATCH_TOKENS: Final = 32
"""Tokens computed at once: the logits of each take 49,152 floats of the compute buffer (128 at once: 25 MB)."""
OPENING: Final = "<|im_start|>system\nYou are a helpful voice assistant.<|im_end|>\n<|im_start|>user\n"
"""What the sentences are judged as: a user's turn to a voice assistant, in ChatML."""
CLOSING: Final = "<|im_end|>"
"""Scored after each sentence: a whole question is likely to end where it ends, a cut one is not."""


class SentenceJudge:
    """How likely a small ChatML model (SmolLM2-135M) finds each sentence as a user's turn to a voice assistant."""

    def __init__(self, model: Path) -> None:
        import llama_cpp

        try:
            self._llm: Any = llama_cpp.Llama(
                model_path=str(model),
                n_ctx=CONTEXT_TOKENS,
                n_batch=CONTEXT_TOKENS,
                n_ubatch=UBATCH_TOKENS,
                n_threads=1,  # it judges on the recogniser's core while the brain has the others
                n_threads_batch=1,
                logits_all=True,
                verbose=False,
            )
        except ValueError as err:  # llama.cpp reports every load failure as this bare ValueError
            raise ModelError("judge-model-corrupt", f"llama.cpp could not load {model}: {err}") from err
        if "<|im_start|>" not in str(self._llm.metadata.get("tokenizer.chat_template", "")):
            self._llm.close()
            raise ModelError("judge-model-unsuitable", f"{model} is no ChatML chat model: it cannot judge sentences")
        self._opening = self._tokens(OPENING)
        self._llm.eval(self._opening)  # once: every judgement starts from here
        # NOTE: both recognisers' final passes judge, each on its own thread, with the one model.
        self._lock = threading.Lock()
        self._closed = False

    def _tokens(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode(), add_bos=False, special=True))

    def __call__(self, sentences: Sequence[str]) -> list[float] | None:
        """Each sentence's mean log-probability per token (its end included); None if one is too long to judge."""
        with self._lock:
            return None if self._closed else self._judged(sentences)

    def _judged(self, sentences: Sequence[str]) -> list[float] | None:
        """Each sentence's mean log-probability per token, judged by the model alone."""
        start = len(self._opening)
        said = [self._tokens(sentence + CLOSING) for sentence in sentences]
        if not said or start + max(map(len, said)) > CONTEXT_TOKENS:
            return None
        # NOTE: guesses mostly differ in a word or two: the words they open with alike are read once.
        shared = 0
        while shared < min(map(len, said)) - 1 and all(s[shared] == said[0][shared] for s in said):
            shared += 1
        llm = self._llm
        llm.n_tokens = start
        llm.eval(said[0][:shared])
        opening = self._log_probs(start, said[0][:shared])
        scores = []
        for tokens in said:
            llm.n_tokens = start + shared
            llm.eval(tokens[shared:])
            own = self._log_probs(start + shared, tokens[shared:])
            scores.append((opening + own) / len(tokens))
        return scores

    def _log_probs(self, at: int, tokens: list[int]) -> float:
        """The summed log-probability of `tokens`, evaluated from position `at`, each given what came before."""
        if not tokens:
            return 0.0
        logits = np.asarray(self._llm.scores[at - 1 : at - 1 + len(tokens)], dtype=np.float64)
        top = logits.max(axis=1, keepdims=True)
        log_norm = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
        return float((logits[np.arange(len(tokens)), tokens] - log_norm).sum())

    def close(self) -> None:
        """Free the model (once, whoever else shares it)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._llm.close()
