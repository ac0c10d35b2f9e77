// RUN: kiln-opt %s -split-input-file --gpu-pass-buffer-extents -verify-diagnostics | FileCheck %s

// Both launches pass each dynamic buffer as a memref<1xf32> view of its start and its
// dynamic extent (memref.dim on the host) after the other arguments; the kernel, rewritten
// once, rebuilds the buffers from them (row-major: the stride of dimension 0 is 8).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x8xf32>, %[[Y:[^:]*]]: memref<?x8xf32>
// CHECK: %[[XN:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[XB:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [1], strides: [1] : memref<?x8xf32> to memref<1xf32>
// CHECK: %[[YN:.*]] = memref.dim %[[Y]], %c0
// CHECK: %[[YB:.*]] = memref.reinterpret_cast %[[Y]] to offset: [0], sizes: [1], strides: [1] : memref<?x8xf32> to memref<1xf32>
// CHECK: gpu.launch_func @main_kernels::@copy_k0 {{.*}} args(%[[XB]] : memref<1xf32>, %[[YB]] : memref<1xf32>, %{{.*}} : index, %[[XN]] : index, %[[YN]] : index)
// CHECK: gpu.launch_func @main_kernels::@copy_k0 {{.*}} : memref<1xf32>, {{.*}} : memref<1xf32>, {{.*}} : index, {{.*}} : index, {{.*}} : index)
// CHECK: gpu.func @copy_k0(%[[A:.*]]: memref<1xf32>, %[[B:.*]]: memref<1xf32>, %[[N:.*]]: index, %[[AN:.*]]: index, %[[BN:.*]]: index) kernel
// CHECK: %[[AV:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[AN]], 8], strides: [8, 1] : memref<1xf32> to memref<?x8xf32>
// CHECK: %[[BV:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [%[[BN]], 8], strides: [8, 1] : memref<1xf32> to memref<?x8xf32>
// CHECK: memref.load %[[AV]]
// CHECK: memref.store %{{.*}}, %[[BV]]
module attributes {gpu.container_module} {
  func.func @main(%x: memref<?x8xf32>, %y: memref<?x8xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @main_kernels::@copy_k0 blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%x : memref<?x8xf32>, %y : memref<?x8xf32>, %c8 : index)
    gpu.launch_func @main_kernels::@copy_k0 blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%y : memref<?x8xf32>, %x : memref<?x8xf32>, %c8 : index)
    return
  }
  gpu.module @main_kernels {
    gpu.func @copy_k0(%a: memref<?x8xf32>, %b: memref<?x8xf32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %i = gpu.thread_id x
      %v = memref.load %a[%c0, %i] : memref<?x8xf32>
      memref.store %v, %b[%c0, %i] : memref<?x8xf32>
      gpu.return
    }
  }
}

// -----

// Static buffers are left alone.
// CHECK-LABEL: func.func @static
// CHECK: args(%{{.*}} : memref<4x8xf32>)
// CHECK: gpu.func @touch_k0(%{{.*}}: memref<4x8xf32>) kernel
module attributes {gpu.container_module} {
  func.func @static(%x: memref<4x8xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @static_kernels::@touch_k0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4x8xf32>)
    return
  }
  gpu.module @static_kernels {
    gpu.func @touch_k0(%a: memref<4x8xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// A view of dynamic shape is no base buffer: the engine could not place it.
module attributes {gpu.container_module} {
  func.func @strided(%x: memref<?x8xf32, strided<[16, 1]>>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{gpu-pass-buffer-extents: kernel 'view_k0' takes a buffer of dynamic shape and layout 'memref<?x8xf32, strided<[16, 1]>>'; only base buffers can be passed}}
    gpu.launch_func @strided_kernels::@view_k0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<?x8xf32, strided<[16, 1]>>)
    return
  }
  gpu.module @strided_kernels {
    gpu.func @view_k0(%a: memref<?x8xf32, strided<[16, 1]>>) kernel {
      gpu.return
    }
  }
}
