// kernel-instantiate-templates: a kernel.reduction holding one graph.top_k becomes the
// radix-selection template (passes/kernel/templates/TopK.mlir): a CTA a row, which takes
// the row's length, k (the outputs' extent) and the extent inside the axis as parameters.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=top_k" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=top_k" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// RT-DETR's query selection: the 300 largest of 8400 scores, only the indices used. One
// row (one CTA of 1024 threads); k = 300 is ranked in 304 shared keys.
// CHECK-LABEL: func.func @main
// CHECK-NOT: kernel.launch
// CHECK: gpu.launch_func {{ *}}@kiln_top_k_f32_largest_k304_t1024_i::@top_k_f32_largest_k304_t1024_i blocks in (%{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c1024{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%{{.*}} : memref<f32>, %{{.*}} : memref<i64>, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32)
// CHECK-NOT: kernel.func @TopK
// CHECK: gpu.func @top_k_f32_largest_k304_t1024_i(%{{.*}}: memref<f32>, %{{.*}}: memref<i64>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) workgroup(%{{.*}} : memref<256xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<304xi64, #gpu.address_space<workgroup>>
// The largest: the order's bits complemented.
// CHECK: arith.constant -1 : i32
// CHECK: scf.while
// CHECK: memref.atomic_rmw addi
// CHECK: memref.atomic_rmw addi
// CHECK-NOT: memref.store {{.*}} : memref<?xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xi64>
// PTX-LABEL: .visible .entry top_k_f32_largest_k304_t1024_i(
// PTX: .shared .align 16 .b8 {{.*}}[2432]
// PTX: atom.shared.add.u32
// PTX: bar.sync
// PTX: st.global.b32
kernel.func @TopK(%x: memref<1x8400xf32>, %i: memref<1x300xi64>) {
  reduction ins(%x : memref<1x8400xf32>) outs(%i : memref<1x300xi64>) {
  ^bb0(%a: tensor<1x8400xf32>):
    %k = graph.constant dense<300> : tensor<1xi64>
    %values, %indices = graph.top_k %a, %k {axis = 1 : i64, largest = true, sorted = true} : (tensor<1x8400xf32>, tensor<1xi64>) -> (tensor<1x300xf32>, tensor<1x300xi64>)
    kernel.yield %indices : tensor<1x300xi64>
  }
  return
}
func.func @main(%x: memref<1x8400xf32>) -> memref<1x300xi64> attributes {kernel.num_inputs = 1 : i64} {
  %i = memref.alloc() : memref<1x300xi64>
  kernel.launch @TopK(%x, %i) : (memref<1x8400xf32>, memref<1x300xi64>) -> ()
  return %i : memref<1x300xi64>
}

// -----

// SSDlite's per-class candidates: f16 scores of a data-dependent count (at most 3234,
// 512 threads) widened to f32, k computed on the GPU and read back (at most the count), the values
// narrowed back. The kernel reads the f16 scores and stores them as they are; the host
// passes the count and k from the buffers' extents, its shared keys sized for k's bound.
// CHECK-LABEL: func.func @main
// CHECK: %[[VALUES:.*]] = memref.alloc(%{{.*}}) : memref<?xf16>
// CHECK: memref.dim %arg0
// CHECK: memref.dim %[[VALUES]]
// CHECK: gpu.launch_func {{ *}}@kiln_top_k_f16_largest_k3240_t512_vi::@top_k_f16_largest_k3240_t512_vi {{.*}} args(%{{.*}} : memref<f16>, %{{.*}} : memref<f16>, %{{.*}} : memref<i64>, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32)
// CHECK: gpu.func @top_k_f16_largest_k3240_t512_vi(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<i64>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf16>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xi64>
// PTX-LABEL: .visible .entry top_k_f16_largest_k3240_t512_vi(
// PTX: st.global.b16
kernel.func @TopK(%x: memref<?xf16>, %k: memref<i64>, %i: memref<?xi64>, %v: memref<?xf16>) {
  reduction ins(%x, %k : memref<?xf16>, memref<i64>) outs(%i, %v : memref<?xi64>, memref<?xf16>) {
  ^bb0(%a: tensor<?xf16>, %b: tensor<i64>):
    %shape = graph.constant dense<1> : tensor<1xi64>
    %wide = graph.cast %a {to = f32} : (tensor<?xf16>) -> tensor<?xf32>
    %k1 = graph.reshape %b, %shape {allowzero = false} : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
    %values, %indices = graph.top_k %wide, %k1 {axis = -1 : i64, largest = true, sorted = true} : (tensor<?xf32>, tensor<1xi64>) -> (tensor<?xf32>, tensor<?xi64>)
    %narrow = graph.cast %values {to = f16} : (tensor<?xf32>) -> tensor<?xf16>
    kernel.yield %indices, %narrow : tensor<?xi64>, tensor<?xf16>
  }
  return
}
func.func @main(%x: memref<?xf16> {kernel.max_shape = array<i64: 3234>, kernel.opt_shape = array<i64: 1000>}, %k: memref<i64>) -> (memref<?xi64>, memref<?xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf16>
  %read = kernel.read_back %k : memref<i64> -> i64
  %count = arith.index_cast %read : i64 to index
  %positive = arith.maxsi %count, %c0 : index
  %kk = arith.minsi %positive, %n : index
  %i = memref.alloc(%kk) : memref<?xi64>
  %v = memref.alloc(%kk) : memref<?xf16>
  kernel.launch @TopK(%x, %k, %i, %v) : (memref<?xf16>, memref<i64>, memref<?xi64>, memref<?xf16>) -> ()
  return %i, %v : memref<?xi64>, memref<?xf16>
}

