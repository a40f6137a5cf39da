"""The wheel, which is what the SD-card image installs, carries what runs the box and none of the lab."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from daemon.cli import main as cli

ROOT = Path(__file__).resolve().parents[2]
MADE_OF = ("pyproject.toml", "README.md", "daemon", "hardware", "models/manifest.toml")
"""What the wheel is built from, copied as image-build/lib/wheels.sh copies it (no build/ left by an earlier build)."""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """talkbox's wheel, built as the image build builds it (pip, build isolation, not editable)."""
    where = tmp_path_factory.mktemp("wheel")
    src = where / "src"
    for part in MADE_OF:
        origin, copy = ROOT / part, src / part
        copy.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            shutil.copytree(origin, copy, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, copy)
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(where / "out"), str(src)]
    built = subprocess.run(build, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    (found,) = (where / "out").glob("talkbox-*.whl")
    return found


def test_the_wheel_has_the_box_and_no_lab(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.startswith("daemon/lab/") or "evaluation" in n]
    assert not [n for n in names if n.rsplit("/", 1)[-1] in ("bench.py", "soak.py", "turn_timing.py", "measure.py")]
    shipped = ("daemon/cli/main.py", "daemon/cli/commands.py", "daemon/turn/keeper.py", "daemon/box/assembly.py")
    assert set(shipped) | {"daemon/skills/sentences.yaml", "hardware/__init__.py"} <= set(names)


def test_installed_from_the_wheel_the_lab_commands_say_where_they_are(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target)]
    installed = subprocess.run([*install, str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    # NOTE: -S: no .pth files, so not this venv's editable finder (it would find daemon.lab in the checkout);
    # `daemon` comes from the wheel's files, the dependencies from the venv, and the working directory is elsewhere.
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(target), *site.getsitepackages()])}

    def python(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-S", *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )

    box = python("-c", "import daemon.box.root, daemon.cli.commands; print(daemon.__file__)")
    assert box.returncode == 0, box.stderr
    assert box.stdout.startswith(str(target))  # the box's own code imports, from the wheel
    for argv in (["bench", "--quick"], ["soak"], ["eval", "skills", "--typed-only"]):
        done = python("-m", "daemon.cli.main", *argv)
        assert done.returncode == 2
        assert done.stderr == (
            f"talkbox: {argv[0]} is a developer command, available from a source checkout (pip install -e .); "
            "this installation leaves the lab out [lab-missing]\n"
        )


def test_without_the_lab_its_commands_exit_with_the_usage_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.lab_installed()  # a source checkout
    monkeypatch.setattr(cli, "lab_installed", lambda: False)
    assert cli.main(["bench", "--quick"]) == 2
    assert "bench is a developer command" in capsys.readouterr().err
