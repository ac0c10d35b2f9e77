// A gpu.module lowers to PTX for Hopper through upstream's NVVM path and LLVM's NVPTX
// backend, both as registered in kiln-opt and through kiln-translate --emit-ptx.
// RUN: kiln-opt %s --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90a cubin-features=+ptx80 cubin-format=isa" | FileCheck %s --check-prefix=PIPELINE
// RUN: kiln-opt %s --nvvm-attach-target="chip=sm_90a features=+ptx80" --convert-gpu-to-nvvm --reconcile-unrealized-casts | kiln-translate --emit-ptx | FileCheck %s --check-prefix=PTX

// PIPELINE: gpu.binary @kernels
// PIPELINE-SAME: #gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx80">
// PIPELINE-SAME: .target sm_90a
// PIPELINE-SAME: .entry relu

// PTX: // gpu.module @kernels for sm_90a
// PTX: .version 8.0
// PTX: .target sm_90a
// PTX: .visible .entry relu(
// PTX: max.NaN.f32
// PTX: st.global.b32

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @relu(%in: memref<1024xf32>, %out: memref<1024xf32>) kernel {
      %block = gpu.block_id x
      %thread = gpu.thread_id x
      %width = gpu.block_dim x
      %offset = arith.muli %block, %width : index
      %i = arith.addi %offset, %thread : index
      %x = memref.load %in[%i] : memref<1024xf32>
      %zero = arith.constant 0.0 : f32
      %y = arith.maximumf %x, %zero : f32
      memref.store %y, %out[%i] : memref<1024xf32>
      gpu.return
    }
  }
}
