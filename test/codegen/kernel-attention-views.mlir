// flash_attention on attention kernels whose operands are views: the heads split
// out of a fused QKV projection (slice of the last axis, reshape to [B, S, H, D],
// transpose), a [B, S, H, D] buffer transposed, and a dynamic engine's kernel whose
// batch and sequence are known only at run time. The template reads each of Q, K, V and
// O at offset + b * batch stride + h * head stride + row * row stride (the launch's last
// 16 i32s, docs/codegen-attention.md "ABI"), so no copy of the heads is made.
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=flash_attention" --kernel-instantiate-templates=target=sm_80 %s -split-input-file | FileCheck %s

// A fused QKV buffer [2, 16, 2304]: Q, K and V are the columns 0, 768 and 1536 of each
// row, head h at 64 h; the row stride is 2304, the batch stride 16 * 2304. O is [2, 12,
// 16, 64] as it is. The mask [2, 1, 16, 16]: strides 256, 0, 16, 1.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4_maskf16_nz::@flash_attention_f16_d64_64x64x2w4_maskf16_nz blocks in (%c1{{[_0-9]*}}, %c24{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK-SAME: %c12_i32 : i32, %c1_i32 : i32, %c16_i32 : i32, %c16_i32{{[_0-9]*}} : i32, %c256_i32 : i32, %c0_i32{{[_0-9]*}} : i32, %c16_i32{{[_0-9]*}} : i32, %c1_i32{{[_0-9]*}} : i32, %cst : f32,
// CHECK-SAME: %c0_i32{{[_0-9]*}} : i32, %c36864_i32 : i32, %c64_i32 : i32, %c2304_i32 : i32,
// CHECK-SAME: %c768_i32 : i32, %c36864_i32{{[_0-9]*}} : i32, %c64_i32{{[_0-9]*}} : i32, %c2304_i32{{[_0-9]*}} : i32,
// CHECK-SAME: %c1536_i32 : i32, %c36864_i32{{[_0-9]*}} : i32, %c64_i32{{[_0-9]*}} : i32, %c2304_i32{{[_0-9]*}} : i32,
// CHECK-SAME: %c0_i32{{[_0-9]*}} : i32, %c12288_i32 : i32, %c1024_i32 : i32, %c64_i32{{[_0-9]*}} : i32)
kernel.func @FusedQkv(%qkv: memref<2x16x2304xf16>, %m: memref<2x1x16x16xf16>, %o: memref<2x12x16x64xf16>) {
  attention ins(%qkv, %m : memref<2x16x2304xf16>, memref<2x1x16x16xf16>) outs(%o : memref<2x12x16x64xf16>) {
  ^bb0(%x: tensor<2x16x2304xf16>, %mask: tensor<2x1x16x16xf16>):
    %c0 = graph.constant dense<0> : tensor<1xi64>
    %c768 = graph.constant dense<768> : tensor<1xi64>
    %c1536 = graph.constant dense<1536> : tensor<1xi64>
    %c2304 = graph.constant dense<2304> : tensor<1xi64>
    %axis = graph.constant dense<2> : tensor<1xi64>
    %shape = graph.constant dense<[2, 16, -1, 64]> : tensor<4xi64>
    %qs = graph.slice %x, %c0, %c768 axes %axis : (tensor<2x16x2304xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x16x768xf16>
    %qr = graph.reshape %qs, %shape {allowzero = false} : (tensor<2x16x768xf16>, tensor<4xi64>) -> tensor<2x16x12x64xf16>
    %q = graph.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x12x64xf16>) -> tensor<2x12x16x64xf16>
    %ks = graph.slice %x, %c768, %c1536 axes %axis : (tensor<2x16x2304xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x16x768xf16>
    %kr = graph.reshape %ks, %shape {allowzero = false} : (tensor<2x16x768xf16>, tensor<4xi64>) -> tensor<2x16x12x64xf16>
    %k = graph.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x12x64xf16>) -> tensor<2x12x16x64xf16>
    %vs = graph.slice %x, %c1536, %c2304 axes %axis : (tensor<2x16x2304xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x16x768xf16>
    %vr = graph.reshape %vs, %shape {allowzero = false} : (tensor<2x16x768xf16>, tensor<4xi64>) -> tensor<2x16x12x64xf16>
    %v = graph.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x12x64xf16>) -> tensor<2x12x16x64xf16>
    %r = graph.attention %q, %k, %v, %mask {nan_to_zero, scale = 0.125 : f32} : (tensor<2x12x16x64xf16>, tensor<2x12x16x64xf16>, tensor<2x12x16x64xf16>, tensor<2x1x16x16xf16>) -> tensor<2x12x16x64xf16>
    kernel.yield %r : tensor<2x12x16x64xf16>
  }
  return
}
func.func @main(%qkv: memref<2x16x2304xf16>, %m: memref<2x1x16x16xf16>) -> memref<2x12x16x64xf16> attributes {kernel.num_inputs = 2 : i64} {
  %o = memref.alloc() : memref<2x12x16x64xf16>
  kernel.launch @FusedQkv(%qkv, %m, %o) : (memref<2x16x2304xf16>, memref<2x1x16x16xf16>, memref<2x12x16x64xf16>) -> ()
  return %o : memref<2x12x16x64xf16>
}

// -----

// [B, S, H, D] buffers transposed to [B, H, S, D]: row stride H * D = 192, head stride
// 64, batch stride 128 * 192.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4::@flash_attention_f16_d64_64x64x2w4 blocks in (%c2{{[_0-9]*}}, %c6{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK-SAME: %cst : f32, %c0_i32{{[_0-9]*}} : i32, %c24576_i32 : i32, %c64_i32 : i32, %c192_i32 : i32,
kernel.func @TransposedHeads(%q: memref<2x128x3x64xf16>, %o: memref<2x3x128x64xf16>) {
  attention ins(%q : memref<2x128x3x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x128x3x64xf16>):
    %t = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x128x3x64xf16>) -> tensor<2x3x128x64xf16>
    %r = graph.attention %t, %t, %t {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x128x3x64xf16>) -> memref<2x3x128x64xf16> attributes {kernel.num_inputs = 1 : i64} {
  %o = memref.alloc() : memref<2x3x128x64xf16>
  kernel.launch @TransposedHeads(%q, %o) : (memref<2x128x3x64xf16>, memref<2x3x128x64xf16>) -> ()
  return %o : memref<2x3x128x64xf16>
}

// -----

// A dynamic engine's kernel: Q, K and V [B, S, 768] reshaped with the kernel's symbols
// (batch, sequence) to [B, S, 12, 64]; the mask [B, 1, S, S], O [B, 12, S, 64]. The host
// computes the grid (ceil(S / 64), B * 12), Sq and Skv, the strides (batch S * 768 of
// Q, K and V, S * 768 of O, S * S of the mask; a stride is 0 where its extent is 1 at
// run time) from the buffers' extents and the symbols; the engine's shape program
// evaluates them per input shape. The configuration is chosen at the opt shape.
// CHECK-LABEL: func.func @main
// CHECK: %[[B:.*]] = memref.dim %arg0, %c0
// CHECK: %[[S:.*]] = memref.dim %arg0, %c1
// CHECK: %[[O:.*]] = memref.alloc(%[[B]], %[[S]]) : memref<?x12x?x64xf16>
// CHECK: memref.dim %arg1, %c3
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[OS:.*]], %c64 : index
// CHECK: %[[QROWS:.*]] = arith.muli %[[S]], %c768 : index
// CHECK: %[[QONE:.*]] = arith.cmpi eq, %[[B]], %c1{{[_0-9]*}} : index
// CHECK: %[[QBATCH:.*]] = arith.select %[[QONE]], %c0{{[_0-9]*}}, %[[QROWS]] : index
// CHECK: %[[QBATCH32:.*]] = arith.index_cast %[[QBATCH]] : index to i32
// CHECK: %[[GRIDY:.*]] = arith.muli %[[OB:.*]], %c12 : index
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4_maskf16_nz::@flash_attention_f16_d64_64x64x2w4_maskf16_nz blocks in (%[[BLOCKS]], %[[GRIDY]], %c1{{[_0-9]*}})
// CHECK-SAME: %cst : f32, %c0_i32{{[_0-9]*}} : i32, %[[QBATCH32]] : i32, %c64_i32 : i32, %c768_i32 : i32,
kernel.func @Dynamic(%q: memref<?x?x768xf16>, %k: memref<?x?x768xf16>, %v: memref<?x?x768xf16>, %m: memref<?x1x?x?xf16>, %o: memref<?x12x?x64xf16>, %batch: index, %seq: index) {
  attention ins(%q, %k, %v, %m : memref<?x?x768xf16>, memref<?x?x768xf16>, memref<?x?x768xf16>, memref<?x1x?x?xf16>) outs(%o : memref<?x12x?x64xf16>) symbols(%batch, %seq) {
  ^bb0(%a: tensor<?x?x768xf16>, %b: tensor<?x?x768xf16>, %c: tensor<?x?x768xf16>, %mask: tensor<?x1x?x?xf16>, %sb: index, %ss: index):
    %0 = arith.index_cast %sb : index to i64
    %1 = arith.index_cast %ss : index to i64
    %c-1 = arith.constant -1 : i64
    %c64 = arith.constant 64 : i64
    %shape = tensor.from_elements %0, %1, %c-1, %c64 : tensor<4xi64>
    %qr = graph.reshape %a, %shape {allowzero = false} : (tensor<?x?x768xf16>, tensor<4xi64>) -> tensor<?x?x12x64xf16>
    %qt = graph.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf16>) -> tensor<?x12x?x64xf16>
    %kr = graph.reshape %b, %shape {allowzero = false} : (tensor<?x?x768xf16>, tensor<4xi64>) -> tensor<?x?x12x64xf16>
    %kt = graph.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf16>) -> tensor<?x12x?x64xf16>
    %vr = graph.reshape %c, %shape {allowzero = false} : (tensor<?x?x768xf16>, tensor<4xi64>) -> tensor<?x?x12x64xf16>
    %vt = graph.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf16>) -> tensor<?x12x?x64xf16>
    %r = graph.attention %qt, %kt, %vt, %mask {nan_to_zero, scale = 0.125 : f32} : (tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>, tensor<?x1x?x?xf16>) -> tensor<?x12x?x64xf16>
    kernel.yield %r : tensor<?x12x?x64xf16>
  }
  return
}
func.func @main(%x: memref<?x?x768xf16> {kernel.opt_shape = array<i64: 8, 128, 768>, kernel.max_shape = array<i64: 64, 512, 768>}, %m: memref<?x1x?x?xf16> {kernel.opt_shape = array<i64: 8, 1, 128, 128>, kernel.max_shape = array<i64: 64, 1, 512, 512>}) -> memref<?x12x?x64xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?x768xf16>
  %s = memref.dim %x, %c1 : memref<?x?x768xf16>
  %o = memref.alloc(%b, %s) : memref<?x12x?x64xf16>
  kernel.launch @Dynamic(%x, %x, %x, %m, %o, %b, %s) : (memref<?x?x768xf16>, memref<?x?x768xf16>, memref<?x?x768xf16>, memref<?x1x?x?xf16>, memref<?x12x?x64xf16>, index, index) -> ()
  return %o : memref<?x12x?x64xf16>
}

// -----

// Without a profile nothing says what shape to choose a configuration for: the generic
// lowering keeps the dynamic kernel.
// CHECK-LABEL: kernel.func @NoProfile
// CHECK-NOT: gpu.launch_func
kernel.func @NoProfile(%q: memref<?x12x?x64xf16>, %o: memref<?x12x?x64xf16>) {
  attention ins(%q : memref<?x12x?x64xf16>) outs(%o : memref<?x12x?x64xf16>) {
  ^bb0(%a: tensor<?x12x?x64xf16>):
    %r = graph.attention %a, %a, %a {scale = 0.125 : f32} : (tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>) -> tensor<?x12x?x64xf16>
    kernel.yield %r : tensor<?x12x?x64xf16>
  }
  return
}
func.func @main(%q: memref<?x12x?x64xf16>, %o: memref<?x12x?x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  kernel.launch @NoProfile(%q, %o) : (memref<?x12x?x64xf16>, memref<?x12x?x64xf16>) -> ()
  return
}

// -----

// nn.MultiheadAttention's export (ViT): a sequence-first QKV projection [S, B, 3 * E]
// (S 8, B 2, E 128, two heads of 64), split by reshape, unsqueeze, transpose, squeeze
// and a gather of each third, then each [S, B, E] reshaped to [S, B * H, D], transposed to
// [B * H, S, D] and reshaped to [B, H, S, D]. The chain is a strided view of the buffer:
// batch stride 3 * E = 384, head stride 64, row stride B * 3 * E = 768; Q, K and V at
// offsets 0, 128 and 256. No copy of the heads is made.
// CHECK-LABEL: func.func @main(%arg0: memref<8x2x384xf16>
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_{{.*}} blocks in (%c1{{[_0-9]*}}, %c4{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK-SAME: %cst : f32, %c0_i32{{[_0-9]*}} : i32, %c384_i32 : i32, %c64_i32 : i32, %c768_i32 : i32,
// CHECK-SAME: %c128_i32 : i32, %c384_i32{{[_0-9]*}} : i32, %c64_i32{{[_0-9]*}} : i32, %c768_i32{{[_0-9]*}} : i32,
// CHECK-SAME: %c256_i32 : i32, %c384_i32{{[_0-9]*}} : i32, %c64_i32{{[_0-9]*}} : i32, %c768_i32{{[_0-9]*}} : i32,
// CHECK-SAME: %c0_i32{{[_0-9]*}} : i32, %c1024_i32 : i32, %c512_i32 : i32, %c64_i32{{[_0-9]*}} : i32)
kernel.func @SequenceFirst(%qkv: memref<8x2x384xf16>, %o: memref<2x2x8x64xf16>) {
  attention ins(%qkv : memref<8x2x384xf16>) outs(%o : memref<2x2x8x64xf16>) {
  ^bb0(%x: tensor<8x2x384xf16>):
    %split = graph.constant dense<[8, 2, 3, 128]> : tensor<4xi64>
    %axis0 = graph.constant dense<0> : tensor<1xi64>
    %axis3 = graph.constant dense<3> : tensor<1xi64>
    %heads = graph.constant dense<[8, 4, 64]> : tensor<3xi64>
    %bhsd = graph.constant dense<[2, 2, 8, 64]> : tensor<4xi64>
    %i0 = graph.constant dense<0> : tensor<i64>
    %i1 = graph.constant dense<1> : tensor<i64>
    %i2 = graph.constant dense<2> : tensor<i64>
    %r = graph.reshape %x, %split {allowzero = false} : (tensor<8x2x384xf16>, tensor<4xi64>) -> tensor<8x2x3x128xf16>
    %u = graph.unsqueeze %r, %axis0 : (tensor<8x2x3x128xf16>, tensor<1xi64>) -> tensor<1x8x2x3x128xf16>
    %t = graph.transpose %u {perm = array<i64: 3, 1, 2, 0, 4>} : (tensor<1x8x2x3x128xf16>) -> tensor<3x8x2x1x128xf16>
    %s = graph.squeeze %t, %axis3 : (tensor<3x8x2x1x128xf16>, tensor<1xi64>) -> tensor<3x8x2x128xf16>
    %q0 = graph.gather %s, %i0 {axis = 0 : i64} : (tensor<3x8x2x128xf16>, tensor<i64>) -> tensor<8x2x128xf16>
    %q1 = graph.reshape %q0, %heads {allowzero = false} : (tensor<8x2x128xf16>, tensor<3xi64>) -> tensor<8x4x64xf16>
    %q2 = graph.transpose %q1 {perm = array<i64: 1, 0, 2>} : (tensor<8x4x64xf16>) -> tensor<4x8x64xf16>
    %q = graph.reshape %q2, %bhsd {allowzero = false} : (tensor<4x8x64xf16>, tensor<4xi64>) -> tensor<2x2x8x64xf16>
    %k0 = graph.gather %s, %i1 {axis = 0 : i64} : (tensor<3x8x2x128xf16>, tensor<i64>) -> tensor<8x2x128xf16>
    %k1 = graph.reshape %k0, %heads {allowzero = false} : (tensor<8x2x128xf16>, tensor<3xi64>) -> tensor<8x4x64xf16>
    %k2 = graph.transpose %k1 {perm = array<i64: 1, 0, 2>} : (tensor<8x4x64xf16>) -> tensor<4x8x64xf16>
    %k = graph.reshape %k2, %bhsd {allowzero = false} : (tensor<4x8x64xf16>, tensor<4xi64>) -> tensor<2x2x8x64xf16>
    %v0 = graph.gather %s, %i2 {axis = 0 : i64} : (tensor<3x8x2x128xf16>, tensor<i64>) -> tensor<8x2x128xf16>
    %v1 = graph.reshape %v0, %heads {allowzero = false} : (tensor<8x2x128xf16>, tensor<3xi64>) -> tensor<8x4x64xf16>
    %v2 = graph.transpose %v1 {perm = array<i64: 1, 0, 2>} : (tensor<8x4x64xf16>) -> tensor<4x8x64xf16>
    %v = graph.reshape %v2, %bhsd {allowzero = false} : (tensor<4x8x64xf16>, tensor<4xi64>) -> tensor<2x2x8x64xf16>
    %a = graph.attention %q, %k, %v {scale = 0.125 : f32} : (tensor<2x2x8x64xf16>, tensor<2x2x8x64xf16>, tensor<2x2x8x64xf16>) -> tensor<2x2x8x64xf16>
    kernel.yield %a : tensor<2x2x8x64xf16>
  }
  return
}
func.func @main(%qkv: memref<8x2x384xf16>) -> memref<2x2x8x64xf16> attributes {kernel.num_inputs = 1 : i64} {
  %o = memref.alloc() : memref<2x2x8x64xf16>
  kernel.launch @SequenceFirst(%qkv, %o) : (memref<8x2x384xf16>, memref<2x2x8x64xf16>) -> ()
  return %o : memref<2x2x8x64xf16>
}

// -----

// The same export in a dynamic engine: the batch B is known at run time only (the
// buffer [8, B, 384], the kernel symbol %batch). The reshapes' run-time extents (B, B * H)
// are whatever the static ones leave, so the view needs no symbol: the row stride is
// 384 * B, read off the buffer (memref.dim %arg0, 1) at each launch.
// CHECK-LABEL: func.func @main(%arg0: memref<8x?x384xf16>
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %c384
// CHECK: %[[ROW32:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_{{[0-9a-z_]*}}::
// CHECK-SAME: %cst : f32, %c0_i32{{[_0-9]*}} : i32, %{{[0-9]+}} : i32, %c64_i32 : i32, %[[ROW32]] : i32,
// CHECK-SAME: %c128_i32 : i32, %{{[0-9]+}} : i32, %c64_i32{{[_0-9]*}} : i32, %{{[0-9]+}} : i32,
// CHECK-SAME: %c256_i32 : i32, %{{[0-9]+}} : i32, %c64_i32{{[_0-9]*}} : i32, %{{[0-9]+}} : i32,
kernel.func @SequenceFirstDynamic(%qkv: memref<8x?x384xf16>, %o: memref<?x2x8x64xf16>, %batch: index) {
  attention ins(%qkv : memref<8x?x384xf16>) outs(%o : memref<?x2x8x64xf16>) symbols(%batch) {
  ^bb0(%x: tensor<8x?x384xf16>, %b: index):
    %bi = arith.index_cast %b : index to i64
    %c8 = arith.constant 8 : i64
    %c3 = arith.constant 3 : i64
    %c128 = arith.constant 128 : i64
    %c2 = arith.constant 2 : i64
    %c64 = arith.constant 64 : i64
    %bh = arith.muli %bi, %c2 : i64
    %split = tensor.from_elements %c8, %bi, %c3, %c128 : tensor<4xi64>
    %heads = tensor.from_elements %c8, %bh, %c64 : tensor<3xi64>
    %bhsd = tensor.from_elements %bi, %c2, %c8, %c64 : tensor<4xi64>
    %axis0 = graph.constant dense<0> : tensor<1xi64>
    %axis3 = graph.constant dense<3> : tensor<1xi64>
    %i0 = graph.constant dense<0> : tensor<i64>
    %i1 = graph.constant dense<1> : tensor<i64>
    %i2 = graph.constant dense<2> : tensor<i64>
    %r = graph.reshape %x, %split {allowzero = false} : (tensor<8x?x384xf16>, tensor<4xi64>) -> tensor<8x?x3x128xf16>
    %u = graph.unsqueeze %r, %axis0 : (tensor<8x?x3x128xf16>, tensor<1xi64>) -> tensor<1x8x?x3x128xf16>
    %t = graph.transpose %u {perm = array<i64: 3, 1, 2, 0, 4>} : (tensor<1x8x?x3x128xf16>) -> tensor<3x8x?x1x128xf16>
    %s = graph.squeeze %t, %axis3 : (tensor<3x8x?x1x128xf16>, tensor<1xi64>) -> tensor<3x8x?x128xf16>
    %q0 = graph.gather %s, %i0 {axis = 0 : i64} : (tensor<3x8x?x128xf16>, tensor<i64>) -> tensor<8x?x128xf16>
    %q1 = graph.reshape %q0, %heads {allowzero = false} : (tensor<8x?x128xf16>, tensor<3xi64>) -> tensor<8x?x64xf16>
    %q2 = graph.transpose %q1 {perm = array<i64: 1, 0, 2>} : (tensor<8x?x64xf16>) -> tensor<?x8x64xf16>
    %q = graph.reshape %q2, %bhsd {allowzero = false} : (tensor<?x8x64xf16>, tensor<4xi64>) -> tensor<?x2x8x64xf16>
    %k0 = graph.gather %s, %i1 {axis = 0 : i64} : (tensor<3x8x?x128xf16>, tensor<i64>) -> tensor<8x?x128xf16>
    %k1 = graph.reshape %k0, %heads {allowzero = false} : (tensor<8x?x128xf16>, tensor<3xi64>) -> tensor<8x?x64xf16>
    %k2 = graph.transpose %k1 {perm = array<i64: 1, 0, 2>} : (tensor<8x?x64xf16>) -> tensor<?x8x64xf16>
    %k = graph.reshape %k2, %bhsd {allowzero = false} : (tensor<?x8x64xf16>, tensor<4xi64>) -> tensor<?x2x8x64xf16>
    %v0 = graph.gather %s, %i2 {axis = 0 : i64} : (tensor<3x8x?x128xf16>, tensor<i64>) -> tensor<8x?x128xf16>
    %v1 = graph.reshape %v0, %heads {allowzero = false} : (tensor<8x?x128xf16>, tensor<3xi64>) -> tensor<8x?x64xf16>
    %v2 = graph.transpose %v1 {perm = array<i64: 1, 0, 2>} : (tensor<8x?x64xf16>) -> tensor<?x8x64xf16>
    %v = graph.reshape %v2, %bhsd {allowzero = false} : (tensor<?x8x64xf16>, tensor<4xi64>) -> tensor<?x2x8x64xf16>
    %a = graph.attention %q, %k, %v {scale = 0.125 : f32} : (tensor<?x2x8x64xf16>, tensor<?x2x8x64xf16>, tensor<?x2x8x64xf16>) -> tensor<?x2x8x64xf16>
    kernel.yield %a : tensor<?x2x8x64xf16>
  }
  return
}
func.func @main(%qkv: memref<8x?x384xf16> {kernel.opt_shape = array<i64: 8, 4, 384>, kernel.max_shape = array<i64: 8, 16, 384>}) -> memref<?x2x8x64xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c1 = arith.constant 1 : index
  %b = memref.dim %qkv, %c1 : memref<8x?x384xf16>
  %o = memref.alloc(%b) : memref<?x2x8x64xf16>
  kernel.launch @SequenceFirstDynamic(%qkv, %o, %b) : (memref<8x?x384xf16>, memref<?x2x8x64xf16>, index) -> ()
  return %o : memref<?x2x8x64xf16>
}

// -----

// A view whose rows are not one stride of the buffer stays generic: K transposed so that
// D (the contiguous axis) moves — the reads are no longer rows of D elements.
// CHECK-LABEL: kernel.func @DepthNotContiguous
// CHECK-SAME: kernel.config = #kernel.generic
kernel.func @DepthNotContiguous(%q: memref<2x2x64x64xf16>, %o: memref<2x2x64x64xf16>) {
  attention ins(%q : memref<2x2x64x64xf16>) outs(%o : memref<2x2x64x64xf16>) {
  ^bb0(%a: tensor<2x2x64x64xf16>):
    %t = graph.transpose %a {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x2x64x64xf16>) -> tensor<2x2x64x64xf16>
    %r = graph.attention %a, %t, %a {scale = 0.125 : f32} : (tensor<2x2x64x64xf16>, tensor<2x2x64x64xf16>, tensor<2x2x64x64xf16>) -> tensor<2x2x64x64xf16>
    kernel.yield %r : tensor<2x2x64x64xf16>
  }
  return
}
func.func @main(%q: memref<2x2x64x64xf16>) -> memref<2x2x64x64xf16> attributes {kernel.num_inputs = 1 : i64} {
  %o = memref.alloc() : memref<2x2x64x64xf16>
  kernel.launch @DepthNotContiguous(%q, %o) : (memref<2x2x64x64xf16>, memref<2x2x64x64xf16>) -> ()
  return %o : memref<2x2x64x64xf16>
}

// -----

// The kernel stores the heads merged: O = reshape(transpose<0, 2, 1, 3>(attention)) in a
// [B, S, H * D] buffer [2, 8, 128]: the result's (b, h, s, d) is written at b * 1024 +
// h * 64 + s * 128 + d (batch stride 1024, head stride 64, row stride 128).
// CHECK-LABEL: func.func @main(%arg0: memref<2x2x8x64xf16>) -> memref<2x8x128xf16>
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_{{[0-9a-z_]*}}::
// CHECK-SAME: %c0_i32{{[_0-9]*}} : i32, %c1024_i32{{[_0-9]*}} : i32, %c64_i32{{[_0-9]*}} : i32, %c128_i32{{[_0-9]*}} : i32)
kernel.func @MergedHeads(%q: memref<2x2x8x64xf16>, %o: memref<2x8x128xf16>) {
  attention ins(%q : memref<2x2x8x64xf16>) outs(%o : memref<2x8x128xf16>) {
  ^bb0(%a: tensor<2x2x8x64xf16>):
    %shape = graph.constant dense<[2, 8, 128]> : tensor<3xi64>
    %r = graph.attention %a, %a, %a {scale = 0.125 : f32} : (tensor<2x2x8x64xf16>, tensor<2x2x8x64xf16>, tensor<2x2x8x64xf16>) -> tensor<2x2x8x64xf16>
    %t = graph.transpose %r {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x2x8x64xf16>) -> tensor<2x8x2x64xf16>
    %m = graph.reshape %t, %shape {allowzero = false} : (tensor<2x8x2x64xf16>, tensor<3xi64>) -> tensor<2x8x128xf16>
    kernel.yield %m : tensor<2x8x128xf16>
  }
  return
}
func.func @main(%q: memref<2x2x8x64xf16>) -> memref<2x8x128xf16> attributes {kernel.num_inputs = 1 : i64} {
  %o = memref.alloc() : memref<2x8x128xf16>
  kernel.launch @MergedHeads(%q, %o) : (memref<2x2x8x64xf16>, memref<2x8x128xf16>) -> ()
  return %o : memref<2x8x128xf16>
}
