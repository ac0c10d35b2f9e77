// depthwise replaces depthwise convolution kernels (group == input channels)
// with its CUDA-core templates: channels last (threads along the channels, the weight
// repacked to [KH, KW, M]) and channels first (input tiles staged in shared memory), with
// the bias and the elementwise ops after the convolution fused.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=depthwise" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s

// NHWC f16, 3x3, stride 1, pad 1, bias and ReLU6 (Clip 0..6): 8 channels a thread (one
// 16-byte load), the default of 4 columns a thread, 256-thread blocks:
// 32 * 56 * 14 * (32 / 8) = 100352 threads, 392 blocks.
// CHECK-LABEL: memref.global "private" constant @w_khkwm : memref<3x3x32xf16>
// CHECK-NOT: kernel.func @Depthwise
// CHECK: func.func @main(%arg0: memref<32x56x56x32xf16>
// CHECK: memref.get_global @w_khkwm : memref<3x3x32xf16>
// CHECK: gpu.launch_func @kiln_depthwise_nhwc_{{.*}} blocks in (%c392, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<f16>, %{{.*}} : memref<f16>, %{{.*}} : memref<f16>, %{{.*}} : memref<f16>)
// CHECK-NOT: kernel.launch
// CHECK: gpu.module @kiln_depthwise_nhwc_f16_f16_32x32x56x56x1_k3x3s1x1d1x1p1x1_o56x56_p4_t256_bias_clip_
// CHECK: gpu.func @depthwise_nhwc_f16_f16_{{.*}}(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>) kernel
// CHECK-COUNT-18: vector.load {{.*}} : memref<3211264xf16>, vector<8xf16>
// CHECK: arith.maximumf
// CHECK: vector.store {{.*}} vector<8xf16>
memref.global "private" constant @w : memref<32x3x3x1xf16> = dense<1.0>
memref.global "private" constant @b : memref<32xf16> = dense<0.5>
kernel.func @Depthwise(%x: memref<32x56x56x32xf16>, %w: memref<32x3x3x1xf16>, %bias: memref<32xf16>, %y: memref<32x56x56x32xf16>) {
  conv ins(%x, %w, %bias : memref<32x56x56x32xf16>, memref<32x3x3x1xf16>, memref<32xf16>) outs(%y : memref<32x56x56x32xf16>) {
  ^bb0(%a: tensor<32x56x56x32xf16>, %b: tensor<32x3x3x1xf16>, %c: tensor<32xf16>):
    %lo = graph.constant dense<0.0> : tensor<f16>
    %hi = graph.constant dense<6.0> : tensor<f16>
    %r = graph.conv %a, %b, %c {channels_last, dilations = array<i64: 1, 1>, group = 32 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<32x56x56x32xf16>, tensor<32x3x3x1xf16>, tensor<32xf16>) -> tensor<32x56x56x32xf16>
    %s = graph.clip %r min %lo max %hi : (tensor<32x56x56x32xf16>, tensor<f16>, tensor<f16>) -> tensor<32x56x56x32xf16>
    kernel.yield %s : tensor<32x56x56x32xf16>
  }
  return
}
func.func @main(%x: memref<32x56x56x32xf16>, %y: memref<32x56x56x32xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<32x3x3x1xf16>
  %b = memref.get_global @b : memref<32xf16>
  kernel.launch @Depthwise(%x, %w, %b, %y) : (memref<32x56x56x32xf16>, memref<32x3x3x1xf16>, memref<32xf16>, memref<32x56x56x32xf16>) -> ()
  return
}

// -----

