"""The language model: llama-cpp-python, chatting through the model's own template, streamed."""

from __future__ import annotations

import codecs
import concurrent.futures
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np

from daemon.config import LlmConfig
from daemon.engines.chat import ChatPrompt, check_room
from daemon.engines.cores import CORES, DecodeThreads, configure_openmp
from daemon.engines.history import Conversation, Message, referenced
from daemon.engines.judging import JudgeContext
from daemon.errors import EngineError, ModelError
from daemon.knowledge.lookup import Knowledge
from daemon.ports import FittedQuestion, GenerationStats

_LOGGER = logging.getLogger(__name__)

READ_AHEAD_PIECE_TOKENS: Final = 8
"""A passage, and the answer's prompt, are read ahead in pieces this long, giving way between them to newer words
(~0.2 s here)."""
READ_AHEAD_P_END: Final = 0.3
"""Words the model gives at least this chance of ending the turn have the rest of the answer's prompt read ahead."""


def thread_counts(config: LlmConfig, cores: int | None = None) -> tuple[int, int]:
    """Decode and prompt threads: decode leaves a core for STT/TTS/audio, prompt uses all cores."""
    cores = cores or os.cpu_count() or 1
    decode = config.threads or max(1, cores - 1)
    batch = config.batch_threads or cores
    return decode, batch


@functools.cache
def _grammar(text: str) -> Any:
    """A compiled GBNF grammar (compiled once per text)."""
    import llama_cpp

    return llama_cpp.LlamaGrammar.from_string(text, verbose=False)  # type: ignore[attr-defined]


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


