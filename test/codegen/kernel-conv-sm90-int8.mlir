// sm90_conv on an int8 convolution (graph-fold-quantized-products's form: i8 operands,
// i32 sums, an epilogue that rescales them to floats): the warp-specialised template with
// i8 operands, 4-D TMA boxes of 128 channels (128 bytes), the weight permuted at compile
// time to O x (KH KW C), K-major (`_oxk`), 4 wgmma m64nNk32.s32.s8.s8 a k-tile into i32
// accumulators, converted to f32 after the main loop for the fused epilogue: here the
// per-channel rescale, the bias, ReLU and the requantization of the next layer's input
// (divide, round half to even, clamp, convert), stored as i8. The epilogue runs on the
// accumulator fragments (Sm90StoreFragments.mlir): two consecutive columns a thread at
// once, their two result bytes packed by one `prmt` into a 16-bit store to a 128 x 144
// byte staging (rows padded by 16 bytes), from which each warp stores its own 16 rows in
// 16-byte vectors after a warp-level barrier.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// 3x3, stride 1, padding 1, 64 channels. By default a 64-byte k-tile a tap (tile_k = 64,
// twice the stages: the 128-byte one would be half zeros): 64B-swizzled TMA boxes of 64
// channels, the weight 128 x (9 x 64), 2 wgmma k32 a k-tile, whose descriptors the
// template builds (upstream's op takes 128B-swizzled tiles only): layout 2 (64B swizzle)
// in bits 62-63, a stride of 512 bytes (8 rows of 64) / 16 = 32 in bits 32-45, a leading
// offset of 1: -9223371899415756800 ORed with the shared address / 16.
// CHECK-LABEL: memref.global "private" constant @w_oxk : memref<128x576xi8>
// CHECK-LABEL: func.func @main
// CHECK: nvgpu.tma.create.descriptor %{{.*}} : memref<*xi8> -> <tensor = memref<{{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}x64xi8, 3>, swizzle = swizzle_64b
// CHECK: memref.get_global @w_oxk : memref<128x576xi8>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xi8> -> <tensor = memref<64x64xi8, 3>, swizzle = swizzle_64b
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_i8_2x16x16x64_k3x3s1p1x1_o128_128x128x64_s8_ws2_i8_cast_mul_add_relu_div_round_clip_cast_{{[0-9a-f]+}}::
// The requantization (divide, round, clamp, convert) is one fused multiply-add of 1.5 x
// 2^23 (0x4B400000), which rounds, a clamp to [-128, 127] + 1.5 x 2^23, and the low byte
// of the result's bits: no conversion instructions (an eighth of the f32 rate on sm_90).
// The ReLU before it is no instruction of its own: the clamp's lower bound is 0 instead.
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 0x4B400000 : f32
// CHECK-DAG: %[[HIGH:.*]] = arith.constant 0x4B40007F : f32
// CHECK-DAG: %[[STEP:.*]] = arith.constant 2.000000e+01 : f32
// CHECK-DAG: %[[LAYOUT:.*]] = arith.constant -9223371899415756800 : i64
// CHECK: llvm.mlir.zero : !llvm.struct<(struct<(i32,
// CHECK: arith.ori %{{.*}}, %[[LAYOUT]] : i64
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.sitofp {{.*}} : i32 to f32
// CHECK-NOT: arith.maximumf
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[STEP]] fastmath<contract> : f32
// CHECK: %[[BIASED:.*]] = arith.addf %[[SCALED]], %[[BIAS]] fastmath<contract> : f32
// CHECK: %[[RAISED:.*]] = arith.maxnumf %[[BIASED]], %[[BIAS]] : f32
// CHECK: arith.minnumf %[[RAISED]], %[[HIGH]] : f32
// CHECK-NOT: math.roundeven
// CHECK: %[[STORED:.*]] = vector.from_elements {{.*}} : vector<2xf32>
// CHECK: %[[BITS:.*]] = arith.bitcast %[[STORED]] : vector<2xf32> to vector<2xi32>
// CHECK: %[[PACKED:.*]] = nvvm.prmt <default> %c64_i32, %{{.*}}, %{{.*}} : i32
// CHECK: arith.trunci %[[PACKED]] : i32 to i16
// CHECK: vector.store %{{.*}} {alignment = 2 : i64} : memref<128x144xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-COUNT-31: vector.store %{{.*}} {alignment = 2 : i64} : memref<128x144xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: vector.store %{{.*}} : memref<128x144xi8
// CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<128x144xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?xi8, strided<[1], offset: ?>>, vector<16xi8>
// PTX-LABEL: .visible .entry conv_i8_2x16x16x64_k3x3s1p1x1_o128_128x128x64_s8_ws2_i8_cast_mul_add_relu_div_round_clip_cast_{{[0-9a-f]+}}(
// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8
// PTX-NOT: cvt.rni
// PTX-NOT: cvt.rzi
// PTX: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f41A00000, 0f4B400000;
// PTX-NEXT: max.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f4B400000;
// PTX-NEXT: min.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f4B40007F;
// PTX: prmt.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, 0x40U;
// PTX-NEXT: st.shared.b16
// PTX-NOT: cvt.rni
// PTX-NOT: cvt.rzi
// PTX-NOT: st.shared.v2.b32
// PTX: bar.warp.sync
// PTX: ld.shared.v4.b32
// PTX: st.global.v4.b32
memref.global "private" constant @w : memref<128x3x3x64xi8> = dense<3>
memref.global "private" constant @scale : memref<128xf32> = dense<0.001>
memref.global "private" constant @bias : memref<128xf32> = dense<0.5>
kernel.func @Conv_0(%x: memref<2x16x16x64xi8>, %w: memref<128x3x3x64xi8>, %s: memref<128xf32>, %b: memref<128xf32>, %y: memref<2x16x16x128xi8>) {
  conv ins(%x, %w, %s, %b : memref<2x16x16x64xi8>, memref<128x3x3x64xi8>, memref<128xf32>, memref<128xf32>) outs(%y : memref<2x16x16x128xi8>) {
  ^bb0(%a: tensor<2x16x16x64xi8>, %k: tensor<128x3x3x64xi8>, %sc: tensor<128xf32>, %bi: tensor<128xf32>):
    %step = graph.constant dense<0.05> : tensor<f32>
    %lo = graph.constant dense<-128.0> : tensor<f32>
    %hi = graph.constant dense<127.0> : tensor<f32>
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x16x16x64xi8>, tensor<128x3x3x64xi8>) -> tensor<2x16x16x128xi32>
    %f = graph.cast %acc {to = f32} : (tensor<2x16x16x128xi32>) -> tensor<2x16x16x128xf32>
    %m = graph.mul %f, %sc : (tensor<2x16x16x128xf32>, tensor<128xf32>) -> tensor<2x16x16x128xf32>
    %p = graph.add %m, %bi : (tensor<2x16x16x128xf32>, tensor<128xf32>) -> tensor<2x16x16x128xf32>
    %r = graph.relu %p : tensor<2x16x16x128xf32>
    %d = graph.div %r, %step : (tensor<2x16x16x128xf32>, tensor<f32>) -> tensor<2x16x16x128xf32>
    %n = graph.round %d : tensor<2x16x16x128xf32>
    %c = graph.clip %n min %lo max %hi : (tensor<2x16x16x128xf32>, tensor<f32>, tensor<f32>) -> tensor<2x16x16x128xf32>
    %q = graph.cast %c {to = i8} : (tensor<2x16x16x128xf32>) -> tensor<2x16x16x128xi8>
    kernel.yield %q : tensor<2x16x16x128xi8>
  }
  return
}
func.func @main(%x: memref<2x16x16x64xi8>, %y: memref<2x16x16x128xi8>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<128x3x3x64xi8>
  %s = memref.get_global @scale : memref<128xf32>
  %b = memref.get_global @bias : memref<128xf32>
  kernel.launch @Conv_0(%x, %w, %s, %b, %y) : (memref<2x16x16x64xi8>, memref<128x3x3x64xi8>, memref<128xf32>, memref<128xf32>, memref<2x16x16x128xi8>) -> ()
  return
}

