// The TMA form at D 256: 128x64 in 2 stages (the one shape its shared memory leaves: one
// Q buffer of 64 KB, K and V stages of 32 KB, 32 KB to stage O). A consumer's O is 128 registers a thread:
// the consumers take 240 and the producer 24 (24 + 2 x 240 = 3 x 168, the launch's; what
// the producer gives up is all the consumers may take), and each k-step's wgmma
// descriptors are the asm block's own registers (as operands the 36 of S and P V would be
// live at once). ptxas serialises no wgmma; the producer's 24 registers spill a few bytes
// of its own (with 32 and the same consumers nothing spills), which is not checked here.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a %s \
// RUN:   | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// CHECK-LABEL: gpu.func @flash_attention_f16_d256_128x64x2w12_wgmma_tma
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: nvvm.setmaxregister increase 240
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// The epilogue in two rounds: the staging buffer beside the Q buffer and the rings holds
// 2 of a row's 4 atoms (columns 0-127, then 128-255).
// CHECK: vector.store %{{.*}} : memref<2x128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: vector.store %{{.*}} : memref<?x256xf16, strided<[?, 1], offset: ?>>, vector<8xf16>
// CHECK: vector.store %{{.*}} : memref<2x128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: vector.store %{{.*}} : memref<?x256xf16, strided<[?, 1], offset: ?>>, vector<8xf16>
// PTXAS: Compiling entry function 'flash_attention_f16_d256_128x64x2w12_wgmma_tma' for 'sm_90a'
// PTXAS-NOT: C75
// PTXAS: bytes stack frame
kernel.func @Widest(%q: memref<2x8x512x256xf16>, %k: memref<2x8x512x256xf16>, %v: memref<2x8x512x256xf16>, %o: memref<2x8x512x256xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 12, wgmma = true, tma = true>} {
  attention ins(%q, %k, %v : memref<2x8x512x256xf16>, memref<2x8x512x256xf16>, memref<2x8x512x256xf16>) outs(%o : memref<2x8x512x256xf16>) {
  ^bb0(%a: tensor<2x8x512x256xf16>, %b: tensor<2x8x512x256xf16>, %c: tensor<2x8x512x256xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.0625 : f32} : (tensor<2x8x512x256xf16>, tensor<2x8x512x256xf16>, tensor<2x8x512x256xf16>) -> tensor<2x8x512x256xf16>
    kernel.yield %r : tensor<2x8x512x256xf16>
  }
  return
}
func.func @main(%q: memref<2x8x512x256xf16>, %k: memref<2x8x512x256xf16>, %v: memref<2x8x512x256xf16>, %o: memref<2x8x512x256xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Widest(%q, %k, %v, %o) : (memref<2x8x512x256xf16>, memref<2x8x512x256xf16>, memref<2x8x512x256xf16>, memref<2x8x512x256xf16>) -> ()
  return
}
