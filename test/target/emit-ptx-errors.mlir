// kiln-translate --emit-ptx reports what is missing instead of emitting nothing.
// RUN: not kiln-translate --emit-ptx %s -split-input-file 2>&1 | FileCheck %s

// CHECK: error: gpu.module @untargeted has no #nvvm.target; run nvvm-attach-target first
module attributes {gpu.container_module} {
  gpu.module @untargeted {
  }
}

// -----

// CHECK: error: no gpu.module to emit PTX for
module {
}
