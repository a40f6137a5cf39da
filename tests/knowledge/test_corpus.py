"""The encyclopedia's file is verified before it is parsed, and its index is built once and never trusted blindly."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import sqlite3
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from daemon.config import Config, LlmConfig, ModelsConfig
from daemon.engines.load import load_knowledge
from daemon.errors import ModelError
from daemon.knowledge.corpus import BUILD_VERSION, index_path
from daemon.modelstore.manifest import default_manifest_path, load_manifest, verify
from daemon.modelstore.parts import package_dir
from daemon.modelstore.select import select_knowledge
from tests import corrupt

WIKI = "wiki-vital-summaries-en"
CORPUS = "data/summaries_en-us.json"


def real_corpus() -> Path:
    """The package's JSON, found (and pinned) through the manifest."""
    entry = load_manifest().get(WIKI)
    folder = package_dir(entry.package)
    assert folder is not None, f"install {entry.source}"
    return folder / CORPUS


def packaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, pin: bytes | None = None) -> Config:
    """`data` installed as the corpus of a package of its own, pinned (to `pin`'s digest, else its own) by a
    manifest whose profile `test` reads it."""
    site, package = tmp_path / "site", f"tbwiki_{uuid.uuid4().hex[:8]}"
    (site / package / "data").mkdir(parents=True)
    (site / package / "__init__.py").write_text("raise ImportError('data only: never imported')\n")
    (site / package / CORPUS).write_bytes(data)
    pinned = pin if pin is not None else data
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        default_manifest_path().read_text()
        + textwrap.dedent(f"""
            [models.test-wiki]
            role = "knowledge"
            licence = "CC BY-SA 4.0"
            source = "a test copy of {WIKI}"
            package = "{package}"
            files = [{{ path = "{CORPUS}", size = {len(pinned)}, sha256 = "{hashlib.sha256(pinned).hexdigest()}" }}]

            [profiles.test]
            llm = "smollm2-135m-instruct-q4_1"
            stt = "whisper-tiny-en"
            tts = "en_US-joe-medium"
            wake = "hey_jarvis"
            knowledge = "test-wiki"
        """)
    )
    monkeypatch.syspath_prepend(str(site))
    models = ModelsConfig(profile="test", dir=str(tmp_path / "models"), manifest=str(manifest))
    return Config(models=models, llm=LlmConfig(encyclopedia=True))


def test_the_index_is_built_from_the_real_package_data_in_seconds(tmp_path: Path) -> None:
    entry = load_manifest().get(WIKI)
    assert entry.role == "knowledge" and "CC BY-SA 4.0" in entry.licence
    started = time.monotonic()
    index = verify(entry, tmp_path)
    built_s = time.monotonic() - started
    assert index == index_path(tmp_path / WIKI, entry.files[0].sha256)
    assert entry.files[0].sha256[:16] in index.name and f"v{BUILD_VERSION}" in index.name
    assert built_s < 30, f"the index took {built_s:.1f} s"  # ~0.7 s here; generous for a busy machine
    with sqlite3.connect(f"{index.as_uri()}?mode=ro", uri=True) as db:
        articles = db.execute("SELECT count(*) FROM article").fetchone()[0]
        assert db.execute("SELECT value FROM meta WHERE key = 'corpus_sha256'").fetchone()[0] == entry.files[0].sha256
        assert db.execute("SELECT count(*) FROM body WHERE body MATCH 'tolstoy'").fetchone()[0] >= 1
    assert articles == len(json.loads(real_corpus().read_bytes())) > 10_000
    assert sorted(p.name for p in index.parent.iterdir()) == [".index.lock", index.name, f"{index.name}.sha256"]
    stamp = index.stat().st_mtime_ns
    assert verify(entry, tmp_path) == index and index.stat().st_mtime_ns == stamp  # built once, then only checked


@pytest.mark.parametrize("kind", ["bit-flipped", "truncated", "zero-length", "wrong-magic"])
def test_a_damaged_corpus_is_refused_before_it_is_parsed(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    damaged = tmp_path / "damaged.json"
    corrupt.CORRUPTIONS[kind][0](real_corpus(), damaged)
    config = packaged(tmp_path, monkeypatch, damaged.read_bytes(), pin=real_corpus().read_bytes())
    with pytest.raises(ModelError) as info:
        select_knowledge(config)
    assert info.value.code == "knowledge-model-corrupt"
    assert "reinstall its package" in info.value.message
    # NOTE: a JSON file has no header to check: a damage of the same size is caught by its digest
    reason = "sha256 mismatch" if kind in ("bit-flipped", "wrong-magic") else corrupt.CORRUPTIONS[kind][1]
    assert reason in info.value.message
    assert not (tmp_path / "models").exists()  # refused before any index was begun: nothing parsed it


def test_a_pinned_file_that_is_not_the_expected_corpus_is_refused_as_corrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = packaged(tmp_path, monkeypatch, b'["a list, not articles"]')
    with pytest.raises(ModelError) as info:
        select_knowledge(config)
    assert info.value.code == "knowledge-model-corrupt" and "not a JSON object of articles" in info.value.message


@pytest.mark.parametrize("damage", ["half-written", "bit-flipped", "digest missing"])
def test_a_damaged_index_is_built_again_never_opened(
    damage: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    entry = load_manifest().get(WIKI)
    index = verify(entry, tmp_path)
    good = index.read_bytes()
    if damage == "half-written":
        index.write_bytes(good[: len(good) // 2])
    elif damage == "bit-flipped":
        shutil.copyfile(index, tmp_path / "copy")
        corrupt.bit_flipped(tmp_path / "copy", index)
    else:
        index.with_name(index.name + ".sha256").unlink()
    with caplog.at_level(logging.WARNING, logger="daemon.knowledge.corpus"):
        assert verify(entry, tmp_path) == index
    assert "building it again" in caplog.text
    digest = index.with_name(index.name + ".sha256").read_text().split()[0]
    assert hashlib.sha256(index.read_bytes()).hexdigest() == digest
    with sqlite3.connect(f"{index.as_uri()}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_an_index_of_another_corpus_or_build_is_dropped_when_the_new_one_is_built(tmp_path: Path) -> None:
    folder = tmp_path / WIKI
    folder.mkdir()
    for name in ("index-0123456789abcdef-v1.sqlite", "index-0123456789abcdef-v1.sqlite.sha256"):
        (folder / name).write_text("stale")
    index = verify(load_manifest().get(WIKI), tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == [".index.lock", index.name, f"{index.name}.sha256"]


def test_an_index_that_cannot_be_built_leaves_the_model_without_its_encyclopedia(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / WIKI).write_text("a file where the index's folder should be")  # like a read-only models directory
    config = Config(models=ModelsConfig(profile="dev", dir=str(tmp_path)), llm=LlmConfig(encyclopedia=True))
    with pytest.raises(ModelError) as info:
        select_knowledge(config)
    assert info.value.code == "knowledge-model-unwritable" and "talkbox models verify" in info.value.message
    with caplog.at_level(logging.WARNING):
        assert load_knowledge(config) is None
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "without its encyclopedia" in warnings[0].getMessage()


def test_a_profile_without_an_encyclopedia_gives_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = packaged(tmp_path, monkeypatch, b"{}")
    manifest = Path(config.models.manifest)
    manifest.write_text(manifest.read_text().replace('knowledge = "test-wiki"', 'knowledge = ""'))
    assert select_knowledge(config) is None and load_knowledge(config) is None
