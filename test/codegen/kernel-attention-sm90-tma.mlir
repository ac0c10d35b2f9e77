// flash_attention's TMA form on sm_90a (#kernel.flash_attention<..., warps = 12, wgmma =
// true, tma = true>, templates/FlashAttentionSm90Tma.mlir): the host makes a tensor map of
// each of Q, K and V over its [B, H, S, D] view of the buffer (a strided
// memref.reinterpret_cast, which the engine encodes with the view's strides and offset),
// boxes of 64 columns and the Q tile's 128 rows or a K/V tile's; the kernel has a producer
// warpgroup loading by TMA into mbarrier-guarded stages and two consumer warpgroups that
// take turns at the tensor cores (named barriers 2 and 3) and store their own rows of O
// through a staging buffer (barrier 4 + w). kernel-attention-sm90-tma-d128-ptxas.mlir and -mask-ptxas.mlir assemble the forms.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s

// The heads of a fused QKV projection [2, 16, 2304] (Q, K, V at columns 0, 768, 1536, head
// h at 64 h): views of rows 2304 apart, heads 64, batches 16 x 2304; O and the mask go as
// pointers with their strides, as in the other forms. A persistent grid: a CTA a work item
// (ceil(16 / 128) x 2 x 12 = 24), fewer than the 132 SMs; the last argument is B * H. 384
// threads; shared memory: two Q buffers of 128 rows, 2 stages of K and V 64 rows, 128
// bytes each, the staging buffer of O (128 rows of 128 bytes) and 2048 bytes for the
// alignment.
// CHECK-LABEL: func.func @main
// CHECK: %[[QV:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [2, 12, 16, 64], strides: [36864, 64, 2304, 1]
// CHECK: %[[QU:.*]] = memref.cast %[[QV]]
// CHECK: %[[QM:.*]] = nvgpu.tma.create.descriptor %[[QU]] box[%c1, %c1, %c128, %c64] : memref<*xf16> -> <tensor = memref<1x1x128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: memref.reinterpret_cast %arg0 to offset: [768], sizes: [2, 12, 16, 64], strides: [36864, 64, 2304, 1]
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c1, %c64, %c64]
// CHECK: memref.reinterpret_cast %arg0 to offset: [1536], sizes: [2, 12, 16, 64], strides: [36864, 64, 2304, 1]
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_128x64x2w12_wgmma_tma_maskf16_nz::@flash_attention_f16_d64_128x64x2w12_wgmma_tma_maskf16_nz blocks in (%c24{{[_0-9]*}}, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c83968_i32 args(%[[QM]] :
// O: offset 0, batch stride 12288, head stride 1024, row stride 64; B * H.
// CHECK-SAME: %c0_i32{{[_0-9]*}} : i32, %c12288_i32 : i32, %c1024_i32 : i32, %c64_i32 : i32, %c24_i32 : i32)
kernel.func @FusedQkv(%qkv: memref<2x16x2304xf16>, %m: memref<2x1x16x16xf16>, %o: memref<2x12x16x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 12, wgmma = true, tma = true>} {
  attention ins(%qkv, %m : memref<2x16x2304xf16>, memref<2x1x16x16xf16>) outs(%o : memref<2x12x16x64xf16>) {
  ^bb0(%x: tensor<2x16x2304xf16>, %mask: tensor<2x1x16x16xf16>):
    %c0 = graph.constant dense<0> : tensor<1xi64>
    %c768 = graph.constant dense<768> : tensor<1xi64>
    %c1536 = graph.constant dense<1536> : tensor<1xi64>
    %c2304 = graph.constant dense<2304> : tensor<1xi64>
    %axis = graph.constant dense<2> : tensor<1xi64>
    %shape = graph.constant dense<[2, 16, -1, 64]> : tensor<4xi64>
    %qs = graph.slice %x, %c0, %c768 axes %axis : (tensor<2x16x2304xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x16x768xf16>
    %qr = graph.reshape %qs, %shape {allowzero = false} : (tensor<2x16x768xf16>, tensor<4xi64>) -> tensor<2x16x12x64xf16>
    %q = graph.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x12x64xf16>) -> tensor<2x12x16x64xf16>
    %ks = graph.slice %x, %c768, %c1536 axes %axis : (tensor<2x16x2304xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x16x768xf16>
    %kr = graph.reshape %ks, %shape {allowzero = false} : (tensor<2x16x768xf16>, tensor<4xi64>) -> tensor<2x16x12x64xf16>
    %k = graph.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x12x64xf16>) -> tensor<2x12x16x64xf16>
    %vs = graph.slice %x, %c1536, %c2304 axes %axis : (tensor<2x16x2304xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x16x768xf16>
    %vr = graph.reshape %vs, %shape {allowzero = false} : (tensor<2x16x768xf16>, tensor<4xi64>) -> tensor<2x16x12x64xf16>
    %v = graph.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x12x64xf16>) -> tensor<2x12x16x64xf16>
    %r = graph.attention %q, %k, %v, %mask {nan_to_zero, scale = 0.125 : f32} : (tensor<2x12x16x64xf16>, tensor<2x12x16x64xf16>, tensor<2x12x16x64xf16>, tensor<2x1x16x16xf16>) -> tensor<2x12x16x64xf16>
    kernel.yield %r : tensor<2x12x16x64xf16>
  }
  return
}
func.func @main(%qkv: memref<2x16x2304xf16>, %m: memref<2x1x16x16xf16>) -> memref<2x12x16x64xf16> attributes {kernel.num_inputs = 2 : i64} {
  %o = memref.alloc() : memref<2x12x16x64xf16>
  kernel.launch @FusedQkv(%qkv, %m, %o) : (memref<2x16x2304xf16>, memref<2x1x16x16xf16>, memref<2x12x16x64xf16>) -> ()
  return %o : memref<2x12x16x64xf16>
}

// -----

// Grouped-query attention, D 128 (two swizzle atoms a row): the producer (tid 256) loads
// each work item's Q as two boxes of 128 rows (32768 bytes) once its buffer is released,
// then K tile i and V tile i - 1 (K 0, K 1, V 0, ...), each two boxes of 128 rows (32768
// bytes) into a ring of its own, at K/V head h / G; the consumers take 232 registers. 512
// work items on 132 CTAs.
// CHECK-LABEL: gpu.func @flash_attention_f16_d128_128x128x2w12_wgmma_tma
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c256
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvgpu.mbarrier.try_wait.parity %[[QEMPTY:.*]][
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[QFULL:.*]][%{{.*}}], %c32768
// CHECK: nvgpu.tma.async.load %arg0[{{.*}}], %[[QFULL]][
// CHECK: nvgpu.mbarrier.try_wait.parity %[[KEMPTY:.*]][
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[KFULL:.*]][%{{.*}}], %c32768
// CHECK: nvgpu.tma.async.load %arg1[{{.*}}], %[[KFULL]][
// CHECK: nvgpu.mbarrier.try_wait.parity %[[VEMPTY:.*]][
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[VFULL:.*]][%{{.*}}], %c32768
// CHECK: nvgpu.tma.async.load %arg2[{{.*}}], %[[VFULL]][
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// CHECK: scf.for
// An item starts with S of its first tile, which frees that K stage. The loop: the softmax
// of tile j, then the wait for P V of tile j - 1 (issued in the last turn; a block of its
// own holding O and that P), the copy of tile j's P that its P V reads (32 movs, so that
// the registers of a P V in flight are not the softmax's) and the release of its V stage;
// a turn issues S of tile j + 1
// and P V of tile j (a commit group each, V of tile j checked before the turn, K of tile
// j + 1 in it), signals the other consumer, waits for S alone (wait_group 1) and frees
// that K stage. After the loop, the last P V, its V stage and the Q buffer; the epilogue
// stores O through the staging buffer: fragments in, a barrier of the warpgroup, 16-byte rows out.
// CHECK: nvgpu.mbarrier.try_wait.parity %[[QFULL]][
// CHECK: nvgpu.mbarrier.try_wait.parity %[[KFULL]][
// CHECK: wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; }"
// CHECK: nvgpu.mbarrier.arrive %[[KEMPTY]][
// CHECK: scf.for
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $32; {{.*}} mov.b32 $31, $63;"
// CHECK: nvgpu.mbarrier.arrive %[[VEMPTY]][
// CHECK: nvgpu.mbarrier.try_wait.parity %[[VFULL]][
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK: nvgpu.mbarrier.try_wait.parity %[[KFULL]][
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}} wgmma.commit_group.sync.aligned; {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}} wgmma.commit_group.sync.aligned; }"
// CHECK: nvvm.barrier.arrive id
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK: nvgpu.mbarrier.arrive %[[KEMPTY]][
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK: nvgpu.mbarrier.arrive %[[VEMPTY]][
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[QEMPTY]][
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: vector.store %{{.*}} : memref<2x128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: vector.load %{{.*}} : memref<2x128x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.store %{{.*}} : memref<?x128xf16, strided<[?, 1], offset: ?>>, vector<8xf16>
kernel.func @Attention_0(%q: memref<4x32x512x128xf16>, %k: memref<4x8x512x128xf16>, %v: memref<4x8x512x128xf16>, %o: memref<4x32x512x128xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 128, stages = 2, warps = 12, wgmma = true, tma = true>} {
  attention ins(%q, %k, %v : memref<4x32x512x128xf16>, memref<4x8x512x128xf16>, memref<4x8x512x128xf16>) outs(%o : memref<4x32x512x128xf16>) {
  ^bb0(%a: tensor<4x32x512x128xf16>, %b: tensor<4x8x512x128xf16>, %c: tensor<4x8x512x128xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.088388 : f32} : (tensor<4x32x512x128xf16>, tensor<4x8x512x128xf16>, tensor<4x8x512x128xf16>) -> tensor<4x32x512x128xf16>
    kernel.yield %r : tensor<4x32x512x128xf16>
  }
  return
}
func.func @main(%q: memref<4x32x512x128xf16>, %k: memref<4x8x512x128xf16>, %v: memref<4x8x512x128xf16>, %o: memref<4x32x512x128xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_0(%q, %k, %v, %o) : (memref<4x32x512x128xf16>, memref<4x8x512x128xf16>, memref<4x8x512x128xf16>, memref<4x32x512x128xf16>) -> ()
  return
}

