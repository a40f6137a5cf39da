"""A model given by path runs only with a pin the user gave it, checked before anything opens the model."""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from daemon.cli.main import main
from daemon.config import Config
from daemon.engines.load import load_engines
from daemon.errors import EXIT_CONFIG, EXIT_OK, ModelError
from daemon.modelstore.manifest import load_manifest, verify
from daemon.modelstore.select import select
from daemon.modelstore.user_models import user_digest

ROLES = {"llm": "smollm2-135m-instruct-q4_1", "stt": "pocketsphinx-en-us", "tts": "en_US-joe-medium", "wake": "alexa"}


def own_copy(role: str, tmp_path: Path) -> Path:
    """A copy of a shipped model, as a user's own model given by path."""
    shipped = verify(load_manifest().get(ROLES[role]), Path("/unused"))
    if role == "stt":
        return Path(shutil.copytree(shipped, tmp_path / "my-speech-model"))
    if role == "llm":
        return Path(shutil.copyfile(shipped, tmp_path / "my-model.gguf"))
    companion = shipped.with_name(shipped.name + ".json") if role == "tts" else shipped.with_suffix(".tflite")
    shutil.copyfile(companion, tmp_path / companion.name)
    return Path(shutil.copyfile(shipped, tmp_path / shipped.name))


def configured(dev_config: Config, role: str, path: Path, sha256: str = "") -> Config:
    section = {"llm": "llm", "stt": "stt", "tts": "tts", "wake": "wake"}[role]
    key = "voice" if role == "tts" else "model"
    changes = {key: str(path), "sha256": sha256}
    return dataclasses.replace(dev_config, **{section: dataclasses.replace(getattr(dev_config, section), **changes)})


@pytest.mark.parametrize("role", sorted(ROLES))
def test_an_unpinned_model_is_refused_and_the_message_says_how_to_pin_it(
    role: str, dev_config: Config, tmp_path: Path
) -> None:
    path = own_copy(role, tmp_path)
    with pytest.raises(ModelError) as refused:
        select(configured(dev_config, role, path), role)
    assert refused.value.code == f"{role}-model-unpinned" and refused.value.exit_status == EXIT_CONFIG
    assert f"{role}.sha256" in refused.value.message and f"talkbox models digest {role}" in refused.value.message


@pytest.mark.parametrize("role", sorted(ROLES))
def test_a_pin_in_the_config_or_beside_the_model_lets_it_run(role: str, dev_config: Config, tmp_path: Path) -> None:
    path = own_copy(role, tmp_path)
    digest = user_digest(role, path)
    assert select(configured(dev_config, role, path, digest), role).path == path
    path.with_name(path.name + ".sha256").write_text(f"{digest}  {path.name}\n")
    assert select(configured(dev_config, role, path), role).path == path


def test_the_llm_pin_is_what_sha256sum_prints(tmp_path: Path) -> None:
    path = own_copy("llm", tmp_path)
    printed = subprocess.run(["sha256sum", str(path)], capture_output=True, text=True, check=True).stdout.split()[0]
    assert user_digest("llm", path) == printed == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_modified_model_of_the_same_size_is_refused_before_llama_cpp_opens_it(
    dev_config: Config, tmp_path: Path
) -> None:
    path = own_copy("llm", tmp_path)
    pin = user_digest("llm", path)
    with path.open("r+b") as fh:  # 4 KB of its weights flipped: it would load and answer gibberish
        fh.seek(path.stat().st_size // 2)
        block = fh.read(4096)
        fh.seek(path.stat().st_size // 2)
        fh.write(bytes(b ^ 0xFF for b in block))
    with pytest.raises(ModelError) as refused:
        select(configured(dev_config, "llm", path, pin), "llm")
    assert refused.value.code == "llm-model-corrupt" and "sha256 mismatch with its pin (llm.sha256)" in (
        refused.value.message
    )


def test_a_directory_given_as_a_model_file_is_named_as_such(dev_config: Config, tmp_path: Path) -> None:
    with pytest.raises(ModelError) as refused:
        select(configured(dev_config, "llm", tmp_path), "llm")
    assert refused.value.message == f"LLM model {tmp_path} is a directory, not a .gguf file"


def test_models_digest_prints_the_config_lines_that_pin_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = own_copy("tts", tmp_path)
    assert main(["models", "digest", "tts", str(path)]) == EXIT_OK
    assert capsys.readouterr().out == f'[tts]\nsha256 = "{user_digest("tts", path)}"\n'


@pytest.mark.parametrize(
    ("role", "given", "code"),
    [
        ("llm", "missing.gguf", "llm-model-missing"),
        ("llm", "unpinned.gguf", "llm-model-unpinned"),
        ("stt", "unpinned.gguf", "stt-model-corrupt"),  # a file where a speech model's directory belongs
        ("tts", "missing.onnx", "tts-model-missing"),
    ],
)
def test_a_model_path_the_box_cannot_use_is_said_before_any_model_is_assembled_or_loaded(
    role: str, given: str, code: str, dev_config: Config, tmp_path: Path
) -> None:
    (tmp_path / "unpinned.gguf").write_bytes(b"GGUF")
    models = tmp_path / "models"
    models.mkdir()
    config = dataclasses.replace(dev_config, models=dataclasses.replace(dev_config.models, dir=str(models)))
    with pytest.raises(ModelError) as refused:
        load_engines(configured(config, role, tmp_path / given))
    assert refused.value.code == code
    assert not any(models.iterdir())  # the skills' examples were not built, nor the brain assembled from its parts
