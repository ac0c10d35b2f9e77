// sm90_gemm on a dynamic GEMM with a row variant (kernel.row_variants, as
// kernel-autotune records it): M <= 128 runs the variant, split-K in 3 parts into a
// workspace of 3 x 128 x 3072 f32 (the bucket's bound, not the max shape's 32768 rows)
// and the reduction kernel with M at run time; M > 128 runs kernel.config. Each launch's
// grid is selected to 0 outside its rows (the engine skips empty launches), so per input
// shape the shape program picks one of them.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%[[M:[0-9a-z_]+]], 768]
// CHECK: %[[SMALL:.*]] = arith.cmpi ule, %[[M]], %c128{{.*}} : index
// CHECK: %[[PARTS:.*]] = arith.muli %{{.*}}, %c3 : index
// CHECK: %[[GRID:.*]] = arith.select %[[SMALL]], %[[PARTS]], %c0{{.*}} : index
// CHECK: %[[WORKSPACE:.*]] = memref.alloc() : memref<3x128x3072xf32>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_k3::@gemm_f16_f16_128x128x64_s4_ws2_k3 blocks in (%[[GRID]],
// CHECK: %[[ELEMENTS:.*]] = arith.muli %[[M]], %c3072 : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[ELEMENTS]], %c1024 : index
// CHECK: %[[REDUCE:.*]] = arith.select %[[SMALL]], %[[BLOCKS]], %c0{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_split_k_reduce_f16_3x3072::@split_k_reduce_f16_3x3072 blocks in (%[[REDUCE]],
// CHECK: %[[LARGE:.*]] = arith.cmpi ugt, %[[M]], %c128{{.*}} : index
// CHECK: %[[WIDE:.*]] = arith.select %[[LARGE]], %{{.*}}, %c0{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x256x64_s4_ws2::@gemm_f16_f16_128x256x64_s4_ws2 blocks in (%[[WIDE]],
// CHECK-NOT: gpu.launch_func
// CHECK: return
// The reduction kernel reads M as its third parameter.
// CHECK: gpu.func @split_k_reduce_f16_3x3072(%{{.*}}: memref<f32>, %{{.*}}: memref<f16>, %{{.*}}: i32)
kernel.func @MatMul_0(%a: memref<?x?x768xf16>, %b: memref<768x3072xf16>, %c: memref<?x?x3072xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, consumers = 2>, kernel.row_variants = [#kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 3>>]} {
  matmul ins(%a, %b : memref<?x?x768xf16>, memref<768x3072xf16>) outs(%c : memref<?x?x3072xf16>) {
  ^bb0(%x: tensor<?x?x768xf16>, %y: tensor<768x3072xf16>):
    %r = graph.matmul %x, %y : (tensor<?x?x768xf16>, tensor<768x3072xf16>) -> tensor<?x?x3072xf16>
    kernel.yield %r : tensor<?x?x3072xf16>
  }
  return
}
func.func @main(%a: memref<?x?x768xf16> {kernel.min_shape = array<i64: 1, 16, 768>, kernel.opt_shape = array<i64: 8, 128, 768>, kernel.max_shape = array<i64: 64, 512, 768>}, %b: memref<768x3072xf16>) -> memref<?x?x3072xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %a, %c0 : memref<?x?x768xf16>
  %seq = memref.dim %a, %c1 : memref<?x?x768xf16>
  %c = memref.alloc(%batch, %seq) : memref<?x?x3072xf16>
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<?x?x768xf16>, memref<768x3072xf16>, memref<?x?x3072xf16>) -> ()
  return %c : memref<?x?x3072xf16>
}

// -----

