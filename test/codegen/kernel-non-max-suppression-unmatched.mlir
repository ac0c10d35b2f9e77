// kernel-select-templates: the NMS kernels the non_max_suppression family does not take
// stay with the generic lowering (a kernel.launch of the kernel.func).
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=non_max_suppression" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s

// Thresholds given as inputs (not constants) stay with the generic lowering.
// CHECK-LABEL: func.func @main
// CHECK: kernel.launch @NonMaxSuppression_inputs
kernel.func @NonMaxSuppression_inputs(%boxes: memref<1x10x4xf32>, %scores: memref<1x1x10xf32>, %iou: memref<1xf32>, %out: memref<?x3xi64>) {
  generic ins(%boxes, %scores, %iou : memref<1x10x4xf32>, memref<1x1x10xf32>, memref<1xf32>) outs(%out : memref<?x3xi64>) {
  ^bb0(%b: tensor<1x10x4xf32>, %s: tensor<1x1x10xf32>, %t: tensor<1xf32>):
    %limit = graph.constant dense<3> : tensor<1xi64>
    %selected = graph.non_max_suppression %b, %s max_output_boxes_per_class(%limit) iou_threshold(%t) {center_point_box = 0 : i64} : (tensor<1x10x4xf32>, tensor<1x1x10xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<?x3xi64>
    kernel.yield %selected : tensor<?x3xi64>
  }
  return
}
func.func @main(%boxes: memref<1x10x4xf32>, %scores: memref<1x1x10xf32>, %iou: memref<1xf32>) attributes {kernel.num_inputs = 3 : i64} {
  %out = memref.alloc() : memref<10x3xi64>
  %rows = memref.cast %out : memref<10x3xi64> to memref<?x3xi64>
  kernel.launch @NonMaxSuppression_inputs(%boxes, %scores, %iou, %rows) : (memref<1x10x4xf32>, memref<1x1x10xf32>, memref<1xf32>, memref<?x3xi64>) -> ()
  return
}

