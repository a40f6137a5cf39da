"""A model shipped in byte parts across packages: every part and the whole verified before any parser opens it."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
import uuid
from collections import namedtuple
from dataclasses import dataclass
from pathlib import Path

import pytest

from daemon.config import Config
from daemon.errors import EXIT_CONFIG, ConfigError, ModelError
from daemon.modelstore.gguf import read_header
from daemon.modelstore.manifest import ModelEntry, default_manifest_path, load_manifest, verify
from tests import corrupt

QWEN_05 = "qwen2.5-coder-0.5b-instruct-q4_k_m"
QWEN_15 = "qwen2.5-coder-1.5b-instruct-q4_k_m"
PART_BYTES = (300_000, 300_000, 123_457)
GGUF_NAME = "split.gguf"


@dataclass(frozen=True)
class Parted:
    """Synthetic parts installed as packages on sys.path, and a manifest (with a profile) that pins them."""

    site: Path
    packages: tuple[str, ...]
    whole: bytes
    manifest: Path
    models: Path

    def entry(self) -> ModelEntry:
        return load_manifest(self.manifest).get("parted-llm")

    def part_file(self, index: int) -> Path:
        return self.site / self.packages[index] / "data" / f"part{index + 1:02d}.bin"

    @property
    def assembled(self) -> Path:
        return self.models / "parted-llm" / GGUF_NAME


@pytest.fixture
def parted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Parted:
    """Three parts of a real GGUF (the dev profile's SmolLM2), each pinned, in packages of their own."""
    smollm = verify(load_manifest().get("smollm2-135m-instruct-q4_1"), tmp_path)
    with smollm.open("rb") as fh:  # a real GGUF header, so a parser would have something to open
        head = fh.read(sum(PART_BYTES))
    site, tag = tmp_path / "site", uuid.uuid4().hex[:8]
    packages, rows, start = [], [], 0
    for i, n in enumerate(PART_BYTES, start=1):
        package = f"tbparts_{tag}_part{i}"
        data = head[start : start + n]
        start += n
        (site / package / "data").mkdir(parents=True)
        (site / package / "__init__.py").write_text("raise ImportError('data only: never imported')\n")
        (site / package / "data" / f"part{i:02d}.bin").write_bytes(data)
        packages.append(package)
        rows.append(
            f'{{ package = "{package}", path = "data/part{i:02d}.bin", size = {n}, '
            f'sha256 = "{hashlib.sha256(data).hexdigest()}", requirement = "tbparts-{tag}-part{i}==1.0" }},'
        )
    whole = head[:start]
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        default_manifest_path().read_text()
        + textwrap.dedent("""
            [models.parted-llm]
            role = "llm"
            licence = "Apache-2.0"
            source = "a test model in three parts"
            files = [{{ path = "{name}", size = {size}, sha256 = "{sha}" }}]
            parts = [
            {rows}
            ]

            [profiles.parted]
            llm = "parted-llm"
            stt = "whisper-tiny-en"
            tts = "en_US-joe-medium"
            wake = "hey_jarvis"
        """).format(name=GGUF_NAME, size=len(whole), sha=hashlib.sha256(whole).hexdigest(), rows="\n".join(rows))
    )
    monkeypatch.syspath_prepend(str(site))
    return Parted(site, tuple(packages), whole, manifest, tmp_path / "models")


def damage(path: Path, kind: str) -> None:
    """Corrupt `path` in place, as tests/corrupt.py describes `kind`."""
    damaged = path.with_name(path.name + ".damaged")
    corrupt.CORRUPTIONS[kind][0](path, damaged)
    damaged.replace(path)


def leftovers(parted: Parted) -> list[str]:
    """Whatever an assembly left in the model's directory."""
    folder = parted.assembled.parent
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_model_in_parts_is_assembled_once_then_only_the_whole_is_checked(parted: Parted) -> None:
    path = verify(parted.entry(), parted.models)
    assert path == parted.assembled and path.read_bytes() == parted.whole
    assert leftovers(parted) == [GGUF_NAME]  # no temporary file beside it
    assert path.stat().st_mode & 0o777 == 0o644  # the service's own user reads what root assembled
    first = path.stat()
    for package in parted.packages:  # the parts may go once the whole is there
        shutil.rmtree(parted.site / package)
    assert verify(parted.entry(), parted.models) == path
    again = path.stat()
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)


