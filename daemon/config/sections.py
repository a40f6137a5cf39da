"""The box's configuration: one frozen dataclass per subsystem, parsed from TOML in one place."""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, get_type_hints

from daemon.config.hardware import AudioConfig, ButtonConfig, DisplayConfig, SerialConfig
from daemon.config.validate import check as _check
from daemon.errors import ConfigError

DEFAULT_CONFIG_PATH: Final = Path("/etc/talkbox/talkbox.toml")
CONTEXT_GRANULE_TOKENS: Final = 256
"""llama.cpp has crashed long generations when n_ctx is not a multiple of this."""

SPOKEN_SYSTEM_PROMPT: Final = (
    "You are Talkbox, a friendly voice assistant. Your answers are read aloud by a speaker, "
    "so answer in one to three short, plain sentences. Never use lists, markdown, emoji, "
    "code or URLs. If you do not know something, say so briefly."
)


def _check_pin(section: str, pin: str) -> None:
    hexdigits = len(pin) == 64 and all(c in "0123456789abcdef" for c in pin)
    _check(pin == "" or hexdigits, f"{section}.sha256", pin, "64 lower-case hex digits (a sha256), or empty")


def _default_models_dir() -> str:
    """Where fetched models live when the config does not say (per-user off the box)."""
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(data_home) / "talkbox" / "models")


@dataclass(frozen=True)
class ModelsConfig:
    """Where models come from and which board profile picks the defaults."""

    profile: str = "dev"
    """A profile from the manifest: dev, pi4, pi5."""
    dir: str = field(default_factory=_default_models_dir)
    """Directory holding fetched models (the image uses /var/lib/talkbox/models)."""
    manifest: str = ""
    """Path of manifest.toml; empty means the one installed with talkbox."""

    def __post_init__(self) -> None:
        _check(bool(self.profile.strip()), "models.profile", self.profile, "a profile name")


@dataclass(frozen=True)
class LlmConfig:
    """The language model and how it runs."""

    model: str = ""
    """A manifest model name or a path to a .gguf file; empty means the profile's."""
    sha256: str = ""
    """The pin of a model given by path (64 hex digits; `talkbox models digest` prints it); see also FILE.sha256."""
    context_tokens: int = 2048
    """n_ctx: a multiple of 256, 256..32768."""
    max_answer_tokens: int = 200
    """Hard cap on one answer, 16..2048 tokens."""
    threads: int = 0
    """Decode threads; 0 picks one fewer than the cores (at least 1) so STT/TTS keep a core."""
    batch_threads: int = 0
    """Prompt-processing threads; 0 means all cores."""
    batch_tokens: int = 256
    """n_batch: tokens evaluated per prompt step, 32..2048."""
    omp_wait_policy: str = "PASSIVE"
    """OpenMP wait policy: PASSIVE (threads sleep) or ACTIVE (threads spin)."""
    temperature: float = 0.3
    """Sampling temperature, 0..2 (0 is greedy)."""
    top_p: float = 0.9
    """Nucleus sampling mass, 0..1."""
    repeat_penalty: float = 1.15
    """Penalty for repeated tokens, 1..2."""
    seed: int = -1
    """Sampling seed; -1 picks a random one per start."""
    system_prompt: str = SPOKEN_SYSTEM_PROMPT
    """Instructions given before every conversation."""
    max_question_tokens: int = 256
    """Longer questions are cut to this many tokens, 16..4096."""

    def __post_init__(self) -> None:
        _check_pin("llm", self.sha256)
        n = self.context_tokens
        _check(
            256 <= n <= 32768 and n % CONTEXT_GRANULE_TOKENS == 0,
            "llm.context_tokens",
            n,
            "a multiple of 256 from 256 to 32768",
        )
        _check(16 <= self.max_answer_tokens <= 2048, "llm.max_answer_tokens", self.max_answer_tokens, "16..2048")
        _check(16 <= self.max_question_tokens <= 4096, "llm.max_question_tokens", self.max_question_tokens, "16..4096")
        _check(
            self.max_answer_tokens + self.max_question_tokens < n,
            "llm.max_answer_tokens",
            self.max_answer_tokens,
            "max_answer_tokens + max_question_tokens below context_tokens",
        )
        _check(0 <= self.threads <= 64, "llm.threads", self.threads, "0 (auto) .. 64")
        _check(0 <= self.batch_threads <= 64, "llm.batch_threads", self.batch_threads, "0 (auto) .. 64")
        _check(32 <= self.batch_tokens <= 2048, "llm.batch_tokens", self.batch_tokens, "32..2048")
        _check(
            self.omp_wait_policy in ("PASSIVE", "ACTIVE"),
            "llm.omp_wait_policy",
            self.omp_wait_policy,
            "PASSIVE or ACTIVE",
        )
        _check(0.0 <= self.temperature <= 2.0, "llm.temperature", self.temperature, "0..2")
        _check(0.0 < self.top_p <= 1.0, "llm.top_p", self.top_p, "above 0, at most 1")
        _check(1.0 <= self.repeat_penalty <= 2.0, "llm.repeat_penalty", self.repeat_penalty, "1..2")
        _check(-1 <= self.seed <= 0xFFFFFFFF, "llm.seed", self.seed, "-1 (random) or 0..4294967295")


