#!/bin/bash
# Build the greedy-decode probe for x86 (against the project's venv) and for aarch64 (against the image's
# cross-built llama.cpp with its NEON CPU variants), for tests/test_neon.py.
# Usage: image-build/neon-check/build.sh [CACHE_DIR]   (default ~/.cache/talkbox/aarch64)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"

cache=${1:-$HOME/.cache/talkbox/aarch64}
repo=$(cd "$here/../.." && pwd)
missing=()
for pkg in g++-aarch64-linux-gnu qemu-user-static file; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
    step "installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
wheel=$("$here/../lib/wheel-llama.sh" "$cache" /opt/talkbox/venv/lib/python3.11/site-packages)
out=$cache/neon-check
rm -rf "$out"; mkdir -p "$out/aarch64" "$out/x86" "$out/src"
step "greedy-decode probe for x86 and aarch64"
python3 -m zipfile -e "$wheel" "$out/src/wheel"
cp -a "$out"/src/wheel/llama_cpp/lib/. "$out/aarch64/"
"$repo/.venv/bin/pip" download --quiet --no-deps --no-binary=:all: llama-cpp-python==0.3.36 -d "$out/src" 2>&1 \
    | grep -v 'is ignored' >&2 || true
tar -C "$out/src" -xzf "$out"/src/llama_cpp_python-*.tar.gz
vendor=$(echo "$out"/src/llama_cpp_python-*/vendor/llama.cpp)
includes=(-I "$vendor/include" -I "$vendor/ggml/include")
x86_lib=$("$repo/.venv/bin/python" -c 'import llama_cpp, pathlib; print(pathlib.Path(llama_cpp.__file__).parent / "lib")')
# Both probes carry their own libraries: a probe linked into a venv broke once that checkout was deleted.
cp -a "$x86_lib"/. "$out/x86/"
g++ -O2 "${includes[@]}" "$here/greedy.cpp" -L "$out/x86" -lllama -lggml -lggml-base -Wl,-rpath,'$ORIGIN' \
    -o "$out/x86/greedy"
# The binary sits beside the variant libraries: ggml looks for them next to the executable.
aarch64-linux-gnu-g++ -O2 "${includes[@]}" "$here/greedy.cpp" -L "$out/aarch64" -lllama -lggml -lggml-base \
    -Wl,-rpath,'$ORIGIN' -o "$out/aarch64/greedy"
rm -rf "$out/src"
note "probe ready in $out ($(ls "$out"/aarch64/libggml-cpu-*.so | wc -l) CPU variants)"
