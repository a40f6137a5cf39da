"""The model's own chat template, and whether a conversation fits its context (the box and `config check` ask)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from daemon.config import LlmConfig
from daemon.engines.claim_note import CLAIM_NOTE
from daemon.engines.history import Message
from daemon.engines.native import quiet_native_stderr
from daemon.errors import ConfigError, ModelError

_LOGGER = logging.getLogger(__name__)

# Used only when a GGUF carries no chat template (base models): a plain transcript the model can continue.
PLAIN_TEMPLATE: Final = (
    "{% for m in messages %}{% if m.role == 'system' %}{{ m.content }}\n\n"
    "{% elif m.role == 'user' %}Question: {{ m.content }}\n"
    "{% else %}Answer: {{ m.content }}\n\n{% endif %}{% endfor %}Answer:"
)
PLAIN_STOPS: Final = ("\nQuestion:", "\n\n")


class ChatPrompt:
    """Messages to tokens through the GGUF's own chat template (a vocabulary-only load is enough)."""

    def __init__(self, llm: Any, name: str) -> None:
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self._llm = llm
        meta: dict[str, Any] = llm.metadata
        template = meta.get("tokenizer.chat_template")
        self.stops: tuple[str, ...] = ()
        """Text that ends an answer besides the end-of-generation token (the plain template's)."""
        if not template:
            _LOGGER.warning("%s has no chat template (a base model?): using a plain Q/A prompt", name)
            template, self.stops = PLAIN_TEMPLATE, PLAIN_STOPS
        vocab = llama_cpp.llama_model_get_vocab(llm.model)  # the token texts the template needs

        def text_of(token: int) -> str:
            return "" if token == -1 else llama_cpp.llama_vocab_get_text(vocab, token).decode("utf-8")

        self._formatter = Jinja2ChatFormatter(
            template=template, eos_token=text_of(llm.token_eos()), bos_token=text_of(llm.token_bos())
        )
        self.is_eog: Callable[[int], bool] = lambda tok: bool(llama_cpp.llama_vocab_is_eog(vocab, tok))
        """True for a token that ends generation."""
        trained = meta.get(f"{meta.get('general.architecture', '')}.context_length", "0")
        self.trained_context = int(trained) if str(trained).isdigit() else 0
        """The context the model was trained for (0: the GGUF does not say)."""

    def tokens(self, messages: list[Message]) -> list[int]:
        """The prompt for `messages`, tokenized."""
        prompt = self._formatter(messages=messages).prompt  # type: ignore[arg-type]
        # NOTE: templates write their own BOS/special tokens, so tokenize with special=True and no extra BOS.
        return list(self._llm.tokenize(prompt.encode(), add_bos=False, special=True))


def check_room(config: LlmConfig, chat: ChatPrompt) -> None:
    """ConfigError unless the system prompt, the longest question and the longest answer fit the context, and the
    context fits what the model was trained for."""
    if chat.trained_context and config.context_tokens > chat.trained_context:
        # NOTE: llama.cpp runs past it with a warning, but the answers fall apart beyond the trained positions.
        raise ConfigError(
            "config-invalid",
            f"llm.context_tokens = {config.context_tokens} is more than the {chat.trained_context} tokens the model "
            "was trained for",
        )
    system = f"{config.system_prompt} {CLAIM_NOTE}" if config.check_claims else config.system_prompt
    fixed = len(chat.tokens([{"role": "system", "content": system}, {"role": "user", "content": ""}]))
    if fixed + config.max_question_tokens + config.max_answer_tokens > config.context_tokens:
        raise ConfigError(
            "config-invalid",
            f"llm.context_tokens = {config.context_tokens} is too small: the system prompt takes {fixed} tokens, "
            f"plus max_question_tokens {config.max_question_tokens} and max_answer_tokens "
            f"{config.max_answer_tokens}",
        )


def check_room_of(model_path: Path, config: LlmConfig) -> None:
    """check_room() on the model's vocabulary alone (no weights, no context): what `config check` runs."""
    import llama_cpp

    try:
        with quiet_native_stderr():  # llama.cpp warns about the context it makes even for the vocabulary alone
            llm = llama_cpp.Llama(
                model_path=str(model_path), vocab_only=True, n_ctx=config.context_tokens, verbose=False
            )
    except ValueError as err:
        raise ModelError("llm-model-corrupt", f"llama.cpp could not read {model_path}: {err}") from err
    try:
        check_room(config, ChatPrompt(llm, model_path.name))
    finally:
        llm.close()


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
