// sm90_conv with channel counts that are no multiple of 64:
// - C = 32 (a multiple of 8), 1x1 stride 2: implicit, each filter tap one 64-channel
//   k-tile whose channels 32..63 TMA zero-fills; the weight matrix has 64 rows a tap, the
//   upper 32 zero. Stride 1 would make the input A itself (kernel-conv-sm90-pointwise.mlir);
// - C = 3 (a 7x7 stride-2 RGB stem): explicit. A scratch buffer of N*OH*OW x 152 (147
//   rounded up to a multiple of 8) is written by the im2col kernel, then multiplied by the
//   152 x O weight matrix with the row-major GEMM sm90_gemm also uses.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: memref.global "private" constant @w32_kxo : memref<64x64xf16>
// CHECK-LABEL: func.func @main
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c2, %c8, %c8{{.*}}, %c64] {{.*}}: memref<*xf16> -> <tensor = memref<2x4x4x64xf16, 3>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_2x8x8x32_k1x1s2p0x0_o64_128x64x64_s6_ws2::
// CHECK-SAME: %c32_i32 : i32, %c64_i32 : i32, %c64_i32{{.*}} : i32
// PTX-LABEL: .visible .entry conv_f16_2x8x8x32_k1x1s2p0x0_o64_128x64x64_s6_ws2(
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
memref.global "private" constant @w32 : memref<64x1x1x32xf16> = dense<1.0>
kernel.func @Conv32(%x: memref<2x8x8x32xf16>, %w: memref<64x1x1x32xf16>, %y: memref<2x4x4x64xf16>) {
  conv ins(%x, %w : memref<2x8x8x32xf16>, memref<64x1x1x32xf16>) outs(%y : memref<2x4x4x64xf16>) {
  ^bb0(%a: tensor<2x8x8x32xf16>, %b: tensor<64x1x1x32xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x8x8x32xf16>, tensor<64x1x1x32xf16>) -> tensor<2x4x4x64xf16>
    kernel.yield %r : tensor<2x4x4x64xf16>
  }
  return
}
func.func @main(%x: memref<2x8x8x32xf16>, %y: memref<2x4x4x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w32 : memref<64x1x1x32xf16>
  kernel.launch @Conv32(%x, %w, %y) : (memref<2x8x8x32xf16>, memref<64x1x1x32xf16>, memref<2x4x4x64xf16>) -> ()
  return
}

// -----

// 2 images of 32x32 RGB, 7x7 stride 2 padding 3 -> 16x16: 512 rows of A.
// CHECK-LABEL: memref.global "private" constant @stem_kxo : memref<152x64xf16>
// CHECK-LABEL: func.func @main
// CHECK: %[[A:.*]] = memref.alloc() : memref<512x152xf16>
// CHECK: %[[AP:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [], strides: [] : memref<512x152xf16> to memref<f16>
// CHECK: gpu.launch_func {{ *}}@kiln_im2col_f16_2x32x32x3_k7x7s2p3x3::@im2col_f16_2x32x32x3_k7x7s2p3x3 blocks in (%c32, %c1{{.*}}, %c1{{.*}}) threads in (%c256, %c1{{.*}}, %c1{{.*}}) args(%{{.*}} : memref<f16>, %[[AP]] : memref<f16>)
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c64] : memref<*xf16> -> <tensor = memref<128x64xf16, 3>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x64x64_s6_ws2::@gemm_f16_f16_128x64x64_s6_ws2 blocks in (%c4,
// CHECK-SAME: %c512_i32 : i32, %c64_i32 : i32, %c152_i32 : i32
// PTX-LABEL: .visible .entry im2col_f16_2x32x32x3_k7x7s2p3x3(
// PTX: ld.global.b16
// PTX: st.shared.b16
// PTX: bar.sync 0;
// PTX-NOT: ld.global
// PTX-COUNT-5: ld.shared.b16
// PTX-NOT: ld.shared
// PTX: bar.sync 0;
// PTX: ld.shared.v4.b32
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry gemm_f16_f16_128x64x64_s6_ws2(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
memref.global "private" constant @stem : memref<64x7x7x3xf16> = dense<1.0>
kernel.func @Stem(%x: memref<2x32x32x3xf16>, %w: memref<64x7x7x3xf16>, %y: memref<2x16x16x64xf16>) {
  conv ins(%x, %w : memref<2x32x32x3xf16>, memref<64x7x7x3xf16>) outs(%y : memref<2x16x16x64xf16>) {
  ^bb0(%a: tensor<2x32x32x3xf16>, %b: tensor<64x7x7x3xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<2x32x32x3xf16>, tensor<64x7x7x3xf16>) -> tensor<2x16x16x64xf16>
    kernel.yield %r : tensor<2x16x16x64xf16>
  }
  return
}
func.func @main(%x: memref<2x32x32x3xf16>, %y: memref<2x16x16x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @stem : memref<64x7x7x3xf16>
  kernel.launch @Stem(%x, %w, %y) : (memref<2x32x32x3xf16>, memref<64x7x7x3xf16>, memref<2x16x16x64xf16>) -> ()
  return
}