def test_a_flipped_byte_in_one_part_is_refused_naming_it_before_llama_cpp_loads(parted: Parted) -> None:
    damage(parted.part_file(1), "bit-flipped")
    cfg = parted.manifest.with_name("talkbox.toml")
    cfg.write_text(f'[models]\nprofile = "parted"\nmanifest = "{parted.manifest}"\ndir = "{parted.models}"\n')
    probe = (
        "import sys; from daemon.cli.main import main; rc = main(['--config', sys.argv[1], 'ask', 'hi']);"
        "print('llama_cpp loaded' if 'llama_cpp' in sys.modules else 'llama_cpp untouched'); sys.exit(rc)"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(parted.site), *sys.path]))
    proc = subprocess.run([sys.executable, "-c", probe, str(cfg)], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == EXIT_CONFIG, proc.stderr
    assert proc.stdout.strip() == "llama_cpp untouched"
    error = proc.stderr.strip().splitlines()[-1]
    assert "part 2/3" in error and parted.packages[1] in error and "sha256 mismatch" in error
    assert f"{parted.packages[1].replace('_', '-')}==1.0" in error  # what to reinstall
    assert error.endswith("[llm-model-corrupt]")
    assert leftovers(parted) == []  # nothing half-written stays, nothing under the model's name


@pytest.mark.parametrize("kind", ["truncated", "zero-length"])
def test_a_part_of_the_wrong_size_is_refused_before_anything_is_written(kind: str, parted: Parted) -> None:
    damage(parted.part_file(2), kind)
    with pytest.raises(ModelError) as info:
        verify(parted.entry(), parted.models)
    assert info.value.code == "llm-model-corrupt"
    assert "part 3/3" in info.value.message and parted.packages[2] in info.value.message
    assert leftovers(parted) == []


def test_a_missing_part_is_refused_naming_it_and_what_to_install(parted: Parted) -> None:
    shutil.rmtree(parted.site / parted.packages[2])
    with pytest.raises(ModelError) as info:
        verify(parted.entry(), parted.models)
    assert info.value.code == "llm-model-missing"
    assert "part 3/3" in info.value.message and parted.packages[2] in info.value.message
    assert f"pip install {parted.packages[2].replace('_', '-')}==1.0" in info.value.message
    assert leftovers(parted) == []


@pytest.mark.parametrize("kind", sorted(corrupt.CORRUPTIONS))
def test_a_damaged_assembled_file_is_assembled_again_from_its_parts(kind: str, parted: Parted) -> None:
    damage(verify(parted.entry(), parted.models), kind)
    assert verify(parted.entry(), parted.models).read_bytes() == parted.whole
    assert leftovers(parted) == [GGUF_NAME]


def test_a_damaged_assembled_file_without_its_parts_is_refused(parted: Parted) -> None:
    path = verify(parted.entry(), parted.models)
    damage(path, "truncated")
    shutil.rmtree(parted.site / parted.packages[0])
    with pytest.raises(ModelError) as info:
        verify(parted.entry(), parted.models)
    assert info.value.code == "llm-model-corrupt"
    message = info.value.message
    assert str(path) in message and "truncated" in message and "part 1/3" in message
    assert path.stat().st_size < len(parted.whole)  # left for a person to look at, never loaded


def test_a_full_disk_is_refused_with_what_it_needs(parted: Parted, monkeypatch: pytest.MonkeyPatch) -> None:
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 4096, 4096))
    with pytest.raises(ModelError) as info:
        verify(parted.entry(), parted.models)
    assert info.value.code == "llm-model-unwritable"
    assert "the disk is full" in info.value.message and str(parted.assembled.parent) in info.value.message
    assert leftovers(parted) == []


def test_parts_that_do_not_add_up_to_the_whole_are_a_manifest_error(parted: Parted) -> None:
    text = parted.manifest.read_text()
    parted.manifest.write_text(text.replace(f"size = {PART_BYTES[2]},", f"size = {PART_BYTES[2] - 1},"))
    with pytest.raises(ConfigError) as info:
        load_manifest(parted.manifest)
    assert info.value.code == "models-manifest-invalid" and "add up to" in info.value.message


def pyproject_extras() -> dict[str, list[str]]:
    """The project's optional dependencies, by extra."""
    project = tomllib.loads((default_manifest_path().parents[1] / "pyproject.toml").read_text())["project"]
    return dict(project["optional-dependencies"])


def test_the_qwen_models_pin_every_part_and_their_extras_install_exactly_those_parts() -> None:
    manifest = load_manifest()
    extras = pyproject_extras()
    for name, extra, count in ((QWEN_05, "qwen05-model", 6), (QWEN_15, "qwen15-model", 22)):
        entry = manifest.get(name)
        assert entry.role == "llm" and "no licence file" in entry.licence
        assert len(entry.parts) == count and all(len(p.sha256) == 64 and p.size > 0 for p in entry.parts)
        assert sorted(p.requirement for p in entry.parts) == sorted(extras[extra])
    assert {manifest.profile(board)["llm"] for board in ("dev", "pi4", "pi5")} == {QWEN_15}


