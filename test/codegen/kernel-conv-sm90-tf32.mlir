// sm90_conv with allow-tf32: a channels-last f32 convolution with a constant
// weight becomes the warp-specialised template with tf32 operands: 4-D TMA boxes of 32
// channels (128 bytes), the weight permuted at compile time to O x (KH KW C), K-major
// (`_oxk`), and 4 wgmma m64nNk8 a k-tile. Without allow-tf32 it stays generic.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv allow-tf32=true" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv allow-tf32=true" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// 3x3, stride 2, padding 1, 48 channels (rounded up to 64: two 32-channel k-tiles a tap,
// the second half zero-filled by TMA and matched by zero columns of the weight).
// CHECK-LABEL: memref.global "private" constant @w_oxk : memref<128x576xf32>
// CHECK-LABEL: func.func @main
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c2, %c16, %c16{{.*}}, %c32] {kiln.tma_element_strides = array<i64: 1, 2, 2, 1>} : memref<*xf32> -> <tensor = memref<2x8x8x32xf32, 3>
// CHECK: memref.get_global @w_oxk : memref<128x576xf32>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<64x32xf32, 3>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f32_2x16x16x48_k3x3s2p1x1_o128_128x128x32_s4_ws2_tf32::@conv_f32_2x16x16x48_k3x3s2p1x1_o128_128x128x32_s4_ws2_tf32 blocks in (%c1{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c384
// CHECK-SAME: %c128_i32 : i32, %c128_i32{{.*}} : i32, %c576_i32 : i32
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// OFF-LABEL: func.func @main
// OFF: kernel.launch @Conv_0
// OFF-NOT: gpu.launch_func
// PTX-LABEL: .visible .entry conv_f32_2x16x16x48_k3x3s2p1x1_o128_128x128x32_s4_ws2_tf32(
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
memref.global "private" constant @w : memref<128x3x3x48xf32> = dense<1.0>
kernel.func @Conv_0(%x: memref<2x16x16x48xf32>, %w: memref<128x3x3x48xf32>, %y: memref<2x8x8x128xf32>) {
  conv ins(%x, %w : memref<2x16x16x48xf32>, memref<128x3x3x48xf32>) outs(%y : memref<2x8x8x128xf32>) {
  ^bb0(%a: tensor<2x16x16x48xf32>, %b: tensor<128x3x3x48xf32>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x16x16x48xf32>, tensor<128x3x3x48xf32>) -> tensor<2x8x8x128xf32>
    kernel.yield %r : tensor<2x8x8x128xf32>
  }
  return
}
func.func @main(%x: memref<2x16x16x48xf32>, %y: memref<2x8x8x128xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<128x3x3x48xf32>
  kernel.launch @Conv_0(%x, %w, %y) : (memref<2x16x16x48xf32>, memref<128x3x3x48xf32>, memref<2x8x8x128xf32>) -> ()
  return
}

// -----

// A 1x1 convolution with a bias and ReLU: the NHWC input is A (128 x 32 boxes), the GEMM
// the row-major one of sm90_gemm with a K-major B (`_bt`).
// CHECK-LABEL: memref.global "private" constant @w1_oxk : memref<64x64xf32>
// CHECK-LABEL: func.func @main
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [128, 64], strides: [64, 1]
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c32] : memref<*xf32> -> <tensor = memref<128x32xf32, 3>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f32_f32_bt_128x64x32_s6_ws2_tf32_bias_relu_{{[0-9a-f]+}}::
// OFF-LABEL: func.func @main
// OFF: kernel.launch @Conv_1
// PTX-LABEL: .visible .entry gemm_f32_f32_bt_128x64x32_s6_ws2_tf32_bias_relu_{{[0-9a-f]+}}(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
memref.global "private" constant @w1 : memref<64x1x1x64xf32> = dense<0.5>
memref.global "private" constant @b1 : memref<64xf32> = dense<0.25>
kernel.func @Conv_1(%x: memref<2x8x8x64xf32>, %w: memref<64x1x1x64xf32>, %bias: memref<64xf32>, %y: memref<2x8x8x64xf32>) {
  conv ins(%x, %w, %bias : memref<2x8x8x64xf32>, memref<64x1x1x64xf32>, memref<64xf32>) outs(%y : memref<2x8x8x64xf32>) {
  ^bb0(%a: tensor<2x8x8x64xf32>, %b: tensor<64x1x1x64xf32>, %c: tensor<64xf32>):
    %r = graph.conv %a, %b, %c {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x8x8x64xf32>, tensor<64x1x1x64xf32>, tensor<64xf32>) -> tensor<2x8x8x64xf32>
    %s = graph.relu %r : tensor<2x8x8x64xf32>
    kernel.yield %s : tensor<2x8x8x64xf32>
  }
  return
}
func.func @main(%x: memref<2x8x8x64xf32>, %y: memref<2x8x8x64xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w1 : memref<64x1x1x64xf32>
  %b = memref.get_global @b1 : memref<64xf32>
  kernel.launch @Conv_1(%x, %w, %b, %y) : (memref<2x8x8x64xf32>, memref<64x1x1x64xf32>, memref<64xf32>, memref<2x8x8x64xf32>) -> ()
  return
}

// -----

// An RGB stem (C = 3: TMA cannot address its pixels): the explicit im2col writes the
// 147 (rounded to 152) f32 columns a row, then the row-major GEMM with a K-major weight.
// CHECK-LABEL: memref.global "private" constant @stem_oxk : memref<64x152xf32>
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_im2col_f32_2x32x32x3_k7x7s2p3x3::
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f32_f32_bt_128x64x32_s6_ws2_tf32::
// OFF-LABEL: func.func @main
// OFF: kernel.launch @Conv_2
// PTX-LABEL: .visible .entry im2col_f32_2x32x32x3_k7x7s2p3x3(
// PTX-LABEL: .visible .entry gemm_f32_f32_bt_128x64x32_s6_ws2_tf32(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
memref.global "private" constant @stem : memref<64x7x7x3xf32> = dense<0.5>
kernel.func @Conv_2(%x: memref<2x32x32x3xf32>, %w: memref<64x7x7x3xf32>, %y: memref<2x16x16x64xf32>) {
  conv ins(%x, %w : memref<2x32x32x3xf32>, memref<64x7x7x3xf32>) outs(%y : memref<2x16x16x64xf32>) {
  ^bb0(%a: tensor<2x32x32x3xf32>, %b: tensor<64x7x7x3xf32>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<2x32x32x3xf32>, tensor<64x7x7x3xf32>) -> tensor<2x16x16x64xf32>
    kernel.yield %r : tensor<2x16x16x64xf32>
  }
  return
}
func.func @main(%x: memref<2x32x32x3xf32>, %y: memref<2x16x16x64xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @stem : memref<64x7x7x3xf32>
  kernel.launch @Conv_2(%x, %w, %y) : (memref<2x32x32x3xf32>, memref<64x7x7x3xf32>, memref<2x16x16x64xf32>) -> ()
  return
}
