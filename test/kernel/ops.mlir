// Round trip of the kernel dialect: kernels with and without a configuration, every
// template family's configuration attribute, and the schedule.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// CHECK: kernel.func @matmul_0(%{{.*}}: memref<128x64xf16>, %{{.*}}: memref<64x256xf16>, %{{.*}}: memref<128x256xf16>)
// CHECK-SAME: attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, consumers = 2>}
kernel.func @matmul_0(%a: memref<128x64xf16>, %b: memref<64x256xf16>, %c: memref<128x256xf16>)
    attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, consumers = 2, split_k = 1>} {
  // The kernel dialect is the default inside kernel.func, so kernel ops print unprefixed.
  // CHECK-NEXT: matmul ins(%{{.*}}, %{{.*}} : memref<128x64xf16>, memref<64x256xf16>) outs(%{{.*}} : memref<128x256xf16>) {
  // CHECK: graph.matmul
  // CHECK: graph.relu
  // CHECK: kernel.yield %{{.*}} : tensor<128x256xf16>
  kernel.matmul ins(%a, %b : memref<128x64xf16>, memref<64x256xf16>) outs(%c : memref<128x256xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %w: tensor<64x256xf16>):
    %p = graph.matmul %x, %w : (tensor<128x64xf16>, tensor<64x256xf16>) -> tensor<128x256xf16>
    %r = graph.relu %p : tensor<128x256xf16>
    kernel.yield %r : tensor<128x256xf16>
  }
  // CHECK: {{^ *}}return
  kernel.return
}