@dataclass(frozen=True)
class SttConfig:
    """Speech-to-text."""

    model: str = ""
    """A manifest model name or a model directory; empty means the profile's."""
    sha256: str = ""
    """The pin of a model given by path (64 hex digits; `talkbox models digest` prints it); see also FILE.sha256."""
    fallback: bool = True
    """If the Vosk model is missing, fall back to the bundled PocketSphinx English model (warns)."""
    second_pass: str = ""
    """Hear each question again, whole, once it ended: a manifest model name (whisper-tiny-en, pocketsphinx-en-us),
    "none", or empty for the profile's choice."""
    threads: int = 1
    """Threads for Whisper, 1..16 (one is fastest on a question-long window)."""

    def __post_init__(self) -> None:
        _check_pin("stt", self.sha256)
        _check(isinstance(self.fallback, bool), "stt.fallback", self.fallback, "true or false")
        _check(1 <= self.threads <= 16, "stt.threads", self.threads, "1..16")


@dataclass(frozen=True)
class TtsConfig:
    """Text-to-speech."""

    voice: str = ""
    """A manifest voice name or a path to a Piper .onnx voice; empty means the profile's."""
    sha256: str = ""
    """The pin of a model given by path (64 hex digits; `talkbox models digest` prints it); see also FILE.sha256."""
    length_scale: float = 1.0
    """Speaking slowness: 0.5 (fast) .. 2.0 (slow)."""
    volume: float = 1.0
    """Output gain, 0.1..2.0."""
    sentence_silence_s: float = 0.15
    """Pause after each sentence, seconds, 0..2."""
    noise_scale: float = -1.0
    """Voice variation 0..1 (0: the same audio every time, as tests want); negative keeps the voice's own."""
    noise_w: float = -1.0
    """Phoneme-length variation 0..1; negative keeps the voice's own."""
    threads: int = 1
    """onnxruntime threads for the voice, 0 (all cores) .. 16; one leaves the other cores to the LLM."""

    def __post_init__(self) -> None:
        _check_pin("tts", self.sha256)
        _check(
            self.noise_scale <= 1.0 and self.noise_w <= 1.0,
            "tts.noise_scale",
            self.noise_scale,
            "0..1, or negative for the voice's own",
        )
        _check(0 <= self.threads <= 16, "tts.threads", self.threads, "0 (all cores) .. 16")
        _check(0.5 <= self.length_scale <= 2.0, "tts.length_scale", self.length_scale, "0.5..2.0")
        _check(0.1 <= self.volume <= 2.0, "tts.volume", self.volume, "0.1..2.0")
        _check(0.0 <= self.sentence_silence_s <= 2.0, "tts.sentence_silence_s", self.sentence_silence_s, "0..2 seconds")


@dataclass(frozen=True)
class WakeConfig:
    """Wake word detection."""

    model: str = ""
    """A manifest wake-word name (hey_jarvis, alexa, hey_mycroft, okay_nabu) or a path to a model's .json."""
    sha256: str = ""
    """The pin of a model given by path (64 hex digits; `talkbox models digest` prints it); see also FILE.sha256."""
    threshold: float = 0.0
    """Detection probability cutoff 0..1; 0 keeps the model's own tuned cutoff."""
    phrase: str = ""
    """A wake phrase of your own ("hey computer"), spotted by PocketSphinx instead of a wake-word model; empty: none."""
    phrase_threshold: float = 1e-20
    """How sure the phrase spotter must be, 1e-50 (eager) .. 1e-5 (strict)."""

    def __post_init__(self) -> None:
        _check_pin("wake", self.sha256)
        _check(0.0 <= self.threshold < 1.0, "wake.threshold", self.threshold, "0 (model default) .. <1")
        _check(1e-50 <= self.phrase_threshold <= 1e-5, "wake.phrase_threshold", self.phrase_threshold, "1e-50..1e-5")
        _check(len(self.phrase) <= 80, "wake.phrase", self.phrase, "a short phrase (80 characters at most)")


