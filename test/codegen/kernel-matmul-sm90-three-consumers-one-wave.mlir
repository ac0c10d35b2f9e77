// Three consumers' 192 x 192 tiles (kernel-matmul-sm90-three-consumers.mlir) with a CTA a
// tile: ViT-B/16's out-projection (bias, residual) at batch 32 is 33 x 4 = 132 tiles, one
// wave. The staging reuses the ring, which then holds 4 stages (4 x 48 KiB + 2048 bytes),
// once the epilogue's barrier has seen all three consumers' wgmma complete; the residual
// tile would not fit beside them, so the epilogue reads the residual from global memory.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_192x192x64_s4_ws3_add_add_{{[0-9a-f]+}}::@gemm_f16_f16_192x192x64_s4_ws3_add_add_{{[0-9a-f]+}} blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c512
// CHECK-SAME: dynamic_shared_memory_size %c198656_i32
// CHECK: gpu.func @gemm_f16_f16_192x192x64_s4_ws3_add_add
// CHECK-NOT: _r(
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c384_i32
// CHECK: vector.store {{.*}} : memref<192x72xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// PTX-LABEL: .visible .entry gemm_f16_f16_192x192x64_s4_ws3_add_add_
// PTX: bar.sync {{.*}}, 384;

// REQUIRES: ptxas
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C75
memref.global "private" constant @bias : memref<768xf16> = dense<0.25>
kernel.func @out(%a: memref<6304x768xf16>, %b: memref<768x768xf16>, %bias: memref<768xf16>, %r: memref<6304x768xf16>, %c: memref<6304x768xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 192, tile_n = 192, tile_k = 64, stages = 4, consumers = 3>} {
  matmul ins(%a, %b, %bias, %r : memref<6304x768xf16>, memref<768x768xf16>, memref<768xf16>, memref<6304x768xf16>) outs(%c : memref<6304x768xf16>) {
  ^bb0(%x: tensor<6304x768xf16>, %y: tensor<768x768xf16>, %z: tensor<768xf16>, %w: tensor<6304x768xf16>):
    %p = graph.matmul %x, %y : (tensor<6304x768xf16>, tensor<768x768xf16>) -> tensor<6304x768xf16>
    %s = graph.add %p, %z : (tensor<6304x768xf16>, tensor<768xf16>) -> tensor<6304x768xf16>
    %t = graph.add %s, %w : (tensor<6304x768xf16>, tensor<6304x768xf16>) -> tensor<6304x768xf16>
    kernel.yield %t : tensor<6304x768xf16>
  }
  return
}
func.func @main(%a: memref<6304x768xf16>, %b: memref<768x768xf16>, %r: memref<6304x768xf16>, %c: memref<6304x768xf16>) attributes {kernel.num_inputs = 3 : i64} {
  %bias = memref.get_global @bias : memref<768xf16>
  kernel.launch @out(%a, %b, %bias, %r, %c) : (memref<6304x768xf16>, memref<768x768xf16>, memref<768xf16>, memref<6304x768xf16>, memref<6304x768xf16>) -> ()
  return
}