// NCHW f32, 3x3, stride 2, pad 1, bias and ReLU6, 112x112 -> 56x56: tiles of 14 rows x 56
// columns of one plane, 4 outputs a thread (14 x 14 = 196 threads); the input tile with
// its halo (29 x 113, rows padded to 116) staged in shared memory; each thread reads its
// 9 columns of a staged row as 12 aligned f32 (three 16-byte loads) and stores its 4
// outputs with one 16-byte store.
// CHECK-LABEL: func.func @main(%arg0: memref<2x96x112x112xf32>
// CHECK-NOT: memref.get_global @w_khkwm
// CHECK: gpu.launch_func @kiln_depthwise_nchw_{{.*}} blocks in (%c768, %c1, %c1) threads in (%c196, %c1, %c1)
// CHECK: gpu.module @kiln_depthwise_nchw_f32_f32_2x96x112x112x1_k3x3s2x2d1x1p1x1_o56x56_p4_14x56x1_bias_clip_
// CHECK: gpu.func @depthwise_nchw_f32_f32_{{.*}} workgroup(%{{.*}} : memref<3364xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: gpu.barrier
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<3364xf32, #gpu.address_space<workgroup>>, vector<12xf32>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<602112xf32>, vector<4xf32>
memref.global "private" constant @w : memref<96x1x3x3xf32> = dense<1.0>
memref.global "private" constant @b : memref<96xf32> = dense<0.5>
kernel.func @Depthwise(%x: memref<2x96x112x112xf32>, %w: memref<96x1x3x3xf32>, %bias: memref<96xf32>, %y: memref<2x96x56x56xf32>) {
  conv ins(%x, %w, %bias : memref<2x96x112x112xf32>, memref<96x1x3x3xf32>, memref<96xf32>) outs(%y : memref<2x96x56x56xf32>) {
  ^bb0(%a: tensor<2x96x112x112xf32>, %b: tensor<96x1x3x3xf32>, %c: tensor<96xf32>):
    %lo = graph.constant dense<0.0> : tensor<f32>
    %hi = graph.constant dense<6.0> : tensor<f32>
    %r = graph.conv %a, %b, %c {dilations = array<i64: 1, 1>, group = 96 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x96x112x112xf32>, tensor<96x1x3x3xf32>, tensor<96xf32>) -> tensor<2x96x56x56xf32>
    %s = graph.clip %r min %lo max %hi : (tensor<2x96x56x56xf32>, tensor<f32>, tensor<f32>) -> tensor<2x96x56x56xf32>
    kernel.yield %s : tensor<2x96x56x56xf32>
  }
  return
}
func.func @main(%x: memref<2x96x112x112xf32>, %y: memref<2x96x56x56xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<96x1x3x3xf32>
  %b = memref.get_global @b : memref<96xf32>
  kernel.launch @Depthwise(%x, %w, %b, %y) : (memref<2x96x112x112xf32>, memref<96x1x3x3xf32>, memref<96xf32>, memref<2x96x56x56xf32>) -> ()
  return
}

// -----

// Small planes: NCHW bf16, 5x5, 7x7 planes, SiLU after the bias: one tile covers a plane,
// so a block takes 5 planes of 7 x 7 outputs, one a thread (245 threads).
// CHECK-LABEL: func.func @main(%arg0: memref<4x64x7x7xbf16>
// CHECK: gpu.launch_func @kiln_depthwise_nchw_{{.*}} blocks in (%c52, %c1, %c1) threads in (%c245, %c1, %c1)
// CHECK: gpu.module @kiln_depthwise_nchw_bf16_bf16_4x64x7x7x1_k5x5s1x1d1x1p2x2_o7x7_p1_7x7x5_bias_silu_
// CHECK: arith.extf {{.*}} : bf16 to f32
memref.global "private" constant @w : memref<64x1x5x5xbf16> = dense<1.0>
memref.global "private" constant @b : memref<64xbf16> = dense<0.5>
kernel.func @Depthwise(%x: memref<4x64x7x7xbf16>, %w: memref<64x1x5x5xbf16>, %bias: memref<64xbf16>, %y: memref<4x64x7x7xbf16>) {
  conv ins(%x, %w, %bias : memref<4x64x7x7xbf16>, memref<64x1x5x5xbf16>, memref<64xbf16>) outs(%y : memref<4x64x7x7xbf16>) {
  ^bb0(%a: tensor<4x64x7x7xbf16>, %b: tensor<64x1x5x5xbf16>, %c: tensor<64xbf16>):
    %r = graph.conv %a, %b, %c {dilations = array<i64: 1, 1>, group = 64 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<4x64x7x7xbf16>, tensor<64x1x5x5xbf16>, tensor<64xbf16>) -> tensor<4x64x7x7xbf16>
    %s = graph.silu %r : tensor<4x64x7x7xbf16>
    kernel.yield %s : tensor<4x64x7x7xbf16>
  }
  return
}
func.func @main(%x: memref<4x64x7x7xbf16>, %y: memref<4x64x7x7xbf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<64x1x5x5xbf16>
  %b = memref.get_global @b : memref<64xbf16>
  kernel.launch @Depthwise(%x, %w, %b, %y) : (memref<4x64x7x7xbf16>, memref<64x1x5x5xbf16>, memref<64xbf16>, memref<4x64x7x7xbf16>) -> ()
  return
}