class LlamaModel:
    """A chat model that answers questions in short spoken sentences within the conversation it is given."""

    def __init__(
        self,
        model_path: Path,
        config: LlmConfig,
        conversation: Conversation | None = None,
        knowledge: Knowledge | None = None,
    ) -> None:
        configure_openmp(config.omp_wait_policy)
        import llama_cpp

        self._config = config
        self._threads = thread_counts(config)
        self._path = model_path
        started = time.monotonic()
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(model_path),
                n_ctx=config.context_tokens,
                n_batch=config.batch_tokens,
                n_threads=self._threads[0],
                n_threads_batch=self._threads[1],
                seed=config.seed if config.seed >= 0 else llama_cpp.LLAMA_DEFAULT_SEED,
                verbose=False,
            )
        except ValueError as err:  # llama.cpp reports every load failure as this bare ValueError
            raise ModelError("llm-model-corrupt", f"llama.cpp could not load {model_path}: {err}") from err
        self.load_s = time.monotonic() - started
        self._chat = ChatPrompt(self._llm, model_path.name)
        decode, batch = self._threads
        every = max(os.cpu_count() or 1, decode) if config.every_core_when_free else decode
        # NOTE: prompt evaluation too gives way while the recogniser works: on both cores beside it, 5 tokens of a
        # prompt's tail took 0.29 s instead of ~0.1.
        # NOTE: the judge's context beside the answer's: one cache could not hold both the passage the answer reads
        # before the words and the plain words P(end) was tuned on, and a judgement waited for the passage.
        self._judge = JudgeContext(self._llm, config.context_tokens, (decode, batch))

        def threads(n: int, n_batch: int) -> None:
            llama_cpp.llama_set_n_threads(self._llm._ctx.ctx, n, n_batch)
            self._judge.set_threads(n, n_batch)

        self._cores = DecodeThreads((decode, decode), (every, batch), threads, CORES)
        # NOTE: the conversation has its own lock: it is read and changed without waiting for a generation.
        self.conversation = conversation if conversation is not None else Conversation()
        """What is remembered; the box's ConversationMemory."""
        self._lock = threading.Lock()  # the model: one generation at a time
        self._reader = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llm-read")
        # NOTE: every llama.cpp computation runs on this one thread: GNU OpenMP keeps a team of threads per calling
        # thread and, with more of them than cores, hardly spins at its barriers: decoding on both cores fell from
        # 14 to 10.5 tok/s once a second thread had evaluated a prompt.
        self._compute = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llm-compute")
        self._reading: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._reading.set_result(None)
        self._knowledge = knowledge
        """Where a short passage for a question naming an encyclopedia article comes from (None: no passages)."""
        self._reads_lock = threading.Lock()
        self._reads = 0
        """Reads of the answer's prompt asked for: one gives way when a newer one, or an answer, is asked for."""
        self._judge_lock = threading.Lock()
        self._judged: tuple[list[int], float] = ([], 0.0)
        """The last words judged (the plain prompt to the turn's closing token), and their P(end)."""
        check_room(config, self._chat)
        self._stats = GenerationStats()
        _LOGGER.info(
            "LLM %s loaded in %.2f s (n_ctx=%d, threads=%d/%d, OpenMP wait %s)",
            model_path.name,
            self.load_s,
            config.context_tokens,
            *self._threads,
            config.omp_wait_policy,
        )

    @property
    def model_name(self) -> str:
        """The model's file name."""
        return self._path.name

    @property
    def model_path(self) -> Path:
        """Where the model's file is."""
        return self._path

    @property
    def threads(self) -> tuple[int, int]:
        """Decode and prompt-evaluation threads."""
        return self._threads

    @property
    def stats(self) -> GenerationStats:
        """Timings of the last answer."""
        return self._stats

    def close(self) -> None:
        """Free the model and its context (and close the encyclopedia)."""
        self._reader.shutdown(wait=True)
        self._compute.shutdown(wait=True)
        with self._lock:
            self._judge.close()
            self._llm.close()
            if self._knowledge is not None:
                self._knowledge.close()

    def _tokens(self, messages: list[Message]) -> list[int]:
        return self._chat.tokens(messages)

    def fit_question(self, question: str) -> FittedQuestion:
        """The question with whitespace collapsed, cut to max_question_tokens."""
        question = " ".join(question.split())
        limit = self._config.max_question_tokens
        toks = self._llm.tokenize(question.encode(), add_bos=False)
        if len(toks) <= limit:
            return FittedQuestion(question, len(toks), len(toks))
        cut: str = self._llm.detokenize(toks[:limit]).decode("utf-8", errors="ignore")
        return FittedQuestion(cut, len(toks), limit)

    def warm_up(self) -> None:
        """Evaluate the system prompt now, so the first question only pays for its own tokens."""
        with self._lock:
            tokens = self._tokens([{"role": "system", "content": self._config.system_prompt}])
            if tokens:
                self._llm.reset()  # type: ignore[no-untyped-call]
                self._eval(tokens)
                with self._judge_lock:
                    self._computed(self._judge.last_logits, tokens)

    def prefill(self, question: str) -> float:
        """P(the turn ends after `question`), from the judge's context; meanwhile the answer's prompt up to these
        words (their passage first) is read into the model, to its end for words likely to end the turn, so that an
        answer starts at once."""
        cfg = self._config
        question = " ".join(question.split())
        budget = cfg.context_tokens - cfg.max_answer_tokens
        with self.conversation.lock:
            messages, _ = self.conversation.fit(cfg.system_prompt, question, lambda m: len(self._tokens(m)), budget)
        tokens = self._tokens(messages)
        ends = [i for i, t in enumerate(tokens) if self._chat.is_eog(t)]
        if not ends:
            return 0.0
        # NOTE: up to the token that closes the user's turn, whose probability after the words is P(end).
        end, closing = ends[-1], tokens[ends[-1]]
        words = tokens[:end]
        if (judged := self._judged)[0] == words:
            # NOTE: the pause heard the words of the last partial: judged, and read ahead, already.
            return judged[1]
        with self._judge_lock:
            if (judged := self._judged)[0] == words:  # the listener's prefill and the judge's, at once
                return judged[1]
            try:
                logits = self._computed(self._judge.last_logits, words)
            except (RuntimeError, ValueError) as err:
                raise EngineError("llm-generation-failed", f"the language model failed: {err}") from err
            top = logits.max()
            weights = np.exp(logits - top)
            p_end = float(weights[closing] / weights.sum())
            self._judged = (words, p_end)
        # NOTE: after the judge has its P(end), and off its thread (the recogniser's): a passage is 50-80 tokens,
        # ~1.3 s of both cores here. Read while the user still speaks, it no longer comes after the question.
        with self._reads_lock:
            self._reads += 1
            self._reading = self._reader.submit(
                self._read_ahead, messages, question, budget, p_end >= READ_AHEAD_P_END, self._reads
            )
        return p_end

    def read_ahead(self) -> None:
        """Wait until the answer's prompt being read ahead is in (as it is once a pause goes on)."""
        self._reading.result()

    def _read_ahead(self, messages: list[Message], question: str, budget: int, whole: bool, number: int) -> None:
        """Evaluate the answer's prompt to the end of the words (to its end if `whole`), giving way to newer words."""
        with self._lock:
            if number != self._reads:
                return  # newer words, or an answer, came first
            read, _ = self._read(messages, question, budget)
            if not whole:
                # NOTE: not the turn's closing tokens: the words may go on, and would be evaluated after them.
                read = read[: max(i for i, t in enumerate(read) if self._chat.is_eog(t))]
            try:
                self._evaluate_prompt(read, give_way=lambda: self._reads != number)
            except (RuntimeError, ValueError) as err:  # the answer evaluates it again, and reports a failure
                _LOGGER.warning("reading the answer's prompt ahead failed: %s", err)

    def _read(self, messages: list[Message], question: str, budget: int) -> tuple[list[int], str]:
        """The prompt's tokens, with the encyclopedia's passage before the question when one is found and the prompt
        still fits `budget`; and the article it comes from ("" if none)."""
        passage = self._knowledge.lookup(question) if self._knowledge is not None else None
        if passage is not None:
            tokens = self._tokens(referenced(messages, passage.reference()))
            if len(tokens) <= budget:
                return tokens, passage.title
        return self._tokens(messages), ""

    def _evaluate_prompt(self, tokens: list[int], give_way: Callable[[], bool]) -> None:
        """Evaluate `tokens`, reusing the common cached prefix; in pieces, stopping when `give_way` says so."""
        cached = self._llm.input_ids[: self._llm.n_tokens].tolist()
        common = next((i for i, (a, b) in enumerate(zip(cached, tokens, strict=False)) if a != b), None)
        common = min(len(cached), len(tokens)) if common is None else common
        self._llm.n_tokens = common  # eval() drops the cache after n_tokens: what the recogniser revised
        for start in range(common, len(tokens), READ_AHEAD_PIECE_TOKENS):
            if give_way():
                return
            self._eval(tokens[start : start + READ_AHEAD_PIECE_TOKENS])

    def _computed(self, work: Callable[..., Any], *args: Any) -> Any:
        """`work(*args)` on the compute thread, on the threads chosen for it now."""
        self._cores.choose()
        return self._compute.submit(work, *args).result()

    def _eval(self, tokens: list[int]) -> None:
        """Evaluate `tokens` after the cached ones, on the compute thread."""
        self._computed(self._llm.eval, tokens)

    def _stepped(self, generated: Iterator[int]) -> Iterator[int]:
        """The tokens of a llama-cpp-python generation, each computed on the compute thread."""
        while True:
            try:
                token = self._compute.submit(next, generated).result()
            except StopIteration:
                return
            yield token

    def _logits(self) -> np.ndarray:
        import llama_cpp

        pointer = llama_cpp.llama_get_logits_ith(self._llm._ctx.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._llm.n_vocab(),)).astype(np.float64)

    def constrained(self, instruction: str, grammar: str, max_tokens: int) -> str:
        """The greedy reply to `instruction` after the system prompt, held to `grammar`; not remembered."""
        compiled = _grammar(grammar)
        with self._lock:
            # NOTE: after the system prompt, so the cached prefix is shared with ordinary answers.
            messages: list[Message] = [
                {"role": "system", "content": self._config.system_prompt},
                {"role": "user", "content": instruction},
            ]
            tokens = self._tokens(messages)
            out: list[int] = []
            try:
                self._cores.choose()
                generated = self._llm.generate(tokens, top_k=1, temp=0.0, repeat_penalty=1.0, grammar=compiled)
                for token in self._stepped(generated):
                    if self._chat.is_eog(token) or len(out) >= max_tokens:
                        break
                    out.append(token)
            except (RuntimeError, ValueError) as err:
                raise EngineError("llm-generation-failed", f"the language model failed: {err}") from err
            text: str = self._llm.detokenize(out).decode("utf-8", errors="replace")
            return text

    def cool_down(self) -> None:
        """Drop everything evaluated, the system prompt too."""
        with self._lock, self._judge_lock:
            self._llm.reset()  # type: ignore[no-untyped-call]
            self._compute.submit(self._judge.forget).result()
            self._judged = ([], 0.0)

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        """Yield the answer to `question` piece by piece; remember the exchange when done or cancelled."""
        with self._reads_lock:
            self._reads += 1  # a read of other words stops; one of these words leaves the answer less to read
        self._reading.result()
        with self._lock:
            fitted = self.fit_question(question)
            if not fitted.text:
                return
            if fitted.cut:
                _LOGGER.warning("question of %d tokens cut to %d", fitted.tokens, fitted.kept_tokens)
            yield from self._respond_locked(fitted.text, cancel or threading.Event())

    def _respond_locked(self, question: str, cancel: threading.Event) -> Iterator[str]:
        cfg = self._config
        budget = cfg.context_tokens - cfg.max_answer_tokens
        with self.conversation.lock:
            before = len(self.conversation)
            messages, _ = self.conversation.fit(cfg.system_prompt, question, lambda m: len(self._tokens(m)), budget)
            dropped = before - len(self.conversation)
        tokens, article = self._read(messages, question, budget)
        stats = self._stats = GenerationStats(prompt_tokens=len(tokens), dropped_turns=dropped, reference=article)
        if article:
            _LOGGER.debug("the prompt reads from the encyclopedia article %r", article)
        if stats.dropped_turns:
            _LOGGER.info("forgot %d old exchange(s) to fit the context", stats.dropped_turns)
        cached = self._llm.input_ids[: self._llm.n_tokens].tolist()
        common = next(
            (i for i, (a, b) in enumerate(zip(cached, tokens, strict=False)) if a != b), min(len(cached), len(tokens))
        )
        stats.evaluated_tokens = len(tokens) - min(common, len(tokens) - 1)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        answer: list[str] = []
        stops = StopFilter(self._chat.stops)
        started = time.monotonic()
        first_at = last_at = 0.0
        try:
            self._cores.choose()
            generated = self._llm.generate(
                tokens, temp=cfg.temperature, top_p=cfg.top_p, top_k=40, min_p=0.05, repeat_penalty=cfg.repeat_penalty
            )
            for token in self._stepped(generated):
                now = time.monotonic()
                if not first_at:
                    first_at = now
                else:
                    self._cores.took(now - last_at)
                if cancel.is_set():
                    stats.cancelled = True
                    break
                if self._chat.is_eog(token):
                    break
                stats.answer_tokens += 1
                text, stopped = stops.feed(decoder.decode(self._llm.detokenize([token])))
                if text:
                    answer.append(text)
                    yield text
                if stopped or stats.answer_tokens >= cfg.max_answer_tokens:
                    break
                self._cores.choose()  # the next token's threads: the recogniser or the voice may have started
                last_at = time.monotonic()
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
                self.conversation.add(question, text)
