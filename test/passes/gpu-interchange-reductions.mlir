// RUN: kiln-opt %s --split-input-file --gpu-interchange-reductions | FileCheck %s
// RUN: kiln-opt %s --split-input-file --gpu-interchange-reductions --convert-linalg-to-parallel-loops | FileCheck %s --check-prefix=LOOPS

// A sum over the leading axis: the output's loop first, the reduction innermost, so that
// the loops are a parallel nest of outputs around the sum.
// CHECK: #[[IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @leading_axis
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// LOOPS-LABEL: func.func @leading_axis
// LOOPS: scf.parallel (%[[OUTPUT:.*]]) =
// LOOPS: scf.for %[[ROW:.*]] =
// LOOPS: memref.load %{{.*}}[%[[ROW]], %[[OUTPUT]]]
// LOOPS-LABEL: func.func @middle_axis
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>
func.func @leading_axis(%x: memref<1024x512xf32>, %y: memref<512xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<1024x512xf32>) outs(%y : memref<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A middle axis: the two parallel loops keep their order, the reduction goes last.
// CHECK: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @middle_axis
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @middle_axis(%x: memref<8x64x32xf32>, %y: memref<8x32xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<8x64x32xf32>) outs(%y : memref<8x32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A named op whose reduction comes first is generalized, then interchanged.
// CHECK-LABEL: func.func @named_reduce
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
func.func @named_reduce(%x: memref<1024x512xf32>, %y: memref<512xf32>) {
  linalg.reduce ins(%x : memref<1024x512xf32>) outs(%y : memref<512xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// Already in order (an inner reduction, a pointwise op): untouched.
// CHECK-LABEL: func.func @in_order
// CHECK: linalg.reduce
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
#id = affine_map<(d0) -> (d0)>
func.func @in_order(%x: memref<4x512xf32>, %y: memref<4xf32>, %z: memref<4xf32>) {
  linalg.reduce ins(%x : memref<4x512xf32>) outs(%y : memref<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : memref<4xf32>) outs(%z : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}
