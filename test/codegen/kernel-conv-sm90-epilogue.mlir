// sm90_conv with fused epilogues: graph.conv's bias (one value per output channel,
// added first), then elementwise ops on the f32 sums before the NHWC store. Cases: a
// ResNet 3x3 conv + bias + ReLU; the end of a ResNet bottleneck (1x1 conv + bias +
// residual add + ReLU; the input read as a row-major A), whose residual is read at the
// output's own position; and the
// explicit-im2col path (a 3-channel stem) with bias + ReLU.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @main
// CHECK: %[[B:.*]] = memref.get_global @b : memref<128xf16>
// CHECK: memref.get_global @w_kxo : memref<576x128xf16>
// CHECK: %[[BP:.*]] = memref.reinterpret_cast %[[B]] {{.*}} : memref<128xf16> to memref<f16>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_2x16x16x64_k3x3s1p1x1_o128_128x128x64_s4_ws2_bias_relu_[[KEY:[0-9a-f]+]]::@conv_f16_2x16x16x64_k3x3s1p1x1_o128_128x128x64_s4_ws2_bias_relu_[[KEY]]
// CHECK-SAME: %c576_i32 : i32, %[[BP]] : memref<f16>)
// CHECK-NOT: kernel.func
// CHECK: gpu.func @conv_f16_2x16x16x64_k3x3s1p1x1_o128_128x128x64_s4_ws2_bias_relu_[[KEY]]({{.*}}: i32, %[[PB:.*]]: memref<f16>)
// CHECK: memref.reinterpret_cast %[[PB]] to offset: [0], sizes: [%{{.*}}], strides: [1] : memref<f16> to memref<?xf16>
// CHECK: arith.addf {{.*}} : f32
// CHECK: arith.maximumf {{.*}} : f32
// PTX-LABEL: .visible .entry conv_f16_2x16x16x64_k3x3s1p1x1_o128_128x128x64_s4_ws2_bias_relu_
// PTX: _param_6
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: ld.global.v4.b32
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: max.NaN.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f00000000
// PTX: cvt.rn.f16x2.f32
memref.global "private" constant @w : memref<128x3x3x64xf16> = dense<1.0>
memref.global "private" constant @b : memref<128xf16> = dense<0.5>
kernel.func @Conv_0(%x: memref<2x16x16x64xf16>, %w: memref<128x3x3x64xf16>, %bias: memref<128xf16>, %y: memref<2x16x16x128xf16>) {
  conv ins(%x, %w, %bias : memref<2x16x16x64xf16>, memref<128x3x3x64xf16>, memref<128xf16>) outs(%y : memref<2x16x16x128xf16>) {
  ^bb0(%a: tensor<2x16x16x64xf16>, %b: tensor<128x3x3x64xf16>, %c: tensor<128xf16>):
    %r = graph.conv %a, %b, %c {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x16x16x64xf16>, tensor<128x3x3x64xf16>, tensor<128xf16>) -> tensor<2x16x16x128xf16>
    %s = graph.relu %r : tensor<2x16x16x128xf16>
    kernel.yield %s : tensor<2x16x16x128xf16>
  }
  return
}
func.func @main(%x: memref<2x16x16x64xf16>, %y: memref<2x16x16x128xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<128x3x3x64xf16>
  %b = memref.get_global @b : memref<128xf16>
  kernel.launch @Conv_0(%x, %w, %b, %y) : (memref<2x16x16x64xf16>, memref<128x3x3x64xf16>, memref<128xf16>, memref<2x16x16x128xf16>) -> ()
  return
}

// -----

