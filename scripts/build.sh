#!/usr/bin/env bash
# Configures (once) and builds Kiln into build/ (or $KILN_BUILD_DIR); tools land in build/bin.
# Extra arguments go to the CMake configure step, e.g. -DKILN_WERROR=ON.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${KILN_BUILD_DIR:-build}
if [ ! -f "$build_dir/build.ninja" ] || [ $# -gt 0 ]; then
  cmake -S . -B "$build_dir" -G Ninja "$@"
fi
# MLIR translation units take 1-2 GB each to compile; one job per core fits in memory.
cmake --build "$build_dir" -- -j"$(nproc)"
