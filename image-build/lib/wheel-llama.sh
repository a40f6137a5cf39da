#!/bin/bash
# Stage: llama-cpp-python for aarch64, cross-compiled with runtime CPU dispatch, as a cached wheel.
# Pi 4 (Cortex-A72: NEON, no dotprod) loads the armv8.0 kernels, Pi 5 (Cortex-A76) the armv8.2+dotprod+fp16 ones.
# Usage: wheel-llama.sh CACHE_DIR VENV_SITE_PACKAGES  -> prints the wheel path.
. "$(dirname "$0")/common.sh"

cache=$1
site=$2
version=0.3.36
here=$(cd "$(dirname "$0")" && pwd)
key=$(cache_key "$version $site" "$here/wheel-llama.sh")
out=$cache/llama-wheel-$key
wheel=$(ls "$out"/llama_cpp_python-*-linux_aarch64.whl 2>/dev/null | head -1 || true)
if [ -n "$wheel" ]; then
    note "aarch64 llama wheel cached: $wheel"
    echo "$wheel"; exit 0
fi
command -v aarch64-linux-gnu-g++ >/dev/null || die "apt-get install g++-aarch64-linux-gnu"
step "cross-compiling llama-cpp-python $version for aarch64 with NEON CPU variants (about 10 minutes, cached afterwards)"
work=$cache/llama-build
rm -rf "$work" "$out"; mkdir -p "$work" "$out"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" -q install 'scikit-build-core[pyproject]>=0.9' wheel >&2
"$work/venv/bin/pip" -q download --no-deps --no-binary=:all: "llama-cpp-python==$version" -d "$work" >&2
tar -C "$work" -xzf "$work/llama_cpp_python-$version.tar.gz"
src=$work/llama_cpp_python-$version
# bookworm's GCC 12 cannot build the armv9.2 (SME) variants; SVE and i8mm variants serve no Pi, so drop those too.
sed -i -E '/ggml_add_cpu_backend_variant\((armv8\.2_3|armv8\.6_[0-9]|armv9\.2_[0-9])/d' \
    "$src/vendor/llama.cpp/ggml/src/CMakeLists.txt"
export CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
export CMAKE_ARGS="-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
 -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc -DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++ \
 -DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DBUILD_SHARED_LIBS=ON \
 -DGGML_BACKEND_DIR=$site/llama_cpp/lib -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
"$work/venv/bin/pip" wheel --no-deps --no-build-isolation -w "$work/dist" \
    --config-settings=build-dir="$work/cmake" "$src" >&2
# The variant libraries are built but not packed into the wheel: add them, and retag the wheel for aarch64.
rm -rf "$work/unpacked"; mkdir "$work/unpacked"
"$work/venv/bin/wheel" unpack -d "$work/unpacked" "$work"/dist/llama_cpp_python-*.whl >&2
lib=$(echo "$work"/unpacked/llama_cpp_python-*/llama_cpp/lib)
find "$work/cmake" -name 'libggml-cpu-*.so' -exec cp -v {} "$lib/" \; >&2
# cmake also installed them into GGML_BACKEND_DIR on this build host, a path that belongs to the board: remove.
rm -f "$site"/llama_cpp/lib/libggml-cpu-*.so
rmdir -p --ignore-fail-on-non-empty "$site/llama_cpp/lib" 2>/dev/null || true
ls "$lib"/libggml-cpu-armv8.0_1.so "$lib"/libggml-cpu-armv8.2_2.so >/dev/null
file "$lib"/libllama.so | grep -q 'ARM aarch64' || die "libllama.so is not an aarch64 library"
sed -i 's/^Tag: .*/Tag: py3-none-linux_aarch64/' "$work"/unpacked/llama_cpp_python-*/*.dist-info/WHEEL
"$work/venv/bin/wheel" pack -d "$out" "$work"/unpacked/llama_cpp_python-* >&2
rm -rf "$work"
wheel=$(ls "$out"/llama_cpp_python-*-linux_aarch64.whl)
step "aarch64 wheel ready: $(du -h "$wheel" | cut -f1)"
echo "$wheel"
