// kernel-instantiate-templates: channels-last max pools become the vectorised template
// (passes/kernel/templates/PoolNhwc.mlir): a thread per 16-byte vector of channels and up
// to 4 output columns, each input column of their windows loaded once, the maxima taken
// in the element type (kernel-pool-nhwc-unmatched.mlir: the pools it leaves alone).
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=pool_nhwc" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=pool_nhwc" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// ResNet's stem pool in i8: 3x3, stride 2, padding 1. 64 channels are 4 vectors of 16;
// 2 x 4 output rows of 4 columns: one column block, 2 * 4 * 1 * 4 = 32 threads.
// A window row's 9 columns (4 outputs: 3 + 3 * 2) are loaded once each, 16 bytes at a
// time, out of the padding: the first lies in the left padding for every thread (one
// column block), so 3 rows of 8 loads remain. Each loaded byte goes to the upper half of
// a 16-bit lane (a shuffle with zeros), whose maxima (arith.maxsi on i16 lanes) are
// max.s16x2, two bytes an instruction, and no byte is taken apart (no cvt); each output's
// upper bytes are one 16-byte store.
// CHECK-LABEL: func.func @main
// CHECK-NOT: kernel.launch
// CHECK: gpu.launch_func {{ *}}@kiln_maxpool_nhwc_i8_2x8x8x64_k3x3s2x2d1x1p1x1_o4x4::@maxpool_nhwc_i8_2x8x8x64_k3x3s2x2d1x1p1x1_o4x4 blocks in (%c1{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c256, %c1{{.*}}, %c1{{.*}})
// CHECK-NOT: kernel.func @Pool
// CHECK: gpu.func @maxpool_nhwc_i8_2x8x8x64_k3x3s2x2d1x1p1x1_o4x4
// CHECK-COUNT-24: vector.load {{.*}} {alignment = 16 : i64} : memref<8192xi8>, vector<16xi8>
// CHECK-NOT: vector.load
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 16, 0, 17, 0, 18, {{.*}}, 0, 31] : vector<16xi8>, vector<16xi8>
// CHECK: arith.maxsi {{.*}} : vector<16xi16>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, {{.*}}, 29, 31] : vector<32xi8>, vector<32xi8>
// CHECK-COUNT-4: vector.store {{.*}} {alignment = 16 : i64} : memref<2048xi8>, vector<16xi8>
// PTX-LABEL: .visible .entry maxpool_nhwc_i8_2x8x8x64_k3x3s2x2d1x1p1x1_o4x4(
// PTX-NOT: .local
// PTX-COUNT-24: ld.global.v4.{{[bu]}}32
// PTX-NOT: ld.global
// PTX-NOT: cvt.s8
// PTX: max.s16x2
// PTX-NOT: cvt.s8
// PTX-COUNT-4: st.global.v4.b32
kernel.func @Pool(%x: memref<2x8x8x64xi8>, %y: memref<2x4x4x64xi8>) {
  generic ins(%x : memref<2x8x8x64xi8>) outs(%y : memref<2x4x4x64xi8>) {
  ^bb0(%a: tensor<2x8x8x64xi8>):
    %r, %i = graph.max_pool %a {ceil_mode = false, channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<2x8x8x64xi8>) -> (tensor<2x4x4x64xi8>, tensor<2x4x4x64xi64>)
    kernel.yield %r : tensor<2x4x4x64xi8>
  }
  return
}
func.func @main(%x: memref<2x8x8x64xi8>, %y: memref<2x4x4x64xi8>) attributes {kernel.num_inputs = 1 : i64} {
  kernel.launch @Pool(%x, %y) : (memref<2x8x8x64xi8>, memref<2x4x4x64xi8>) -> ()
  return
}

// -----

