#!/usr/bin/env bash
# One device call for the flash-attention work (docs/codegen-attention.md, "Measured"): run
# from the root of a checkout whose .device-attn/ holds the tool bundle
# (scripts/device-bundle.sh kiln KilnRuntimeTests make-test-engine) and copies of
# bench/{attention_check,attention_sweep,kernels,timing}.py, with .device/shared carried:
#
#   bash .device-attn/attention_device_run.sh CHECK_FILTER VARIANTS SECONDS
#
# 1. bench/kernels.py --only attention (tuned `kiln compile`, SDPA in the same run; the
#    timing cache, i.e. every candidate's measurement, is kept);
# 2. attention_check.py correctness (cases matching CHECK_FILTER; "." for all; "" skips);
# 3. attention_sweep.py over VARIANTS (comma-separated; "" skips) until SECONDS have gone
#    by since the start.
# Logs, JSON and the timing cache under $OUT; the tables printed last.
set -uo pipefail
here=$(dirname "$0")
d=$(mktemp -d) && tar xJf "$here/kiln-device.tar.xz" -C "$d" || exit 1
export PATH=$d/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$d/lib PYTHONUNBUFFERED=1
export KILN_SHARED=$PWD/.device/shared
out=${OUT:-/tmp/attention-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }

KILN_CACHE_DIR=/tmp/kcache timeout 170 python3 "$here/kernels.py" --kiln "$d/bin/kiln" \
  --out /tmp/kernels --only attention >/tmp/kernels.log 2>&1
echo "kernels rc $? ($(elapsed) s)"
cp /tmp/kcache/timing-cache.json "$out/" 2>/dev/null

if [ -n "$1" ]; then
  timeout 120 python3 "$here/attention_check.py" --kiln "$d/bin/kiln" --out /tmp/check \
    --skip-sweep --filter "$1" >/tmp/check.log 2>&1
  echo "check rc $? ($(elapsed) s)"
fi
if [ -n "$2" ]; then
  left=$(($3 - $(elapsed)))
  timeout $((left + 40)) python3 "$here/attention_sweep.py" --kiln "$d/bin/kiln" --out /tmp/sweep \
    --variants "$2" --deadline "$left" >/tmp/sweep.log 2>&1
  echo "sweep rc $? ($(elapsed) s)"
fi
cp /tmp/kernels.log /tmp/check.log /tmp/sweep.log "$out/" 2>/dev/null
tar -C /tmp -cJf "$out/logs.tar.xz" --exclude='*.npy' --exclude='*.pb' --exclude='*.onnx' \
  --exclude='*.kiln' --exclude='*.bin' kernels check sweep 2>/dev/null
echo "=== check"; grep -E "^\| |WRONG|failed|NONDET" /tmp/check.log 2>/dev/null | head -60
echo "=== sweep"; grep -v "^\[" /tmp/sweep.log 2>/dev/null | tail -16
echo "=== kernels (bench/kernels.py --only attention)"; tail -9 /tmp/kernels.log 2>/dev/null