// -----

// A channel multiplier of 2 and dilation 2 (NCHW: output plane m reads input plane m / 2),
// no bias, and a chosen configuration (kernel.config).
// CHECK-LABEL: func.func @main(%arg0: memref<1x8x20x20xf32>
// CHECK: gpu.launch_func @kiln_depthwise_nchw_{{.*}} blocks in (%c32, %c1, %c1) threads in (%c100, %c1, %c1)
// CHECK: gpu.module @kiln_depthwise_nchw_f32_f32_1x8x20x20x2_k3x3s1x1d2x2p2x2_o20x20_p2_10x20x1 {
memref.global "private" constant @w : memref<16x1x3x3xf32> = dense<1.0>
kernel.func @Multiplier(%x: memref<1x8x20x20xf32>, %w: memref<16x1x3x3xf32>, %y: memref<1x16x20x20xf32>) attributes {kernel.config = #kernel.depthwise<pixels = 2, tile_h = 10, tile_w = 20, planes = 1>} {
  conv ins(%x, %w : memref<1x8x20x20xf32>, memref<16x1x3x3xf32>) outs(%y : memref<1x16x20x20xf32>) {
  ^bb0(%a: tensor<1x8x20x20xf32>, %b: tensor<16x1x3x3xf32>):
    %r = graph.conv %a, %b {dilations = array<i64: 2, 2>, group = 8 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x8x20x20xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x20x20xf32>
    kernel.yield %r : tensor<1x16x20x20xf32>
  }
  return
}
func.func @main(%x: memref<1x8x20x20xf32>, %y: memref<1x16x20x20xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<16x1x3x3xf32>
  kernel.launch @Multiplier(%x, %w, %y) : (memref<1x8x20x20xf32>, memref<16x1x3x3xf32>, memref<1x16x20x20xf32>) -> ()
  return
}

// -----

// NHWC f32 with a residual (a full-size input) and HardSwish after it, stride 2, odd sizes
// (15x15 -> 8x8, 12 channels: 4 a thread): the residual is read as 4 consecutive
// channels where the output is stored.
// CHECK-LABEL: func.func @main(%arg0: memref<3x15x15x12xf32>
// CHECK: gpu.launch_func {{.*}} args(%{{.*}} : memref<f32>, %{{.*}} : memref<f32>, %{{.*}} : memref<f32>, %{{.*}} : memref<f32>)
// CHECK: gpu.module @kiln_depthwise_nhwc_f32_f32_3x12x15x15x1_k3x3s2x2d1x1p1x1_o8x8_p2_t256_add_hard_swish_
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<2304xf32>, vector<4xf32>
memref.global "private" constant @w : memref<12x3x3x1xf32> = dense<1.0>
kernel.func @Residual(%x: memref<3x15x15x12xf32>, %w: memref<12x3x3x1xf32>, %res: memref<3x8x8x12xf32>, %y: memref<3x8x8x12xf32>) {
  conv ins(%x, %w, %res : memref<3x15x15x12xf32>, memref<12x3x3x1xf32>, memref<3x8x8x12xf32>) outs(%y : memref<3x8x8x12xf32>) {
  ^bb0(%a: tensor<3x15x15x12xf32>, %b: tensor<12x3x3x1xf32>, %c: tensor<3x8x8x12xf32>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 12 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<3x15x15x12xf32>, tensor<12x3x3x1xf32>) -> tensor<3x8x8x12xf32>
    %s = graph.add %r, %c : (tensor<3x8x8x12xf32>, tensor<3x8x8x12xf32>) -> tensor<3x8x8x12xf32>
    %t = graph.hard_swish %s : tensor<3x8x8x12xf32>
    kernel.yield %t : tensor<3x8x8x12xf32>
  }
  return
}
func.func @main(%x: memref<3x15x15x12xf32>, %res: memref<3x8x8x12xf32>, %y: memref<3x8x8x12xf32>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @w : memref<12x3x3x1xf32>
  kernel.launch @Residual(%x, %w, %res, %y) : (memref<3x15x15x12xf32>, memref<12x3x3x1xf32>, memref<3x8x8x12xf32>, memref<3x8x8x12xf32>) -> ()
  return
}

// -----

// NHWC f16 whose epilogue quantizes for an int8 convolution after it (ReLU6, then divide
// by the scale, round, clamp to [-128, 127], cast to i8): the lanes stay f32 through the
// epilogue and convert to i8 at the store.
// CHECK-LABEL: func.func @main(%arg0: memref<8x28x28x64xf16>
// CHECK: gpu.launch_func @kiln_depthwise_nhwc_f16_i8_{{.*}}
// CHECK: gpu.func @depthwise_nhwc_f16_i8_
// CHECK: arith.fptosi {{.*}} : vector<8xf32> to vector<8xi8>
// CHECK: vector.store {{.*}} : memref<{{[0-9]+}}xi8>, vector<8xi8>
memref.global "private" constant @wq : memref<64x3x3x1xf16> = dense<1.0>
kernel.func @Quantized(%x: memref<8x28x28x64xf16>, %w: memref<64x3x3x1xf16>, %y: memref<8x28x28x64xi8>) {
  conv ins(%x, %w : memref<8x28x28x64xf16>, memref<64x3x3x1xf16>) outs(%y : memref<8x28x28x64xi8>) {
  ^bb0(%a: tensor<8x28x28x64xf16>, %b: tensor<64x3x3x1xf16>):
    %lo = graph.constant dense<0.0> : tensor<f32>
    %hi = graph.constant dense<6.0> : tensor<f32>
    %scale = graph.constant dense<0.05> : tensor<f32>
    %qlo = graph.constant dense<-128.0> : tensor<f32>
    %qhi = graph.constant dense<127.0> : tensor<f32>
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 64 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<8x28x28x64xf16>, tensor<64x3x3x1xf16>) -> tensor<8x28x28x64xf16>
    %f = graph.cast %r {to = f32} : (tensor<8x28x28x64xf16>) -> tensor<8x28x28x64xf32>
    %c = graph.clip %f min %lo max %hi : (tensor<8x28x28x64xf32>, tensor<f32>, tensor<f32>) -> tensor<8x28x28x64xf32>
    %d = graph.div %c, %scale : (tensor<8x28x28x64xf32>, tensor<f32>) -> tensor<8x28x28x64xf32>
    %n = graph.round %d : tensor<8x28x28x64xf32>
    %s = graph.clip %n min %qlo max %qhi : (tensor<8x28x28x64xf32>, tensor<f32>, tensor<f32>) -> tensor<8x28x28x64xf32>
    %q = graph.cast %s {to = i8} : (tensor<8x28x28x64xf32>) -> tensor<8x28x28x64xi8>
    kernel.yield %q : tensor<8x28x28x64xi8>
  }
  return
}
func.func @main(%x: memref<8x28x28x64xf16>, %y: memref<8x28x28x64xi8>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @wq : memref<64x3x3x1xf16>
  kernel.launch @Quantized(%x, %w, %y) : (memref<8x28x28x64xf16>, memref<64x3x3x1xf16>, memref<8x28x28x64xi8>) -> ()
  return
}
