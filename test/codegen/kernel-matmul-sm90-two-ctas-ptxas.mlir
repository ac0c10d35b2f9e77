// The persistent two-CTA configuration of 64-wide tiles assembles for sm_90a without
// spills within the 96 registers a thread that two resident 288-thread CTAs leave.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'gemm_f16_f16_128x64x64_s3_ws2_p_c2' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NEXT: Used {{[1-8]?[0-9]|9[0-6]}} registers
kernel.func @persistent(%a: memref<100352x64xf16>, %b: memref<64x64xf16>, %c: memref<100352x64xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 3, consumers = 2, persistent = true, ctas_per_sm = 2>} {
  matmul ins(%a, %b : memref<100352x64xf16>, memref<64x64xf16>) outs(%c : memref<100352x64xf16>) {
  ^bb0(%x: tensor<100352x64xf16>, %y: tensor<64x64xf16>):
    %r = graph.matmul %x, %y : (tensor<100352x64xf16>, tensor<64x64xf16>) -> tensor<100352x64xf16>
    kernel.yield %r : tensor<100352x64xf16>
  }
  return
}
func.func @main(%a: memref<100352x64xf16>, %b: memref<64x64xf16>, %c: memref<100352x64xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @persistent(%a, %b, %c) : (memref<100352x64xf16>, memref<64x64xf16>, memref<100352x64xf16>) -> ()
  return
}
