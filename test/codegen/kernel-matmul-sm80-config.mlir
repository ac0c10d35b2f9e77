// sm80_gemm and sm80_conv follow the `kernel.config` a kernel carries (set
// by kernel-autotune): `generic` keeps the generic lowering, a legal sm80_gemm
// configuration is instantiated, anything else is an error naming the configuration.
// RUN: kiln-opt --split-input-file --kernel-select-templates="target=sm_80 templates=sm80_gemm,sm80_conv" --kernel-instantiate-templates=target=sm_80 --verify-diagnostics %s | FileCheck %s

// CHECK-LABEL: kernel.func @asks_generic
// CHECK: kernel.launch @asks_generic
kernel.func @asks_generic(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.config = #kernel.generic} {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %r = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    kernel.yield %r : tensor<128x128xf16>
  }
  return
}
func.func @main(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @asks_generic(%a, %b, %c) : (memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>) -> ()
  return
}

// -----

// A legal configuration other than the default: 128x128x64, 3 stages, 4 warps.
// CHECK-NOT: kernel.func
// CHECK: gpu.launch_func {{ *}}@kiln_sm80_gemm_f16_f16_128x128x64_s3_w2x2::@gemm_f16_f16_128x128x64_s3_w2x2 blocks in (%c1{{.*}}, %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK-SAME: dynamic_shared_memory_size %c107520_i32
kernel.func @asks_one(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.config = #kernel.sm80_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, warps_m = 2, warps_n = 2>} {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %r = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    kernel.yield %r : tensor<128x128xf16>
  }
  return
}
func.func @main(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @asks_one(%a, %b, %c) : (memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>) -> ()
  return
}

// -----

// A 128x256 tile over 128 columns is no configuration of this product.
// expected-error @+1 {{kernel-instantiate-templates: #kernel.sm80_gemm<tile_m = 128, tile_n = 256, tile_k = 32, stages = 3, warps_m = 2, warps_n = 4> is not a configuration of this GEMM (128x128x64)}}
kernel.func @asks_too_wide(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.config = #kernel.sm80_gemm<tile_m = 128, tile_n = 256, tile_k = 32, stages = 3, warps_m = 2, warps_n = 4>} {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %r = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    kernel.yield %r : tensor<128x128xf16>
  }
  return
}
func.func @main(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @asks_too_wide(%a, %b, %c) : (memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>) -> ()
  return
}

// -----

// A configuration of another template (the sm_90a wgmma GEMM), on sm_80.
// expected-error @+1 {{kernel-instantiate-templates: #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, consumers = 0> is for sm_90a (wgmma and TMA), not sm_80}}
kernel.func @asks_sm90(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, consumers = 0>} {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %r = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    kernel.yield %r : tensor<128x128xf16>
  }
  return
}
func.func @main(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @asks_sm90(%a, %b, %c) : (memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>) -> ()
  return
}

// -----

// A convolution's configuration is checked the same way.
memref.global "private" constant @w : memref<64x3x3x64xf16> = dense<1.0>
// expected-error @+1 {{kernel-instantiate-templates: #kernel.sm80_conv<tile_m = 64, tile_n = 64, tile_k = 32, stages = 9, warps_m = 2, warps_n = 2> is not a configuration of this convolution}}
kernel.func @conv_asks_deep(%x: memref<2x8x8x64xf16>, %w: memref<64x3x3x64xf16>, %y: memref<2x8x8x64xf16>) attributes {kernel.config = #kernel.sm80_conv<tile_m = 64, tile_n = 64, tile_k = 32, stages = 9, warps_m = 2, warps_n = 2>} {
  conv ins(%x, %w : memref<2x8x8x64xf16>, memref<64x3x3x64xf16>) outs(%y : memref<2x8x8x64xf16>) {
  ^bb0(%a: tensor<2x8x8x64xf16>, %b: tensor<64x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x8x8x64xf16>, tensor<64x3x3x64xf16>) -> tensor<2x8x8x64xf16>
    kernel.yield %r : tensor<2x8x8x64xf16>
  }
  return
}
func.func @main(%x: memref<2x8x8x64xf16>, %y: memref<2x8x8x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<64x3x3x64xf16>
  kernel.launch @conv_asks_deep(%x, %w, %y) : (memref<2x8x8x64xf16>, memref<64x3x3x64xf16>, memref<2x8x8x64xf16>) -> ()
  return
}
