// A masked wgmma flash-attention kernel of sm_90a with a padding mask [B, 1, 1, S], the
// same for every row ("_rows1": a thread's two rows share their loads): a whole tile's
// mask is read as 4-byte column pairs at constant offsets (ld.global.v2.b16 ... +16]: the
// next n8 tile's pair). The 64x64 w4 form assembles without spills at its 4 CTAs an SM
// (128 registers); 64x128 w4 at 3 spills 12 bytes (76 before the pair loads).
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention attention-config=64x64x2x4xwgmma" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// PTX-LABEL: .visible .entry flash_attention_f16_d64_{{.*}}_wgmma_maskf16_rows1(
// PTX: ld.global.v2.b16 {{.*}}+16];
// CHECK: Compiling entry function 'flash_attention_f16_d64_{{.*}}_wgmma_maskf16_rows1' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C751
kernel.func @Padding_1(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %m: memref<8x1x1x512xf16>, %o: memref<8x12x512x64xf16>) {
  attention ins(%q, %k, %v, %m : memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x1x1x512xf16>) outs(%o : memref<8x12x512x64xf16>) {
  ^bb0(%a: tensor<8x12x512x64xf16>, %b: tensor<8x12x512x64xf16>, %c: tensor<8x12x512x64xf16>, %mm: tensor<8x1x1x512xf16>):
    %r = graph.attention %a, %b, %c, %mm {scale = 0.125 : f32} : (tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>, tensor<8x1x1x512xf16>) -> tensor<8x12x512x64xf16>
    kernel.yield %r : tensor<8x12x512x64xf16>
  }
  return
}
func.func @main(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %m: memref<8x1x1x512xf16>, %o: memref<8x12x512x64xf16>) attributes {kernel.num_inputs = 4 : i64} {
  kernel.launch @Padding_1(%q, %k, %v, %m, %o) : (memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x1x1x512xf16>, memref<8x12x512x64xf16>) -> ()
  return
}
