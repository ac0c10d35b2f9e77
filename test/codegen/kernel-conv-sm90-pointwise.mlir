// A 1x1 convolution with stride 1 and no padding: its NHWC input is the im2col matrix A
// itself (N*H*W rows of C channels, rows in C's order), so sm90_conv multiplies it
// by the permuted weight with the row-major GEMM that sm90_gemm also uses: a
// 128x64 tensor map over the input viewed as 2-D, no 4-D boxes and no per-row position
// arithmetic in the epilogue. Here 2 x 10 x 10 positions (200 rows: a partial second tile)
// of C = 40 channels (one k-tile, TMA zero-fills columns 40..63) -> 64.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx \
// RUN:   | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: memref.global "private" constant @w_kxo : memref<40x64xf16>
// CHECK-LABEL: func.func @main
// CHECK: %[[A:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [200, 40], strides: [40, 1] : memref<2x10x10x40xf16> to memref<200x40xf16>
// CHECK: %[[AU:.*]] = memref.cast %[[A]] : memref<200x40xf16> to memref<*xf16>
// CHECK: nvgpu.tma.create.descriptor %[[AU]] box[%c128, %c64] : memref<*xf16> -> <tensor = memref<128x64xf16, 3>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x64x64_s6_ws2::@gemm_f16_f16_128x64x64_s6_ws2 blocks in (%c2,
// CHECK-SAME: %c200_i32 : i32, %c64_i32 : i32, %c40_i32 : i32
// CHECK-NOT: kernel.launch
// PTX-LABEL: .visible .entry gemm_f16_f16_128x64x64_s6_ws2(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-NOT: cp.async.bulk.tensor.4d
memref.global "private" constant @w : memref<64x1x1x40xf16> = dense<1.0>
kernel.func @Conv(%x: memref<2x10x10x40xf16>, %w: memref<64x1x1x40xf16>, %y: memref<2x10x10x64xf16>) {
  conv ins(%x, %w : memref<2x10x10x40xf16>, memref<64x1x1x40xf16>) outs(%y : memref<2x10x10x64xf16>) {
  ^bb0(%a: tensor<2x10x10x40xf16>, %b: tensor<64x1x1x40xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x10x10x40xf16>, tensor<64x1x1x40xf16>) -> tensor<2x10x10x64xf16>
    kernel.yield %r : tensor<2x10x10x64xf16>
  }
  return
}
func.func @main(%x: memref<2x10x10x40xf16>, %y: memref<2x10x10x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<64x1x1x40xf16>
  kernel.launch @Conv(%x, %w, %y) : (memref<2x10x10x40xf16>, memref<64x1x1x40xf16>, memref<2x10x10x64xf16>) -> ()
  return
}
