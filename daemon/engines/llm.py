"""The language model: llama-cpp-python, chatting through the model's own template, streamed."""

from __future__ import annotations

import codecs
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from daemon.config import LlmConfig
from daemon.errors import ConfigError, EngineError, ModelError
from daemon.history import Conversation, Message

_LOGGER = logging.getLogger(__name__)

# Used only when a GGUF carries no chat template (base models): a plain transcript the model can continue.
PLAIN_TEMPLATE: Final = (
    "{% for m in messages %}{% if m.role == 'system' %}{{ m.content }}\n\n"
    "{% elif m.role == 'user' %}Question: {{ m.content }}\n"
    "{% else %}Answer: {{ m.content }}\n\n{% endif %}{% endfor %}Answer:"
)
PLAIN_STOPS: Final = ("\nQuestion:", "\n\n")


@dataclass
class GenerationStats:
    """Timings of the last answer."""

    prompt_tokens: int = 0
    """Tokens in the prompt, including remembered turns."""
    evaluated_tokens: int = 0
    """Prompt tokens actually evaluated (the rest came from the KV cache)."""
    prompt_s: float = 0.0
    """Seconds from the request to the first generated token."""
    answer_tokens: int = 0
    decode_s: float = 0.0
    """Seconds spent generating after the first token."""
    dropped_turns: int = 0
    """Old exchanges forgotten to make this prompt fit."""
    question_cut_from: int = 0
    """Tokens the question had before it was cut to max_question_tokens (0: it was not cut)."""
    cancelled: bool = False

    @property
    def decode_tokens_per_s(self) -> float:
        """Generation speed after the first token."""
        return (self.answer_tokens - 1) / self.decode_s if self.answer_tokens > 1 and self.decode_s else 0.0

    @property
    def prompt_tokens_per_s(self) -> float:
        """Prompt evaluation speed."""
        return self.evaluated_tokens / self.prompt_s if self.prompt_s else 0.0


def thread_counts(config: LlmConfig, cores: int | None = None) -> tuple[int, int]:
    """Decode and prompt threads: decode leaves a core for STT/TTS/audio, prompt uses all cores."""
    cores = cores or os.cpu_count() or 1
    decode = config.threads or max(1, cores - 1)
    batch = config.batch_threads or cores
    return decode, batch


def configure_openmp(policy: str) -> None:
    """Set OpenMP's wait policy; it only takes effect before llama.cpp's OpenMP runtime starts."""
    current = os.environ.get("OMP_WAIT_POLICY")
    if "llama_cpp" in sys.modules and current != policy:
        _LOGGER.warning("OMP_WAIT_POLICY=%s requested after llama.cpp was loaded; it stays %s", policy, current)
        return
    # NOTE: with the default (spinning) policy, idle OpenMP threads burn the cores STT and TTS need:
    # on a shared 2-core machine decode fell from ~77 to ~5-12 tok/s.
    os.environ["OMP_WAIT_POLICY"] = policy


class StopFilter:
    """Cuts streamed text at the first stop string, holding back a tail that may begin one."""

    def __init__(self, stops: tuple[str, ...]) -> None:
        self._stops = stops
        self._held = ""

    def feed(self, piece: str) -> tuple[str, bool]:
        """Return the text that is safe to emit now, and whether a stop string was reached."""
        if not self._stops:
            return piece, False
        text = self._held + piece
        cut = min((text.find(s) for s in self._stops if s in text), default=-1)
        if cut >= 0:
            self._held = ""
            return text[:cut], True
        hold = max((k for s in self._stops for k in range(1, len(s)) if text.endswith(s[:k])), default=0)
        self._held = text[len(text) - hold :] if hold else ""
        return text[: len(text) - hold], False

    def flush(self) -> str:
        """The held-back tail, once generation ended without reaching a stop."""
        held, self._held = self._held, ""
        return held