@pytest.mark.slow
def test_the_real_brain_is_assembled_from_its_22_packages_and_answers(dev_config: Config) -> None:
    from daemon.engines.load import load_llm

    path = verify(load_manifest().get(QWEN_15), Path(dev_config.models.dir))
    header = read_header(path)
    assert (header.architecture, header.file_type) == ("qwen2", "Q4_K_M")
    assert header.chat_template is not None and "<|im_start|>" in header.chat_template
    llm = load_llm(dev_config)
    try:
        assert llm.model_path == path
        answer = "".join(llm.respond("Who wrote the novel Moby-Dick?"))
    finally:
        llm.close()
    assert "Melville" in answer and "<|im_" not in answer  # the GGUF's ChatML template and its end token


WHISPER_BASE = "whisper-base"


def directory_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, into_config: str = "config.json") -> Parted:
    """A model of two files (the way a Whisper directory ships): `weights.bin` in two parts across two packages,
    `config.json` whole in the second package; `into_config` is where the manifest says the config part goes."""
    site, tag = tmp_path / "site", uuid.uuid4().hex[:8]
    weights, config = os.urandom(200_000), b'{"num_mel_bins": 80}'
    pieces = [
        (1, "data/weights.bin.part1", weights[:150_000], "weights.bin"),
        (2, "data/weights.bin.part2", weights[150_000:], "weights.bin"),
        (2, "data/config.json", config, into_config),
    ]
    rows = []
    for i, rel, data, into in pieces:
        package = f"tbdir_{tag}_part{i}"
        (site / package / "data").mkdir(parents=True, exist_ok=True)
        (site / package / "__init__.py").write_text("raise ImportError('data only: never imported')\n")
        (site / package / rel).write_bytes(data)
        rows.append(
            f'{{ package = "{package}", path = "{rel}", into = "{into}", size = {len(data)}, '
            f'sha256 = "{hashlib.sha256(data).hexdigest()}", requirement = "tbdir-{tag}-part{i}==1.0" }},'
        )
    files = [("weights.bin", weights), ("config.json", config)]
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(
        default_manifest_path().read_text()
        + textwrap.dedent("""
            [models.parted-dir]
            role = "stt"
            engine = "whisper"
            licence = "MIT"
            source = "a test model of two files, one of them in two parts"
            files = [
            {files}
            ]
            parts = [
            {rows}
            ]
        """).format(
            files="\n".join(
                f'{{ path = "{name}", size = {len(data)}, sha256 = "{hashlib.sha256(data).hexdigest()}" }},'
                for name, data in files
            ),
            rows="\n".join(rows),
        )
    )
    monkeypatch.syspath_prepend(str(site))
    return Parted(site, (f"tbdir_{tag}_part1", f"tbdir_{tag}_part2"), weights, manifest, tmp_path / "models")


def test_a_directory_model_has_each_of_its_files_assembled_or_copied_from_its_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parted = directory_model(tmp_path, monkeypatch)
    entry = load_manifest(parted.manifest).get("parted-dir")
    path = verify(entry, parted.models)
    folder = parted.models / "parted-dir"
    assert path == folder / "weights.bin" and path.read_bytes() == parted.whole  # the engine finds the rest beside it
    assert (folder / "config.json").read_bytes() == b'{"num_mel_bins": 80}'
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "weights.bin"]
    damage(folder / "config.json", "bit-flipped")
    for package in parted.packages:
        shutil.rmtree(parted.site / package)
    with pytest.raises(ModelError) as info:
        verify(entry, parted.models)
    assert info.value.code == "stt-model-corrupt" and "config.json" in info.value.message


def test_a_part_that_goes_into_no_file_of_its_model_is_a_manifest_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parted = directory_model(tmp_path, monkeypatch, into_config="tokenizer.json")
    with pytest.raises(ConfigError) as info:
        load_manifest(parted.manifest)
    assert info.value.code == "models-manifest-invalid" and "not one of its files" in info.value.message


def test_whisper_base_pins_every_part_and_file_and_its_extra_installs_exactly_those_parts() -> None:
    manifest = load_manifest()
    extras = pyproject_extras()
    entry = manifest.get(WHISPER_BASE)
    assert (entry.role, entry.engine, entry.licence) == ("stt", "whisper", "MIT")
    assert [f.path for f in entry.files] == ["model.bin", "config.json", "tokenizer.json", "vocabulary.json"]
    assert sorted({p.requirement for p in entry.parts}) == sorted(extras["whisper-base-model"])
