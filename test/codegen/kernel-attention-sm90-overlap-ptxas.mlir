// The overlapped (FlashAttention-3 order) wgmma kernels that kernel-autotune measures
// (b8 h12 s512 d64) assemble for sm_90a at the CTAs an SM they ask for without spills and
// without ptxas serialising the wgmma (C7510-C7519: an accumulator register read or written
// while its group may be in flight, or too few registers): 64x64 w4 (3 CTAs an SM),
// 64x128 w4 (2), 128x64 w8 and 128x128 w8 (1).
// REQUIRES: ptxas
// RUN: env KILN_FLASH_ATTENTION_OVERLAP=1 KILN_FLASH_ATTENTION_CONFIG=64x64x2x4xwgmmaxov kiln-opt --kernel-attention-sm80="target=sm_90a" \
// RUN:   --kiln-lower-gpu-device="chip=sm_90a" %s | kiln-translate --emit-ptx -o %t0.ptx
// RUN: %ptxas -arch=sm_90a -v %t0.ptx -o %t0.cubin 2>&1 | FileCheck %s --check-prefix=K0
// K0-NOT: C751
// K0: Compiling entry function 'flash_attention_f16_d64_64x64x2w4_wgmma_ov' for 'sm_90a'
// K0-NOT: C751
// K0: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// K0-NOT: C751
// RUN: env KILN_FLASH_ATTENTION_OVERLAP=1 KILN_FLASH_ATTENTION_CONFIG=64x128x2x4xwgmmaxov kiln-opt --kernel-attention-sm80="target=sm_90a" \
// RUN:   --kiln-lower-gpu-device="chip=sm_90a" %s | kiln-translate --emit-ptx -o %t1.ptx
// RUN: %ptxas -arch=sm_90a -v %t1.ptx -o %t1.cubin 2>&1 | FileCheck %s --check-prefix=K1
// K1-NOT: C751
// K1: Compiling entry function 'flash_attention_f16_d64_64x128x2w4_wgmma_ov' for 'sm_90a'
// K1-NOT: C751
// K1: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// K1-NOT: C751
// RUN: env KILN_FLASH_ATTENTION_OVERLAP=1 KILN_FLASH_ATTENTION_CONFIG=128x64x2x8xwgmmaxov kiln-opt --kernel-attention-sm80="target=sm_90a" \
// RUN:   --kiln-lower-gpu-device="chip=sm_90a" %s | kiln-translate --emit-ptx -o %t2.ptx
// RUN: %ptxas -arch=sm_90a -v %t2.ptx -o %t2.cubin 2>&1 | FileCheck %s --check-prefix=K2
// K2-NOT: C751
// K2: Compiling entry function 'flash_attention_f16_d64_128x64x2w8_wgmma_ov' for 'sm_90a'
// K2-NOT: C751
// K2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// K2-NOT: C751
// RUN: env KILN_FLASH_ATTENTION_OVERLAP=1 KILN_FLASH_ATTENTION_CONFIG=128x128x2x8xwgmmaxov kiln-opt --kernel-attention-sm80="target=sm_90a" \
// RUN:   --kiln-lower-gpu-device="chip=sm_90a" %s | kiln-translate --emit-ptx -o %t3.ptx
// RUN: %ptxas -arch=sm_90a -v %t3.ptx -o %t3.cubin 2>&1 | FileCheck %s --check-prefix=K3
// K3-NOT: C751
// K3: Compiling entry function 'flash_attention_f16_d64_128x128x2w8_wgmma_ov' for 'sm_90a'
// K3-NOT: C751
// K3: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// K3-NOT: C751
kernel.func @Attention_0(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %o: memref<8x12x512x64xf16>) {
  attention ins(%q, %k, %v : memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>) outs(%o : memref<8x12x512x64xf16>) {
  ^bb0(%a: tensor<8x12x512x64xf16>, %b: tensor<8x12x512x64xf16>, %c: tensor<8x12x512x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>) -> tensor<8x12x512x64xf16>
    kernel.yield %r : tensor<8x12x512x64xf16>
  }
  return
}
func.func @main(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %o: memref<8x12x512x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_0(%q, %k, %v, %o) : (memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>) -> ()
  return
}