class LlamaResponder:
    """A chat model that answers questions in short spoken sentences and remembers the conversation."""

    def __init__(self, model_path: Path, config: LlmConfig) -> None:
        configure_openmp(config.omp_wait_policy)
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self._config = config
        self.threads, self.batch_threads = thread_counts(config)
        started = time.monotonic()
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(model_path),
                n_ctx=config.context_tokens,
                n_batch=config.batch_tokens,
                n_threads=self.threads,
                n_threads_batch=self.batch_threads,
                seed=config.seed if config.seed >= 0 else llama_cpp.LLAMA_DEFAULT_SEED,
                verbose=False,
            )
        except ValueError as err:  # llama.cpp reports every load failure as this bare ValueError
            raise ModelError("llm-model-corrupt", f"llama.cpp could not load {model_path}: {err}") from err
        self.load_s = time.monotonic() - started
        self.model_name = model_path.name
        meta: dict[str, Any] = self._llm.metadata
        template = meta.get("tokenizer.chat_template")
        self._stops: tuple[str, ...] = ()
        if not template:
            _LOGGER.warning("%s has no chat template (a base model?): using a plain Q/A prompt", model_path.name)
            template, self._stops = PLAIN_TEMPLATE, PLAIN_STOPS
        vocab = self._llm._model  # the token texts the template needs
        eos, bos = self._llm.token_eos(), self._llm.token_bos()
        self._formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=vocab.token_get_text(eos) if eos != -1 else "",
            bos_token=vocab.token_get_text(bos) if bos != -1 else "",
        )
        self._is_eog: Callable[[int], bool] = lambda tok: bool(llama_cpp.llama_vocab_is_eog(vocab.vocab, tok))
        self._conversation = Conversation()
        self._lock = threading.Lock()
        self._cut_from = 0
        self.on_notice: Callable[[str], None] | None = None
        """Told what the user should know (a question was cut); the box shows it. Called on the answering thread."""
        fixed = len(
            self._tokens([{"role": "system", "content": config.system_prompt}, {"role": "user", "content": ""}])
        )
        if fixed + config.max_question_tokens + config.max_answer_tokens > config.context_tokens:
            raise ConfigError(
                "config-invalid",
                f"llm.context_tokens = {config.context_tokens} is too small: the system prompt takes {fixed} tokens, "
                f"plus max_question_tokens {config.max_question_tokens} and max_answer_tokens "
                f"{config.max_answer_tokens}",
            )
        self.stats = GenerationStats()
        _LOGGER.info(
            "LLM %s loaded in %.2f s (n_ctx=%d, threads=%d/%d, OMP_WAIT_POLICY=%s)",
            model_path.name,
            self.load_s,
            config.context_tokens,
            self.threads,
            self.batch_threads,
            os.environ.get("OMP_WAIT_POLICY"),
        )

    @property
    def conversation(self) -> Conversation:
        """What the model remembers."""
        return self._conversation

    def forget(self) -> None:
        """Drop the conversation history."""
        self._conversation.clear()

    def truncate_last_answer(self, spoken: str) -> None:
        """Remember only what the user heard of the last answer."""
        self._conversation.amend_last_answer(spoken)

    def _tokens(self, messages: list[Message]) -> list[int]:
        prompt = self._formatter(messages=messages).prompt  # type: ignore[arg-type]
        # NOTE: templates write their own BOS/special tokens, so tokenize with special=True and no extra BOS.
        return list(self._llm.tokenize(prompt.encode(), add_bos=False, special=True))

    def _cut_question(self, question: str) -> str:
        limit = self._config.max_question_tokens
        toks = self._llm.tokenize(question.encode(), add_bos=False)
        if len(toks) <= limit:
            return question
        _LOGGER.warning("question of %d tokens cut to %d", len(toks), limit)
        self._cut_from = len(toks)
        if self.on_notice is not None:
            self.on_notice(f"Your question was too long: only its first {limit} tokens were used.")
        cut: str = self._llm.detokenize(toks[:limit]).decode("utf-8", errors="ignore")
        return cut

    def warm_up(self) -> None:
        """Evaluate the system prompt now, so the first question only pays for its own tokens."""
        with self._lock:
            tokens = self._tokens([{"role": "system", "content": self._config.system_prompt}])
            if tokens:
                self._llm.reset()  # type: ignore[no-untyped-call]
                self._llm.eval(tokens)

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        """Yield the answer to `question` piece by piece; remember the exchange when done or cancelled."""
        question = " ".join(question.split())
        if not question:
            return
        with self._lock:
            self._cut_from = 0
            yield from self._respond_locked(self._cut_question(question), cancel or threading.Event())

    def _respond_locked(self, question: str, cancel: threading.Event) -> Iterator[str]:
        cfg = self._config
        before = len(self._conversation)
        budget = cfg.context_tokens - cfg.max_answer_tokens
        messages, n_prompt = self._conversation.fit(cfg.system_prompt, question, lambda m: len(self._tokens(m)), budget)
        tokens = self._tokens(messages)
        stats = self.stats = GenerationStats(
            prompt_tokens=n_prompt, dropped_turns=before - len(self._conversation), question_cut_from=self._cut_from
        )
        if stats.dropped_turns:
            _LOGGER.info("forgot %d old exchange(s) to fit the context", stats.dropped_turns)
        cached = self._llm._input_ids[: self._llm.n_tokens].tolist()
        common = next(
            (i for i, (a, b) in enumerate(zip(cached, tokens, strict=False)) if a != b), min(len(cached), len(tokens))
        )
        stats.evaluated_tokens = len(tokens) - min(common, len(tokens) - 1)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        answer: list[str] = []
        stops = StopFilter(self._stops)
        started = time.monotonic()
        first_at = 0.0
        try:
            for token in self._llm.generate(
                tokens, temp=cfg.temperature, top_p=cfg.top_p, top_k=40, min_p=0.05, repeat_penalty=cfg.repeat_penalty
            ):
                if not first_at:
                    first_at = time.monotonic()
                if cancel.is_set():
                    stats.cancelled = True
                    break
                if self._is_eog(token):
                    break
                stats.answer_tokens += 1
                text, stopped = stops.feed(decoder.decode(self._llm.detokenize([token])))
                if text:
                    answer.append(text)
                    yield text
                if stopped or stats.answer_tokens >= cfg.max_answer_tokens:
                    break
            if not stats.cancelled and (tail := stops.flush()):
                answer.append(tail)
                yield tail
        except (RuntimeError, ValueError) as err:
            raise EngineError("llm-generation-failed", f"the language model failed: {err}") from err
        finally:
            end = time.monotonic()
            stats.prompt_s = (first_at or end) - started
            stats.decode_s = end - first_at if first_at else 0.0
            text = "".join(answer).strip()
            if text:
                self._conversation.add(question, text)
