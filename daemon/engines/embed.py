"""Sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, its WordPiece tokenizer on `tokenizers`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

import numpy as np

from daemon.errors import ModelError

MAX_TOKENS: Final = 64
"""A request longer than this is no command; the model was trained on up to 128 word pieces."""
MODEL_FILE: Final = "model.onnx"
TOKENIZER_FILE: Final = "tokenizer.json"

Vectors = np.ndarray
"""One unit-length float32 row per sentence."""


class SentenceEmbedder:
    """Turns sentences into unit vectors whose dot product says how alike their meanings are."""

    def __init__(self, model: Path) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        # NOTE: one thread: a request is a dozen word pieces (about 9 ms here), and the other core is the LLM's.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        # NOTE: no arena: a request is a few kB of activations. The int8 weights are folded into float ones when the
        # session is made (7 ms a request instead of 70): ~98 MB once load_engines returns the freed memory.
        options.enable_cpu_mem_arena = False
        try:
            self._session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
            self._tokenizer = Tokenizer.from_file(str(model.with_name(TOKENIZER_FILE)))
        except Exception as err:  # onnxruntime and tokenizers raise their own error types for a bad file
            raise ModelError(
                "meaning-model-corrupt", f"the sentence embedding model {model} cannot be loaded: {err}"
            ) from err
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        self.path = model

    def __call__(self, texts: Sequence[str]) -> Vectors:
        """Each text's mean-pooled, normalised embedding (as sentence-transformers pools all-MiniLM-L6-v2)."""
        encoded = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        (hidden,) = self._session.run(
            ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )
        pooled = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: Vectors = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return vectors

    def close(self) -> None:
        """Free the model."""
        del self._session