// -----

// The same convolution under a 128-byte k-tile configuration (tile_k = 128, which
// kernel-autotune may choose): one k-tile a tap, its second half zero-filled by TMA and
// matched by zero columns of the weight (128 x 9 x 128), 4 wgmma k32 a k-tile, upstream's
// descriptors of 128B-swizzled tiles.
// CHECK-LABEL: memref.global "private" constant @w64_oxk : memref<128x1152xi8>
// CHECK-LABEL: func.func @main
// CHECK: nvgpu.tma.create.descriptor %{{.*}} : memref<*xi8> -> <tensor = memref<{{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}x128xi8, 3>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c128{{.*}}] : memref<*xi8> -> <tensor = memref<64x128xi8, 3>, swizzle = swizzle_128b
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_conv_i8_2x16x16x64_k3x3s1p1x1_o128_128x128x128_s4_ws2_i8_
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// PTX-LABEL: .visible .entry conv_i8_2x16x16x64_k3x3s1p1x1_o128_128x128x128_s4_ws2_i8_
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8
// PTX-NOT: wgmma.mma_async
// PTX: wgmma.commit_group.sync.aligned
memref.global "private" constant @w64 : memref<128x3x3x64xi8> = dense<3>
memref.global "private" constant @scale64 : memref<128xf32> = dense<0.001>
memref.global "private" constant @bias64 : memref<128xf32> = dense<0.5>
kernel.func @Conv_64(%x: memref<2x16x16x64xi8>, %w: memref<128x3x3x64xi8>, %s: memref<128xf32>, %b: memref<128xf32>, %y: memref<2x16x16x128xi8>) attributes {kernel.config = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 128, stages = 4, consumers = 2, int8 = true>} {
  conv ins(%x, %w, %s, %b : memref<2x16x16x64xi8>, memref<128x3x3x64xi8>, memref<128xf32>, memref<128xf32>) outs(%y : memref<2x16x16x128xi8>) {
  ^bb0(%a: tensor<2x16x16x64xi8>, %k: tensor<128x3x3x64xi8>, %sc: tensor<128xf32>, %bi: tensor<128xf32>):
    %step = graph.constant dense<0.05> : tensor<f32>
    %lo = graph.constant dense<-128.0> : tensor<f32>
    %hi = graph.constant dense<127.0> : tensor<f32>
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x16x16x64xi8>, tensor<128x3x3x64xi8>) -> tensor<2x16x16x128xi32>
    %f = graph.cast %acc {to = f32} : (tensor<2x16x16x128xi32>) -> tensor<2x16x16x128xf32>
    %m = graph.mul %f, %sc : (tensor<2x16x16x128xf32>, tensor<128xf32>) -> tensor<2x16x16x128xf32>
    %p = graph.add %m, %bi : (tensor<2x16x16x128xf32>, tensor<128xf32>) -> tensor<2x16x16x128xf32>
    %r = graph.relu %p : tensor<2x16x16x128xf32>
    %d = graph.div %r, %step : (tensor<2x16x16x128xf32>, tensor<f32>) -> tensor<2x16x16x128xf32>
    %n = graph.round %d : tensor<2x16x16x128xf32>
    %c = graph.clip %n min %lo max %hi : (tensor<2x16x16x128xf32>, tensor<f32>, tensor<f32>) -> tensor<2x16x16x128xf32>
    %q = graph.cast %c {to = i8} : (tensor<2x16x16x128xf32>) -> tensor<2x16x16x128xi8>
    kernel.yield %q : tensor<2x16x16x128xi8>
  }
  return
}
func.func @main(%x: memref<2x16x16x64xi8>, %y: memref<2x16x16x128xi8>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w64 : memref<128x3x3x64xi8>
  %s = memref.get_global @scale64 : memref<128xf32>
  %b = memref.get_global @bias64 : memref<128xf32>
  kernel.launch @Conv_64(%x, %w, %s, %b, %y) : (memref<2x16x16x64xi8>, memref<128x3x3x64xi8>, memref<128xf32>, memref<128xf32>, memref<2x16x16x128xi8>) -> ()
  return
}

