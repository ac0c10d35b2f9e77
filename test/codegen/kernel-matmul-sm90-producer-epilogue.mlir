// The producer's epilogue (`producer_epilogue = true`): on a persistent grid of three
// consumers (192 x 192 tiles), the consumers store each tile's sums, rounded to f16, to a
// staging past the ring (192 rows of 192 + 8) and go on to the next tile, while warps 1-3
// of the producer warpgroup read them in 16-byte chunks, add the bias, apply the GELU and
// store the tile. Named barrier 7 says the staging is free, 8 that it is full, each for
// the 384 consumer threads and the 96 epilogue threads. The producer keeps 56 registers
// (152 for each consumer thread: 56 x 128 + 152 x 384 = 65536). A thread's chunks lie in
// the same 8 columns (24 chunks a row divide 96), so it loads its bias once a tile.
// ViT-B/16's fc1 at batch 32.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_192x192x64_s3_ws3_p_pe_add_gelu_{{[0-9a-f]+}}::@gemm_f16_f16_192x192x64_s3_ws3_p_pe_add_gelu_{{[0-9a-f]+}} blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c512
// CHECK-SAME: dynamic_shared_memory_size %c226304_i32
// The producer: its loads, then the epilogue warps' tiles.
// CHECK: gpu.func @gemm_f16_f16_192x192x64_s3_ws3_p_pe_add_gelu
// CHECK: nvvm.setmaxregister decrease 56
// CHECK: nvgpu.tma.async.load
// CHECK: nvvm.barrier.arrive id = %c7_i32 number_of_threads = %c480_i32
// CHECK: scf.for
// CHECK: nvvm.barrier id = %c8_i32 number_of_threads = %c480_i32
// CHECK: scf.for
// CHECK: vector.load {{.*}} : memref<192x200xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: math.erf {{.*}} : f32
// CHECK: vector.store {{.*}} : memref<?xf16, strided<[1], offset: ?>>, vector<8xf16>
// CHECK: nvvm.barrier.arrive id = %c7_i32 number_of_threads = %c480_i32
// The consumers: the main loop, then the hand-over of the sums, with no epilogue.
// CHECK: nvvm.setmaxregister increase 152
// CHECK: nvgpu.warpgroup.mma
// CHECK: nvvm.barrier id = %c7_i32 number_of_threads = %c480_i32
// CHECK-NOT: math.erf
// CHECK: vector.store {{.*}} : memref<192x200xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-NOT: math.erf
// CHECK: nvvm.barrier.arrive id = %c8_i32 number_of_threads = %c480_i32
// CHECK-NOT: math.erf
// CHECK: gpu.return

// PTX-LABEL: .visible .entry gemm_f16_f16_192x192x64_s3_ws3_p_pe_add_gelu_
// PTX: setmaxnreg.dec.sync.aligned.u32 56;
// PTX: setmaxnreg.inc.sync.aligned.u32 152;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16
// PTX: bar.sync 7, 480;
// PTX: bar.arrive 8, 480;
// PTX: bar.arrive 7, 480;
// PTX: bar.sync 8, 480;
// PTX: ld.shared.v4.b32
// PTX: st.global.v4.b32

// ptxas keeps the wgmma asynchronous and spills nothing, in 56 registers for the
// producer's warps and 152 for the consumers'.
// REQUIRES: ptxas
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C75
memref.global "private" constant @bias : memref<3072xf16> = dense<0.5>
kernel.func @fc1(%a: memref<6304x768xf16>, %b: memref<768x3072xf16>, %bias: memref<3072xf16>, %c: memref<6304x3072xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 192, tile_n = 192, tile_k = 64, stages = 3, consumers = 3, persistent = true, producer_epilogue = true>} {
  matmul ins(%a, %b, %bias : memref<6304x768xf16>, memref<768x3072xf16>, memref<3072xf16>) outs(%c : memref<6304x3072xf16>) {
  ^bb0(%x: tensor<6304x768xf16>, %y: tensor<768x3072xf16>, %z: tensor<3072xf16>):
    %p = graph.matmul %x, %y : (tensor<6304x768xf16>, tensor<768x3072xf16>) -> tensor<6304x3072xf16>
    %s = graph.add %p, %z : (tensor<6304x3072xf16>, tensor<3072xf16>) -> tensor<6304x3072xf16>
    %g = graph.gelu %s {approximate = "none"} : tensor<6304x3072xf16>
    kernel.yield %g : tensor<6304x3072xf16>
  }
  return
}
func.func @main(%a: memref<6304x768xf16>, %b: memref<768x3072xf16>, %c: memref<6304x3072xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %bias = memref.get_global @bias : memref<3072xf16>
  kernel.launch @fc1(%a, %b, %bias, %c) : (memref<6304x768xf16>, memref<768x3072xf16>, memref<3072xf16>, memref<6304x3072xf16>) -> ()
  return
}
