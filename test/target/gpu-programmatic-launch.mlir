// gpu-programmatic-launch: every kernel of a gpu.module begins with griddepcontrol's
// launch_dependents and wait, before anything touches memory; device functions that are
// not kernels are left alone; the module is marked for the engine builder. Through the
// device lowering: sm_90a kernels carry both instructions in their PTX, sm_80 ones (which
// have no griddepcontrol) neither.
// RUN: kiln-opt %s --pass-pipeline="builtin.module(gpu.module(gpu-programmatic-launch))" | FileCheck %s
// RUN: kiln-opt %s --kiln-lower-gpu-device="chip=sm_90a" | kiln-translate --emit-ptx | FileCheck %s --check-prefix=PTX90
// RUN: kiln-opt %s --kiln-lower-gpu-device="chip=sm_80" | kiln-translate --emit-ptx | FileCheck %s --check-prefix=PTX80

// CHECK: gpu.module @kernels attributes {kernel.programmatic_launch}
// CHECK: gpu.func @copy(
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: gpu.thread_id
// CHECK: func.func @twice(
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: return

// PTX90: .entry copy(
// PTX90: griddepcontrol.launch_dependents;
// PTX90-NEXT: griddepcontrol.wait;
// PTX90: ld.global

// PTX80: .entry copy(
// PTX80-NOT: griddepcontrol
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%a: memref<64xf32>, %b: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<64xf32>
      %y = func.call @twice(%x) : (f32) -> f32
      memref.store %y, %b[%i] : memref<64xf32>
      gpu.return
    }
    func.func @twice(%x: f32) -> f32 {
      %y = arith.addf %x, %x : f32
      return %y : f32
    }
  }
}
