#!/usr/bin/env bash
# The main job, end to end on the bundled example model (test/models/tiny_cnn.onnx):
# set up, build, compile to an engine, and run it, on the GPU when one is present, else
# on the CPU. Each stage runs as far as this version of Kiln implements the pipeline, and
# the script says where the pipeline currently ends.
set -euo pipefail
cd "$(dirname "$0")/.."

model=test/models/tiny_cnn.onnx
work=${KILN_DEMO_DIR:-build/demo}
mkdir -p "$work"

stage() { printf '\n== %s\n' "$*"; }

# Runs a pipeline stage. A stage this version does not implement yet ends the demo
# successfully, saying so; any other failure is an error.
run_stage() {
  local name=$1
  shift
  local output
  if output=$("$@" 2>&1); then
    [ -n "$output" ] && printf '%s\n' "$output"
    return 0
  fi
  printf '%s\n' "$output"
  if grep -q "not implemented yet" <<<"$output"; then
    printf '\ndemo: the pipeline of this version ends before "%s"; everything up to it ran.\n' "$name"
    exit 0
  fi
  printf '\ndemo: error: stage "%s" failed\n' "$name" >&2
  exit 1
}

stage "set up"
scripts/setup.sh

stage "build"
scripts/build.sh

stage "tools"
build/bin/kiln --version

device=cpu
if build/bin/KilnRuntimeTests --gtest_filter='CudaDriver.DescribesTheGpusWhenADriverIsPresent' \
    2>/dev/null | grep -q '^GPU 0:'; then
  device=cuda
fi
echo "device: $device"

stage "import $model and infer shapes (the graph stage)"
run_stage graph build/bin/kiln compile "$model" --compile-to=graph -o "$work/tiny_cnn.mlir"
echo "graph ops: $(grep -c ' = graph\.' "$work/tiny_cnn.mlir") (written to $work/tiny_cnn.mlir)"

stage "compile $model to an engine for sm_90a (batch 1)"
run_stage "code generation" build/bin/kiln compile "$model" --shapes image:1x3x32x32 -o "$work/tiny_cnn.kiln"

stage "inspect the engine"
run_stage inspect build/bin/kiln inspect "$work/tiny_cnn.kiln"

stage "run on the CPU (the reference path)"
/usr/bin/python3 -c "import numpy as np; np.save('$work/image.npy', np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32))"
run_stage "run on the CPU" build/bin/kiln run "$model" --device cpu --input "image=$work/image.npy" \
  --output-dir "$work/cpu"

if [ "$device" = cuda ]; then
  stage "run the engine on the GPU, checked against the CPU's outputs"
  run_stage "run on the GPU" build/bin/kiln run "$work/tiny_cnn.kiln" --input "image=$work/image.npy" \
    --expect-dir "$work/cpu" --rtol 1e-3 --atol 1e-5
  stage "bench the engine"
  run_stage bench build/bin/kiln bench "$work/tiny_cnn.kiln" --iterations 100
else
  echo "no GPU here: the engine runs with kiln run/bench on a machine with an NVIDIA driver"
fi

echo "demo: done"
