// sm90_conv on convolutions of a dynamic engine's run-time batch (every other
// extent static): the kernels read the batch off M, the host computes M (N*OH*OW) and the
// grid from the output's extent (the engine's shape program evaluates them per input
// shape), and the tensor maps take the run-time extent. Configurations and output boxes
// are chosen at the opt batch (32).
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// Implicit GEMM, 3x3 stride 2 onto 7x7 outputs: boxes of 18 images x 1 row x 7 columns
// (126 of a tile's 128 rows at the opt batch), ceil(N / 18) x 7 of them. The small
// batches (M <= 277 rows: up to 5 images, the bucket between the min and opt shapes) get
// boxes that fit them, one 7x7 image, with the same configuration (no variant was tuned:
// 18-image boxes would leave 121 of a tile's 128 rows empty at batch 1).
// CHECK-LABEL: func.func @main
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x7x7x128xf16>
// CHECK: arith.muli %{{.*}}, %c7 : index
// CHECK-NEXT: arith.constant 7 : index
// CHECK-NEXT: %[[M:.*]] = arith.muli %{{.*}}, %c7_{{[0-9]+}} : index
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1{{.*}}, %c14{{.*}}, %c14{{.*}}, %c64{{.*}}] {kiln.tma_element_strides = array<i64: 1, 2, 2, 1>}
// CHECK: %[[SMALL:.*]] = arith.cmpi ule, %[[M]], %c277{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_Nx14x14x64_box1x7x7_k3x3s2p1x1_o128_128x128x64_s4_ws2::
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c18{{.*}}, %c2{{.*}}, %c14{{.*}}, %c64{{.*}}] {kiln.tma_element_strides = array<i64: 1, 2, 2, 1>}
// CHECK: %[[BOXES:.*]] = arith.ceildivui %[[N]], %c18{{.*}} : index
// CHECK: arith.muli %[[BOXES]], %c7{{.*}} : index
// CHECK: arith.cmpi ugt, %[[M]], %c277{{.*}} : index
// CHECK: %[[M32:.*]] = arith.index_cast %[[M]] : index to i32
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_Nx14x14x64_box18x1x7_k3x3s2p1x1_o128_{{.*}}::@conv_f16_Nx14x14x64_box18x1x7_k3x3s2p1x1_o128_{{[0-9a-z_]+}} blocks in (%{{.*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK-SAME: %[[M32]] : i32, %c128_i32{{.*}} : i32, %c576_i32{{.*}} : i32
// CHECK-NOT: kernel.func
// In the kernel the batch is M / 49, the tiles ceil(batch / 18) x 7.
// CHECK: gpu.func @conv_f16_Nx14x14x64_box18x1x7_
// CHECK: %[[BATCH:.*]] = arith.divui %{{.*}}, %c49{{.*}} : index
// CHECK: arith.addi %[[BATCH]], %c17{{.*}} : index
// PTX-LABEL: .visible .entry conv_f16_Nx14x14x64_box18x1x7_
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
memref.global "private" constant @w : memref<128x3x3x64xf16> = dense<1.0>
kernel.func @Conv_0(%x: memref<?x14x14x64xf16>, %w: memref<128x3x3x64xf16>, %y: memref<?x7x7x128xf16>) {
  conv ins(%x, %w : memref<?x14x14x64xf16>, memref<128x3x3x64xf16>) outs(%y : memref<?x7x7x128xf16>) {
  ^bb0(%a: tensor<?x14x14x64xf16>, %b: tensor<128x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x14x14x64xf16>, tensor<128x3x3x64xf16>) -> tensor<?x7x7x128xf16>
    kernel.yield %r : tensor<?x7x7x128xf16>
  }
  return
}
func.func @main(%x: memref<?x14x14x64xf16> {kernel.min_shape = array<i64: 1, 14, 14, 64>, kernel.opt_shape = array<i64: 32, 14, 14, 64>, kernel.max_shape = array<i64: 256, 14, 14, 64>}) -> memref<?x7x7x128xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x14x14x64xf16>
  %y = memref.alloc(%n) : memref<?x7x7x128xf16>
  %w = memref.get_global @w : memref<128x3x3x64xf16>
  kernel.launch @Conv_0(%x, %w, %y) : (memref<?x14x14x64xf16>, memref<128x3x3x64xf16>, memref<?x7x7x128xf16>) -> ()
  return %y : memref<?x7x7x128xf16>
}

// -----

// A 1x1 convolution reads the input as the N*H*W x C matrix A of run-time rows: a view of
// M rows, ceil(M / 128) tiles.
// CHECK-LABEL: func.func @main
// CHECK: arith.muli %{{.*}}, %c14 : index
// CHECK-NEXT: arith.constant 14 : index
// CHECK-NEXT: %[[M:.*]] = arith.muli %{{.*}}, %c14_{{[0-9]+}} : index
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%[[M]], 64], strides: [64, 1] : memref<?x14x14x64xf16> to memref<?x64xf16>
// CHECK: arith.ceildivui %[[M]], %c128{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_
// CHECK-NOT: kernel.func
memref.global "private" constant @w1 : memref<256x1x1x64xf16> = dense<1.0>
kernel.func @Conv_1(%x: memref<?x14x14x64xf16>, %w: memref<256x1x1x64xf16>, %y: memref<?x14x14x256xf16>) {
  conv ins(%x, %w : memref<?x14x14x64xf16>, memref<256x1x1x64xf16>) outs(%y : memref<?x14x14x256xf16>) {
  ^bb0(%a: tensor<?x14x14x64xf16>, %b: tensor<256x1x1x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x14x14x64xf16>, tensor<256x1x1x64xf16>) -> tensor<?x14x14x256xf16>
    kernel.yield %r : tensor<?x14x14x256xf16>
  }
  return
}
func.func @main(%x: memref<?x14x14x64xf16> {kernel.min_shape = array<i64: 1, 14, 14, 64>, kernel.opt_shape = array<i64: 32, 14, 14, 64>, kernel.max_shape = array<i64: 256, 14, 14, 64>}) -> memref<?x14x14x256xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x14x14x64xf16>
  %y = memref.alloc(%n) : memref<?x14x14x256xf16>
  %w = memref.get_global @w1 : memref<256x1x1x64xf16>
  kernel.launch @Conv_1(%x, %w, %y) : (memref<?x14x14x64xf16>, memref<256x1x1x64xf16>, memref<?x14x14x256xf16>) -> ()
  return %y : memref<?x14x14x256xf16>
}

