#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after scripts/device-bundle.sh here:
# unpacks the bundle and checks that the tools run there, that the runtime finds the GPU,
# and that a gpu.module lowers to PTX and cubin for sm_90a. Logs go to $OUT (or
# /tmp/kiln-smoke); a short table is printed last.
#
#   device run, carry [".bundle"]:  scripts/device-smoke.sh
set -uo pipefail

out=${OUT:-/tmp/kiln-smoke}
mkdir -p "$out"
kiln_dir=/tmp/kiln
rm -rf "$kiln_dir" && mkdir -p "$kiln_dir"
tar xJf .bundle/kiln-device.tar.xz -C "$kiln_dir" || { echo "smoke: cannot unpack .bundle"; exit 1; }
export PATH=$kiln_dir/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$kiln_dir/lib

results=()
record() { results+=("$(printf '| %-34s | %-6s | %s |' "$1" "$2" "$3")"); }
check() { # check NAME DETAIL COMMAND...: runs COMMAND, logs it, records ok/FAIL
  local name=$1 detail=$2
  shift 2
  if "$@" >>"$out/smoke.log" 2>&1; then record "$name" ok "$detail"; else record "$name" FAIL "see smoke.log"; fi
}

{ uname -a; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } >"$out/machine.txt" 2>&1

for tool in kiln kiln-opt kiln-translate; do
  [ -x "$kiln_dir/bin/$tool" ] || continue
  check "$tool --version" "$($tool --version 2>&1 | head -1)" "$tool" --version
done

kiln compile test/models/tiny_cnn.onnx --compile-to=graph --quiet -o "$out/tiny_cnn.mlir" \
  2>>"$out/smoke.log"
check "kiln compile --compile-to=graph" "$(grep -c ' = graph\.' "$out/tiny_cnn.mlir" 2>/dev/null) graph ops" \
  grep -q 'graph.gemm' "$out/tiny_cnn.mlir"

KilnRuntimeTests >"$out/runtime-tests.log" 2>&1
gpu=$(grep -m1 '^GPU 0:' "$out/runtime-tests.log" | cut -d' ' -f3-)
if grep -q '\[  PASSED  \]' "$out/runtime-tests.log" && ! grep -q 'SKIPPED\|FAILED' "$out/runtime-tests.log"; then
  record "runtime tests (CUDA driver loader)" ok "${gpu:-no GPU line}"
else
  record "runtime tests (CUDA driver loader)" FAIL "see runtime-tests.log"
fi

input=test/target/gpu-to-ptx.mlir
pipeline='gpu-lower-to-nvvm-pipeline{cubin-chip=sm_90a cubin-features=+ptx80 cubin-format=FORMAT}'
kiln-opt "$input" --pass-pipeline="builtin.module(${pipeline/FORMAT/isa})" >"$out/relu.isa.mlir" 2>>"$out/smoke.log"
check "kiln-opt: gpu.module -> PTX" "$(grep -o '\.target sm_90a' "$out/relu.isa.mlir" | head -1)" \
  grep -q '.entry relu' "$out/relu.isa.mlir"
kiln-opt "$input" --pass-pipeline="builtin.module(${pipeline/FORMAT/bin})" >"$out/relu.bin.mlir" 2>>"$out/smoke.log"
check "kiln-opt: gpu.module -> cubin" "ptxas $(ptxas --version | grep -o 'V[0-9.]*' | tail -1)" \
  grep -q 'bin = "' "$out/relu.bin.mlir"

# PTX from kiln-translate when it is bundled, else out of the pipeline's gpu.binary.
if [ -x "$kiln_dir/bin/kiln-translate" ]; then
  kiln-opt "$input" --nvvm-attach-target="chip=sm_90a features=+ptx80" --convert-gpu-to-nvvm \
    --reconcile-unrealized-casts 2>>"$out/smoke.log" | kiln-translate --emit-ptx >"$out/relu.ptx" 2>>"$out/smoke.log"
  source_of_ptx="kiln-translate --emit-ptx"
else
  python3 -c 'import re,sys; s=open(sys.argv[1]).read(); m=re.search(r"assembly = \"(.*?)\"", s, re.S); print(re.sub(r"\\([0-9A-F]{2})", lambda g: chr(int(g.group(1), 16)), m.group(1)))' \
    "$out/relu.isa.mlir" >"$out/relu.ptx" 2>>"$out/smoke.log"
  source_of_ptx="kiln-opt PTX"
fi
check "$source_of_ptx + ptxas" "sm_90a cubin" \
  ptxas -arch=sm_90a "$out/relu.ptx" -o "$out/relu.cubin"
cuobjdump --dump-sass "$out/relu.cubin" >"$out/relu.sass" 2>>"$out/smoke.log"
check "cuobjdump: SASS of the kernel" "$(grep -c '/\*[0-9a-f]*\*/' "$out/relu.sass") instructions" \
  grep -q 'Function : relu' "$out/relu.sass"

echo
cat "$out/machine.txt"
printf '| %-34s | %-6s | %s |\n' check result detail
printf '|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..36})" "--------" "--------"
printf '%s\n' "${results[@]}"
! printf '%s\n' "${results[@]}" | grep -q '| FAIL'