// -----

// An RGB stem (7x7, stride 2, 3 channels): an explicit im2col of i8 (KH KW C = 147 columns
// rounded up to 160, 16-byte rows), then the row-major product; the rescaled sums are
// stored as f16. A CTA of the im2col writes the rows of one output row (16 CTAs): it
// copies the 7 input rows its windows read into shared memory (777 bytes, 4 a thread,
// their loads issued before the first store, the window padded to 1024 bytes so that
// no branch guards the stores), copies each filter row's 21 consecutive bytes of the
// window into the rows of A staged there (a warp a row: lane l copies the row's columns
// l, l + 32, .. l + 128, five loads and stores in the loop over the warp's rows), then
// stores the rows in 16-byte vectors.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_im2col_i8_1x32x32x3_k7x7s2p3x3::{{.*}} blocks in (%c16,
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_i8_f16_bt_{{.*}}_i8_cast_mul_cast_{{[0-9a-f]+}}_sb::
// CHECK-SAME: %c256_i32 : i32, %c64_i32 : i32, %c160_i32 : i32
// PTX-LABEL: .visible .entry im2col_i8_1x32x32x3_k7x7s2p3x3(
// PTX-NOT: .local
// PTX: ld.global.{{(nc.)?}}{{[bu]}}8
// PTX-NOT: st.shared
// PTX: ld.global.{{(nc.)?}}{{[bu]}}8
// PTX-NOT: st.shared
// PTX: ld.global.{{(nc.)?}}{{[bu]}}8
// PTX-NOT: st.shared
// PTX: ld.global.{{(nc.)?}}{{[bu]}}8
// PTX-NOT: ld.global
// PTX: st.shared.{{[bu]}}8 [%rd[[WINDOW:[0-9]+]]], %rs{{[0-9]+}};
// PTX: st.shared.{{[bu]}}8 [%rd[[WINDOW]]+256], %rs{{[0-9]+}};
// PTX: st.shared.{{[bu]}}8 [%rd[[WINDOW]]+512], %rs{{[0-9]+}};
// PTX: st.shared.{{[bu]}}8 [%rd[[WINDOW]]+768], %rs{{[0-9]+}};
// PTX-NEXT: bar.sync 0;
// PTX-NOT: ld.global
// PTX-COUNT-5: ld.shared.{{[bu]}}8
// PTX-NOT: ld.shared
// PTX: bar.sync 0;
// PTX-NOT: ld.global
// PTX: ld.shared.v4.b32
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry gemm_i8_f16_bt_{{.*}}_i8_cast_mul_cast_{{[0-9a-f]+}}_sb(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8
memref.global "private" constant @w7 : memref<64x7x7x3xi8> = dense<-2>
memref.global "private" constant @scale7 : memref<64xf32> = dense<0.002>
kernel.func @Conv_1(%x: memref<1x32x32x3xi8>, %w: memref<64x7x7x3xi8>, %s: memref<64xf32>, %y: memref<1x16x16x64xf16>) {
  conv ins(%x, %w, %s : memref<1x32x32x3xi8>, memref<64x7x7x3xi8>, memref<64xf32>) outs(%y : memref<1x16x16x64xf16>) {
  ^bb0(%a: tensor<1x32x32x3xi8>, %k: tensor<64x7x7x3xi8>, %sc: tensor<64xf32>):
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x32x32x3xi8>, tensor<64x7x7x3xi8>) -> tensor<1x16x16x64xi32>
    %f = graph.cast %acc {to = f32} : (tensor<1x16x16x64xi32>) -> tensor<1x16x16x64xf32>
    %m = graph.mul %f, %sc : (tensor<1x16x16x64xf32>, tensor<64xf32>) -> tensor<1x16x16x64xf32>
    %h = graph.cast %m {to = f16} : (tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf16>
    kernel.yield %h : tensor<1x16x16x64xf16>
  }
  return
}
func.func @main(%x: memref<1x32x32x3xi8>, %y: memref<1x16x16x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w7 : memref<64x7x7x3xi8>
  %s = memref.get_global @scale7 : memref<64xf32>
  kernel.launch @Conv_1(%x, %w, %s, %y) : (memref<1x32x32x3xi8>, memref<64x7x7x3xi8>, memref<64xf32>, memref<1x16x16x64xf16>) -> ()
  return
}

// -----

// The last 1x1 conv of a residual block: its epilogue adds the quantized skip connection
// (an i8 input of the output's shape, read two bytes a fragment pair and converted as it
// is read: per byte a `prmt` under the upper bytes of 1.5 x 2^23 (0x4B400000), the sign
// flipped by an xor a pair, and a subtraction; no conversion instructions), and
// requantizes the block's output, stored as i8 only. The skip connection comes through
// shared memory: the producer's TMA load of each tile's 128 x 144 box (128 columns and 16
// bytes of padding a row, so that a warp's 8 rows of pairs fall on different banks); a
// thread's pairs lie at constant offsets from one address.
// CHECK-LABEL: func.func @main
// The sums of 64 products (|sum| <= 64 x 128 x 128 <= 2^22) reach f32 without conversion
// instructions (`_sb`): added to the bits of 1.5 x 2^23 after the main loop, staged so,
// and unbiased by a subtraction as the epilogue loads them.
// K = 64 fills half of a 128-byte k-tile: the default takes 64-byte k-tiles (A's box 128
// rows of 64 bytes, 64B-swizzled; twice the stages in the same ring), two wgmma a tile.
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c64{{.*}}] : memref<*xi8> -> <tensor = memref<128x64xi8, 3>, swizzle = swizzle_64b
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_i8_i8_bt_128x128x64_s8_ws2_i8_cast_mul_cast_mul_add_relu_div_round_clip_cast_{{[0-9a-f]+}}_r_sb::
// CHECK-SAME: !nvgpu.tensormap.descriptor<tensor = memref<128x144xi8, 3>, swizzle = none
// CHECK-DAG: %[[FLIP:.*]] = arith.constant -2139062144 : i32
// CHECK-DAG: %[[UPPER:.*]] = arith.constant 1262485504 : i32
// CHECK-DAG: %[[OFFSET:.*]] = arith.constant 0x4B400080 : f32
// CHECK-DAG: %[[BYTE1:.*]] = arith.constant 30273 : i32
// CHECK: %[[SUMBIAS:.*]] = llvm.mlir.constant(1262485504 : i32) : i32
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: %[[BIASED:.*]] = llvm.add %{{.*}}, %[[SUMBIAS]] : i32
// CHECK: llvm.bitcast %[[BIASED]] : i32 to f32
// CHECK-NOT: llvm.sitofp
// CHECK: %[[SKIP:.*]] = vector.load {{.*}} {alignment = 2 : i64} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK: %[[HALF:.*]] = vector.bitcast %[[SKIP]] : vector<2xi8> to vector<1xi16>
// CHECK: %[[HALFWORD:.*]] = vector.extract %[[HALF]][0] : i16 from vector<1xi16>
// CHECK: %[[WORD:.*]] = arith.extui %[[HALFWORD]] : i16 to i32
// CHECK: %[[UNSIGNED:.*]] = arith.xori %[[WORD]], %[[FLIP]] : i32
// CHECK: nvvm.prmt <default> %{{.*}}, %[[UNSIGNED]], %[[UPPER]] : i32
// CHECK: %[[PERMUTED:.*]] = nvvm.prmt <default> %[[BYTE1]], %[[UNSIGNED]], %[[UPPER]] : i32
// CHECK: %[[BITS:.*]] = arith.bitcast %[[PERMUTED]] : i32 to f32
// CHECK: arith.subf %[[BITS]], %[[OFFSET]] fastmath<contract> : f32
// PTX-LABEL: .visible .entry gemm_i8_i8_bt_{{.*}}_i8_cast_mul_cast_mul_add_relu_div_round_clip_cast_{{[0-9a-f]+}}_r_sb(
// PTX: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.s32.s8.s8
// PTX-NOT: cvt.rn.f32.s
// PTX-NOT: cvt.s32.s8
// With one CTA an SM the epilogue's loads come first (`hoist_loads`): the 32 residual
// pairs of a thread, each at a constant offset.
// PTX-COUNT-32: ld.shared.b16 %r{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}];
// PTX: prmt.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1262485504, 0x7641U;
// PTX: add.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0fCB400080;
// PTX: st.shared.b16
// PTX: st.global.v4.b32
memref.global "private" constant @w1 : memref<256x1x1x64xi8> = dense<5>
memref.global "private" constant @scale1 : memref<256xf32> = dense<0.003>
kernel.func @Conv_2(%x: memref<2x8x8x64xi8>, %w: memref<256x1x1x64xi8>, %s: memref<256xf32>, %skip: memref<2x8x8x256xi8>, %y: memref<2x8x8x256xi8>) {
  conv ins(%x, %w, %s, %skip : memref<2x8x8x64xi8>, memref<256x1x1x64xi8>, memref<256xf32>, memref<2x8x8x256xi8>) outs(%y : memref<2x8x8x256xi8>) {
  ^bb0(%a: tensor<2x8x8x64xi8>, %k: tensor<256x1x1x64xi8>, %sc: tensor<256xf32>, %sk: tensor<2x8x8x256xi8>):
    %skipScale = graph.constant dense<0.04> : tensor<f32>
    %step = graph.constant dense<0.05> : tensor<f32>
    %lo = graph.constant dense<-128.0> : tensor<f32>
    %hi = graph.constant dense<127.0> : tensor<f32>
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x8x8x64xi8>, tensor<256x1x1x64xi8>) -> tensor<2x8x8x256xi32>
    %f = graph.cast %acc {to = f32} : (tensor<2x8x8x256xi32>) -> tensor<2x8x8x256xf32>
    %m = graph.mul %f, %sc : (tensor<2x8x8x256xf32>, tensor<256xf32>) -> tensor<2x8x8x256xf32>
    %sf = graph.cast %sk {to = f32} : (tensor<2x8x8x256xi8>) -> tensor<2x8x8x256xf32>
    %sd = graph.mul %sf, %skipScale : (tensor<2x8x8x256xf32>, tensor<f32>) -> tensor<2x8x8x256xf32>
    %p = graph.add %m, %sd : (tensor<2x8x8x256xf32>, tensor<2x8x8x256xf32>) -> tensor<2x8x8x256xf32>
    %r = graph.relu %p : tensor<2x8x8x256xf32>
    %d = graph.div %r, %step : (tensor<2x8x8x256xf32>, tensor<f32>) -> tensor<2x8x8x256xf32>
    %n = graph.round %d : tensor<2x8x8x256xf32>
    %c = graph.clip %n min %lo max %hi : (tensor<2x8x8x256xf32>, tensor<f32>, tensor<f32>) -> tensor<2x8x8x256xf32>
    %q = graph.cast %c {to = i8} : (tensor<2x8x8x256xf32>) -> tensor<2x8x8x256xi8>
    kernel.yield %q : tensor<2x8x8x256xi8>
  }
  return
}
func.func @main(%x: memref<2x8x8x64xi8>, %skip: memref<2x8x8x256xi8>, %y: memref<2x8x8x256xi8>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @w1 : memref<256x1x1x64xi8>
  %s = memref.get_global @scale1 : memref<256xf32>
  kernel.launch @Conv_2(%x, %w, %s, %skip, %y) : (memref<2x8x8x64xi8>, memref<256x1x1x64xi8>, memref<256xf32>, memref<2x8x8x256xi8>, memref<2x8x8x256xi8>) -> ()
  return
}