// -----

// An RGB stem (C = 3) goes through the explicit im2col: its scratch A has M rows (the
// arena planner sizes it at the max batch), its kernel is typed at the max batch's
// elements and launched on N * OH * (CTAs per output row) CTAs.
// CHECK-LABEL: func.func @main
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x16x16x64xf16>
// CHECK: arith.muli %{{.*}}, %c16 : index
// CHECK-NEXT: arith.constant 16 : index
// CHECK-NEXT: %[[M:.*]] = arith.muli %{{.*}}, %c16_{{[0-9]+}} : index
// CHECK: %[[A:.*]] = memref.alloc(%[[M]]) : memref<?x152xf16>
// CHECK: %[[CTAS:.*]] = arith.muli %[[N]], %c16{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_im2col_f16_Nle256x32x32x3_k7x7s2p3x3::@im2col_f16_Nle256x32x32x3_k7x7s2p3x3 blocks in (%[[CTAS]],
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_
// CHECK: gpu.func @im2col_f16_Nle256x32x32x3_k7x7s2p3x3
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [786432], strides: [1]
memref.global "private" constant @w7 : memref<64x7x7x3xf16> = dense<1.0>
kernel.func @Conv_2(%x: memref<?x32x32x3xf16>, %w: memref<64x7x7x3xf16>, %y: memref<?x16x16x64xf16>) {
  conv ins(%x, %w : memref<?x32x32x3xf16>, memref<64x7x7x3xf16>) outs(%y : memref<?x16x16x64xf16>) {
  ^bb0(%a: tensor<?x32x32x3xf16>, %b: tensor<64x7x7x3xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<?x32x32x3xf16>, tensor<64x7x7x3xf16>) -> tensor<?x16x16x64xf16>
    kernel.yield %r : tensor<?x16x16x64xf16>
  }
  return
}
func.func @main(%x: memref<?x32x32x3xf16> {kernel.min_shape = array<i64: 1, 32, 32, 3>, kernel.opt_shape = array<i64: 32, 32, 32, 3>, kernel.max_shape = array<i64: 256, 32, 32, 3>}) -> memref<?x16x16x64xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x32x32x3xf16>
  %y = memref.alloc(%n) : memref<?x16x16x64xf16>
  %w = memref.get_global @w7 : memref<64x7x7x3xf16>
  kernel.launch @Conv_2(%x, %w, %y) : (memref<?x32x32x3xf16>, memref<64x7x7x3xf16>, memref<?x16x16x64xf16>) -> ()
  return %y : memref<?x16x16x64xf16>
}

// -----

