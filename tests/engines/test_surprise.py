"""Token scores kept by position: known only for the very tokens they were computed on."""

from __future__ import annotations

import numpy as np
import pytest

from daemon.engines.surprise import TokenScores, log_softmax_at

VOCAB = 8


def rows_for(prompt: list[int], start: int) -> dict[int, np.ndarray]:
    """Logits after each token read: the next token is always likeliest as (token + 1) % VOCAB."""
    out = {}
    for i, token in enumerate(prompt[start:]):
        row = np.zeros(VOCAB, dtype=np.float32)
        row[(token + 1) % VOCAB] = 3.0
        out[i] = row
    return out


def test_a_prompt_read_in_pieces_is_scored_as_one_read_at_once() -> None:
    prompt = [1, 2, 3, 5, 6]
    whole, pieces = TokenScores(), TokenScores()
    whole.record(prompt, 0, rows_for(prompt, 0).get)
    pieces.record(prompt[:3], 0, rows_for(prompt[:3], 0).get)
    pieces.record(prompt, 3, rows_for(prompt, 3).get)  # the first token read scored from the last row kept
    assert pieces.mean(prompt, 1, 5) == pytest.approx(whole.mean(prompt, 1, 5))
    likely, unlikely = log_softmax_at(rows_for([1], 0)[0], 2), log_softmax_at(rows_for([1], 0)[0], 4)
    assert whole.mean(prompt, 1, 3) == pytest.approx(likely) and likely > unlikely
    assert whole.mean(prompt, 3, 4) == pytest.approx(unlikely)  # 3 -> 5: not the likeliest


def test_scores_are_known_only_for_the_tokens_they_were_computed_on() -> None:
    scores = TokenScores()
    scores.record([1, 2, 3], 0, rows_for([1, 2, 3], 0).get)
    assert scores.mean([1, 2, 3], 1, 3) is not None
    assert scores.mean([1, 2, 4], 1, 3) is None  # another last token: not scored
    assert scores.mean([1, 2, 3, 4], 1, 4) is None  # beyond what was read
    assert scores.known_at([1, 2, 3, 4], 3)  # ... but the last row kept gives the next one
    scores.record([1, 7, 7], 1, rows_for([1, 7, 7], 1).get)  # revised from position 1: its first score unknown
    assert scores.mean([1, 7, 7], 2, 3) is not None and scores.mean([1, 7, 7], 1, 3) is None
    assert not scores.known_at([1, 7, 7], 1)  # so the next read steps back one token to score it


def test_rows_not_kept_leave_their_scores_unknown() -> None:
    scores = TokenScores()
    rows = rows_for([1, 2, 3, 4], 0)
    scores.record([1, 2, 3, 4], 0, lambda i: rows[i] if i >= 2 else None)
    assert scores.mean([1, 2, 3, 4], 3, 4) is not None
    assert scores.mean([1, 2, 3, 4], 1, 4) is None
