"""The manifest pins every model, and a damaged model is refused before any parser opens it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from daemon.config import Config, ModelsConfig, SttConfig
from daemon.errors import EXIT_CONFIG, ModelError
from daemon.modelstore.manifest import default_manifest_path, file_digest, load_manifest, tree_digest, verify
from daemon.modelstore.select import select
from tests import corrupt

SMOLLM = "smollm2-135m-instruct-q4_1"
UNUSED_URL = "http://127.0.0.1:9/never-fetched-by-these-tests"


def test_manifest_profiles_name_real_models_with_pins() -> None:
    manifest = load_manifest()
    assert {"dev", "pi4", "pi5"} <= set(manifest.profiles)
    for name, entry in manifest.models.items():
        for f in entry.files:
            if not f.dir:
                assert f.sha256 or f.md5, f"{name}/{f.path} is unpinned"
                assert f.size > 0, name
        if entry.archive:
            assert len(entry.archive.sha256) == 64 and entry.archive.size > 0
    for board in ("pi4", "pi5"):
        llm = manifest.get(manifest.profile(board)["llm"])
        assert llm.files[0].path.endswith("q4_k_m.gguf")  # the box ships Q4_K_M
        assert manifest.get(manifest.profile(board)["stt"]).engine == "vosk"


def test_every_installed_dev_model_verifies(models_dir: Path) -> None:
    manifest = load_manifest()
    for role, name in manifest.profile("dev").items():
        if not name:  # a role the dev profile leaves empty (no second pass)
            continue
        # NOTE: the session's models directory: the brain is written whole from its parts there once (1.1 GB).
        assert verify(manifest.get(name), models_dir).exists(), role


def test_tree_digest_is_the_sha256sum_listing(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("alpha")
    (tmp_path / "sub" / "b.txt").write_text("beta")
    listing = "".join(f"{file_digest(tmp_path / p)}  {p}\n" for p in ("a.txt", "sub/b.txt"))
    import hashlib

    assert tree_digest(tmp_path) == (hashlib.sha256(listing.encode()).hexdigest(), 9)


def write_manifest(tmp_path: Path, model: Path) -> Path:
    """The real manifest plus a fetched-style LLM `test-llm` pinned to `model`, and a profile using it."""
    pin = f'path = "{model.name}", size = {model.stat().st_size}, sha256 = "{file_digest(model)}", url = "{UNUSED_URL}"'
    extra = textwrap.dedent(f"""
        [models.test-llm]
        role = "llm"
        licence = "Apache-2.0"
        source = "a copy of {model.name}"
        files = [{{ {pin} }}]

        [profiles.test]
        llm = "test-llm"
        stt = "vosk-model-small-en-us-0.15"
        stt_fallback = "pocketsphinx-en-us"
        tts = "en_US-joe-medium"
        wake = "hey_jarvis"
    """)
    path = tmp_path / "manifest.toml"
    path.write_text(default_manifest_path().read_text() + extra)
    return path


@pytest.fixture(scope="module")
def real_model() -> Path:
    return verify(load_manifest().get(SMOLLM), Path("/nonexistent"))


@pytest.mark.parametrize("kind", sorted(corrupt.CORRUPTIONS))
def test_damaged_llm_is_refused_with_exit_78_before_llama_cpp_loads(
    kind: str, real_model: Path, tmp_path: Path
) -> None:
    manifest = write_manifest(tmp_path, real_model)
    models = tmp_path / "models"
    (models / "test-llm").mkdir(parents=True)
    bad = models / "test-llm" / real_model.name
    make, reason = corrupt.CORRUPTIONS[kind]
    make(real_model, bad)
    cfg = tmp_path / "talkbox.toml"
    cfg.write_text(f'[models]\nprofile = "test"\nmanifest = "{manifest}"\ndir = "{models}"\n')
    probe = (
        "import sys; from daemon.cli.main import main; rc = main(['--config', sys.argv[1], 'ask', 'hi']);"
        "print('llama_cpp loaded' if 'llama_cpp' in sys.modules else 'llama_cpp untouched'); sys.exit(rc)"
    )
    proc = subprocess.run([sys.executable, "-c", probe, str(cfg)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == EXIT_CONFIG, proc.stderr
    assert proc.stdout.strip() == "llama_cpp untouched"
    error = proc.stderr.strip().splitlines()[-1]
    assert str(bad) in error and reason in error and "[llm-model-corrupt]" in error


def test_missing_vosk_model_falls_back_to_pocketsphinx_loudly(
    real_model: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    manifest = write_manifest(tmp_path, real_model)
    cfg = Config(models=ModelsConfig(profile="test", manifest=str(manifest), dir=str(tmp_path / "empty")))
    chosen = select(cfg, "stt")
    assert chosen.name == "pocketsphinx-en-us" and chosen.engine == "pocketsphinx"
    assert "vosk-model-small-en-us-0.15" in chosen.fallback_reason
    assert any(r.levelname == "WARNING" and "DEGRADED" in r.getMessage() for r in caplog.records)
    strict = Config(models=cfg.models, stt=SttConfig(fallback=False))
    with pytest.raises(ModelError) as info:
        select(strict, "stt")
    assert info.value.code == "stt-model-missing" and "talkbox models fetch" in info.value.message


def test_a_corrupt_vosk_model_is_not_papered_over_by_the_fallback(real_model: Path, tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path, real_model)
    broken = tmp_path / "models" / "vosk-model-small-en-us-0.15" / "vosk-model-small-en-us-0.15"
    (broken / "am").mkdir(parents=True)
    (broken / "am" / "final.mdl").write_bytes(b"garbage")
    cfg = Config(models=ModelsConfig(profile="test", manifest=str(manifest), dir=str(tmp_path / "models")))
    with pytest.raises(ModelError) as info:
        select(cfg, "stt")
    assert info.value.code == "stt-model-corrupt"