@dataclass(frozen=True)
class ListenConfig:
    """How a turn starts and when the user has finished speaking."""

    wake_word: bool = True
    """Listen for the wake word; false means the button alone starts a turn."""
    trailing_silence_s: float = 1.0
    """Silence after speech that ends the question, 0.2..3 seconds (when nothing tells whether it is complete)."""
    predict_end: bool = True
    """Judge the words heard so far at each pause: a finished question ends sooner, an unfinished one waits longer."""
    min_silence_s: float = 0.3
    """The pause that ends a question judged complete, 0.1..trailing_silence_s (and no sooner than the answer begun
    at that pause is ready to sound, when `speculate`)."""
    max_silence_s: float = 1.5
    """The pause that ends a question judged unfinished ("set a timer for ..."), trailing_silence_s..5."""
    prefill: bool = True
    """Evaluate the words heard so far into the language model's cache while the user still speaks."""
    speculate: bool = True
    """Start answering at a pause judged complete, or shortly before any other pause ends the question, silently;
    dropped unheard if the user goes on."""
    max_utterance_s: float = 15.0
    """A question is cut after this long, 2..60 seconds."""
    no_speech_timeout_s: float = 5.0
    """With no speech this long after the wake word, give up with a cue, 1..30 seconds."""
    follow_up_s: float = 4.0
    """After an answer, listen this long for a follow-up without the wake word; 0 turns it off (0..30)."""
    vad: str = "silero"
    """Voice activity detection: webrtc (WebRTC's VAD and a noise gate) or silero (a neural VAD)."""
    vad_aggressiveness: int = 2
    """webrtcvad mode 0 (lenient) .. 3 (strict about what counts as speech)."""
    vad_threshold: float = 0.5
    """Silero: the probability of speech above which a frame is speech, 0.1..0.95."""
    min_speech_s: float = 0.15
    """Voice must last this long to count as speech (ignores clicks), 0.03..1 seconds."""
    chime: bool = True
    """Play a short tone when the box starts listening and when it gives up."""

    def __post_init__(self) -> None:
        _check(0.2 <= self.trailing_silence_s <= 3.0, "listen.trailing_silence_s", self.trailing_silence_s, "0.2..3")
        _check(
            0.1 <= self.min_silence_s <= self.trailing_silence_s,
            "listen.min_silence_s",
            self.min_silence_s,
            f"0.1..{self.trailing_silence_s} (listen.trailing_silence_s)",
        )
        _check(
            self.trailing_silence_s <= self.max_silence_s <= 5.0,
            "listen.max_silence_s",
            self.max_silence_s,
            f"{self.trailing_silence_s} (listen.trailing_silence_s)..5",
        )
        _check(2.0 <= self.max_utterance_s <= 60.0, "listen.max_utterance_s", self.max_utterance_s, "2..60")
        _check(1.0 <= self.no_speech_timeout_s <= 30.0, "listen.no_speech_timeout_s", self.no_speech_timeout_s, "1..30")
        _check(0.0 <= self.follow_up_s <= 30.0, "listen.follow_up_s", self.follow_up_s, "0 (off) .. 30")
        _check(self.vad in ("webrtc", "silero"), "listen.vad", self.vad, "webrtc or silero")
        _check(0.1 <= self.vad_threshold <= 0.95, "listen.vad_threshold", self.vad_threshold, "0.1..0.95")
        _check(
            self.vad_aggressiveness in (0, 1, 2, 3),
            "listen.vad_aggressiveness",
            self.vad_aggressiveness,
            "0, 1, 2 or 3",
        )
        _check(0.03 <= self.min_speech_s <= 1.0, "listen.min_speech_s", self.min_speech_s, "0.03..1")


@dataclass(frozen=True)
class StateConfig:
    """What the box keeps across restarts and power cuts."""

    dir: str = "/var/lib/talkbox/state"
    """Directory of state.json (the image's systemd StateDirectory)."""
    keep_history: bool = False
    """Also keep the conversation across restarts (it is written to the SD card after every turn)."""

    def __post_init__(self) -> None:
        _check(bool(self.dir.strip()) and "\0" not in self.dir, "state.dir", self.dir, "a directory path")
        _check(isinstance(self.keep_history, bool), "state.keep_history", self.keep_history, "true or false")