// -----

// The same with 24 output channels (MobileNetV2's narrowest block): rows of 24 bytes,
// which TMA cannot address (its strides are multiples of 16 bytes), so the skip
// connection is read from global memory (no `_r`), two bytes a fragment pair, and the
// results leave 8 bytes a thread (`_v8`); the tile's columns past N (`_nt`) are tested.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_i8_i8_bt_{{.*}}_i8_v8_cast_mul_cast_mul_add_relu_div_round_clip_cast_{{[0-9a-f]+}}_nt_sb::
// CHECK-NOT: swizzle = none
// CHECK: vector.load {{.*}} : memref<?xi8>, vector<2xi8>
// CHECK: vector.load {{.*}} : memref<128x80xi8, #gpu.address_space<workgroup>>, vector<8xi8>
memref.global "private" constant @w24 : memref<24x1x1x64xi8> = dense<5>
memref.global "private" constant @scale24 : memref<24xf32> = dense<0.003>
kernel.func @Conv_3(%x: memref<2x8x8x64xi8>, %w: memref<24x1x1x64xi8>, %s: memref<24xf32>, %skip: memref<2x8x8x24xi8>, %y: memref<2x8x8x24xi8>) {
  conv ins(%x, %w, %s, %skip : memref<2x8x8x64xi8>, memref<24x1x1x64xi8>, memref<24xf32>, memref<2x8x8x24xi8>) outs(%y : memref<2x8x8x24xi8>) {
  ^bb0(%a: tensor<2x8x8x64xi8>, %k: tensor<24x1x1x64xi8>, %sc: tensor<24xf32>, %sk: tensor<2x8x8x24xi8>):
    %skipScale = graph.constant dense<0.04> : tensor<f32>
    %step = graph.constant dense<0.05> : tensor<f32>
    %lo = graph.constant dense<-128.0> : tensor<f32>
    %hi = graph.constant dense<127.0> : tensor<f32>
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x8x8x64xi8>, tensor<24x1x1x64xi8>) -> tensor<2x8x8x24xi32>
    %f = graph.cast %acc {to = f32} : (tensor<2x8x8x24xi32>) -> tensor<2x8x8x24xf32>
    %m = graph.mul %f, %sc : (tensor<2x8x8x24xf32>, tensor<24xf32>) -> tensor<2x8x8x24xf32>
    %sf = graph.cast %sk {to = f32} : (tensor<2x8x8x24xi8>) -> tensor<2x8x8x24xf32>
    %sd = graph.mul %sf, %skipScale : (tensor<2x8x8x24xf32>, tensor<f32>) -> tensor<2x8x8x24xf32>
    %p = graph.add %m, %sd : (tensor<2x8x8x24xf32>, tensor<2x8x8x24xf32>) -> tensor<2x8x8x24xf32>
    %r = graph.relu %p : tensor<2x8x8x24xf32>
    %d = graph.div %r, %step : (tensor<2x8x8x24xf32>, tensor<f32>) -> tensor<2x8x8x24xf32>
    %n = graph.round %d : tensor<2x8x8x24xf32>
    %c = graph.clip %n min %lo max %hi : (tensor<2x8x8x24xf32>, tensor<f32>, tensor<f32>) -> tensor<2x8x8x24xf32>
    %q = graph.cast %c {to = i8} : (tensor<2x8x8x24xf32>) -> tensor<2x8x8x24xi8>
    kernel.yield %q : tensor<2x8x8x24xi8>
  }
  return
}
func.func @main(%x: memref<2x8x8x64xi8>, %skip: memref<2x8x8x24xi8>, %y: memref<2x8x8x24xi8>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @w24 : memref<24x1x1x64xi8>
  %s = memref.get_global @scale24 : memref<24xf32>
  kernel.launch @Conv_3(%x, %w, %s, %skip, %y) : (memref<2x8x8x64xi8>, memref<24x1x1x64xi8>, memref<24xf32>, memref<2x8x8x24xi8>, memref<2x8x8x24xi8>) -> ()
  return
}

