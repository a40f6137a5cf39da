"""Pick the model each role runs (config, else the board profile) and verify it before use."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from pathlib import Path

from daemon.config import Config
from daemon.errors import ModelError
from daemon.modelstore.manifest import (
    KNOWLEDGE,
    MEANING,
    Manifest,
    ModelEntry,
    default_manifest_path,
    load_manifest,
    verify,
)
from daemon.modelstore.user_models import model_files, pin_for, verify_user_model

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class SelectedModel:
    """A verified model, ready for its engine to open."""

    role: str
    name: str
    path: Path
    """The model's first file (or directory)."""
    engine: str = ""
    entry: ModelEntry | None = None
    fallback_reason: str = ""
    """Why a fallback model was chosen instead of the configured one (empty if none was)."""


def manifest_for(config: Config) -> Manifest:
    """The manifest the config points at (or the installed one), parsed once per version of the file."""
    path = Path(config.models.manifest) if config.models.manifest else default_manifest_path()
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        stamp = 0  # load_manifest reports the missing file
    return _manifest(path, stamp)


@functools.lru_cache(maxsize=4)
def _manifest(path: Path, stamp: int) -> Manifest:
    return load_manifest(path)


def _configured(config: Config, role: str) -> str:
    models = {"llm": config.llm.model, "stt": config.stt.model, "tts": config.tts.voice, "wake": config.wake.model}
    return models.get(role, "")


def _pin(config: Config, role: str) -> str:
    pins = {"llm": config.llm.sha256, "stt": config.stt.sha256, "tts": config.tts.sha256, "wake": config.wake.sha256}
    return pins.get(role, "")


def _from_path(config: Config, role: str, path: Path) -> SelectedModel:
    """A model given as a path instead of a manifest name: verified against the pin the user gave it."""
    verify_user_model(role, path, _pin(config, role))
    engine = ""
    if role == "stt":
        engine = "pocketsphinx" if (path / "feat.params").is_file() else "vosk"
    return SelectedModel(role, path.name, path, engine=engine)


def check_given_paths(config: Config, manifest: Manifest | None = None) -> None:
    """A model the config gives by path that is not there, is of the wrong kind or has no pin: said at once, before
    any model is hashed or loaded (ModelError); its digest is checked when it is selected."""
    manifest = manifest or manifest_for(config)
    for role in ("llm", "stt", "tts"):  # the roles every box loads
        configured = _configured(config, role)
        if configured and configured not in manifest.models:
            path = Path(configured).expanduser()
            model_files(role, path)
            pin_for(role, path, _pin(config, role))


def select(config: Config, role: str, manifest: Manifest | None = None) -> SelectedModel:
    """Resolve and verify the model for `role`; raises ModelError/ConfigError on a permanent fault."""
    manifest = manifest or manifest_for(config)
    profile = manifest.profile(config.models.profile)
    configured = _configured(config, role)
    if configured and configured not in manifest.models:
        return _from_path(config, role, Path(configured).expanduser())
    name = configured or profile[role]
    entry = manifest.get(name)
    if entry.role != role:
        raise ModelError("model-wrong-role", f"{name} is a {entry.role} model, not a {role} model")
    models_dir = Path(config.models.dir).expanduser()
    try:
        path = verify(entry, models_dir)
    except ModelError as err:
        fallback = profile.get("stt_fallback", "")
        if not (role == "stt" and err.code == "stt-model-missing" and config.stt.fallback and fallback):
            raise
        reason = f"{err.message}; falling back to {fallback} (lower accuracy)"
        _LOGGER.warning("!!! SPEECH RECOGNITION DEGRADED: %s", reason)
        fb = manifest.get(fallback)
        return SelectedModel(role, fb.name, verify(fb, models_dir), fb.engine, fb, fallback_reason=reason)
    return SelectedModel(role, entry.name, path, entry.engine, entry)


def select_second_pass(config: Config, manifest: Manifest | None = None) -> SelectedModel | None:
    """The recogniser that hears each question again once it ended (config, else the profile), or None."""
    manifest = manifest or manifest_for(config)
    name = config.stt.second_pass or manifest.profile(config.models.profile).get("stt_second_pass", "")
    return _named(config, manifest, name, "stt.second_pass", "stt")


def select_judge(config: Config, manifest: Manifest | None = None) -> SelectedModel | None:
    """The chat model that weighs the final pass's guesses (config, else the profile), verified, or None."""
    manifest = manifest or manifest_for(config)
    name = config.stt.judge or manifest.profile(config.models.profile).get("stt_judge", "")
    return _named(config, manifest, name, "stt.judge", "llm")


def select_second_opinion(config: Config, manifest: Manifest | None = None) -> SelectedModel | None:
    """The Whisper that hears a short request again when the first heard no command (config, else the profile)."""
    manifest = manifest or manifest_for(config)
    name = config.stt.second_opinion or manifest.profile(config.models.profile).get("stt_second_opinion", "")
    return _named(config, manifest, name, "stt.second_opinion", "stt")


def _named(config: Config, manifest: Manifest, name: str, setting: str, role: str) -> SelectedModel | None:
    """The model `setting` names, which must be a `role` one, verified; None for none ("" or "none")."""
    if not name or name == "none":
        return None
    entry = manifest.get(name)
    if entry.role != role:
        raise ModelError("model-wrong-role", f"{setting} = {name!r} is a {entry.role} model, not a {role} one")
    return SelectedModel(role, entry.name, verify(entry, Path(config.models.dir).expanduser()), entry.engine, entry)


def select_optional(config: Config, role: str, manifest: Manifest | None = None) -> SelectedModel | None:
    """The model of an optional role of the profile (KNOWLEDGE, MEANING), verified, or None if it names none.

    For an encyclopedia `path` is its index (built once); for a sentence embedding, its ONNX file.
    """
    manifest = manifest or manifest_for(config)
    name = manifest.profile(config.models.profile).get(role, "")
    if not name:
        return None
    entry = manifest.get(name)
    if entry.role != role:
        raise ModelError("model-wrong-role", f"{role} = {name!r} is a {entry.role} model, not a {role} one")
    return SelectedModel(role, entry.name, verify(entry, Path(config.models.dir).expanduser()), "", entry)


def select_knowledge(config: Config, manifest: Manifest | None = None) -> SelectedModel | None:
    """The profile's encyclopedia, its index built and verified (`path` is the index), or None if it has none."""
    return select_optional(config, KNOWLEDGE, manifest)


def select_meaning(config: Config, manifest: Manifest | None = None) -> SelectedModel | None:
    """The profile's sentence embedding model, verified (`path` is its ONNX file), or None if it has none."""
    return select_optional(config, MEANING, manifest)
