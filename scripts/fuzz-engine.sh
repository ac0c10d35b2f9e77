#!/usr/bin/env bash
# Builds the engine reader's libFuzzer target with clang and ASan (build-fuzz/) and runs it
# for SECONDS (default 600) on a corpus seeded with make-test-engine's engines (the sample
# in its variants: placeholder cubin, other targets, inconsistent, other format version).
# Crashes land in build-fuzz/crashes-engine/.
#
#   scripts/fuzz-engine.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
build=build-fuzz
seed_build=${KILN_BUILD_DIR:-build}

if [ ! -f "$build/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -S . -B "$build" -G Ninja -DKILN_BUILD_FUZZERS=ON \
    -DBUILD_TESTING=OFF
fi
cmake --build "$build" --target engine-fuzzer -- -j"$(nproc)"

# Seeds: the sample engine in several forms, from the regular build's make-test-engine.
cmake --build "$seed_build" --target make-test-engine -- -j"$(nproc)" >/dev/null
corpus=$build/corpus-engine
mkdir -p "$corpus" "$build/crashes-engine"
make_engine=$seed_build/bin/make-test-engine
"$make_engine" "$corpus/sample.kiln"
"$make_engine" "$corpus/sample-cubin.kiln" --placeholder-cubin --target sm_90a
"$make_engine" "$corpus/inconsistent.kiln" --inconsistent
"$make_engine" "$corpus/v2.kiln" --format-version 2

ASAN_OPTIONS=detect_leaks=1 "$build/bin/engine-fuzzer" "$corpus" \
  -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
  -malloc_limit_mb=64 -artifact_prefix="$build/crashes-engine/" -print_final_stats=1
