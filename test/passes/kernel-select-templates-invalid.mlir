// The template options are checked before anything runs: an unknown target or family, a
// malformed attention configuration, an out-of-range CTA count.
// RUN: not kiln-opt --kernel-select-templates=target=sm_70 %s 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: kernel-select-templates: unknown target 'sm_70'; one of sm_90a, sm_80
// RUN: not kiln-opt --kernel-select-templates=templates=cudnn %s 2>&1 | FileCheck %s --check-prefix=FAMILY
// FAMILY: error: kernel-select-templates: unknown template family 'cudnn'
// RUN: not kiln-opt --kernel-instantiate-templates=attention-config=64x64 %s 2>&1 | FileCheck %s --check-prefix=ATTENTION
// ATTENTION: error: kernel-instantiate-templates: attention-config '64x64' is not BQxBKVxSTAGESxWARPS[xwgmma] (e.g. 64x128x2x4xwgmma)
// RUN: not kiln-opt --kernel-autotune=attention-min-ctas=17 %s 2>&1 | FileCheck %s --check-prefix=CTAS
// CTAS: error: kernel-autotune: attention-min-ctas must be 0 to 16, not 17

kernel.func @relu(%x: memref<16xf32>, %y: memref<16xf32>) {
  pointwise ins(%x : memref<16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: tensor<16xf32>):
    %r = graph.relu %a : tensor<16xf32>
    kernel.yield %r : tensor<16xf32>
  }
  return
}
