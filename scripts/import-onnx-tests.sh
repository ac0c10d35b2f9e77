#!/usr/bin/env bash
# Imports every model of the ONNX backend test data (node, pytorch-converted,
# pytorch-operator, simple) with kiln-translate --import-onnx and prints one line per
# case: "<suite>/<case>\tok" or "<suite>/<case>\tfail\t<first error line>".
# A final line counts them. An optional grep pattern selects cases by name.
#
#   scripts/import-onnx-tests.sh            # every case
#   scripts/import-onnx-tests.sh 'reduce_'  # cases whose name matches
set -uo pipefail
cd "$(dirname "$0")/.."

data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
translate=${KILN_BUILD_DIR:-build}/bin/kiln-translate
pattern=${1:-.}

import_case() {
  local model=$1 case_dir suite name error
  case_dir=$(dirname "$model")
  name=$(basename "$case_dir")
  suite=$(basename "$(dirname "$case_dir")")
  if error=$(timeout 60 "$translate" --import-onnx "$model" 2>&1 >/dev/null); then
    printf '%s/%s\tok\n' "$suite" "$name"
  else
    printf '%s/%s\tfail\t%s\n' "$suite" "$name" "$(grep -m1 'error' <<<"$error" | sed 's/^[^ ]*: error: //')"
  fi
}
export -f import_case
export translate

find "$data"/{node,pytorch-converted,pytorch-operator,simple} -name model.onnx 2>/dev/null |
  grep -E -- "$pattern" | sort |
  xargs -P "$(nproc)" -I{} bash -c 'import_case "$@"' _ {} |
  sort | tee /dev/stderr |
  awk -F'\t' '{ n[$2]++ } END { printf "imported: %d ok, %d fail\n", n["ok"], n["fail"] }'
