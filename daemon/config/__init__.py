"""The box's configuration: one frozen dataclass per subsystem, parsed and validated in one place."""

from daemon.config.hardware import AudioConfig, ButtonConfig, DisplayConfig, SerialConfig
from daemon.config.sections import (
    CONTEXT_GRANULE_TOKENS,
    DEFAULT_CONFIG_PATH,
    SPOKEN_SYSTEM_PROMPT,
    Config,
    ListenConfig,
    LlmConfig,
    ModelsConfig,
    SkillsConfig,
    StateConfig,
    SttConfig,
    TtsConfig,
    WakeConfig,
    load,
    parse,
)

__all__ = [
    "CONTEXT_GRANULE_TOKENS",
    "DEFAULT_CONFIG_PATH",
    "SPOKEN_SYSTEM_PROMPT",
    "AudioConfig",
    "ButtonConfig",
    "Config",
    "DisplayConfig",
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