// f16, 2x2 stride 2 without padding on a 5-wide row (the last column unused): 8 channels
// a vector; 2 output columns a thread (the row has 2), and -inf (0xFC00) as the start of
// the maxima.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_maxpool_nhwc_f16_1x4x5x8_k2x2s2x2d1x1p0x0_o2x2::
// CHECK: gpu.func @maxpool_nhwc_f16_1x4x5x8_k2x2s2x2d1x1p0x0_o2x2
// CHECK: arith.constant dense<0xFC00> : vector<2x8xf16>
// CHECK: arith.maximumf {{.*}} : vector<8xf16>
// PTX-LABEL: .visible .entry maxpool_nhwc_f16_1x4x5x8_k2x2s2x2d1x1p0x0_o2x2(
// PTX-COUNT-8: ld.global.v4.{{[bu]}}32
// PTX-NOT: ld.global
// PTX: max.{{(NaN.)?}}f16x2
kernel.func @PoolHalf(%x: memref<1x4x5x8xf16>, %y: memref<1x2x2x8xf16>) {
  generic ins(%x : memref<1x4x5x8xf16>) outs(%y : memref<1x2x2x8xf16>) {
  ^bb0(%a: tensor<1x4x5x8xf16>):
    %r, %i = graph.max_pool %a {ceil_mode = false, channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<1x4x5x8xf16>) -> (tensor<1x2x2x8xf16>, tensor<1x2x2x8xi64>)
    kernel.yield %r : tensor<1x2x2x8xf16>
  }
  return
}
func.func @main(%x: memref<1x4x5x8xf16>, %y: memref<1x2x2x8xf16>) attributes {kernel.num_inputs = 1 : i64} {
  kernel.launch @PoolHalf(%x, %y) : (memref<1x4x5x8xf16>, memref<1x2x2x8xf16>) -> ()
  return
}

// -----

// A dynamic engine's run-time batch: the kernel takes the batch as its third parameter
// (its threads are batch x 4 * 2 * 4 = 32 a image), the host reads it off the output and
// computes the grid from it (the engine's shape program evaluates both per input shape);
// the kernel's buffers are typed at the max batch (256).
// CHECK-LABEL: func.func @main
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x4x4x64xf16>
// CHECK: %[[THREADS:.*]] = arith.muli %[[N]], %c32{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[THREADS]], %c256{{.*}} : index
// CHECK: %[[IMAGES:.*]] = arith.index_castui %[[N]] : index to i32
// CHECK: gpu.launch_func {{ *}}@kiln_maxpool_nhwc_f16_Nle256x8x8x64_k3x3s2x2d1x1p1x1_o4x4::@maxpool_nhwc_f16_Nle256x8x8x64_k3x3s2x2d1x1p1x1_o4x4 blocks in (%[[BLOCKS]], %c1{{.*}}, %c1{{.*}}) threads in (%c256{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%{{.*}} : memref<f16>, %{{.*}} : memref<f16>, %[[IMAGES]] : i32)
// CHECK: gpu.func @maxpool_nhwc_f16_Nle256x8x8x64_k3x3s2x2d1x1p1x1_o4x4(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %[[BATCH:.*]]: i32)
// CHECK: %[[TOTAL:.*]] = arith.muli %[[BATCH]], %c32{{.*}} : i32
// CHECK: arith.cmpi ult, %{{.*}}, %[[TOTAL]] : i32
// CHECK: vector.load {{.*}} : memref<1048576xf16>, vector<8xf16>
// PTX-LABEL: .visible .entry maxpool_nhwc_f16_Nle256x8x8x64_k3x3s2x2d1x1p1x1_o4x4(
// PTX: max{{.*}}f16x2
kernel.func @Pool(%x: memref<?x8x8x64xf16>, %y: memref<?x4x4x64xf16>) {
  generic ins(%x : memref<?x8x8x64xf16>) outs(%y : memref<?x4x4x64xf16>) {
  ^bb0(%a: tensor<?x8x8x64xf16>):
    %r, %i = graph.max_pool %a {ceil_mode = false, channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<?x8x8x64xf16>) -> (tensor<?x4x4x64xf16>, tensor<?x4x4x64xi64>)
    kernel.yield %r : tensor<?x4x4x64xf16>
  }
  return
}
func.func @main(%x: memref<?x8x8x64xf16> {kernel.min_shape = array<i64: 1, 8, 8, 64>, kernel.opt_shape = array<i64: 32, 8, 8, 64>, kernel.max_shape = array<i64: 256, 8, 8, 64>}) -> memref<?x4x4x64xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x8x8x64xf16>
  %y = memref.alloc(%n) : memref<?x4x4x64xf16>
  kernel.launch @Pool(%x, %y) : (memref<?x8x8x64xf16>, memref<?x4x4x64xf16>) -> ()
  return %y : memref<?x4x4x64xf16>
}
