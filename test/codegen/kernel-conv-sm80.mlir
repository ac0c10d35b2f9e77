// kernel-instantiate-templates: channels-last convolutions as the implicit GEMM of the sm_80 template
// (mma.sync; A gathered from the NHWC input by the template's cp.async copies, 8 channels
// of one filter tap each, zero-filled in the padding), and 1x1 ones as the plain GEMM.
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=sm80_conv" --kernel-instantiate-templates=target=sm_80 %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=sm80_conv" --kernel-instantiate-templates=target=sm_80 --kiln-lower-gpu-device="chip=sm_80 features=+ptx80" \
// RUN:   %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// A ResNet 3x3 conv (pad 1) + bias + ReLU: the GEMM is 512 x 128 x 576; the weight is
// permuted into the 576 x 128 matrix B (row (r KW + s) C + c), the bias read per column.
// CHECK-LABEL: memref.global "private" constant @w_kxo : memref<576x128xf16>
// CHECK-LABEL: func.func @main
// CHECK: %[[B:.*]] = memref.get_global @b : memref<128xf16>
// CHECK: %[[W:.*]] = memref.get_global @w_kxo : memref<576x128xf16>
// CHECK: gpu.launch_func {{ *}}@kiln_sm80_conv_f16_2x16x16x64_k3x3s1p1x1_o128_64x64x32_s4_w2x2_bias_relu_[[KEY:[0-9a-f]+]]::@conv_f16_2x16x16x64_k3x3s1p1x1_o128_64x64x32_s4_w2x2_bias_relu_[[KEY]] blocks in (%c16, %c1, %c1)
// CHECK-SAME: %c512_i32 : i32, %c128_i32 : i32, %c576_i32 : i32, %{{.*}} : memref<f16>)
// CHECK-NOT: kernel.func
// CHECK: gpu.func @conv_f16_2x16x16x64_k3x3s1p1x1_o128_64x64x32_s4_w2x2_bias_relu_[[KEY]]
// The input is 2 * 16 * 16 * 64 elements; a chunk's tap and position by division.
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [32768], strides: [1]
// CHECK: arith.divui %{{.*}}, %c64 : index
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.mma.sync
// CHECK: arith.maximumf {{.*}} : f32
// PTX-LABEL: .visible .entry conv_f16_2x16x16x64_k3x3s1p1x1_o128_64x64x32_s4_w2x2_bias_relu_
// PTX-DAG: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
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

// Stride 2, 24 channels (no multiple of the k-tile: the taps are not padded, K = 9 * 24,
// whose last k-tile is partly past K) and bf16.
// CHECK-LABEL: memref.global "private" constant @w24_kxo : memref<216x64xbf16>
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm80_conv_bf16_4x16x16x24_k3x3s2p1x1_o64_64x64x32_s4_w2x2::
// CHECK-SAME: %c256_i32 : i32, %c64_i32 : i32, %c216_i32 : i32)
// PTX-LABEL: .visible .entry conv_bf16_4x16x16x24_k3x3s2p1x1_o64_64x64x32_s4_w2x2(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
memref.global "private" constant @w24 : memref<64x3x3x24xbf16> = dense<1.0>
kernel.func @Conv_0(%x: memref<4x16x16x24xbf16>, %w: memref<64x3x3x24xbf16>, %y: memref<4x8x8x64xbf16>) {
  conv ins(%x, %w : memref<4x16x16x24xbf16>, memref<64x3x3x24xbf16>) outs(%y : memref<4x8x8x64xbf16>) {
  ^bb0(%a: tensor<4x16x16x24xbf16>, %b: tensor<64x3x3x24xbf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<4x16x16x24xbf16>, tensor<64x3x3x24xbf16>) -> tensor<4x8x8x64xbf16>
    kernel.yield %r : tensor<4x8x8x64xbf16>
  }
  return
}
func.func @main(%x: memref<4x16x16x24xbf16>, %y: memref<4x8x8x64xbf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w24 : memref<64x3x3x24xbf16>
  kernel.launch @Conv_0(%x, %w, %y) : (memref<4x16x16x24xbf16>, memref<64x3x3x24xbf16>, memref<4x8x8x64xbf16>) -> ()
  return
}

// -----

// The end of a ResNet-50 bottleneck: a 1x1 conv 64 -> 256 + bias + residual + ReLU reads
// its input as the row-major A, the products' GEMM kernel (with the epilogue); the
// residual is read at C's own position.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm80_gemm_f16_f16_{{.*}}_bias_add_relu_{{[0-9a-f]+}}::
// CHECK-SAME: %c256_i32 : i32, %c256_i32{{.*}} : i32, %c64_i32 : i32, %{{.*}} : memref<f16>, %{{.*}} : memref<f16>)
// PTX-LABEL: .visible .entry gemm_f16_f16_{{.*}}_bias_add_relu_
// PTX: _param_7
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
