"""The box's configuration: one frozen dataclass per subsystem, parsed and validated in one place."""

from daemon.config.file import DEFAULT_CONFIG_PATH, load, parse
from daemon.config.hardware import AudioConfig, ButtonConfig, DisplayConfig, SerialConfig
from daemon.config.sections import (
    CONTEXT_GRANULE_TOKENS,
    SPOKEN_SYSTEM_PROMPT,
    SYSTEM_PROMPT_MAX_CHARS,
    Config,
    HomeAssistantConfig,
    ListenConfig,
    LlmConfig,
    ModelsConfig,
    SkillsConfig,
    StateConfig,
    SttConfig,
    TtsConfig,
    WakeConfig,
)

__all__ = [
    "CONTEXT_GRANULE_TOKENS",
    "DEFAULT_CONFIG_PATH",
    "SPOKEN_SYSTEM_PROMPT",
    "SYSTEM_PROMPT_MAX_CHARS",
    "AudioConfig",
    "ButtonConfig",
    "Config",
    "DisplayConfig",
    "HomeAssistantConfig",
    "ListenConfig",
    "LlmConfig",
    "ModelsConfig",
    "SerialConfig",
    "SkillsConfig",
    "StateConfig",
    "SttConfig",
    "TtsConfig",
    "WakeConfig",
    "load",
    "parse",
]
