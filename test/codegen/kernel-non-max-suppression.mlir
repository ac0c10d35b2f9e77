// kernel-instantiate-templates: a kernel.generic holding one graph.non_max_suppression
// becomes the NMS template (passes/kernel/templates/NonMaxSuppression.mlir): a ranking
// kernel over (blocks of 256 boxes) x (batch-class pairs) into an order buffer the host
// allocates, then one CTA of 1024 threads that selects; the extent kernel's form writes
// the selection's length instead of its rows.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=non_max_suppression" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=non_max_suppression" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// SSDlite's batched NMS (the class offsets already added to the boxes: one class), up to
// 1000 boxes at the profile's largest shape: one selection CTA. The host allocates the
// order, the alive bitmap and the grid barrier's counter. The constants become launch
// parameters: the limit (clamped to the boxes by the kernel), the IoU threshold, and no
// score threshold (0, unused).
// CHECK-LABEL: func.func @main
// CHECK-NOT: kernel.launch
// CHECK: %[[ORDER:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: %[[ALIVE:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: %[[SYNC:.*]] = memref.alloc() : memref<1xi32>
// CHECK-DAG: %[[IOU:.*]] = arith.constant 5.500000e-01 : f32
// CHECK-DAG: %[[LIMIT:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %c256
// CHECK: gpu.launch_func {{ *}}@kiln_non_max_suppression_g1::@non_max_suppression_g1_rank blocks in (%[[BLOCKS]], %{{.*}}, %c1{{.*}}) threads in (%c256{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%{{.*}} : memref<f32>, %{{.*}} : memref<i32>, %{{.*}} : memref<i32>, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : f32)
// CHECK: gpu.launch_func {{ *}}@kiln_non_max_suppression_g1::@non_max_suppression_g1_select blocks in (%c1{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c1024{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%{{.*}} : memref<f32>, %{{.*}} : memref<f32>, %{{.*}} : memref<i32>, %{{.*}} : memref<i64>, %{{.*}} : memref<i32>, %{{.*}} : memref<i32>, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %[[LIMIT]] : i64, %[[IOU]] : f32, %{{.*}} : f32)
// CHECK-NOT: kernel.func @NonMaxSuppression
// CHECK: gpu.func @non_max_suppression_g1_rank(
// Without a score threshold every score but NaN is a candidate.
// CHECK: arith.cmpf ord
// CHECK: gpu.func @non_max_suppression_g1_select({{.*}}) workgroup(%{{.*}} : memref<64xi64, #gpu.address_space<workgroup>>
// Either corner first: minima and maxima of the raw coordinates.
// CHECK: arith.minimumf
// CHECK: memref.atomic_rmw ori
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK: memref.atomic_rmw andi
// The grid barrier after a block's sweep: a fence, an arrival, a wait on the counter.
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: memref.atomic_rmw addi
// PTX-LABEL: .visible .entry non_max_suppression_g1_rank(
// PTX: bar.sync
// PTX-LABEL: .visible .entry non_max_suppression_g1_select(
// PTX-DAG: atom.shared.or.b64
// PTX-DAG: atom.global.and.b32
// PTX-DAG: membar.gl
// PTX-DAG: st.global.b32
kernel.func @NonMaxSuppression(%boxes: memref<1x?x4xf32>, %scores: memref<1x1x?xf32>, %out: memref<?x3xi64>) {
  generic ins(%boxes, %scores : memref<1x?x4xf32>, memref<1x1x?xf32>) outs(%out : memref<?x3xi64>) {
  ^bb0(%b: tensor<1x?x4xf32>, %s: tensor<1x1x?xf32>):
    %limit = graph.constant dense<9223372036854775807> : tensor<1xi64>
    %iou = graph.constant dense<5.500000e-01> : tensor<1xf32>
    %selected = graph.non_max_suppression %b, %s max_output_boxes_per_class(%limit) iou_threshold(%iou) {center_point_box = 0 : i64} : (tensor<1x?x4xf32>, tensor<1x1x?xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<?x3xi64>
    kernel.yield %selected : tensor<?x3xi64>
  }
  return
}
func.func @main(%boxes: memref<1x?x4xf32> {kernel.max_shape = array<i64: 1, 1000, 4>}, %scores: memref<1x1x?xf32> {kernel.max_shape = array<i64: 1, 1, 1000>}) attributes {kernel.num_inputs = 2 : i64} {
  %c2 = arith.constant 2 : index
  %rows = memref.dim %scores, %c2 : memref<1x1x?xf32>
  %out = memref.alloc(%rows) : memref<?x3xi64>
  kernel.launch @NonMaxSuppression(%boxes, %scores, %out) : (memref<1x?x4xf32>, memref<1x1x?xf32>, memref<?x3xi64>) -> ()
  return
}

// -----

// The extent kernel's form (the selection's length, which the host reads back), boxes
// given by their centers, and a score threshold: 2 batches of 3 classes of 100 boxes.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_non_max_suppression_g1_center_scored_count::@non_max_suppression_g1_center_scored_count_rank
// CHECK: gpu.launch_func {{ *}}@kiln_non_max_suppression_g1_center_scored_count::@non_max_suppression_g1_center_scored_count_select
// CHECK: gpu.func @non_max_suppression_g1_center_scored_count_rank(
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK: gpu.func @non_max_suppression_g1_center_scored_count_select(
// Centers and sizes: half the width and height each side.
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: arith.mulf %{{.*}}, %[[HALF]]
// CHECK-NOT: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xi64>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<1xi64>
kernel.func @NonMaxSuppression_extent(%boxes: memref<2x100x4xf32>, %scores: memref<2x3x100xf32>, %count: memref<1xi64>) {
  generic ins(%boxes, %scores : memref<2x100x4xf32>, memref<2x3x100xf32>) outs(%count : memref<1xi64>) {
  ^bb0(%b: tensor<2x100x4xf32>, %s: tensor<2x3x100xf32>):
    %limit = graph.constant dense<10> : tensor<1xi64>
    %iou = graph.constant dense<5.000000e-01> : tensor<1xf32>
    %threshold = graph.constant dense<2.000000e-01> : tensor<1xf32>
    %selected = graph.non_max_suppression %b, %s max_output_boxes_per_class(%limit) iou_threshold(%iou) score_threshold(%threshold) {center_point_box = 1 : i64} : (tensor<2x100x4xf32>, tensor<2x3x100xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %selected, %c0 : tensor<?x3xi64>
    %length = arith.index_cast %dim : index to i64
    %result = tensor.from_elements %length : tensor<1xi64>
    kernel.yield %result : tensor<1xi64>
  }
  return
}
func.func @main(%boxes: memref<2x100x4xf32>, %scores: memref<2x3x100xf32>) attributes {kernel.num_inputs = 2 : i64} {
  %count = memref.alloc() : memref<1xi64>
  kernel.launch @NonMaxSuppression_extent(%boxes, %scores, %count) : (memref<2x100x4xf32>, memref<2x3x100xf32>, memref<1xi64>) -> ()
  return
}
