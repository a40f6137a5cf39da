"""The built SD-card image boots under QEMU on a Pi 4 and a Pi 5 core and works as a box (pytest -m image).

Needs an image from image-build/build: TALKBOX_IMAGE=image-out/talkbox-*.img.xz pytest -m image. Each boot takes
several minutes under emulation, so the default suite skips this.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.image
ROOT = Path(__file__).resolve().parents[1]
IMAGE = os.environ.get("TALKBOX_IMAGE", "")
KILLS = int(os.environ.get("TALKBOX_IMAGE_KILLS", "3"))


def _image_build_module(path: str) -> Any:
    """A script of image-build/ (not a package) loaded as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(Path(path).stem, ROOT / "image-build" / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def boots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """What the guest reported on each CPU."""
    if not IMAGE:
        pytest.skip("set TALKBOX_IMAGE to a built image (image-build/build) to boot it under QEMU")
    report = tmp_path_factory.mktemp("boot") / "boot.json"
    argv = [sys.executable, str(ROOT / "image-build/boot_test.py"), IMAGE, "--kills", str(KILLS), "--json", str(report)]
    argv.append("--read-only")  # every card also proves the read-only root, on a second boot
    subprocess.run(argv, check=False, timeout=4 * 3600)
    results: dict[str, dict[str, str]] = json.loads(report.read_text())
    return results


@pytest.mark.parametrize("cpu", ["cortex-a72", "cortex-a76"])
def test_image_boots_to_a_working_box(boots: dict[str, dict[str, str]], cpu: str) -> None:
    got = boots[cpu]
    assert "done" in got, f"the guest check did not finish: {got}"
    assert got["ready"].startswith("yes"), got["ready"]
    assert got["firstboot"] == "result=success marker=yes"
    assert re.fullmatch(r"talkbox-[0-9a-f]{4}", got["hostname"])
    assert int(got["hostkeys"].split()[0]) >= 3
    sizes = dict(kv.split("=") for kv in got["rootfs"].split())
    # The card is 512 MB bigger than the image: grown, the root fills all but the 260 MB before it (and ext4's own).
    assert int(sizes["fs_mb"]) > int(sizes["disk_mb"]) - 400, "first boot did not grow the root file system"
    assert got["ask"].startswith("rc=0 ") and "paris" in got["ask"].lower()
    assert got["doctor"] == "rc=0"
    assert got["sigill"] == "0"
    variant = {"cortex-a72": "libggml-cpu-armv8.0_1.so", "cortex-a76": "libggml-cpu-armv8.2_2.so"}[cpu]
    assert variant in got["variant"], got["variant"]


@pytest.mark.parametrize("cpu", ["cortex-a72", "cortex-a76"])
def test_image_is_closed_by_default(boots: dict[str, dict[str, str]], cpu: str) -> None:
    got = boots[cpu]
    assert got["listeners"].split()[0] == "0", f"something listens: {got['listeners']}"
    assert got["passwords"].strip() == "", f"accounts with a password: {got['passwords']}"
    assert got["ssh"] == "enabled=disabled active=inactive"
    assert got["journal_bytes"] and got["journal_bytes"].endswith("persistent=0")


@pytest.mark.parametrize("cpu", ["cortex-a72", "cortex-a76"])
def test_systemd_brings_the_box_back_after_kill_and_hang(boots: dict[str, dict[str, str]], cpu: str) -> None:
    if not KILLS:
        pytest.skip("TALKBOX_IMAGE_KILLS=0: no kill or hang in this run")
    got = boots[cpu]
    kills = got.get("kill", "").split("\n")
    assert len(kills) == KILLS and all("back_s=never" not in k for k in kills), kills
    assert "back_s=never" not in got["hang"], got["hang"]


@pytest.mark.parametrize("cpu", ["cortex-a72", "cortex-a76"])
def test_a_read_only_root_keeps_the_card_unchanged(boots: dict[str, dict[str, str]], cpu: str) -> None:
    got = boots[cpu]
    assert got["ro_conf"] == 'overlayroot="tmpfs:recurse=0"', "first boot did not turn the overlay on"
    assert got["ro_ready"].startswith("boot_to_ready_s="), got["ro_ready"]
    assert got["ro_root"] == "fstype=overlay lower=ro", got["ro_root"]
    assert got["ro_write"] == "in_ram=yes on_card=no", got["ro_write"]
    assert got["ro_ask"].startswith("rc=0 "), got["ro_ask"]


def test_unpacking_a_card_without_mounts_keeps_every_owner_and_mode(tmp_path: Path) -> None:
    """base-raspios.sh's unpacking (sfdisk, debugfs rdump, mcopy), run on a built card: nothing may lose its mode."""
    if not IMAGE:
        pytest.skip("set TALKBOX_IMAGE to a built image (image-build/build)")
    import os
    import stat

    boot_test, special_modes = _image_build_module("boot_test.py"), _image_build_module("lib/special_modes.py")
    image = tmp_path / "card.img"
    boot_test.decompress(Path(IMAGE), image)
    root = tmp_path / "rootfs"
    subprocess.run(["bash", str(ROOT / "image-build/lib/base-raspios.sh"), str(image), str(root)], check=True)
    ext4 = tmp_path / "root.ext4"
    boot_test._extract(image, boot_test.partitions(image)[1], ext4)
    expected = special_modes.image_modes(ext4, root)
    differs = []
    for rel, (mode, uid, gid) in expected.items():
        path = root / rel
        if rel.startswith("dev/") or rel == "lost+found" or stat.S_ISLNK(mode):
            continue  # device nodes are devtmpfs's at run time; a symlink's own mode means nothing
        st = os.lstat(path)
        if (st.st_mode, st.st_uid, st.st_gid) != (mode, uid, gid):
            differs.append(f"{rel}: {oct(st.st_mode)} {st.st_uid}:{st.st_gid}, card {oct(mode)} {uid}:{gid}")
    assert len(expected) > 10000 and differs == [], differs[:10]
    assert "root=LABEL=talkbox-root" in (root / "boot/firmware/cmdline.txt").read_text()