@dataclass(frozen=True)
class SkillsConfig:
    """Everyday jobs answered without the language model: the clock, timers, alarms, volume, sums."""

    enabled: bool = True
    """Answer skill requests ("set a timer for ten minutes") before the language model."""
    tool_calls: bool = False
    """Let the language model call a skill, through a grammar, when no template matched (off: the dev model's
    135M parameters pick the wrong skill; see `talkbox eval skills`)."""
    trust_clock: str = "auto"
    """auto: trust the clock only when NTP has synchronised it, an RTC set it or the user did; system: always."""
    ring_s: float = 120.0
    """A timer or alarm rings until stopped or this long, 5..900 seconds."""
    volume: int = 100
    """Starting volume 0..100, until the user changes it by voice (then remembered)."""

    def __post_init__(self) -> None:
        _check(self.trust_clock in ("auto", "system"), "skills.trust_clock", self.trust_clock, "auto or system")
        _check(5.0 <= self.ring_s <= 900.0, "skills.ring_s", self.ring_s, "5..900")
        _check(0 <= self.volume <= 100, "skills.volume", self.volume, "0..100")


@dataclass(frozen=True)
class Config:
    """The whole configuration."""

    models: ModelsConfig = field(default_factory=ModelsConfig)
    llm: LlmConfig = field(default_factory=LlmConfig)
    stt: SttConfig = field(default_factory=SttConfig)
    tts: TtsConfig = field(default_factory=TtsConfig)
    wake: WakeConfig = field(default_factory=WakeConfig)
    listen: ListenConfig = field(default_factory=ListenConfig)
    audio: AudioConfig = field(default_factory=AudioConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    button: ButtonConfig = field(default_factory=ButtonConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    state: StateConfig = field(default_factory=StateConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)


def _coerce(key: str, value: Any, kind: Any) -> Any:
    """Check one TOML value against a field's annotated type (ints are accepted for floats)."""
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        _check(abs(value) < 2**63, key, value, "a number of sensible size")  # float() overflows beyond ~1e308
        value = float(value)
    if isinstance(value, float):
        _check(math.isfinite(value), key, value, "a finite number")
    if isinstance(value, str):
        # NOTE: TOML's "\u0000" escape is legal, but a NUL in a path or device name fails deep inside the OS.
        _check("\0" not in value and _encodable(value), key, value, "text without NUL or unpaired surrogates")
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        kind = tuple(a for a in typing.get_args(kind) if a is not type(None))
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    _check(ok, key, value, f"a value of type {getattr(kind, '__name__', kind)}")
    return value


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _build(cls: type[Any], section: str, table: Any) -> Any:
    """Build one subsystem dataclass from its TOML table, refusing unknown keys."""
    if not isinstance(table, dict):
        raise ConfigError("config-invalid", f"[{section}] must be a table, not {table!r}")
    hints = get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(table) - names)
    if unknown:
        raise ConfigError(
            "config-unknown-key",
            f"{section}.{unknown[0]} is not a setting; known keys: {', '.join(sorted(names))}",
        )
    values = {k: _coerce(f"{section}.{k}", v, hints[k]) for k, v in table.items()}
    return cls(**values)


def parse(text: str, origin: str = "<config>") -> Config:
    """Parse TOML text into a validated Config."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError("config-syntax", f"{origin} is not valid TOML: {err}") from err
    except RecursionError as err:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigError("config-syntax", f"{origin} is not valid TOML: arrays or tables nested too deeply") from err
    sections = {f.name: f for f in dataclasses.fields(Config)}
    unknown = sorted(set(data) - set(sections))
    if unknown:
        raise ConfigError(
            "config-unknown-key",
            f"[{unknown[0]}] is not a section; known sections: {', '.join(sorted(sections))}",
        )
    hints = get_type_hints(Config)
    parts = {name: _build(hints[name], name, table) for name, table in data.items()}
    return Config(**parts)


def load(path: Path | None = None) -> Config:
    """Load the config from `path`, or the default path if it exists, or pure defaults."""
    if path is None:
        if not DEFAULT_CONFIG_PATH.exists():
            return Config()
        path = DEFAULT_CONFIG_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise ConfigError("config-missing", f"config file {path} does not exist") from err
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError("config-unreadable", f"cannot read config file {path}: {err}") from err
    return parse(text, str(path))
