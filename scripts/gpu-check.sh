#!/usr/bin/env bash
# The GPU check of issue-level claims, in one device call.
#
#   scripts/gpu-check.sh prepare     # here: build, bundle the tools, pack the test data
#                                    #   and the models into .device/ (git-ignored; ~35 MiB;
#                                    #   bench/run.sh uses it too)
#   device run, carry [".device"]:   scripts/gpu-check.sh run [--quick]
#
# On the GPU machine `run` unpacks the bundle and data, then checks, logging under $OUT:
#   1. the runtime's unit tests (KilnRuntimeTests, GPU tests included);
#   2. every ONNX backend test case through `kiln run --device cuda` (run-conformance.py
#      --device cuda --update, which rewrites test/conformance/gpu-expectations.txt and
#      docs/onnx-conformance-gpu.md: both come back in $OUT);
#   3. the ten public models: kiln compile, kiln run against ONNX Runtime (Python, CPU),
#      kiln bench (p50 latency) and kiln inspect (kernels) — check-models.py --device cuda;
#   4. the same models' latency at batch 1, sequence 128 (test/models/bench-models.py).
# and prints a short table last. --quick runs the node tests only for step 2.
set -uo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
shift || true

if [ "$mode" = prepare ]; then
  set -e
  scripts/device-bundle.sh kiln KilnRuntimeTests make-test-engine
  mkdir -p .device
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.device/' "$exclude" 2>/dev/null || echo '/.device/' >>"$exclude"
  mv .bundle/kiln-device.tar.xz .device/
  testdata=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
  tar -C "$(dirname "$testdata")" -cf - "$(basename "$testdata")" | xz -T"$(nproc)" -6 \
    >.device/onnx-testdata.tar.xz
  shared=${KILN_SHARED:-$(cd .. && pwd)/shared}
  rm -rf .device/shared && mkdir -p .device/shared/models/detection
  cp "$shared"/models/*.onnx "$shared"/models/materialize.py .device/shared/models/
  cp "$shared"/models/detection/*.onnx .device/shared/models/detection/
  # What was built, for the reports (bench/run.sh): the commit, "+dirty" with local changes.
  commit=$(git rev-parse --short HEAD)
  git diff --quiet HEAD -- . ':!.device' || commit="$commit+dirty"
  echo "$commit" >.device/commit.txt
  du -sh .device
  exit 0
fi

if [ "$mode" != run ]; then
  echo "usage: scripts/gpu-check.sh prepare | run [--quick]" >&2
  exit 2
fi
quick=0
[ "${1:-}" = --quick ] && quick=1

out=${OUT:-/tmp/kiln-gpu-check}
mkdir -p "$out"
kiln_dir=/tmp/kiln
rm -rf "$kiln_dir" && mkdir -p "$kiln_dir/data"
tar xJf .device/kiln-device.tar.xz -C "$kiln_dir" || { echo "gpu-check: cannot unpack the bundle"; exit 1; }
tar xJf .device/onnx-testdata.tar.xz -C "$kiln_dir/data" || { echo "gpu-check: no test data"; exit 1; }
export PATH=$kiln_dir/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$kiln_dir/lib
export ONNX_TESTDATA=$kiln_dir/data/data KILN_SHARED=$PWD/.device/shared PYTHONUNBUFFERED=1
# The scripts look for build/bin/kiln: point build/ at the bundle.
mkdir -p build && ln -sfn "$kiln_dir/bin" build/bin

{ nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } \
  >"$out/machine.txt" 2>&1
rows=()

# 1. Runtime units.
KilnRuntimeTests >"$out/runtime-tests.log" 2>&1
runtime_line=$(grep -E '^\[  (PASSED|FAILED)  \]' "$out/runtime-tests.log" | tr '\n' ' ')
skipped=$(grep -c '\[  SKIPPED \]' "$out/runtime-tests.log")
rows+=("| runtime unit tests | ${runtime_line:-no result} ${skipped} skipped |")

# 2. ONNX backend tests on the GPU.
filter=()
[ "$quick" = 1 ] && filter=(--filter '^node/')
python3 test/conformance/run-conformance.py --device cuda --update --jobs 12 --timeout 120 \
  "${filter[@]}" >"$out/conformance.log" 2>&1
cp test/conformance/gpu-expectations.txt "$out/" 2>/dev/null
cp docs/onnx-conformance-gpu.md "$out/" 2>/dev/null
rows+=("| ONNX tests, cuda | $(grep -E '^[0-9]+ cases in' "$out/conformance.log" | tail -1) |")
node=$(grep -o '\*\*[0-9]* of [0-9]* node tests pass ([0-9.]*%)' docs/onnx-conformance-gpu.md 2>/dev/null)
rows+=("| node tests, cuda | ${node:-see conformance.log} |")

# 3. The public models against ONNX Runtime, with latency and kernel counts.
python3 test/models/check-models.py --device cuda --reference python --timeout 900 \
  >"$out/models.log" 2>&1

# 4. Latency at batch 1 (sequence 128 for the text models, as the peers are measured).
python3 test/models/bench-models.py --json "$out/bench-batch1.json" >"$out/bench.log" 2>&1

echo
echo "== models (fp32, TF32 off; rel L2 against ONNX Runtime CPU; p50 of kiln bench)"
grep -vE '^\s*\(materialized' "$out/models.log" | tail -14
echo
echo "== latency at batch 1 (seq 128), fp32 engines, CUDA graph replay"
tail -11 "$out/bench.log"
echo
echo "== gpu-check"
printf '%s\n' "${rows[@]}"
