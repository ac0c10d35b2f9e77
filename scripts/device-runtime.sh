#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after scripts/device-bundle.sh here
# (its default bundle holds kiln, KilnRuntimeTests and make-test-engine): checks the
# runtime end to end on the hand-written sample engine (test/tools/make-test-engine).
#   - KilnRuntimeTests: host runs, enqueue, graph replay, 4 threads on one engine, the C
#     API, load and launch errors (none may be skipped on a GPU)
#   - kiln run MODEL.kiln --device cuda against the expected outputs (PTX through the JIT)
#   - the same engine with cubins made here by ptxas from `kiln inspect --dump-kernels`
#     (the runtime must load the cubins, not the PTX)
#   - kiln bench with and without CUDA graphs, JSON written
# Logs go to $OUT (or /tmp/kiln-runtime); a short table is printed last.
#
#   device run, carry [".bundle"]:  scripts/device-runtime.sh
set -uo pipefail

out=${OUT:-/tmp/kiln-runtime}
mkdir -p "$out"
kiln_dir=/tmp/kiln
rm -rf "$kiln_dir" && mkdir -p "$kiln_dir"
tar xJf .bundle/kiln-device.tar.xz -C "$kiln_dir" || { echo "runtime: cannot unpack .bundle"; exit 1; }
export PATH=$kiln_dir/bin:/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$kiln_dir/lib
log=$out/runtime.log

results=()
record() { results+=("$(printf '| %-36s | %-6s | %s |' "$1" "$2" "$3")"); }
check() { # check NAME DETAIL COMMAND...: runs COMMAND, logs it, records ok/FAIL
  local name=$1 detail=$2
  shift 2
  echo "== $name: $*" >>"$log"
  if "$@" >>"$log" 2>&1; then record "$name" ok "$detail"; else record "$name" FAIL "see runtime.log"; fi
}

{ uname -a; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } >"$out/machine.txt" 2>&1

KilnRuntimeTests >"$out/runtime-tests.log" 2>&1
status=$?
summary=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/runtime-tests.log" | grep -v '^\[  SKIPPED \] [A-Z]' | tr -s ' ' | paste -sd' ')
if [ $status -eq 0 ] && ! grep -q '^\[  SKIPPED \]' "$out/runtime-tests.log"; then
  record "KilnRuntimeTests (none skipped)" ok "$summary"
else
  record "KilnRuntimeTests (none skipped)" FAIL "$summary; see runtime-tests.log"
fi

work=$out/sample
rm -rf "$work" && mkdir -p "$work"
make-test-engine "$work/sample.kiln" --data-dir "$work" >>"$log" 2>&1
check "kiln inspect" "$(kiln inspect "$work/sample.kiln" 2>/dev/null | tail -1)" \
  kiln inspect "$work/sample.kiln" --dump-kernels "$work/kernels"
check "kiln run --device cuda (PTX)" "$(kiln run "$work/sample.kiln" --inputs-dir "$work" --expect-dir "$work" 2>&1 | grep -c ' ok$') of 3 outputs ok" \
  kiln run "$work/sample.kiln" --device cuda --inputs-dir "$work" --expect-dir "$work"

# Cubins for this GPU from the dumped PTX: the runtime must prefer them.
sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.')
for ptx in "$work"/kernels/*.ptx; do ptxas -arch="sm_$sm" "$ptx" -o "${ptx%.ptx}.cubin" >>"$log" 2>&1; done
make-test-engine "$work/cubin.kiln" --target "sm_$sm" --cubins "$work/kernels" >>"$log" 2>&1
kiln run "$work/cubin.kiln" --inputs-dir "$work" --expect-dir "$work" >"$out/run-cubin.log" 2>&1
if [ $? -eq 0 ] && grep -q "(sm_$sm, cubin)" "$out/run-cubin.log"; then
  record "kiln run, cubins for sm_$sm" ok "$(grep -c ' ok$' "$out/run-cubin.log") of 3 outputs ok, loaded from cubin"
else
  record "kiln run, cubins for sm_$sm" FAIL "see run-cubin.log"
fi
# A placeholder cubin for this GPU must fail loudly, naming the module.
make-test-engine "$work/bad-cubin.kiln" --target "sm_$sm" --placeholder-cubin >>"$log" 2>&1
kiln run "$work/bad-cubin.kiln" --inputs-dir "$work" >"$out/run-bad-cubin.log" 2>&1
if [ $? -eq 4 ] && grep -q "module 'axpy_module': cuModuleLoadDataEx failed" "$out/run-bad-cubin.log"; then
  record "kiln run, broken cubin refused" ok "$(grep -o 'CUDA_ERROR_[A-Z_]*' "$out/run-bad-cubin.log" | head -1)"
else
  record "kiln run, broken cubin refused" FAIL "see run-bad-cubin.log"
fi

for mode in graph no-graph; do
  flag=; [ $mode = no-graph ] && flag=--no-graph
  kiln bench "$work/sample.kiln" --warmup 20 --iterations 200 --json "$out/bench-$mode.json" $flag \
    >"$out/bench-$mode.log" 2>&1
  if [ $? -eq 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["runs_ms"]) == 200' "$out/bench-$mode.json" 2>>"$log"; then
    record "kiln bench ($mode)" ok "$(grep -o 'p50 [0-9.]*' "$out/bench-$mode.log") ms, $(grep -o '[0-9.]* inferences/s' "$out/bench-$mode.log")"
  else
    record "kiln bench ($mode)" FAIL "see bench-$mode.log"
  fi
done

echo
cat "$out/machine.txt"
printf '| %-36s | %-6s | %s |\n' check result detail
printf '|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..38})" "--------" "--------"
printf '%s\n' "${results[@]}"
! printf '%s\n' "${results[@]}" | grep -q '| FAIL'
