"""A user's own GGUF is first opened in a child process: a llama.cpp abort cannot take the daemon down."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from daemon.cli.main import main
from daemon.engines.load import probe_gguf
from daemon.errors import EXIT_CONFIG, ModelError
from daemon.modelstore import gguf
from daemon.modelstore.manifest import load_manifest, verify
from daemon.modelstore.user_models import user_digest

BLOCK_COUNT_KEY = "llama.block_count"


@pytest.fixture(scope="module")
def real_model() -> Path:
    return verify(load_manifest().get("smollm2-135m-instruct-q4_1"), Path("/nonexistent"))


def _value_offset(path: Path, key: str) -> int:
    """Byte offset of a uint32 metadata value, found by walking the header as llama.cpp does."""
    import mmap

    with path.open("rb") as raw, mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        r = gguf._Reader(buf)
        r.take(4)
        r.u32()
        r.count("tensor")
        for _ in range(r.count("metadata key")):
            name, vtype = r.string(), r.u32()
            if name == key:
                assert vtype == 4  # uint32
                return r.pos
            r.value(vtype)
    raise AssertionError(f"{key} not in {path}")


@pytest.fixture(scope="module")
def aborting_model(real_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model with zero layers: a sane header, but llama.cpp dies of SIGABRT (GGML_ASSERT) opening it."""
    bad = tmp_path_factory.mktemp("user") / "my-model.gguf"
    shutil.copyfile(real_model, bad)
    with bad.open("r+b") as fh:
        fh.seek(_value_offset(bad, BLOCK_COUNT_KEY))
        fh.write(struct.pack("<I", 0))
    assert gguf.read_header(bad).metadata[BLOCK_COUNT_KEY] == 0  # the header check alone lets it through
    return bad


def test_an_aborting_model_is_refused_naming_the_file_and_the_signal(aborting_model: Path) -> None:
    with pytest.raises(ModelError) as info:
        probe_gguf(aborting_model, 256)
    err = info.value
    assert err.code == "llm-model-corrupt" and err.exit_status == EXIT_CONFIG
    assert str(aborting_model) in err.message and "SIGABRT" in err.message


def test_the_daemon_survives_and_exits_78(
    aborting_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "talkbox.toml"
    pin = user_digest("llm", aborting_model)  # pinned: the user vouches for it, and it still must not take us down
    cfg.write_text(f'[models]\ndir = "{tmp_path}"\n[llm]\nmodel = "{aborting_model}"\nsha256 = "{pin}"\n')
    assert main(["--config", str(cfg), "ask", "--local", "hi"]) == EXIT_CONFIG  # this process is still alive
    error = capsys.readouterr().err
    assert str(aborting_model) in error and "[llm-model-corrupt]" in error


def test_a_good_user_model_passes_the_probe(real_model: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine.gguf"
    mine.symlink_to(real_model)
    probe_gguf(mine, 512)


def test_a_model_that_does_not_open_in_time_is_refused(real_model: Path) -> None:
    with pytest.raises(ModelError, match="did not open within"):
        probe_gguf(real_model, 256, timeout_s=0.01)
