#!/usr/bin/env bash
# The one test command: installs dependencies, builds with warnings as errors, runs every
# suite (lit regression tests and GoogleTest units), and ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh || exit 1
scripts/build.sh -DKILN_WERROR=ON || { echo "tests: build failed"; exit 1; }

build_dir=${KILN_BUILD_DIR:-build}
lit=$(grep -E '^KILN_LIT:' "$build_dir/CMakeCache.txt" | cut -d= -f2-)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== lit regression tests"
"$lit" -sv "$build_dir/test" 2>&1 | tee "$log"
lit_total=$(sed -nE 's/^Total Discovered Tests: *([0-9]+).*/\1/p' "$log")
lit_passed=$(sed -nE 's/^ *Passed *: *([0-9]+).*/\1/p' "$log")
lit_unsupported=$(sed -nE 's/^ *Unsupported *: *([0-9]+).*/\1/p' "$log")
lit_failed=$(sed -nE 's/^ *(Failed|Unresolved|Timed Out) *: *([0-9]+).*/\2/p' "$log" |
  awk '{ total += $1 } END { print total + 0 }')

echo "== GoogleTest units"
(cd "$build_dir" && ctest --output-on-failure -j"$(nproc)") 2>&1 | tee "$log"
unit_total=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\2/p' "$log")
unit_failed=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\1/p' "$log")
# ctest counts skipped tests (a GPU test on a machine without one) among the passed.
unit_skipped=$(grep -c '(Skipped)$' "$log")

# Suites that end with a "<name>: N passed, N failed" line.
suite_passed=0
suite_failed=0
suite_missing=0
run_suite() {
  local title=$1
  shift
  echo "== $title"
  "$@" 2>&1 | tee "$log"
  local line
  line=$(grep -E '^[a-z-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  if [ -z "$line" ]; then
    suite_missing=$((suite_missing + 1))
    return
  fi
  suite_passed=$((suite_passed + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")))
  suite_failed=$((suite_failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
}
run_suite "source layering: what each part of the tree may include, no include cycles" \
  /usr/bin/python3 scripts/check-layering.py
run_suite "ONNX backend test models: import (regressions against test/conformance)" \
  /usr/bin/python3 scripts/onnx-coverage.py --check
run_suite "real models (../shared/models): materialize and import" scripts/import-models.sh
run_suite "ONNX backend test cases on the CPU (regressions against test/conformance)" \
  /usr/bin/python3 test/conformance/run-conformance.py --check
run_suite "real models on the CPU against ONNX Runtime (../shared/models)" \
  /usr/bin/python3 test/models/check-models.py
run_suite "real models compiled for sm_90a (every kernel module through ptxas)" \
  /usr/bin/python3 test/models/check-models.py --device ptxas
run_suite "real models compiled fp16 channels last for sm_90a: every contraction on the tensor cores" \
  /usr/bin/python3 test/models/check-models.py --device ptxas --precision fp16 --channels-last \
  --tensor-cores
run_suite "object detectors compiled fp16 channels last for sm_90a (every kernel module through ptxas)" \
  /usr/bin/python3 test/models/check-models.py --device ptxas --precision fp16 --channels-last \
  --detectors
run_suite "object detectors on the CPU against ONNX Runtime (fp32, fp16; detections matched)" \
  /usr/bin/python3 test/models/check-detection.py
run_suite "dynamic shapes on the CPU: one compilation per profile, five shapes each" \
  /usr/bin/python3 test/models/check-dynamic.py

passed=$(( ${lit_passed:-0} + ${unit_total:-0} - ${unit_failed:-0} - unit_skipped + suite_passed ))
failed=$(( ${lit_failed:-0} + ${unit_failed:-0} + suite_failed + suite_missing ))
skipped=$(( ${lit_unsupported:-0} + unit_skipped ))
if [ -z "$lit_total" ] || [ -z "$unit_total" ]; then
  echo "tests: a suite did not report its results"
  failed=$(( failed + 1 ))
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
