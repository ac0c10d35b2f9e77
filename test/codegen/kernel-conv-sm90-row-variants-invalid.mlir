// sm90_conv refuses row variants (kernel.row_variants) it cannot launch, naming
// the pass and what is wrong.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s -split-input-file -verify-diagnostics

// Split-K in 4 parts does not pay for K = 576 (9 k-tiles, 4 a part at least).
// expected-error @+1 {{kernel-instantiate-templates: row variant #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 4> is not a configuration of this convolution at 277 rows or fewer}}
kernel.func @Conv_0(%x: memref<?x14x14x64xf16>, %w: memref<128x3x3x64xf16>, %y: memref<?x7x7x128xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 277, config = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 4>>]} {
  conv ins(%x, %w : memref<?x14x14x64xf16>, memref<128x3x3x64xf16>) outs(%y : memref<?x7x7x128xf16>) {
  ^bb0(%a: tensor<?x14x14x64xf16>, %b: tensor<128x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x14x14x64xf16>, tensor<128x3x3x64xf16>) -> tensor<?x7x7x128xf16>
    kernel.yield %r : tensor<?x7x7x128xf16>
  }
  return
}
memref.global "private" constant @w : memref<128x3x3x64xf16> = dense<1.0>
func.func @main(%x: memref<?x14x14x64xf16> {kernel.min_shape = array<i64: 1, 14, 14, 64>, kernel.opt_shape = array<i64: 32, 14, 14, 64>, kernel.max_shape = array<i64: 256, 14, 14, 64>}) -> memref<?x7x7x128xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x14x14x64xf16>
  %y = memref.alloc(%n) : memref<?x7x7x128xf16>
  %w = memref.get_global @w : memref<128x3x3x64xf16>
  kernel.launch @Conv_0(%x, %w, %y) : (memref<?x14x14x64xf16>, memref<128x3x3x64xf16>, memref<?x7x7x128xf16>) -> ()
  return %y : memref<?x7x7x128xf16>
}

// -----

// A static batch has no rows to choose between.
// expected-error @+1 {{kernel-instantiate-templates: kernel.row_variants on a convolution whose batch is static}}
kernel.func @Conv_1(%x: memref<2x14x14x64xf16>, %w: memref<128x3x3x64xf16>, %y: memref<2x7x7x128xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 49, config = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>]} {
  conv ins(%x, %w : memref<2x14x14x64xf16>, memref<128x3x3x64xf16>) outs(%y : memref<2x7x7x128xf16>) {
  ^bb0(%a: tensor<2x14x14x64xf16>, %b: tensor<128x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x14x14x64xf16>, tensor<128x3x3x64xf16>) -> tensor<2x7x7x128xf16>
    kernel.yield %r : tensor<2x7x7x128xf16>
  }
  return
}
memref.global "private" constant @w1 : memref<128x3x3x64xf16> = dense<1.0>
func.func @main(%x: memref<2x14x14x64xf16>, %y: memref<2x7x7x128xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w1 : memref<128x3x3x64xf16>
  kernel.launch @Conv_1(%x, %w, %y) : (memref<2x14x14x64xf16>, memref<128x3x3x64xf16>, memref<2x7x7x128xf16>) -> ()
  return
}
