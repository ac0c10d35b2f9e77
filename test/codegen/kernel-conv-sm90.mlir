// kernel-instantiate-templates: a channels-last f16 convolution with a constant weight becomes the
// warp-specialised wgmma GEMM with an implicit im2col A operand. The host makes a 4-D
// tensor map of the NHWC input whose box spans stride x the output positions (element
// strides 1, s, s, 1), a 2-D map of the weight permuted to (KH KW C) x O, and launches one
// CTA per (position box, 128 output channels). Then the PTX (4-D TMA loads, 128x128 wgmma).
// kernel-conv-sm90-unmatched.mlir: what stays generic, and an illegal configuration.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx \
// RUN:   | FileCheck %s --check-prefix=PTX

// 3x3, stride 2, padding 1: 2 images of 8x8 output positions make one 2x8x8 box (128 rows).
// CHECK-LABEL: memref.global "private" constant @w_kxo : memref<576x128xf16>
// CHECK-LABEL: func.func @main
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c2, %c16, %c16{{.*}}, %c64] {kiln.tma_element_strides = array<i64: 1, 2, 2, 1>} : memref<*xf16> -> <tensor = memref<2x8x8x64xf16, 3>
// CHECK: memref.get_global @w_kxo : memref<576x128xf16>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}]
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_2x16x16x64_k3x3s2p1x1_o128_128x128x64_s4_ws2::@conv_f16_2x16x16x64_k3x3s2p1x1_o128_128x128x64_s4_ws2 blocks in (%c1{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c384
// CHECK-SAME: %c128_i32 : i32, %c128_i32{{.*}} : i32, %c576_i32 : i32
// CHECK-NOT: kernel.func
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// PTX-LABEL: .visible .entry conv_f16_2x16x16x64_k3x3s2p1x1_o128_128x128x64_s4_ws2(
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
memref.global "private" constant @w : memref<128x3x3x64xf16> = dense<1.0>
kernel.func @Conv_0(%x: memref<2x16x16x64xf16>, %w: memref<128x3x3x64xf16>, %y: memref<2x8x8x128xf16>) {
  conv ins(%x, %w : memref<2x16x16x64xf16>, memref<128x3x3x64xf16>) outs(%y : memref<2x8x8x128xf16>) {
  ^bb0(%a: tensor<2x16x16x64xf16>, %b: tensor<128x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x16x16x64xf16>, tensor<128x3x3x64xf16>) -> tensor<2x8x8x128xf16>
    kernel.yield %r : tensor<2x8x8x128xf16>
  }
  return
}
func.func @main(%x: memref<2x16x16x64xf16>, %y: memref<2x8x8x128xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<128x3x3x64xf16>
  kernel.launch @Conv_0(%x, %w, %y) : (memref<2x16x16x64xf16>, memref<128x3x3x64xf16>, memref<2x8x8x128xf16>) -> ()
  return
}
