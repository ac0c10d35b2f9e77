// Clusters of two CTAs along N (`cluster_n = 2`): the two CTAs of a cluster compute tiles
// of the same 192 rows side by side (columns 2c and 2c + 1 of tiles), and each loads 96 of
// those rows of A by TMA, multicast into both CTAs' stage, so that the cluster reads A
// from the L2 once. Each consumer thread releases a stage in its CTA, and the first thread
// of each consumer warp in the other CTA too, through `mapa` on its barrier (the empty
// barriers count 384 + 12 arrivals). The
// kernel is compiled for clusters of two (.reqnctapercluster), which its launches take;
// both CTAs sync as a cluster after initialising their barriers and before leaving.
// ViT-B/16's out-projection at batch 32: 33 x 4 tiles, 66 clusters, one wave.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_192x192x64_s4_ws3_cn2_add_add_{{[0-9a-f]+}}::@gemm_f16_f16_192x192x64_s4_ws3_cn2_add_add_{{[0-9a-f]+}} blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c512
// CHECK-SAME: args(%{{.*}} : !nvgpu.tensormap.descriptor<tensor = memref<96x64xf16, 3>
// CHECK: gpu.func @gemm_f16_f16_192x192x64_s4_ws3_cn2_add_add
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvgpu.mbarrier.init %{{.*}}, %c396 :
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvgpu.tma.async.load {{.*}} multicast_mask = %{{.*}} : <tensor = memref<96x64xf16, 3>
// CHECK: nvgpu.mbarrier.arrive
// CHECK: scf.if
// CHECK: nvgpu.mbarrier.get
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.return

// PTX-LABEL: .visible .entry gemm_f16_f16_192x192x64_s4_ws3_cn2_add_add_
// PTX: .reqnctapercluster 2, 1, 1
// PTX: barrier.cluster.arrive;
// PTX: barrier.cluster.wait;
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX: mapa.shared::cluster.u64
// PTX: mbarrier.arrive.release.cluster.shared::cluster.b64
// PTX: barrier.cluster.arrive;
// PTX: barrier.cluster.wait;

// REQUIRES: ptxas
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C75
memref.global "private" constant @bias : memref<768xf16> = dense<0.25>
kernel.func @out(%a: memref<6304x768xf16>, %b: memref<768x768xf16>, %bias: memref<768xf16>, %r: memref<6304x768xf16>, %c: memref<6304x768xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 192, tile_n = 192, tile_k = 64, stages = 4, consumers = 3, cluster_n = 2>} {
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
