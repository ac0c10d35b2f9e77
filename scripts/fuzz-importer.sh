#!/usr/bin/env bash
# Builds the ONNX importer's libFuzzer target with clang and ASan (build-fuzz/) and runs
# it for SECONDS (default 600) on a corpus seeded with Kiln's test models, the ONNX
# backend test models and the text-format tests. Crashes land in build-fuzz/crashes/.
#
#   scripts/fuzz-importer.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
build=build-fuzz

if [ ! -f "$build/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -S . -B "$build" -G Ninja -DKILN_BUILD_FUZZERS=ON \
    -DBUILD_TESTING=OFF
fi
cmake --build "$build" --target import-onnx-fuzzer -- -j"$(nproc)"

corpus=$build/corpus
mkdir -p "$corpus" "$build/crashes"
cp test/models/*.onnx "$corpus/"
find /usr/share/libonnx-testdata/data/node -name model.onnx | sort | sed -n '1,300p' |
  while read -r model; do cp "$model" "$corpus/$(basename "$(dirname "$model")").onnx"; done
# Each text-format test case on its own.
for test in test/onnx/*.onnxtxt; do
  awk -v prefix="$corpus/$(basename "$test" .onnxtxt)" \
    '/^# -----/ { n++; next } !/^#/ { print > (prefix "-" n ".onnxtxt") }' "$test"
done

# LLVM's headers poison allocator memory in instrumented code that the uninstrumented
# LLVM archives then use: ignore manual poisoning, keep every other check.
ASAN_OPTIONS=detect_leaks=1:allow_user_poisoning=0 "$build/bin/import-onnx-fuzzer" "$corpus" \
  -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
  -artifact_prefix="$build/crashes/" -print_final_stats=1
