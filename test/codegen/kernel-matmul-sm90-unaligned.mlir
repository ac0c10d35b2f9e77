// sm90_gemm on operands whose rows are no multiple of 16 bytes, which a tensor map cannot
// stride (docs/codegen-sm90.md, "Unaligned operands"): the warp-specialised template's
// producer threads load them (a bare pointer instead of the map: `_ta` for A, `_tb` for B),
// through cp.async raw buffers where K spans several k-tiles, straight to registers where
// it is one; every producer thread arrives on the stage's full barrier (129 arrivals with
// the first thread's arming) after a proxy fence, no setmaxnreg (the loading threads keep
// the launch's registers); C's rows of N not a multiple of 8 are stored a few elements at a
// time (`_v4`, `_v1`). A K-major B (trans_b) of aligned K and unaligned N takes TMA and
// the narrow stores only. Then the PTX (ptxas: kernel-matmul-sm90-unaligned-ptxas.mlir).
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file \
// RUN:   | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" \
// RUN:   %s -split-input-file | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// K = 100 (two k-tiles): A by the producer's threads through cp.async (the next k-tile's
// copies committed before this one's are waited for), B (100 x 128, rows of 256 bytes) by
// TMA.
// CHECK-LABEL: func.func @main
// CHECK-NOT: nvgpu.tma.create.descriptor %{{.*}} box[%c128
// CHECK: nvgpu.tma.create.descriptor
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_{{.*}}_ta::@gemm_f16_f16_{{.*}}_ta blocks
// CHECK: gpu.func @gemm_f16_f16_{{.*}}_ta(%{{.*}}: memref<f16>, %{{.*}}: !nvgpu.tensormap.descriptor
// CHECK: %[[ARRIVALS:.*]] = arith.constant 129 : index
// CHECK: nvgpu.mbarrier.init %{{.*}}, %[[ARRIVALS]]
// CHECK-NOT: nvvm.setmaxregister
// CHECK: nvgpu.device_async_copy %{{.*}}, 8, %{{.*}} {bypassL1} : memref<?xf16> to memref<2x128x72xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<2x128x72xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvgpu.mbarrier.arrive %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = {{.*}}> -> !nvgpu.mbarrier.token
// PTX-LABEL: .visible .entry gemm_f16_f16_{{.*}}_ta(
// PTX-NOT: setmaxnreg
// PTX-DAG: cp.async.cg.shared.global
// PTX-DAG: ld.shared.v4.b32
// PTX-DAG: st.shared.v4.b32
// PTX-DAG: fence.proxy.async.shared::cta;
// PTX-DAG: mbarrier.arrive.shared.b64
// PTX-DAG: mbarrier.arrive.expect_tx.shared.b64
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
kernel.func @odd_k(%a: memref<256x100xf16>, %b: memref<100x128xf16>, %c: memref<256x128xf16>) {
  matmul ins(%a, %b : memref<256x100xf16>, memref<100x128xf16>) outs(%c : memref<256x128xf16>) {
  ^bb0(%x: tensor<256x100xf16>, %y: tensor<100x128xf16>):
    %r = graph.matmul %x, %y : (tensor<256x100xf16>, tensor<100x128xf16>) -> tensor<256x128xf16>
    kernel.yield %r : tensor<256x128xf16>
  }
  return
}
func.func @main(%a: memref<256x100xf16>, %b: memref<100x128xf16>, %c: memref<256x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @odd_k(%a, %b, %c) : (memref<256x100xf16>, memref<100x128xf16>, memref<256x128xf16>) -> ()
  return
}

// -----

// Attention scores over 197 tokens as a batched product (B 64 x 197 a matrix): B by the
// producer's threads (one k-tile: its loads go to registers, all issued before the stage
// wait), C's rows of 197 stored an element at a time.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_{{.*}}_b2x3r197_{{.*}}_v1_tb_nt::
// CHECK: gpu.func @gemm_f16_f16_{{.*}}_v1_tb_nt(%{{.*}}: !nvgpu.tensormap.descriptor<{{.*}}>, %{{.*}}: memref<f16>
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<75648xf16, strided<[1]>>, vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 2 : i64} : memref<?xf16, strided<[1]>>, vector<1xf16>
// PTX-LABEL: .visible .entry gemm_f16_f16_{{.*}}_v1_tb_nt(
// PTX-DAG: ld.global.v4.b32
// PTX-DAG: st.global.b16
kernel.func @scores(%a: memref<2x3x197x64xf16>, %b: memref<2x3x64x197xf16>, %c: memref<2x3x197x197xf16>) {
  matmul ins(%a, %b : memref<2x3x197x64xf16>, memref<2x3x64x197xf16>) outs(%c : memref<2x3x197x197xf16>) {
  ^bb0(%x: tensor<2x3x197x64xf16>, %y: tensor<2x3x64x197xf16>):
    %r = graph.matmul %x, %y : (tensor<2x3x197x64xf16>, tensor<2x3x64x197xf16>) -> tensor<2x3x197x197xf16>
    kernel.yield %r : tensor<2x3x197x197xf16>
  }
  return
}
func.func @main(%a: memref<2x3x197x64xf16>, %b: memref<2x3x64x197xf16>, %c: memref<2x3x197x197xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @scores(%a, %b, %c) : (memref<2x3x197x64xf16>, memref<2x3x64x197xf16>, memref<2x3x197x197xf16>) -> ()
  return
}

// -----

// A classifier's Gemm of 10 classes with B stored N x K (trans_b, K = 64): TMA reads B,
// C's rows of 10 are stored in pairs (`_v2`); no thread loads.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_{{.*}}_v2_nt::
// CHECK-NOT: _ta
// CHECK-NOT: _tb
// PTX-LABEL: .visible .entry gemm_f16_f16_{{.*}}_v2_nt(
// PTX: st.global.b32
kernel.func @classes(%a: memref<256x64xf16>, %b: memref<10x64xf16>, %c: memref<256x10xf16>) {
  matmul ins(%a, %b : memref<256x64xf16>, memref<10x64xf16>) outs(%c : memref<256x10xf16>) {
  ^bb0(%x: tensor<256x64xf16>, %y: tensor<10x64xf16>):
    %r = graph.gemm %x, %y {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<256x64xf16>, tensor<10x64xf16>) -> tensor<256x10xf16>
    kernel.yield %r : tensor<256x10xf16>
  }
  return
}
func.func @main(%a: memref<256x64xf16>, %b: memref<10x64xf16>, %c: memref<256x10xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @classes(%a, %b, %c) : (memref<256x64xf16>, memref<10x64xf16>, memref<256x10xf16>) -> ()
  return
}
