#!/usr/bin/env bash
# Tuning cost on the GPU machine, in one call (bench/tune.py, issue 8):
#
#   scripts/gpu-check.sh prepare                # here: build and bundle kiln into .device/
#   device run, carry [".device"]:  bench/tune.sh [bench/tune.py options]
#
# Compiles each model with an empty timing cache, then warm; prints the table last
# (model, kernels tuned, candidates measured, cold seconds, warm seconds). The compile
# logs come back under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/kiln-tune}
# Its own copy of the bundle, always fresh: a warm machine may hold another build in /tmp/kiln.
kiln_dir=/tmp/kiln-tune
mkdir -p "$out"
rm -rf "$kiln_dir" && mkdir -p "$kiln_dir"
tar xJf .device/kiln-device.tar.xz -C "$kiln_dir" || { echo "tune: no .device bundle; run scripts/gpu-check.sh prepare first"; exit 1; }
echo "tune: kiln $(cat .device/commit.txt 2>/dev/null)"
export PATH=$kiln_dir/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$kiln_dir/lib
export PYTHONUNBUFFERED=1
python3 bench/tune.py --kiln "$kiln_dir/bin/kiln" --shared "$PWD/.device/shared/models" \
  --out "$out" "$@" 2>&1 | tee "$out/tune.log" | tail -80
status=${PIPESTATUS[0]}
# Only the logs and caches come back (the models and engines are large).
find "$out/work" -type f ! -name '*.log' ! -name '*.json' -delete 2>/dev/null
tar czf "$out/logs.tar.gz" -C "$out" work 2>/dev/null && rm -rf "$out/work"
exit $status
