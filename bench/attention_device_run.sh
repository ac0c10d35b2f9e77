#!/usr/bin/env bash
# Device run for family/attention-fa3: correctness of the overlapped configurations, then a
# sweep of the wgmma variants (old and overlapped), then (optionally) the tuned bench.
# Usage: bash .device-attn/run.sh CHECK_FILTER VARIANTS SWEEP_DEADLINE [kernels]
set -uo pipefail
d=$(mktemp -d) && tar xJf .device-attn/kiln-device.tar.xz -C $d || exit 1
export PATH=$d/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$d/lib KILN_SHARED=$PWD/.device/shared PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,utilization.gpu --format=csv,noheader
start=$(date +%s)
if [ -n "$1" ]; then
  timeout 150 python3 .device-attn/attention_check.py --kiln $d/bin/kiln --out /tmp/check --skip-sweep --filter "$1" > /tmp/check.log 2>&1
  echo "check rc $? ($(( $(date +%s) - start )) s)"
  cp /tmp/check/attention.json $OUT/check.json 2>/dev/null
  cp /tmp/check.log $OUT/check.log
fi
if [ -n "$2" ]; then
  timeout $(( $3 + 60 )) python3 .device-attn/attention_sweep.py --kiln $d/bin/kiln --out /tmp/sweep --variants "$2" --deadline $3 > /tmp/sweep.log 2>&1
  echo "sweep rc $? ($(( $(date +%s) - start )) s)"
  cp /tmp/sweep.log $OUT/sweep.log; cp /tmp/sweep/sweep.json $OUT/ 2>/dev/null
fi
if [ "${4:-}" = kernels ]; then
  left=$(( ${5:-345} - ($(date +%s) - start) ))
  echo "kernels: $left s left"
  timeout $left python3 bench/kernels.py --kiln $d/bin/kiln --out /tmp/kernels --only attention > /tmp/kernels.log 2>&1
  echo "kernels rc $? ($(( $(date +%s) - start )) s)"
  cp /tmp/kernels.log $OUT/kernels.log
  tar -C /tmp -cJf $OUT/kernels-out.tar.xz kernels 2>/dev/null
fi
tar -C /tmp -cJf $OUT/logs.tar.xz --exclude='*.npy' --exclude='*.pb' --exclude='*.onnx' --exclude='*.kiln' check sweep 2>/dev/null
echo "=== check"; grep -E "^\| |WRONG|failed|NONDET|wrong config" /tmp/check.log 2>/dev/null | head -40
echo "=== sweep"; grep -v "^\[" /tmp/sweep.log 2>/dev/null | tail -15
echo "=== kernels"; tail -12 /tmp/kernels.log 2>/dev/null
