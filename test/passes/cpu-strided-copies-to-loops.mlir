// RUN: kiln-opt --cpu-strided-copies-to-loops %s | FileCheck %s

// A copy into a slice of a larger buffer becomes linalg.copy; a contiguous copy stays
// (memref-to-llvm makes it one memcpy).
// CHECK-LABEL: func.func @copies
// CHECK: linalg.copy ins(%{{.*}} : memref<2x2xf32>) outs(%{{.*}} : memref<2x2xf32, strided<[4, 1], offset: 1>>)
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<2x2xf32> to memref<2x2xf32>
func.func @copies(%src: memref<2x2xf32>, %big: memref<4x4xf32>, %dst: memref<2x2xf32>) {
  %view = memref.subview %big[0, 1] [2, 2] [1, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1], offset: 1>>
  memref.copy %src, %view : memref<2x2xf32> to memref<2x2xf32, strided<[4, 1], offset: 1>>
  memref.copy %src, %dst : memref<2x2xf32> to memref<2x2xf32>
  return
}
