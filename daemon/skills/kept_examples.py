"""The examples read by meaning, kept on disk as they were embedded (made again only when what they depend on
changed, or the kept copy is unreadable), and embedded in an order that pads little."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from daemon.skills.call import SkillCall

_LOGGER = logging.getLogger(__name__)

Index = tuple[tuple[str, ...], tuple[SkillCall | None, ...], np.ndarray, np.ndarray]
"""The example sentences, their calls, their embeddings (one row each), and which a command carrying a value is read
among (the templates' own)."""
Labelled = tuple[list[tuple[str, SkillCall | None]], frozenset[str]]
"""Example sentences with their calls, and which of them are people's phrasings rather than the templates' own."""


def kept_or_made(
    embed: Callable[[Sequence[str]], np.ndarray], kept_in: Sequence[Path], name: str, make: Callable[[], Labelled]
) -> Index:
    """The examples kept as `name` in the first of `kept_in` that holds them readable, else `make`d, embedded (~30 s
    here: ~16 s to sample and label, ~12 s to embed) and kept in the first of `kept_in` that can be written."""
    for path in (d / name for d in kept_in):
        if not path.is_file():
            continue
        try:
            with np.load(path, allow_pickle=False) as saved:
                texts, calls = tuple(str(t) for t in saved["texts"]), json.loads(str(saved["calls"]))
                called = tuple(SkillCall(*call) if call else None for call in calls)
                return texts, called, saved["vectors"], saved["valued_among"]
        except (OSError, ValueError, KeyError) as err:
            _LOGGER.warning("the embedded examples in %s are unreadable (%s): making them again", path, err)
    labelled, phrasings = make()
    texts = tuple(text for text, _ in labelled)
    # NOTE: a command carrying a value is read among the templates' examples alone, as before the evaluations'
    # phrasings were examples too: "how do you cook rice in 15 minutes" (a general question of theirs) stood
    # nearest "I'd like a timer of twelve minutes for the rice please" and left it to the model.
    valued_among = np.array([text not in phrasings for text in texts])
    vectors = _embedded(embed, texts)
    calls = tuple(call for _, call in labelled)
    said = json.dumps([[c.skill, c.args] if c else None for c in calls])
    for path in (d / name for d in kept_in):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(".partial")
            with partial.open("wb") as f:
                np.savez(f, texts=np.array(texts), calls=np.array(said), vectors=vectors, valued_among=valued_among)
            os.replace(partial, path)
            break
        except OSError as err:  # a read-only or full disk: the next place, else made again at the next start
            _LOGGER.warning("cannot keep the embedded examples in %s: %s", path, err.strerror)
    return texts, calls, vectors, valued_among


def _embedded(embed: Callable[[Sequence[str]], np.ndarray], texts: Sequence[str]) -> np.ndarray:
    """The texts' embeddings in their order, embedded shortest first so that a batch pads little (12 s instead of
    21 s for ~2000 examples here; each embedding is the same either way)."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    ranked = [texts[i] for i in order]
    vectors = np.concatenate([embed(ranked[i : i + 32]) for i in range(0, len(ranked), 32)])
    placed = np.empty_like(vectors)
    placed[order] = vectors
    return placed