// -----

// The same residual conv on a persistent grid (4 images: 196 tiles, more than the SMs;
// `kernel.config` asks one CTA an SM, 2 stages). The fragment staging lies past the ring
// and each warp reuses only its own rows, so no barrier of both consumer warpgroups comes
// between the main loop and the epilogue (the one-tile kernels above wait at one: their
// staging reuses the ring that the other warpgroup's wgmma read); the residual's slot is
// waited for, and every residual pair a thread reads is loaded before its first product.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_i8_i8_bt_128x128x128_s2_ws2_p_{{.*}}_r_sb::
// CHECK: gpu.func @gemm_i8_i8_bt_128x128x128_s2_ws2_p_
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.barrier
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: arith.mulf
// CHECK: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<2xi8>
// CHECK-NOT: vector.load %{{.*}} : memref<1x{{[0-9]+}}xi8
// CHECK: arith.mulf
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.bar.warp.sync
memref.global "private" constant @w1 : memref<256x1x1x64xi8> = dense<5>
memref.global "private" constant @scale1 : memref<256xf32> = dense<0.003>
kernel.func @Conv_2(%x: memref<4x56x56x64xi8>, %w: memref<256x1x1x64xi8>, %s: memref<256xf32>, %skip: memref<4x56x56x256xi8>, %y: memref<4x56x56x256xi8>) attributes {kernel.config = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 128, stages = 2, consumers = 2, persistent = true, int8 = true>} {
  conv ins(%x, %w, %s, %skip : memref<4x56x56x64xi8>, memref<256x1x1x64xi8>, memref<256xf32>, memref<4x56x56x256xi8>) outs(%y : memref<4x56x56x256xi8>) {
  ^bb0(%a: tensor<4x56x56x64xi8>, %k: tensor<256x1x1x64xi8>, %sc: tensor<256xf32>, %sk: tensor<4x56x56x256xi8>):
    %skipScale = graph.constant dense<0.04> : tensor<f32>
    %step = graph.constant dense<0.05> : tensor<f32>
    %lo = graph.constant dense<-128.0> : tensor<f32>
    %hi = graph.constant dense<127.0> : tensor<f32>
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<4x56x56x64xi8>, tensor<256x1x1x64xi8>) -> tensor<4x56x56x256xi32>
    %f = graph.cast %acc {to = f32} : (tensor<4x56x56x256xi32>) -> tensor<4x56x56x256xf32>
    %m = graph.mul %f, %sc : (tensor<4x56x56x256xf32>, tensor<256xf32>) -> tensor<4x56x56x256xf32>
    %sf = graph.cast %sk {to = f32} : (tensor<4x56x56x256xi8>) -> tensor<4x56x56x256xf32>
    %sd = graph.mul %sf, %skipScale : (tensor<4x56x56x256xf32>, tensor<f32>) -> tensor<4x56x56x256xf32>
    %p = graph.add %m, %sd : (tensor<4x56x56x256xf32>, tensor<4x56x56x256xf32>) -> tensor<4x56x56x256xf32>
    %r = graph.relu %p : tensor<4x56x56x256xf32>
    %d = graph.div %r, %step : (tensor<4x56x56x256xf32>, tensor<f32>) -> tensor<4x56x56x256xf32>
    %n = graph.round %d : tensor<4x56x56x256xf32>
    %c = graph.clip %n min %lo max %hi : (tensor<4x56x56x256xf32>, tensor<f32>, tensor<f32>) -> tensor<4x56x56x256xf32>
    %q = graph.cast %c {to = i8} : (tensor<4x56x56x256xf32>) -> tensor<4x56x56x256xi8>
    kernel.yield %q : tensor<4x56x56x256xi8>
  }
  return
}
func.func @main(%x: memref<4x56x56x64xi8>, %skip: memref<4x56x56x256xi8>, %y: memref<4x56x56x256xi8>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @w1 : memref<256x1x1x64xi8>
  %s = memref.get_global @scale1 : memref<256xf32>
  kernel.launch @Conv_2(%x, %w, %s, %skip, %y) : (memref<4x56x56x64xi8>, memref<256x1x1x64xi8>, memref<256xf32>, memref<4x56x56x256xi8>, memref<4x56x56x256xi8>) -> ()
  return
}