// The end of a ResNet-50 bottleneck: 1x1 conv 64 -> 256 with bias, + the block's input
// (NHWC, the output's shape), ReLU. A 1x1 stride-1 convolution reads its input as the
// row-major A matrix (the products' GEMM kernel), which gets the epilogue too. The
// residual is the second parameter; its tiles of the N*OH*OW x O matrix C come through
// shared memory (a 128 x 128 TMA box a tile, the tensor map last), where the epilogue
// reads them; the bias is loaded before the main loop (one CTA an SM).
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_{{.*}}_bias_add_relu_{{[0-9a-f]+}}_r::
// CHECK-SAME: %c64_i32 : i32, %{{.*}} : memref<f16>, %{{.*}} : memref<f16>, %{{.*}} : !nvgpu.tensormap.descriptor<tensor = memref<128x128xf16, 3>, swizzle = none
// CHECK: gpu.func @gemm_f16_f16_{{.*}}_bias_add_relu_{{[0-9a-f]+}}_r({{.*}}: i32, %[[PB:[a-z0-9]+]]: memref<f16>, %{{[a-z0-9]+}}: memref<f16>, %{{[a-z0-9]+}}: !nvgpu.tensormap.descriptor
// CHECK: memref.reinterpret_cast %[[PB]]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[TILE:.*]] = memref.view {{.*}} to memref<128x128xf16, #gpu.address_space<workgroup>>
// CHECK: vector.load %[[TILE]]
// CHECK-COUNT-4: arith.maximumf
// PTX-LABEL: .visible .entry gemm_f16_f16_{{.*}}_bias_add_relu_
// PTX: _param_8
// PTX: max.NaN.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f00000000
memref.global "private" constant @w : memref<256x1x1x64xf16> = dense<1.0>
memref.global "private" constant @b : memref<256xf16> = dense<0.5>
kernel.func @Conv_0(%x: memref<4x8x8x64xf16>, %w: memref<256x1x1x64xf16>, %bias: memref<256xf16>, %res: memref<4x8x8x256xf16>, %y: memref<4x8x8x256xf16>) {
  conv ins(%x, %w, %bias, %res : memref<4x8x8x64xf16>, memref<256x1x1x64xf16>, memref<256xf16>, memref<4x8x8x256xf16>) outs(%y : memref<4x8x8x256xf16>) {
  ^bb0(%a: tensor<4x8x8x64xf16>, %b: tensor<256x1x1x64xf16>, %c: tensor<256xf16>, %d: tensor<4x8x8x256xf16>):
    %r = graph.conv %a, %b, %c {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<4x8x8x64xf16>, tensor<256x1x1x64xf16>, tensor<256xf16>) -> tensor<4x8x8x256xf16>
    %s = graph.add %r, %d : (tensor<4x8x8x256xf16>, tensor<4x8x8x256xf16>) -> tensor<4x8x8x256xf16>
    %t = graph.relu %s : tensor<4x8x8x256xf16>
    kernel.yield %t : tensor<4x8x8x256xf16>
  }
  return
}
func.func @main(%x: memref<4x8x8x64xf16>, %res: memref<4x8x8x256xf16>, %y: memref<4x8x8x256xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @w : memref<256x1x1x64xf16>
  %b = memref.get_global @b : memref<256xf16>
  kernel.launch @Conv_0(%x, %w, %b, %res, %y) : (memref<4x8x8x64xf16>, memref<256x1x1x64xf16>, memref<256xf16>, memref<4x8x8x256xf16>, memref<4x8x8x256xf16>) -> ()
  return
}

// -----

// A 3-channel 7x7/2 stem (explicit im2col) with bias + ReLU: the row-major GEMM gets the
// epilogue.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_im2col_f16_
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_{{.*}}_bias_relu_{{[0-9a-f]+}}::
// CHECK-SAME: %{{.*}} : memref<f16>)
// PTX-LABEL: .visible .entry gemm_f16_f16_{{.*}}_bias_relu_
// PTX: max.NaN.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f00000000
memref.global "private" constant @w : memref<64x7x7x3xf16> = dense<1.0>
memref.global "private" constant @b : memref<64xf16> = dense<0.5>
kernel.func @Conv_0(%x: memref<2x32x32x3xf16>, %w: memref<64x7x7x3xf16>, %bias: memref<64xf16>, %y: memref<2x16x16x64xf16>) {
  conv ins(%x, %w, %bias : memref<2x32x32x3xf16>, memref<64x7x7x3xf16>, memref<64xf16>) outs(%y : memref<2x16x16x64xf16>) {
  ^bb0(%a: tensor<2x32x32x3xf16>, %b: tensor<64x7x7x3xf16>, %c: tensor<64xf16>):
    %r = graph.conv %a, %b, %c {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<2x32x32x3xf16>, tensor<64x7x7x3xf16>, tensor<64xf16>) -> tensor<2x16x16x64xf16>
    %s = graph.relu %r : tensor<2x16x16x64xf16>
    kernel.yield %s : tensor<2x16x16x64xf16>
  }
  return
}
func.func @main(%x: memref<2x32x32x3xf16>, %y: memref<2x16x16x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<64x7x7x3xf16>
  %b = memref.get_global @b : memref<64xf16>
  kernel.launch @Conv_0(%x, %w, %b, %y) : (memref<2x32x32x3xf16>, memref<64x7x7x3xf16>, memref<64xf16>, memref<2x16x16x64xf16>) -> ()
  return
}
