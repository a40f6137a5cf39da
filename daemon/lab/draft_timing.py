"""Speculative decoding measured: a smaller model of the same vocabulary drafts tokens the brain checks in one batch.

`python -m daemon.lab.draft_timing BRAIN.gguf DRAFT.gguf` answers the tune half's model questions greedily, plainly and
with 2-6 drafted tokens per step, alternated question by question, and prints the time to the 7th token (about a
first chunk for the voice), the tokens per second and the share of drafted tokens the brain kept.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from daemon.config import LlmConfig
from daemon.engines.chat import ChatPrompt
from daemon.engines.kv_shift import shared_prefix
from daemon.engines.logits import decode_keeping, logits_of
from daemon.lab.evaluation.answers import QUESTIONS, split

MODEL_KINDS: Final = ("howwhy", "science", "definition", "person", "suggest")
"""Kinds the facts seldom answer: what reaches the model."""
FIRST_CHUNK_TOKENS: Final = 7
"""The median first chunk for the voice, in tokens (docs/performance.md)."""


@dataclass
class Run:
    """One greedy answer: its tokens, when each came, and the drafted tokens offered and kept."""

    tokens: list[int]
    at: list[float]
    drafted: int = 0
    kept: int = 0

    def first_chunk_s(self) -> float:
        """Seconds to the first chunk's last token."""
        return self.at[min(FIRST_CHUNK_TOKENS, len(self.at)) - 1]

    def rate(self) -> float:
        """Tokens per second over the whole answer."""
        return len(self.tokens) / self.at[-1]


def _load(path: Path, threads: int) -> Any:
    import llama_cpp

    return llama_cpp.Llama(
        model_path=str(path), n_ctx=2048, n_batch=256, use_mmap=False, n_threads=threads, n_threads_batch=threads,
        verbose=False,
    )  # fmt: skip


def _sync(llm: Any, tokens: list[int]) -> None:
    """Evaluate `tokens` after their longest cached prefix; the last one again at least, for its logits."""
    llm.n_tokens = min(shared_prefix(llm.input_ids[: llm.n_tokens].tolist(), tokens), len(tokens) - 1)
    llm.eval(tokens[llm.n_tokens :])


def plain(brain: Any, prompt: list[int], most: int, is_eog: Callable[[int], bool]) -> Run:
    """Greedy, one token per step."""
    _sync(brain, prompt)
    run, start = Run([], []), time.perf_counter()
    while len(run.tokens) < most:
        token = int(np.argmax(logits_of(brain)))
        run.tokens.append(token)
        run.at.append(time.perf_counter() - start)
        if is_eog(token):
            break
        brain.eval([token])
    return run


def drafted(brain: Any, draft: Any, prompt: list[int], most: int, k: int, is_eog: Callable[[int], bool]) -> Run:
    """Greedy, the draft guessing `k` tokens that the brain checks in one batch, keeping the longest agreeing run."""
    _sync(brain, prompt)
    _sync(draft, prompt)
    run, start = Run([], []), time.perf_counter()
    last = int(np.argmax(logits_of(brain)))
    run.tokens.append(last)
    run.at.append(time.perf_counter() - start)
    while len(run.tokens) < most and not is_eog(last):
        _sync(draft, [*brain.input_ids[: brain.n_tokens].tolist(), last])
        guesses: list[int] = []
        while len(guesses) < k:
            guesses.append(int(np.argmax(logits_of(draft))))
            if is_eog(guesses[-1]) or len(guesses) == k:
                break
            draft.eval(guesses[-1:])
        batch, n_past = [last, *guesses], brain.n_tokens
        rows = decode_keeping(brain, batch, lambda _: True)
        run.drafted += len(guesses)
        for i in range(len(batch)):
            token = int(np.argmax(rows[i]))
            run.tokens.append(token)
            run.at.append(time.perf_counter() - start)
            if i < len(guesses) and token == guesses[i] and not is_eog(token) and len(run.tokens) < most:
                run.kept += 1
                continue
            brain.n_tokens = n_past + i + 1  # the cache after the first disagreement is dropped by the next eval
            last = token
            break
    run.tokens, run.at = run.tokens[:most], run.at[:most]
    return run


def main() -> int:
    """Print the comparison, question by question and at the median."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("brain", type=Path)
    parser.add_argument("draft", type=Path)
    parser.add_argument("--drafts", default="2,3,4,6", help="tokens drafted per step, comma-separated")
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--tokens", type=int, default=48, help="tokens per answer at most")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    brain, draft = _load(args.brain, args.threads), _load(args.draft, args.threads)
    chat = ChatPrompt(brain, args.brain.name)
    system = LlmConfig().system_prompt
    chosen = [q for q in QUESTIONS if q.kind in MODEL_KINDS and split(q) == "tune"][::3][: args.questions]
    ks = [int(k) for k in args.drafts.split(",")]
    runs: dict[str, list[Run]] = {"plain": [], "draft alone": [], **{f"{k} drafted": [] for k in ks}}
    differ = 0
    for question in chosen:
        prompt = chat.tokens([{"role": "system", "content": system}, {"role": "user", "content": question.text}])
        base = plain(brain, prompt, args.tokens, chat.is_eog)
        runs["plain"].append(base)
        runs["draft alone"].append(alone := plain(draft, prompt, args.tokens, chat.is_eog))
        cells = [
            f"plain {base.first_chunk_s():.3f} s {base.rate():4.1f} tok/s",
            f"draft alone {alone.rate():4.1f} tok/s",
        ]
        for k in ks:
            run = drafted(brain, draft, prompt, args.tokens, k, chat.is_eog)
            runs[f"{k} drafted"].append(run)
            differ += run.tokens != base.tokens
            cells.append(f"{k}: {run.first_chunk_s():.3f} s {run.rate():4.1f} tok/s kept {run.kept}/{run.drafted}")
        print(f"{question.text[:36]:36} " + " | ".join(cells), flush=True)
    print(f"\n{len(chosen)} questions; {FIRST_CHUNK_TOKENS}th token / tokens per second, median; drafted tokens kept")
    for name, rs in runs.items():
        kept = sum(r.kept for r in rs) / max(1, sum(r.drafted for r in rs))
        print(
            f"{name:>10}: {statistics.median(r.first_chunk_s() for r in rs):.3f} s / "
            f"{statistics.median(r.rate() for r in rs):.1f} tok/s" + (f", kept {kept:.0%}" if "drafted" in name else "")
        )
    print(f"answers differing from plain greedy (the batch's arithmetic differs slightly): {differ}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
