// The sm_80 GEMM assembles for sm_80 without spills: a 4096^3 product on its default tile
// (128x256, 8 warps of 64x64: 128 f32 accumulators a thread) and on 128x128 with 4 warps,
// and a fused epilogue (bias + GELU); the PTX holds cp.async, ldmatrix and mma.sync.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=sm80_gemm" --kernel-instantiate-templates=target=sm_80 --kiln-lower-gpu-device="chip=sm_80 features=+ptx80" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_80 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=sm80_gemm gemm-config=128x128x32_s4_w2x2" --kernel-instantiate-templates=target=sm_80 \
// RUN:   --kiln-lower-gpu-device="chip=sm_80 features=+ptx80" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.128.ptx
// RUN: %ptxas -arch=sm_80 -v %t.128.ptx -o %t.128.cubin 2>&1 | FileCheck %s --check-prefix=SMALL
// PTX-DAG: cp.async.cg.shared.global
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: Compiling entry function 'gemm_f16_f16_128x256x32_s3_w2x4_add_gelu_{{[0-9a-f]+}}' for 'sm_80'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SMALL: Compiling entry function 'gemm_f16_f16_128x128x32_s4_w2x2_add_gelu_{{[0-9a-f]+}}' for 'sm_80'
// SMALL: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
memref.global "private" constant @bias : memref<4096xf16> = dense<0.5>
kernel.func @ffn(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %bias: memref<4096xf16>, %c: memref<4096x4096xf16>) {
  matmul ins(%a, %b, %bias : memref<4096x4096xf16>, memref<4096x4096xf16>, memref<4096xf16>) outs(%c : memref<4096x4096xf16>) {
  ^bb0(%x: tensor<4096x4096xf16>, %y: tensor<4096x4096xf16>, %z: tensor<4096xf16>):
    %p = graph.matmul %x, %y : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
    %s = graph.add %p, %z : (tensor<4096x4096xf16>, tensor<4096xf16>) -> tensor<4096x4096xf16>
    %g = graph.gelu %s {approximate = "none"} : tensor<4096x4096xf16>
    kernel.yield %g : tensor<4096x4096xf16>
  }
  return
}
func.func @main(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<4096x4096xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %bias = memref.get_global @bias : memref<4096xf16>
  kernel.launch @ffn(%a, %b, %bias, %c) : (memref<4096x4096xf16>, memref<4096x4096xf16>, memref<4096xf16>, memref<4096x4096xf16>) -> ()
  return
}
