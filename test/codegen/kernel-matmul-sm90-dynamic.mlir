// sm90_gemm on a dynamic engine's GEMM: A and C of run-time rows ([batch, seq,
// K]), B a constant. The host computes M from C's extents, the grid from M (the engine's
// shape program evaluates both per input shape), reads A as the M x K matrix and passes M
// as the kernel's i32; the tensor map of A spans M rows (its extent a run-time field).
// The configuration is chosen at the profile's opt shape (8 x 128 rows: 1024 x 3072,
// where the default 128x128 tile is first). No split-K (its reduction kernel is
// instantiated per M) and no one-warpgroup kernel (whole tiles only).
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: %[[C:.*]] = memref.alloc
// CHECK: %[[BATCH:.*]] = memref.dim %[[C]], %c0
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %[[BATCH]] : index
// CHECK: %[[SEQ:.*]] = memref.dim %[[C]], %c1
// CHECK: %[[M:.*]] = arith.muli %[[ROWS]], %[[SEQ]] : index
// CHECK: %[[MATRIX:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%[[M]], 768], strides: [768, 1] : memref<?x?x768xf16> to memref<?x768xf16>
// CHECK: %[[UNRANKED:.*]] = memref.cast %[[MATRIX]] : memref<?x768xf16> to memref<*xf16>
// CHECK: nvgpu.tma.create.descriptor %[[UNRANKED]] box[%c128, %c64]
// CHECK: %[[TILESM:.*]] = arith.ceildivui %[[M]], %c128
// CHECK: %[[TILES:.*]] = arith.muli %[[TILESM]], %c24
// CHECK: %[[M32:.*]] = arith.index_cast %[[M]] : index to i32
// CHECK: %[[GRID:.*]] = arith.muli %[[TILES]], %c1
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2::@gemm_f16_f16_128x128x64_s4_ws2 blocks in (%[[GRID]], %c1{{.*}}, %c1{{.*}}) threads in (%c384,
// CHECK-SAME: %[[M32]] : i32, %c3072_i32 : i32, %c768_i32 : i32)
kernel.func @MatMul_0(%a: memref<?x?x768xf16>, %b: memref<768x3072xf16>, %c: memref<?x?x3072xf16>) {
  matmul ins(%a, %b : memref<?x?x768xf16>, memref<768x3072xf16>) outs(%c : memref<?x?x3072xf16>) {
  ^bb0(%x: tensor<?x?x768xf16>, %y: tensor<768x3072xf16>):
    %r = graph.matmul %x, %y : (tensor<?x?x768xf16>, tensor<768x3072xf16>) -> tensor<?x?x3072xf16>
    kernel.yield %r : tensor<?x?x3072xf16>
  }
  return
}
func.func @main(%a: memref<?x?x768xf16> {kernel.opt_shape = array<i64: 8, 128, 768>}, %b: memref<768x3072xf16>) -> memref<?x?x3072xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %a, %c0 : memref<?x?x768xf16>
  %seq = memref.dim %a, %c1 : memref<?x?x768xf16>
  %c = memref.alloc(%batch, %seq) : memref<?x?x3072xf16>
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<?x?x768xf16>, memref<768x3072xf16>, memref<?x?x3072xf16>) -> ()
  return %c : memref<?x?x3072xf16>
}

// -----

// Without a profile nothing says what M to choose a configuration for: the generic
// lowering keeps the kernel.
// CHECK-LABEL: kernel.func @NoProfile
// CHECK-NOT: gpu.launch_func
kernel.func @NoProfile(%a: memref<?x768xf16>, %b: memref<768x768xf16>, %c: memref<?x768xf16>) {
  matmul ins(%a, %b : memref<?x768xf16>, memref<768x768xf16>) outs(%c : memref<?x768xf16>) {
  ^bb0(%x: tensor<?x768xf16>, %y: tensor<768x768xf16>):
    %r = graph.matmul %x, %y : (tensor<?x768xf16>, tensor<768x768xf16>) -> tensor<?x768xf16>
    kernel.yield %r : tensor<?x768xf16>
  }
  return
}
func.func @main(%a: memref<?x768xf16>, %b: memref<768x768xf16>, %c: memref<?x768xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @NoProfile(%a, %b, %c) : (memref<?x768xf16>, memref<768x768xf16>, memref<?x768xf16>) -> ()
  return
}

// -----

// A classifier's Gemm of a run-time batch on its pooled features: the Flatten of
// [N, 2048, 1, 1] into N x 2048 reads A's bytes as they are, so A is read as the
// M x 2048 matrix of C's rows (M = N).
// CHECK-LABEL: func.func @main
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x1000xf16>
// CHECK: %[[M:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%[[M]], 2048], strides: [2048, 1] : memref<?x2048x1x1xf16> to memref<?x2048xf16>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_bt_
// CHECK-NOT: kernel.launch
kernel.func @Classifier(%a: memref<?x2048x1x1xf16>, %b: memref<1000x2048xf16>, %c: memref<?x1000xf16>) {
  matmul ins(%a, %b : memref<?x2048x1x1xf16>, memref<1000x2048xf16>) outs(%c : memref<?x1000xf16>) {
  ^bb0(%x: tensor<?x2048x1x1xf16>, %y: tensor<1000x2048xf16>):
    %f = graph.flatten %x {axis = 1 : i64} : (tensor<?x2048x1x1xf16>) -> tensor<?x2048xf16>
    %r = graph.gemm %f, %y {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true} : (tensor<?x2048xf16>, tensor<1000x2048xf16>) -> tensor<?x1000xf16>
    kernel.yield %r : tensor<?x1000xf16>
  }
  return
}
func.func @main(%a: memref<?x2048x1x1xf16> {kernel.min_shape = array<i64: 1, 2048, 1, 1>, kernel.opt_shape = array<i64: 32, 2048, 1, 1>, kernel.max_shape = array<i64: 256, 2048, 1, 1>}, %b: memref<1000x2048xf16>) -> memref<?x1000xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x2048x1x1xf16>
  %c = memref.alloc(%n) : memref<?x1000xf16>
  kernel.launch @Classifier(%a, %b, %c) : (memref<?x2048x1x1xf16>, memref<1000x2048xf16>, memref<?x1000xf16>) -> ()
  return %c : memref<?x1000xf16>
}
