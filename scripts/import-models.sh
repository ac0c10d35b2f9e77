#!/usr/bin/env bash
# Imports the real models of ../shared/models (both exporter generations) after giving
# them their weights with materialize.py, and reports the time and peak memory of each
# import against the file's size. Materialized models are cached in build/models.
# Prints one line per model and a final "models: N passed, N failed" line.
#
#   scripts/import-models.sh [MODEL_GLOB]     e.g. 'gpt2*'
set -uo pipefail
cd "$(dirname "$0")/.."

shared=${KILN_SHARED:-../shared}/models
cache=${KILN_BUILD_DIR:-build}/models
kiln=${KILN_BUILD_DIR:-build}/bin/kiln
glob=${1:-*}
mkdir -p "$cache"

if [ ! -d "$shared" ]; then
  echo "models: no $shared; nothing to import"
  echo "models: 0 passed, 0 failed"
  exit 0
fi

passed=0
failed=0
printf '%-32s %10s %8s %12s %8s  %s\n' model "file MB" "time s" "peak RSS MB" "RSS/file" result
for source in "$shared"/$glob.onnx; do
  name=$(basename "$source")
  model=$cache/$name
  if [ ! -f "$model" ] || [ "$source" -nt "$model" ]; then
    /usr/bin/python3 "$shared/materialize.py" "$source" "$model.tmp" >/dev/null &&
      mv "$model.tmp" "$model" || { echo "$name: materialize.py failed"; failed=$((failed + 1)); continue; }
  fi
  log=$(mktemp)
  # Import and infer shapes; the graph is written as bytecode (weights as raw bytes).
  if /usr/bin/time -f '%e %M' -o "$log.time" "$kiln" compile "$model" --compile-to=graph \
      --emit-bytecode --quiet -o /dev/null 2>"$log"; then
    result=ok
    passed=$((passed + 1))
  else
    result="FAIL: $(grep -m1 error "$log")"
    failed=$((failed + 1))
  fi
  read -r seconds rss_kb < <(tail -1 "$log.time")
  size=$(stat -c %s "$model")
  awk -v n="$name" -v s="$size" -v t="$seconds" -v r="$rss_kb" -v res="$result" 'BEGIN {
    printf "%-32s %10.1f %8.2f %12.1f %8.2f  %s\n", n, s / 1e6, t, r / 1024, r * 1024 / s, res }'
  rm -f "$log" "$log.time"
done
echo "models: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