// Without row variants a dynamic GEMM whose max shape bounds M offers no split-K at the
// opt shape (32768 rows are too many tiles to split) and launches its one configuration
// without a select.
// CHECK-LABEL: func.func @main
// CHECK-NOT: arith.select
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2::
// CHECK-NOT: gpu.launch_func
// CHECK: return
kernel.func @Plain(%a: memref<?x?x768xf16>, %b: memref<768x3072xf16>, %c: memref<?x?x3072xf16>) {
  matmul ins(%a, %b : memref<?x?x768xf16>, memref<768x3072xf16>) outs(%c : memref<?x?x3072xf16>) {
  ^bb0(%x: tensor<?x?x768xf16>, %y: tensor<768x3072xf16>):
    %r = graph.matmul %x, %y : (tensor<?x?x768xf16>, tensor<768x3072xf16>) -> tensor<?x?x3072xf16>
    kernel.yield %r : tensor<?x?x3072xf16>
  }
  return
}
func.func @main(%a: memref<?x?x768xf16> {kernel.min_shape = array<i64: 1, 16, 768>, kernel.opt_shape = array<i64: 8, 128, 768>, kernel.max_shape = array<i64: 64, 512, 768>}, %b: memref<768x3072xf16>) -> memref<?x?x3072xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %a, %c0 : memref<?x?x768xf16>
  %seq = memref.dim %a, %c1 : memref<?x?x768xf16>
  %c = memref.alloc(%batch, %seq) : memref<?x?x3072xf16>
  kernel.launch @Plain(%a, %b, %c) : (memref<?x?x768xf16>, memref<768x3072xf16>, memref<?x?x3072xf16>) -> ()
  return %c : memref<?x?x3072xf16>
}

// -----

// Three buckets (as kernel-autotune records them for BERT-base's 768 x 768 products,
// profile 1x16 / 8x128 / 64x512): M <= 128 runs the small Ms' variant (chosen at the min
// shape), 128 < M <= 5792 kernel.config (the opt shape's), M > 5792 the large Ms' variant
// (chosen at the max shape: a persistent grid of at most 132 CTAs).
// CHECK-LABEL: func.func @main
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%[[M:[0-9a-z_]+]], 768]
// CHECK: %[[SMALL:.*]] = arith.cmpi ule, %[[M]], %c128{{.*}} : index
// CHECK: %[[GRID0:.*]] = arith.select %[[SMALL]], %{{.*}}, %c0{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x64x64_s6_ws2::@gemm_f16_f16_128x64x64_s6_ws2 blocks in (%[[GRID0]],
// CHECK: %[[ABOVE:.*]] = arith.cmpi ugt, %[[M]], %c128{{.*}} : index
// CHECK: %[[BELOW:.*]] = arith.cmpi ule, %[[M]], %c5792{{.*}} : index
// CHECK: %[[MIDDLE:.*]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK: %[[GRID1:.*]] = arith.select %[[MIDDLE]], %{{.*}}, %c0{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2::@gemm_f16_f16_128x128x64_s4_ws2 blocks in (%[[GRID1]],
// CHECK: %[[LARGE:.*]] = arith.cmpi ugt, %[[M]], %c5792{{.*}} : index
// CHECK: %[[CTAS:.*]] = arith.minui %{{.*}}, %c132 : index
// CHECK: %[[GRID2:.*]] = arith.select %[[LARGE]], %[[CTAS]], %c0{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_p::@gemm_f16_f16_128x128x64_s4_ws2_p blocks in (%[[GRID2]],
// CHECK-NOT: gpu.launch_func
// CHECK: return
kernel.func @MatMul_1(%a: memref<?x?x768xf16>, %b: memref<768x768xf16>, %c: memref<?x?x768xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>, kernel.row_variants = [#kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 6, consumers = 2>>, #kernel.row_variant<above_rows = 5792, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true>>]} {
  matmul ins(%a, %b : memref<?x?x768xf16>, memref<768x768xf16>) outs(%c : memref<?x?x768xf16>) {
  ^bb0(%x: tensor<?x?x768xf16>, %y: tensor<768x768xf16>):
    %r = graph.matmul %x, %y : (tensor<?x?x768xf16>, tensor<768x768xf16>) -> tensor<?x?x768xf16>
    kernel.yield %r : tensor<?x?x768xf16>
  }
  return
}
func.func @main(%a: memref<?x?x768xf16> {kernel.min_shape = array<i64: 1, 16, 768>, kernel.opt_shape = array<i64: 8, 128, 768>, kernel.max_shape = array<i64: 64, 512, 768>}, %b: memref<768x768xf16>) -> memref<?x?x768xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %a, %c0 : memref<?x?x768xf16>
  %seq = memref.dim %a, %c1 : memref<?x?x768xf16>
  %c = memref.alloc(%batch, %seq) : memref<?x?x768xf16>
  kernel.launch @MatMul_1(%a, %b, %c) : (memref<?x?x768xf16>, memref<768x768xf16>, memref<?x?x768xf16>) -> ()
  return %c : memref<?x?x768xf16>
}