// -----

// The smallest along axis 0 of [64, 3, 5]: 15 rows strided by 15 elements, one CTA each.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_top_k_f32_smallest_k8_t256_vi::@top_k_f32_smallest_k8_t256_vi blocks in (%{{.*}},
// The smallest: the order as it is.
// CHECK: gpu.func @top_k_f32_smallest_k8_t256_vi
// CHECK: arith.constant 0 : i32
// PTX-LABEL: .visible .entry top_k_f32_smallest_k8_t256_vi(
kernel.func @TopK(%x: memref<64x3x5xf32>, %v: memref<7x3x5xf32>, %i: memref<7x3x5xi64>) {
  reduction ins(%x : memref<64x3x5xf32>) outs(%v, %i : memref<7x3x5xf32>, memref<7x3x5xi64>) {
  ^bb0(%a: tensor<64x3x5xf32>):
    %k = graph.constant dense<7> : tensor<1xi64>
    %values, %indices = graph.top_k %a, %k {axis = 0 : i64, largest = false, sorted = true} : (tensor<64x3x5xf32>, tensor<1xi64>) -> (tensor<7x3x5xf32>, tensor<7x3x5xi64>)
    kernel.yield %values, %indices : tensor<7x3x5xf32>, tensor<7x3x5xi64>
  }
  return
}
func.func @main(%x: memref<64x3x5xf32>) -> (memref<7x3x5xf32>, memref<7x3x5xi64>) attributes {kernel.num_inputs = 1 : i64} {
  %v = memref.alloc() : memref<7x3x5xf32>
  %i = memref.alloc() : memref<7x3x5xi64>
  kernel.launch @TopK(%x, %v, %i) : (memref<64x3x5xf32>, memref<7x3x5xf32>, memref<7x3x5xi64>) -> ()
  return %v, %i : memref<7x3x5xf32>, memref<7x3x5xi64>
}


// -----

// f32 values stored as f16 (a cast after the TopK, in its kernel): rounded to the
// nearest as graph.cast rounds.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_top_k_f32_largest_k16_t256_vf16::@top_k_f32_largest_k16_t256_vf16
// CHECK: gpu.func @top_k_f32_largest_k16_t256_vf16(%{{.*}}: memref<f32>, %{{.*}}: memref<f16>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf16>
// PTX-LABEL: .visible .entry top_k_f32_largest_k16_t256_vf16(
// PTX: cvt.rn.f16.f32
kernel.func @TopK(%x: memref<4x100xf32>, %v: memref<4x10xf16>) {
  reduction ins(%x : memref<4x100xf32>) outs(%v : memref<4x10xf16>) {
  ^bb0(%a: tensor<4x100xf32>):
    %k = graph.constant dense<10> : tensor<1xi64>
    %values, %indices = graph.top_k %a, %k {axis = 1 : i64, largest = true, sorted = true} : (tensor<4x100xf32>, tensor<1xi64>) -> (tensor<4x10xf32>, tensor<4x10xi64>)
    %half = graph.cast %values {to = f16} : (tensor<4x10xf32>) -> tensor<4x10xf16>
    kernel.yield %half : tensor<4x10xf16>
  }
  return
}
func.func @main(%x: memref<4x100xf32>) -> memref<4x10xf16> attributes {kernel.num_inputs = 1 : i64} {
  %v = memref.alloc() : memref<4x10xf16>
  kernel.launch @TopK(%x, %v) : (memref<4x100xf32>, memref<4x10xf16>) -> ()
  return %v : memref<4x10xf16>
}
