"""The pure-Python GGUF header check reads real models and refuses broken ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from daemon.modelstore import gguf
from daemon.modelstore.manifest import load_manifest, verify
from tests import corrupt


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    entry = load_manifest().get("smollm2-135m-instruct-q4_1")
    return verify(entry, tmp_path_factory.mktemp("unused"))


def test_reads_the_real_model(model_path: Path) -> None:
    info = gguf.read_header(model_path)
    assert info.version == 3
    assert info.architecture == "llama"
    assert info.file_type == "Q4_1"
    assert info.tensor_count == 272
    assert info.chat_template and "<|im_start|>" in info.chat_template
    # The tensors the header describes end exactly inside the file.
    assert 0.9 * model_path.stat().st_size < info.data_bytes < model_path.stat().st_size


@pytest.mark.parametrize("kind", ["truncated", "zero-length", "wrong-magic"])
def test_refuses_structural_damage(kind: str, model_path: Path, tmp_path: Path) -> None:
    make, reason = corrupt.CORRUPTIONS[kind]
    bad = tmp_path / "m.gguf"
    make(model_path, bad)
    with pytest.raises(gguf.GgufError, match=reason):
        gguf.read_header(bad)


def test_bit_flip_in_weights_passes_the_header_check(model_path: Path, tmp_path: Path) -> None:
    # Only the sha256 pin catches this one: the reason the manifest pins every file.
    bad = tmp_path / "m.gguf"
    corrupt.bit_flipped(model_path, bad)
    assert gguf.read_header(bad).tensor_count == 272


def test_refuses_a_bad_version_and_implausible_counts(tmp_path: Path) -> None:
    bad = tmp_path / "v9.gguf"
    bad.write_bytes(b"GGUF" + (9).to_bytes(4, "little") + bytes(16))
    with pytest.raises(gguf.GgufError, match="version 9"):
        gguf.read_header(bad)
    huge = tmp_path / "huge.gguf"
    huge.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + (1 << 40).to_bytes(8, "little") + bytes(8))
    with pytest.raises(gguf.GgufError, match="implausible tensor count"):
        gguf.read_header(huge)
