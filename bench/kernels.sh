#!/usr/bin/env bash
# The kernel benchmark on the GPU machine, in one call (bench/kernels.py, issue 8):
#
#   scripts/gpu-check.sh prepare                # here: build and bundle kiln into .device/
#   device run, carry [".device"]:  bench/kernels.sh [bench/kernels.py options]
#
# Writes kernels.md, kernels.json and every case's logs under $OUT and prints the table last.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/kiln-kernels}
# Always this checkout's bundle: a warm machine may hold another checkout's tools.
kiln_dir=$(mktemp -d /tmp/kiln-kernels.XXXXXX)
mkdir -p "$out"
tar xJf .device/kiln-device.tar.xz -C "$kiln_dir" || { echo "kernels: no .device bundle; run scripts/gpu-check.sh prepare first"; exit 1; }
export PATH=$kiln_dir/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$kiln_dir/lib
export KILN_SHARED=$PWD/.device/shared PYTHONUNBUFFERED=1
export KILN_COMMIT=$(cat .device/commit.txt 2>/dev/null)
python3 bench/kernels.py --kiln "$kiln_dir/bin/kiln" --out "$out" "$@" >"$out/kernels.log" 2>&1
status=$?
# The work folders hold the models and inputs: only their logs come back.
find "$out/work" -type f ! -name '*.log' ! -name 'bench.json' -delete 2>/dev/null
tar czf "$out/logs.tar.gz" -C "$out" work 2>/dev/null && rm -rf "$out/work"
tail -60 "$out/kernels.log"
exit $status
