"""The image's llama.cpp runs the box's brain (Q4_K_M) with its NEON kernels on a Pi 4 core and a Pi 5 core and
decodes like x86 does.

The probe (image-build/neon-check/greedy.cpp) is built by .ci/setup; the aarch64 build runs under qemu-user with
the CPU model of each board, so an instruction the core lacks would die with SIGILL. The Q4_K and Q6_K kernels (and
their repacked 8x4 layouts) are other code than the Q4_1 ones of the small profile's model.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from daemon.config import Config
from daemon.modelstore.gguf import read_header
from daemon.modelstore.select import select

PROBE = Path(os.environ.get("TALKBOX_NEON_DIR", Path.home() / ".cache/talkbox/aarch64/neon-check"))
PROMPT = "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
TOKENS = "16"


def _probe() -> Path:
    if not (PROBE / "aarch64/greedy").exists() or shutil.which("qemu-aarch64-static") is None:
        if os.environ.get("CI"):
            pytest.fail(f"no NEON probe in {PROBE}: .ci/setup runs image-build/neon-check/build.sh")
        pytest.skip(f"no NEON probe in {PROBE}: run image-build/neon-check/build.sh")
    return PROBE


def _greedy(argv: list[str], env: dict[str, str] | None = None) -> tuple[list[int], str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env, check=False)
    assert done.returncode == 0, f"{argv[0]} exited {done.returncode}: {done.stderr[-2000:]}"
    return [int(line) for line in done.stdout.split()], done.stderr


@pytest.fixture(scope="module")
def model(dev_config: Config) -> str:
    """The dev profile's GGUF, verified: the Q4_K_M the product ships."""
    path = select(dev_config, "llm").path
    assert read_header(path).file_type == "Q4_K_M"
    return str(path)


@pytest.fixture(scope="module")
def x86_tokens(model: str) -> list[int]:
    """The greedy answer on this machine's x86 build."""
    probe = _probe()
    tokens, _ = _greedy([str(probe / "x86/greedy"), model, PROMPT, TOKENS])
    assert len(tokens) >= 4
    return tokens


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cpu", "variant", "dotprod"), [("cortex-a72", "armv8.0_1", False), ("cortex-a76", "armv8.2_2", True)]
)
def test_aarch64_build_decodes_like_x86_on_each_pi_core(
    model: str, x86_tokens: list[int], cpu: str, variant: str, dotprod: bool
) -> None:
    probe = _probe()
    argv = ["qemu-aarch64-static", "-cpu", cpu, "-L", "/usr/aarch64-linux-gnu", str(probe / "aarch64/greedy")]
    tokens, info = _greedy([*argv, model, PROMPT, TOKENS])
    assert tokens == x86_tokens
    assert "NEON = 1" in info
    # Runtime dispatch: the Pi 4 core gets the plain armv8.0 kernels, the Pi 5 core the dot-product ones.
    assert f"libggml-cpu-{variant}.so" in info, info
    assert ("DOTPROD = 1" in info) is dotprod, info
