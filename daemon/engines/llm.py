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
from daemon.engines import warm_state
from daemon.engines.chat import ChatPrompt, StopFilter, check_room
from daemon.engines.claim_note import noted_prefix, system_prompt_for
from daemon.engines.cores import CORES, DecodeThreads, configure_openmp, thread_counts
from daemon.engines.doubt import APOLOGIES, UNSURE, Apology, Doubt
from daemon.engines.follow_up import leans_back
from daemon.engines.history import Conversation, Message, question_begins, referenced, whole_sentences
from daemon.engines.kv_aside import Aside, copy_out
from daemon.engines.kv_shift import shared_prefix, shift_out
from daemon.engines.logits import decode_keeping, logits_of
from daemon.engines.surprise import TokenScores, log_softmax_at
from daemon.errors import EngineError, ModelError
from daemon.knowledge.lookup import Knowledge
from daemon.ports import FittedQuestion, GenerationStats

_LOGGER = logging.getLogger(__name__)

READ_AHEAD_PIECE_TOKENS: Final = 8
"""The answer's prompt is read ahead in pieces this long, giving way between them to newer words (~0.2 s here)."""
WARM_UP_PIECE_TOKENS: Final = 32
"""The system prompt is read at start in pieces this long, each told as progress: read whole, a 1.5B brain's under
emulation (about 13 minutes) outlasted the limit on a start that shows none (daemon/service/notify.py)."""
PREFILL_PIECE_TOKENS: Final = 4
"""Words still being spoken are read in pieces this long, giving way between them to a judge's words."""
READ_AHEAD_P_END: Final = 0.3
"""Words the model gives at least this chance of ending the turn have their passage read ahead of the answer (words
that go on would hold the next judgement up with a passage nobody needs)."""


@functools.cache
def _grammar(text: str) -> Any:
    """A compiled GBNF grammar (compiled once per text)."""
    import llama_cpp

    return llama_cpp.LlamaGrammar.from_string(text, verbose=False)  # type: ignore[attr-defined]


