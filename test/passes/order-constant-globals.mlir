// RUN: kiln-opt --order-constant-globals %s | FileCheck %s
// RUN: kiln-opt --order-constant-globals %s | kiln-opt --order-constant-globals | FileCheck %s

// The globals bufferization made, named in the order it happened to meet the functions:
// renamed and ordered by their first use; other globals keep their names and places.
// CHECK: memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<1.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_2xi64 : memref<2xi64> = dense<3>
// CHECK-NEXT: memref.global "private" constant @__constant_4xf32_0 : memref<4xf32> = dense<2.000000e+00>
// CHECK-NEXT: memref.global "private" constant @weights : memref<1xf32> = dense<0.000000e+00>
// CHECK-LABEL: func.func @first
// CHECK-NEXT: memref.get_global @__constant_4xf32 : memref<4xf32>
// CHECK-NEXT: memref.get_global @__constant_2xi64 : memref<2xi64>
// CHECK-NEXT: memref.get_global @weights : memref<1xf32>
// CHECK-LABEL: func.func @second
// CHECK-NEXT: memref.get_global @__constant_4xf32_0 : memref<4xf32>
memref.global "private" constant @weights : memref<1xf32> = dense<0.0>
memref.global "private" constant @__constant_4xf32_0 : memref<4xf32> = dense<1.0>
memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<2.0>
memref.global "private" constant @__constant_2xi64 : memref<2xi64> = dense<3>
func.func @first() -> (memref<4xf32>, memref<2xi64>, memref<1xf32>) {
  %a = memref.get_global @__constant_4xf32_0 : memref<4xf32>
  %b = memref.get_global @__constant_2xi64 : memref<2xi64>
  %c = memref.get_global @weights : memref<1xf32>
  return %a, %b, %c : memref<4xf32>, memref<2xi64>, memref<1xf32>
}
func.func @second() -> memref<4xf32> {
  %a = memref.get_global @__constant_4xf32 : memref<4xf32>
  return %a : memref<4xf32>
}