// A row variant (kernel-autotune's choice at the min shape, batch 1) for M <= 277 rows
// (batch 5 or less): its output boxes are chosen at batch 1 (one image of 7 x 7), its
// split-K workspace sized for 5 images (245 rows); the opt shape's configuration takes
// M > 277. Each launch's grid is selected to 0 outside its rows.
// CHECK-LABEL: func.func @main
// CHECK: %[[SMALL:.*]] = arith.cmpi ule, %[[M:.*]], %c277{{.*}} : index
// CHECK: memref.alloc() : memref<2x245x128xf32>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_Nx14x14x64_box1x7x7_k3x3s2p1x1_o128_128x128x64_s4_ws2_k2::
// CHECK: gpu.launch_func {{ *}}@kiln_split_k_reduce_f16_2x128::
// CHECK: arith.cmpi ugt, %[[M]], %c277{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_Nx14x14x64_box18x1x7_k3x3s2p1x1_o128_128x128x64_s4_ws2::
// CHECK-NOT: gpu.launch_func
// CHECK: return
memref.global "private" constant @wv : memref<128x3x3x64xf16> = dense<1.0>
kernel.func @Conv_3(%x: memref<?x14x14x64xf16>, %w: memref<128x3x3x64xf16>, %y: memref<?x7x7x128xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 277, config = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 2>>]} {
  conv ins(%x, %w : memref<?x14x14x64xf16>, memref<128x3x3x64xf16>) outs(%y : memref<?x7x7x128xf16>) {
  ^bb0(%a: tensor<?x14x14x64xf16>, %b: tensor<128x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x14x14x64xf16>, tensor<128x3x3x64xf16>) -> tensor<?x7x7x128xf16>
    kernel.yield %r : tensor<?x7x7x128xf16>
  }
  return
}
func.func @main(%x: memref<?x14x14x64xf16> {kernel.min_shape = array<i64: 1, 14, 14, 64>, kernel.opt_shape = array<i64: 32, 14, 14, 64>, kernel.max_shape = array<i64: 256, 14, 14, 64>}) -> memref<?x7x7x128xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x14x14x64xf16>
  %y = memref.alloc(%n) : memref<?x7x7x128xf16>
  %w = memref.get_global @wv : memref<128x3x3x64xf16>
  kernel.launch @Conv_3(%x, %w, %y) : (memref<?x14x14x64xf16>, memref<128x3x3x64xf16>, memref<?x7x7x128xf16>) -> ()
  return %y : memref<?x7x7x128xf16>
}

// -----

// With the large batches' variant too (kernel-autotune's choice at the max shape, batch
// 256) for M > 4434 rows (sqrt(1568 x 12544): batch 91 or more): three launches, the opt
// shape's configuration gated to 277 < M <= 4434, the large one 6 stages deep with the
// output boxes chosen at batch 256 (128 images of one position a tile).
// CHECK-LABEL: func.func @main
// CHECK: %[[SMALL:.*]] = arith.cmpi ule, %[[M:.*]], %c277{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_Nx14x14x64_box1x7x7_k3x3s2p1x1_o128_128x128x64_s4_ws2_k2::
// CHECK: gpu.launch_func {{ *}}@kiln_split_k_reduce_f16_2x128::
// CHECK: %[[ABOVE:.*]] = arith.cmpi ugt, %[[M]], %c277{{.*}} : index
// CHECK: %[[BELOW:.*]] = arith.cmpi ule, %[[M]], %c4434{{.*}} : index
// CHECK: arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_Nx14x14x64_box18x1x7_k3x3s2p1x1_o128_128x128x64_s4_ws2::
// CHECK: arith.cmpi ugt, %[[M]], %c4434{{.*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_Nx14x14x64_box128x1x1_k3x3s2p1x1_o128_128x128x64_s6_ws2::
// CHECK-NOT: gpu.launch_func
// CHECK: return
memref.global "private" constant @wl : memref<128x3x3x64xf16> = dense<1.0>
kernel.func @Conv_4(%x: memref<?x14x14x64xf16>, %w: memref<128x3x3x64xf16>, %y: memref<?x7x7x128xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 277, config = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 2>>, #kernel.row_variant<above_rows = 4434, config = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 6, consumers = 2>>]} {
  conv ins(%x, %w : memref<?x14x14x64xf16>, memref<128x3x3x64xf16>) outs(%y : memref<?x7x7x128xf16>) {
  ^bb0(%a: tensor<?x14x14x64xf16>, %b: tensor<128x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x14x14x64xf16>, tensor<128x3x3x64xf16>) -> tensor<?x7x7x128xf16>
    kernel.yield %r : tensor<?x7x7x128xf16>
  }
  return
}
func.func @main(%x: memref<?x14x14x64xf16> {kernel.min_shape = array<i64: 1, 14, 14, 64>, kernel.opt_shape = array<i64: 32, 14, 14, 64>, kernel.max_shape = array<i64: 256, 14, 14, 64>}) -> memref<?x7x7x128xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x14x14x64xf16>
  %y = memref.alloc(%n) : memref<?x7x7x128xf16>
  %w = memref.get_global @wl : memref<128x3x3x64xf16>
  kernel.launch @Conv_4(%x, %w, %y) : (memref<?x14x14x64xf16>, memref<128x3x3x64xf16>, memref<?x7x7x128xf16>) -> ()
  return %y : memref<?x7x7x128xf16>
}