class LlamaModel:
    """A chat model that answers questions in short spoken sentences within the conversation it is given."""

    def __init__(
        self,
        model_path: Path,
        config: LlmConfig,
        conversation: Conversation | None = None,
        knowledge: Knowledge | None = None,
        kept_in: Path | None = None,
    ) -> None:
        """`kept_in`: where the system prompt's evaluated cache is kept between starts (None: read at every start)."""
        configure_openmp(config.omp_wait_policy)
        import llama_cpp

        self._config = config
        self._kept_in = kept_in
        self._threads = thread_counts(config)
        self._path = model_path
        started = time.monotonic()
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(model_path),
                n_ctx=config.context_tokens,
                n_batch=config.batch_tokens,
                use_mmap=config.map_file,
                n_threads=self._threads[0],
                n_threads_batch=self._threads[1],
                seed=config.seed if config.seed >= 0 else llama_cpp.LLAMA_DEFAULT_SEED,
                verbose=False,
            )
        except ValueError as err:  # llama.cpp reports every load failure as this bare ValueError
            raise ModelError("llm-model-corrupt", f"llama.cpp could not load {model_path}: {err}") from err
        self.load_s = time.monotonic() - started
        self._chat = ChatPrompt(self._llm, model_path.name)
        self._apologies = [self._llm.tokenize(word.encode(), add_bos=False, special=False)[0] for word in APOLOGIES]
        decode, batch = self._threads
        every = max(os.cpu_count() or 1, decode) if config.every_core_when_free else decode
        # NOTE: prompt evaluation too gives way while the recogniser works: on both cores beside it, 5 tokens of a
        # prompt's tail took 0.29 s instead of ~0.1.
        self._cores = DecodeThreads(
            (decode, decode),
            (every, batch),
            lambda n, n_batch: llama_cpp.llama_set_n_threads(self._llm._ctx.ctx, n, n_batch),
            CORES,
        )
        # NOTE: the conversation has its own lock: it is read and changed without waiting for a generation.
        self.conversation = (
            conversation if conversation is not None else Conversation(forget_after_s=config.forget_after_s)
        )
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
        self._waiting_lock = threading.Lock()
        self._waiting = 0
        """Prefills waiting for the model: a prompt read ahead gives way to them."""
        self._answering = 0
        """Answers waiting for the model: the conversation read ahead gives way to them (a passage does not: it is
        read after the question's words, as the answer would read it)."""
        self._judged: tuple[list[int], float] = ([], 0.0)
        """The last words prefilled, to the turn's closing token, and their P(end)."""
        self._aside = Aside()
        """The conversation's cached prompt, while a question standing on its own is asked without it."""
        self._noted = Aside(held=True)
        """The system prompt with the claim note, evaluated once: a yes-or-no question's prompt begins with it (its
        ~60 tokens read after the system prompt put 0.8 s before such an answer's first word, typed)."""
        self._closing = False
        """Set by close: whatever is being read ahead stops at its next piece (nothing will ask for it)."""
        """Where a short passage for a question naming an encyclopedia article comes from (None: no passages)."""
        self._scores = TokenScores()
        """The log-probability of each word token prefilled: how unlikely the model finds a question's words."""
        self._generating = False
        """An answer is being generated (it holds the model until it ends)."""
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
        self._closing = True
        self._reader.shutdown(wait=True, cancel_futures=True)
        self._compute.shutdown(wait=True)
        with self._lock:
            self._llm.close()
            if self._knowledge is not None:
                self._knowledge.close()

    def _system_for(self, question: str, alone: bool) -> str:
        """The system prompt `question` is asked with (daemon/engines/claim_note.py)."""
        prompt = self._config.system_prompt
        return system_prompt_for(prompt, question, alone) if self._config.check_claims else prompt

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

    def warm_up(self, progress: Callable[[float], None] | None = None) -> None:
        """Evaluate the system prompt now, so the first question only pays for its own tokens; `progress` is told the
        share read after each piece."""
        told = progress or (lambda share: None)
        with self._lock:
            tokens = self._tokens([{"role": "system", "content": self._config.system_prompt}])
            if tokens:
                self._llm.reset()  # type: ignore[no-untyped-call]
                self._aside.drop()
                self._judged = ([], 0.0)  # no words are in the cache now: none are known judged
                noted = noted_prefix(self._config.system_prompt, self._tokens) if self._config.check_claims else []
                prompts = [noted, tokens] if noted else [tokens]
                kept = self._kept_in
                key = warm_state.key_of(self._path, repr(self._config), prompts) if kept is not None else ""
                if kept is not None and warm_state.put_back(self._llm, self._noted, kept, key, prompts):
                    told(1.0)
                    return
                if noted:
                    common = shared_prefix(noted, tokens)
                    total = len(noted) + len(tokens) - common
                    self._eval_told(noted, 0, total, told)
                    self._noted.hold(self._llm)
                    self._llm.n_tokens = common
                    self._eval_told(tokens[common:], len(noted), total, told)
                else:
                    self._eval_told(tokens, 0, len(tokens), told)
                if kept is not None and (live := copy_out(self._llm)) is not None:
                    warm_state.save(kept, key, [self._noted.kept, live] if noted else [live])

    def _eval_told(self, tokens: list[int], done: int, total: int, told: Callable[[float], None]) -> None:
        """Evaluate `tokens` in pieces, telling the share of `total` read after each (`done` read before them)."""
        for start in range(0, len(tokens), WARM_UP_PIECE_TOKENS):
            piece = tokens[start : start + WARM_UP_PIECE_TOKENS]
            self._eval(piece)
            told((done + start + len(piece)) / total)

    def _question(self, question: str, finished: bool = True) -> tuple[list[Message], list[int], int, int, bool]:
        """The prompt asking `question` now (words still being spoken if not `finished`): its messages, its tokens,
        where the question's words begin, the position of the token closing the user's turn (0 if none), and
        whether it is asked alone, without the conversation."""
        cfg = self._config
        budget = cfg.context_tokens - cfg.max_answer_tokens
        alone = not leans_back(question, finished)
        with self.conversation.lock:
            messages, _ = self.conversation.fit(
                self._system_for(question, alone), question, lambda m: len(self._tokens(m)), budget, alone
            )
        tokens = self._tokens(messages)
        ends = [i for i, t in enumerate(tokens) if self._chat.is_eog(t)]
        return messages, tokens, question_begins(self._tokens, messages, tokens), ends[-1] if ends else 0, alone

    def prefill(self, question: str, give_way: bool = False) -> float:
        """Evaluate the prompt up to the end of `question` now (rolling back what changed); P(the turn ends here).

        Words likely to end the turn have their answer's whole prompt read ahead, so that an answer starts at once.
        `give_way`: words still being spoken, read in pieces that stop for a judge's words waiting for the model
        (then 0.0: not judged).
        """
        cfg = self._config
        question = " ".join(question.split())
        budget = cfg.context_tokens - cfg.max_answer_tokens
        messages, tokens, begins, end, alone = self._question(question, finished=not give_way)
        if not end:
            return 0.0
        # NOTE: up to the token that closes the user's turn: the answer's prompt shares this prefix.
        closing = tokens[end]
        words = tokens[:end]
        judged = self._judged
        if judged[0] == words:
            # NOTE: the pause heard the words of the last partial: evaluating their last token again for P(end) would
            # throw away the answer's prompt read ahead after them (and wait for it to be read).
            return judged[1]
        with self._waiting_lock:
            self._waiting += 1  # a read-ahead gives way
        with self._lock:
            with self._waiting_lock:
                self._waiting -= 1
            if (judged := self._judged)[0] == words:  # the listener's prefill and the judge's, at once
                return judged[1]
            self._set_aside_for(words, alone)
            cached = self._llm.input_ids[: self._llm.n_tokens].tolist()
            # NOTE: the last token is evaluated again: its logits give the probability
            common = min(shared_prefix(cached, words), end - 1)
            if begins <= common and not self._scores.known_at(words, common):
                common -= 1  # the logits before the first token read again were not kept: it is scored too
            try:
                self._read_scored(words, common, begins, give_way)
                if self._llm.n_tokens < len(words):
                    return 0.0  # gave way: newer words wait, and they share the part read
                logits = self._logits()
            except (RuntimeError, ValueError) as err:
                raise EngineError("llm-generation-failed", f"the language model failed: {err}") from err
            top = logits.max()
            weights = np.exp(logits - top)
            p_end = float(weights[closing] / weights.sum())
            self._judged = (words, p_end)
        if p_end >= READ_AHEAD_P_END:
            # NOTE: the rest of the answer's prompt (a passage, the turn's closing tokens) goes in next, while the user
            # may still speak, but after the judge has its P(end): evaluating 50-80 passage tokens first held a 1.5B
            # brain's judgement up by ~1 s. Read at a pause, the closing tokens shared the cores with the recogniser's
            # final pass (0.3 s of the answer's start).
            self._reading = self._reader.submit(self._read_ahead, messages, question, budget, words)
        return p_end

    def surprise(self, question: str) -> float | None:
        """The mean log-probability per token the model gives the question's words where they are asked now
        (misheard words read as unlikely); None if it cannot tell without waiting for an answer being generated."""
        question = " ".join(question.split())
        _, tokens, begins, end, _ = self._question(question)
        if (known := self._scores.mean(tokens, begins, end)) is not None or self._generating or not end:
            return known
        self.prefill(question)
        return self._scores.mean(tokens, begins, end)

    def _read_scored(self, prompt: list[int], start: int, scored_from: int, give_way: bool = False) -> None:
        """Evaluate prompt[start:] after the cached prompt[:start], keeping the log-probability of each token from
        `scored_from` on (their logits cost the output layer once more per token: ~14 ms for a 1.5B here); with
        `give_way`, in pieces that stop once a prefill waits for the model."""
        self._cores.choose()
        self._compute.submit(self._decode_scored, prompt, start, scored_from, give_way).result()

    def _decode_scored(self, prompt: list[int], start: int, scored_from: int, give_way: bool) -> None:
        self._llm.n_tokens = start
        # NOTE: a partial's words read while the pause's own words wait held the judge of "Why do we need sleep?" up
        # by 0.3 s here (a 1.5B reads ~10-20 tokens/s beside the recogniser): what was read is kept, the rest not.
        waiting = (lambda: self._waiting > 0) if give_way else None
        rows = decode_keeping(
            self._llm,
            prompt[start:],
            lambda i: start + i >= scored_from - 1,
            waiting,
            PREFILL_PIECE_TOKENS if give_way else 0,
        )
        self._scores.record(prompt[: self._llm.n_tokens], start, rows.get)

    def read_history(self) -> concurrent.futures.Future[None]:
        """Evaluate the conversation so far into the cache in the background, so that the next question pays only
        for its own words; it gives way to a question's words and to an answer (they read what is left of it)."""
        # NOTE: a skill's exchange is remembered without the model: six of them (sums, a timer, the calendar) left
        # ~210 tokens for the next question to read first, 10 s of a 1.5B brain's prompt reading here.
        self._reading = self._reader.submit(self._read_history)
        return self._reading

    def _read_history(self) -> None:
        """Evaluate the prompt that every next question shares: up to where its words would begin."""
        with self._lock:
            try:
                self._evaluate_prompt(self._shared_prompt(), give_way=self._wanted_elsewhere)
            except (RuntimeError, ValueError) as err:  # the next answer evaluates it again, and reports a failure
                _LOGGER.warning("reading the conversation ahead failed: %s", err)

    def _shared_prompt(self) -> list[int]:
        """The prompt every next question asked with the conversation shares: up to where its words would begin."""
        cfg = self._config
        budget = cfg.context_tokens - cfg.max_answer_tokens
        with self.conversation.lock:
            messages, _ = self.conversation.fit(cfg.system_prompt, "?", lambda m: len(self._tokens(m)), budget)
        asked = self._tokens(messages)
        return asked[: question_begins(self._tokens, messages, asked)]

    def _set_aside_for(self, prompt: list[int], alone: bool) -> None:
        """Before `prompt` is evaluated: the conversation's cache kept aside if it is asked `alone`, else put back
        if kept."""
        if alone:
            self._aside.keep(self._llm, prompt, self._shared_prompt())
        self._bring_back(prompt)

    def _bring_back(self, prompt: list[int]) -> None:
        """Put back the conversation's cache kept aside, or the note's prompt, if it holds more of `prompt`."""
        if not self._aside.bring_back(self._llm, prompt):
            self._noted.bring_back(self._llm, prompt)

    def _wanted_elsewhere(self) -> bool:
        """Whether the conversation read ahead stops: the model is closing, or a question's words or an answer wait."""
        return self._closing or self._waiting + self._answering > 0

    def _read_ahead(self, messages: list[Message], question: str, budget: int, prefilled: list[int]) -> None:
        """Evaluate the answer's prompt after prefilled words, unless the model has moved on since."""
        with self._lock:
            if self._llm.input_ids[: self._llm.n_tokens].tolist() != prefilled:
                return  # newer words, or an answer, came first
            read, _ = self._read(messages, question, budget)
            try:
                self._evaluate_prompt(read, give_way=lambda: self._closing or self._waiting > 0)
            except (RuntimeError, ValueError) as err:  # the answer evaluates it again, and reports a failure
                _LOGGER.warning("reading the answer's prompt ahead failed: %s", err)

    def _read(self, messages: list[Message], question: str, budget: int) -> tuple[list[int], str]:
        """The prompt's tokens, with the encyclopedia's passage after the question when one is found and the prompt
        still fits `budget`; and the article it comes from ("" if none)."""
        passage = self._knowledge.lookup(question) if self._knowledge is not None else None
        if passage is not None:
            tokens = self._tokens(referenced(messages, passage.reference()))
            if len(tokens) <= budget:
                return tokens, passage.title
        return self._tokens(messages), ""

    def _evaluate_prompt(self, tokens: list[int], give_way: Callable[[], bool] | None = None) -> None:
        """Evaluate `tokens`, reusing the common cached prefix; in pieces, stopping when `give_way` says so."""
        self._bring_back(tokens)
        shift_out(self._llm, tokens)
        cached = self._llm.input_ids[: self._llm.n_tokens].tolist()
        common = shared_prefix(cached, tokens)
        self._llm.n_tokens = common
        for start in range(common, len(tokens), READ_AHEAD_PIECE_TOKENS):
            if give_way is not None and give_way():
                return
            self._eval(tokens[start : start + READ_AHEAD_PIECE_TOKENS])

    def _eval(self, tokens: list[int]) -> None:
        """Evaluate `tokens` after the cached ones, on the compute thread."""
        self._cores.choose()
        self._compute.submit(self._llm.eval, tokens).result()

    def _stepped(self, generated: Iterator[int]) -> Iterator[int]:
        """The tokens of a llama-cpp-python generation, each computed on the compute thread."""
        while True:
            try:
                token = self._compute.submit(next, generated).result()
            except StopIteration:
                return
            yield token

    def _logits(self) -> np.ndarray:
        return logits_of(self._llm).astype(np.float64)

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
        with self._lock:
            self._llm.reset()  # type: ignore[no-untyped-call]
            self._aside.drop()

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        """Yield the answer to `question` piece by piece; remember the exchange when done or cancelled."""
        with self._waiting_lock:
            self._answering += 1  # the conversation being read ahead gives way: the answer reads the rest in one batch
        try:
            # NOTE: what was read ahead is this answer's prompt (the conversation, a passage): it is not read twice.
            self._reading.result()
        finally:
            with self._waiting_lock:
                self._answering -= 1
        with self._lock:
            fitted = self.fit_question(question)
            if not fitted.text:
                return
            if fitted.cut:
                _LOGGER.warning("question of %d tokens cut to %d", fitted.tokens, fitted.kept_tokens)
            yield from self._respond_locked(fitted.text, cancel or threading.Event())

    def _respond_locked(self, question: str, cancel: threading.Event) -> Iterator[str]:
        import llama_cpp

        cfg = self._config
        budget = cfg.context_tokens - cfg.max_answer_tokens
        # NOTE: a question that stands on its own is asked without the conversation: after a joke, the 1.5B answered
        # "Why is the sea salty?" as its punchline ("Because it's made of water."), and after a morning's exchanges it
        # got 93.2 % of the tune half's knowable questions right instead of 95.8 % (`eval answers --in-conversation`).
        alone = not leans_back(question)
        with self.conversation.lock:
            before = len(self.conversation)
            messages, _ = self.conversation.fit(
                self._system_for(question, alone), question, lambda m: len(self._tokens(m)), budget, alone
            )
            dropped = before - len(self.conversation)
        tokens, article = self._read(messages, question, budget)
        stats = self._stats = GenerationStats(prompt_tokens=len(tokens), dropped_turns=dropped, reference=article)
        if article:
            _LOGGER.debug("the prompt reads from the encyclopedia article %r", article)
        if stats.dropped_turns:
            _LOGGER.info("forgot %d old exchange(s) to fit the context", stats.dropped_turns)
        self._set_aside_for(tokens, alone)
        shift_out(self._llm, tokens)  # a conversation that forgot its older half is not read again
        cached = self._llm.input_ids[: self._llm.n_tokens].tolist()
        common = shared_prefix(cached, tokens)
        stats.evaluated_tokens = len(tokens) - min(common, len(tokens) - 1)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        answer: list[str] = []
        stops = StopFilter(self._chat.stops)
        doubt = Doubt(cfg.hedge_below, question)
        apology = Apology(self._apologies, cfg.apologise_above, question)
        processors = llama_cpp.LogitsProcessorList([apology])
        started = time.monotonic()
        first_at = last_at = 0.0
        self._generating = True
        try:
            self._cores.choose()
            generated = self._llm.generate(
                tokens,
                temp=cfg.temperature,
                top_p=cfg.top_p,
                top_k=40,
                min_p=0.05,
                repeat_penalty=cfg.repeat_penalty,
                logits_processor=processors,
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
                chance = log_softmax_at(logits_of(self._llm), token)  # the row the token was just chosen from
                stats.token_logprobs.append(chance)
                said = decoder.decode(self._llm.detokenize([token]))
                doubt.feed(said, chance)
                text, stopped = stops.feed(said)
                if text:
                    answer.append(text)
                    yield text
                stats.cut = stats.answer_tokens >= cfg.max_answer_tokens and not stopped
                if stopped or stats.cut or apology.over(said):
                    break
                self._cores.choose()  # the next token's threads: the recogniser or the voice may have started
                last_at = time.monotonic()
            if not stats.cancelled and not stats.cut and (tail := stops.flush()):
                answer.append(tail)
                yield tail
            stats.apology_chance, stats.apologised = apology.chance, apology.taken
            # NOTE: a doubt said after a sentence cut off (stats.cut) would join its unfinished words
            if not (stats.cancelled or stats.cut or apology.taken) and doubt.unsure and "".join(answer).strip():
                # NOTE: not remembered as the answer: in the conversation it would teach the model to hedge too
                stats.hedged = True
                yield f" {UNSURE}"
        except (RuntimeError, ValueError) as err:
            raise EngineError("llm-generation-failed", f"the language model failed: {err}") from err
        finally:
            self._generating = False
            end = time.monotonic()
            stats.prompt_s = (first_at or end) - started
            stats.decode_s = end - first_at if first_at else 0.0
            text = whole_sentences("".join(answer).strip()) if stats.cut else "".join(answer).strip()
            # NOTE: asked alone, the answer's prompt left the conversation out of the cache: it is read again while
            # the user thinks, so that a follow-up does not wait for it (one whose words come at once reads the rest).
            if text and (self.conversation.add(question, text) or alone):
                self.read_history()  # its older half forgotten: moved up in the cache, or read while the user thinks
