"""The code stays typed and linted: mypy --strict and ruff over daemon/, hardware/ and tests/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_lint_and_format() -> None:
    lint = run("ruff", "check", "daemon", "hardware", "tests")
    assert lint.returncode == 0, lint.stdout
    fmt = run("ruff", "format", "--check", "daemon", "hardware", "tests")
    assert fmt.returncode == 0, fmt.stdout


def test_mypy_strict() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout
