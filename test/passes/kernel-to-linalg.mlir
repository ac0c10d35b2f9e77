// RUN: kiln-opt --kernel-to-linalg %s -split-input-file | FileCheck %s

// A kernel becomes a private function on its buffers: inputs are read as tensors, the body
// computes on them, the result is stored into the output buffer; the launch becomes a call.
// Every op is tagged with its kernel and template (FusedLoc metadata) for the engine.
// CHECK-LABEL: func.func private @Relu_0(
// CHECK-SAME: %[[X:.*]]: memref<8xf32>, %[[Y:.*]]: memref<8xf32>)
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[X]] restrict : memref<8xf32> to tensor<8xf32>
// CHECK: %[[R:.*]] = graph.relu %[[T]]
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[Y]]
// CHECK-LABEL: func.func @main
// CHECK: call @Relu_0(%arg0, %arg1)
kernel.func @Relu_0(%x: memref<8xf32>, %y: memref<8xf32>) {
  kernel.pointwise ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %r = graph.relu %a : tensor<8xf32>
    kernel.yield %r : tensor<8xf32>
  }
  kernel.return
}
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>) attributes {kernel.num_inputs = 1 : i64} {
  kernel.launch @Relu_0(%x, %y) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// Unsigned buffers become signless everywhere on the host; inside the kernel the graph op
// still sees ui8 (through casts graph-to-linalg cancels), so it keeps reading the zero
// point as unsigned.
// CHECK-LABEL: func.func private @Dequantize_0(
// CHECK-SAME: memref<4xi8>, %{{.*}}: memref<f32>, %{{.*}}: memref<i8>, %{{.*}}: memref<4xf32>)
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : tensor<4xi8> to tensor<4xui8>
// CHECK: graph.dequantize_linear %{{.*}} : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
// CHECK: memref.global "private" constant @zero_point : memref<i8> = dense<-128>
// CHECK-LABEL: func.func @main(
// CHECK-SAME: memref<4xi8>
// CHECK: %[[ZP:.*]] = memref.get_global @zero_point : memref<i8>
kernel.func @Dequantize_0(%x: memref<4xui8>, %s: memref<f32>, %z: memref<ui8>, %y: memref<4xf32>) {
  kernel.generic ins(%x, %s, %z : memref<4xui8>, memref<f32>, memref<ui8>) outs(%y : memref<4xf32>) {
  ^bb0(%a: tensor<4xui8>, %b: tensor<f32>, %c: tensor<ui8>):
    %r = graph.dequantize_linear %a, %b, %c {axis = 1 : i64, block_size = 0 : i64} : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  kernel.return
}
memref.global "private" constant @zero_point : memref<ui8> = dense<128>
func.func @main(%x: memref<4xui8>, %s: memref<f32>, %y: memref<4xf32>) attributes {kernel.num_inputs = 2 : i64} {
  %z = memref.get_global @zero_point : memref<ui8>
  kernel.launch @Dequantize_0(%x, %s, %z, %y) : (memref<4xui8>, memref<f32>, memref<ui8>, memref<4xf32>) -> ()
  return
}