// Every template kind round-trips; a kernel without a configuration is open for the
// autotuner.
// CHECK-LABEL: kernel.func @templates
// CHECK: pointwise ins
// CHECK: reduction ins
// CHECK: conv ins
// CHECK: movement ins
// CHECK: generic ins
kernel.func @templates(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>,
                       %s: memref<1x3x8x1xf32>, %t: memref<1x8x8x3xf32>, %p: memref<1x3x4x4xf32>) {
  kernel.pointwise ins(%x : memref<1x3x8x8xf32>) outs(%x : memref<1x3x8x8xf32>) {
  ^bb0(%a: tensor<1x3x8x8xf32>):
    %r = graph.relu %a : tensor<1x3x8x8xf32>
    kernel.yield %r : tensor<1x3x8x8xf32>
  }
  kernel.reduction ins(%x : memref<1x3x8x8xf32>) outs(%s : memref<1x3x8x1xf32>) {
  ^bb0(%a: tensor<1x3x8x8xf32>):
    %axes = graph.constant dense<[3]> : tensor<1xi64>
    %r = graph.reduce_sum %a, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<1x3x8x8xf32>, tensor<1xi64>) -> tensor<1x3x8x1xf32>
    kernel.yield %r : tensor<1x3x8x1xf32>
  }
  kernel.conv ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32>) {
  ^bb0(%a: tensor<1x3x8x8xf32>, %b: tensor<4x3x3x3xf32>):
    %r = graph.conv %a, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    kernel.yield %r : tensor<1x4x6x6xf32>
  }
  kernel.movement ins(%x : memref<1x3x8x8xf32>) outs(%t : memref<1x8x8x3xf32>) {
  ^bb0(%a: tensor<1x3x8x8xf32>):
    %r = graph.transpose %a {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
    kernel.yield %r : tensor<1x8x8x3xf32>
  }
  kernel.generic ins(%x : memref<1x3x8x8xf32>) outs(%p : memref<1x3x4x4xf32>) {
  ^bb0(%a: tensor<1x3x8x8xf32>):
    %r = graph.global_average_pool %a : (tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32>
    %z = graph.constant dense<0.0> : tensor<1x3x4x4xf32>
    %q = graph.add %r, %z : (tensor<1x3x1x1xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    kernel.yield %q : tensor<1x3x4x4xf32>
  }
  kernel.return
}

// A kernel without a config is still open for the autotuner; scalars are allowed.
// CHECK: kernel.func @relu_1(%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: index) {
kernel.func @relu_1(%in: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  kernel.return
}

// CHECK-LABEL: func.func @main
func.func @main(%a: memref<128x64xf16>, %b: memref<64x256xf16>, %c: memref<128x256xf16>,
                %x: memref<?xf32>, %n: index) {
  // CHECK: kernel.launch @matmul_0(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<128x64xf16>, memref<64x256xf16>, memref<128x256xf16>) -> ()
  kernel.launch @matmul_0(%a, %b, %c) : (memref<128x64xf16>, memref<64x256xf16>, memref<128x256xf16>) -> ()
  // CHECK: kernel.launch @relu_1
  kernel.launch @relu_1(%x, %x, %n) : (memref<?xf32>, memref<?xf32>, index) -> ()
  return
}

// Every family's configuration: parameters at their defaults may be left out and are
// printed only when set.
// CHECK-LABEL: func.func @configs
// CHECK-SAME: kiln.a = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, ctas_per_sm = 2, resident_b_k_tiles = 3>
// CHECK-SAME: kiln.b = #kernel.sm90_conv<tile_m = 128, tile_n = 64, tile_k = 128, stages = 4, consumers = 2, int8 = true>
// CHECK-SAME: kiln.c = #kernel.sm80_gemm<tile_m = 128, tile_n = 128, tile_k = 32, stages = 4, warps_m = 2, warps_n = 2>
// CHECK-SAME: kiln.d = #kernel.sm80_conv<tile_m = 64, tile_n = 64, tile_k = 32, stages = 3, warps_m = 2, warps_n = 2>
// CHECK-SAME: kiln.e = #kernel.flash_attention<block_q = 64, block_kv = 128, stages = 2, warps = 4, wgmma = true>
// CHECK-SAME: kiln.f = #kernel.depthwise<pixels = 4, threads = 256>
// CHECK-SAME: kiln.g = #kernel.depthwise<pixels = 2, tile_h = 16, tile_w = 56, planes = 1>
// CHECK-SAME: kiln.h = #kernel.rows<threads_per_row = 32, rows_per_cta = 4, vector = 8>
// CHECK-SAME: kiln.i = #kernel.pool_nhwc
// CHECK-SAME: kiln.j = #kernel.generic
// CHECK-SAME: kiln.k = [#kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 6, consumers = 1>>, #kernel.row_variant<above_rows = 4096, config = #kernel.sm90_conv<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, consumers = 2>>]
// CHECK-SAME: kiln.l = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, pingpong = true>
// CHECK-SAME: kiln.m = #kernel.flash_attention<block_q = 128, block_kv = 128, stages = 2, warps = 12, wgmma = true, tma = true>
// CHECK-SAME: kiln.n = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, pingpong = true, stream_k = 4>
// CHECK-SAME: kiln.o = #kernel.sm90_gemm<tile_m = 192, tile_n = 192, tile_k = 64, stages = 3, consumers = 3, persistent = true>
// CHECK-SAME: kiln.p = #kernel.top_k<threads = 1024>
func.func @configs() attributes {
    kiln.a = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, split_k = 1, ctas_per_sm = 2, tf32 = false, resident_b_k_tiles = 3>,
    kiln.b = #kernel.sm90_conv<tile_m = 128, tile_n = 64, tile_k = 128, stages = 4, consumers = 2, int8 = true>,
    kiln.c = #kernel.sm80_gemm<tile_m = 128, tile_n = 128, tile_k = 32, stages = 4, warps_m = 2, warps_n = 2>,
    kiln.d = #kernel.sm80_conv<tile_m = 64, tile_n = 64, tile_k = 32, stages = 3, warps_m = 2, warps_n = 2>,
    kiln.e = #kernel.flash_attention<block_q = 64, block_kv = 128, stages = 2, warps = 4, wgmma = true>,
    kiln.f = #kernel.depthwise<pixels = 4, threads = 256>,
    kiln.g = #kernel.depthwise<pixels = 2, tile_h = 16, tile_w = 56, planes = 1>,
    kiln.h = #kernel.rows<threads_per_row = 32, rows_per_cta = 4, vector = 8>,
    kiln.i = #kernel.pool_nhwc,
    kiln.j = #kernel.generic,
    kiln.k = [#kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 6, consumers = 1>>,
              #kernel.row_variant<above_rows = 4096, config = #kernel.sm90_conv<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, consumers = 2>>],
    kiln.l = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, pingpong = true>,
    kiln.m = #kernel.flash_attention<block_q = 128, block_kv = 128, stages = 2, warps = 12, wgmma = true, tma = true>,
    kiln.n = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, pingpong = true, stream_k = 4>,
    kiln.o = #kernel.sm90_gemm<tile_m = 192, tile_n = 192, tile_k = 64, stages = 3, consumers = 3, persistent = true>,
    kiln.p = #kernel.top_k<threads = 1024>} {
  return
}

// A value kernels computed, read back by the host to size what follows.
// CHECK-LABEL: func.func @read_back
// CHECK: %[[COUNT:.*]] = kernel.read_back %{{.*}} : memref<index> -> index
// CHECK: memref.alloc(%[[COUNT]]) : memref<?xf32>
func.func @read_back(%count: memref<index>, %wide: memref<1xi64>) -> memref<?xf32> {
  %n = kernel.read_back %count : memref<index> -> index
  %w = kernel.read_back %wide : memref<1xi64> -> i64
  %buffer = memref.alloc(%n) : memref<?xf32>
  return %buffer : memref<?xf32>
}
