// sm90_gemm follows the `kernel.config` a kernel carries (set by kernel-autotune):
// `generic` keeps the generic lowering, a legal sm90_gemm configuration is instantiated,
// anything else is an error naming the configuration.
// RUN: kiln-opt --split-input-file --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --verify-diagnostics %s | FileCheck %s

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

// CHECK-NOT: kernel.func
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s3::@gemm_f16_f16_128x128x64_s3
// CHECK-SAME: dynamic_shared_memory_size %c100352_i32
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s3
kernel.func @asks_basic(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, consumers = 0>} {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %r = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    kernel.yield %r : tensor<128x128xf16>
  }
  return
}
func.func @main(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @asks_basic(%a, %b, %c) : (memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>) -> ()
  return
}

// -----

// expected-error @+1 {{is not a configuration of this GEMM (128x128x64)}}
kernel.func @asks_too_big(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 512, tile_k = 64, stages = 3, consumers = 0>} {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %r = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    kernel.yield %r : tensor<128x128xf16>
  }
  return
}
func.func @main(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @asks_too_big(%a, %b, %c) : (memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>) -> ()
  return
}

// -----

// Persistent grids only where the tiles outnumber the SMs, and not for 128x256 tiles,
// whose staging of C does not fit next to the ring.
// expected-error @+1 {{is not a configuration of this GEMM (1024x1024x512)}}
kernel.func @few_tiles(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>, %c: memref<1024x1024xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true>} {
  matmul ins(%a, %b : memref<1024x512xf16>, memref<512x1024xf16>) outs(%c : memref<1024x1024xf16>) {
  ^bb0(%x: tensor<1024x512xf16>, %y: tensor<512x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<1024x512xf16>, tensor<512x1024xf16>) -> tensor<1024x1024xf16>
    kernel.yield %r : tensor<1024x1024xf16>
  }
  return
}
func.func @main(%a: memref<1024x512xf16>, %b: memref<512x1024xf16>, %c: memref<1024x1024xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @few_tiles(%a, %b, %c) : (memref<1024x512xf16>, memref<512x1024xf16>, memref<1024x1024xf16>) -> ()
  return
}

// -----

// expected-error @+1 {{is not a configuration of this GEMM (8192x1024x512)}}
kernel.func @wide(%a: memref<8192x512xf16>, %b: memref<512x1024xf16>, %c: memref<8192x1024xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 256, tile_k = 64, stages = 2, consumers = 2, persistent = true>} {
  matmul ins(%a, %b : memref<8192x512xf16>, memref<512x1024xf16>) outs(%c : memref<8192x1024xf16>) {
  ^bb0(%x: tensor<8192x512xf16>, %y: tensor<512x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<8192x512xf16>, tensor<512x1024xf16>) -> tensor<8192x1024xf16>
    kernel.yield %r : tensor<8192x1024xf16>
  }
  return
}
func.func @main(%a: memref<8192x512xf16>, %b: memref<512x1024xf16>, %c: memref<8192x1024xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @wide(%a, %b, %c) : (memref<8192x512xf16>, memref<512x1024xf16>, memref<8192x1024xf16>) -> ()
  return
}

// -----

// Two CTAs an SM take tiles at most 128 wide: 64 x 256 accumulators do not fit the 96
// registers a thread of two resident 288-thread CTAs.
// expected-error @+1 {{is not a configuration of this GEMM (8192x1024x512)}}
kernel.func @two_wide(%a: memref<8192x512xf16>, %b: memref<512x1024xf16>, %c: memref<8192x1024xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 256, tile_k = 64, stages = 2, consumers = 2, ctas_per_sm = 2>} {
  matmul ins(%a, %b : memref<8192x512xf16>, memref<512x1024xf16>) outs(%c : memref<8192x1024xf16>) {
  ^bb0(%x: tensor<8192x512xf16>, %y: tensor<512x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<8192x512xf16>, tensor<512x1024xf16>) -> tensor<8192x1024xf16>
    kernel.yield %r : tensor<8192x1024xf16>
  }
  return
}
func.func @main(%a: memref<8192x512xf16>, %b: memref<512x1024xf16>, %c: memref<8192x1024xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @two_wide(%a, %b, %c) : (memref<8192x512xf16>, memref<512x1024xf16>, memref<8192x1024xf16>) -> ()
  return
}

// -----

// Two CTAs of 64-wide tiles with 6 stages: 2 x (147 KiB + 1 KiB) do not fit an SM's 228 KiB.
// expected-error @+1 {{is not a configuration of this GEMM (8192x1024x512)}}
kernel.func @two_deep(%a: memref<8192x512xf16>, %b: memref<512x1024xf16>, %c: memref<8192x1024xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 6, consumers = 2, ctas_per_sm = 2>} {
  matmul ins(%a, %b : memref<8192x512xf16>, memref<512x1024xf16>) outs(%c : memref<8192x1024xf16>) {
  ^bb0(%x: tensor<8192x512xf16>, %y: tensor<512x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<8192x512xf16>, tensor<512x1024xf16>) -> tensor<8192x1024xf16>
    kernel.yield %r : tensor<8192x1024xf16>
  }
  return
}
func.func @main(%a: memref<8192x512xf16>, %b: memref<512x1024xf16>, %c: memref<8192x1024xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @two_deep(%a, %b, %c) : (memref<8192x512xf16>, memref<512x1024xf16>, memref<8192x1024xf16>) -> ()
  return
}

// -----

// B resident only where every tile is in one column of C (here N = 128 > TILE_N = 64),
// and the error lists the configurations there are.
// expected-error @+1 {{is not a configuration of this GEMM (32768x128x512) (its configurations: 128x128x64_s4_ws2, }}
kernel.func @resident_two_columns(%a: memref<32768x512xf16>, %b: memref<512x128xf16>, %c: memref<32768x128xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 7, consumers = 2, persistent = true, resident_b_k_tiles = 8>} {
  matmul ins(%a, %b : memref<32768x512xf16>, memref<512x128xf16>) outs(%c : memref<32768x128xf16>) {
  ^bb0(%x: tensor<32768x512xf16>, %y: tensor<512x128xf16>):
    %r = graph.matmul %x, %y : (tensor<32768x512xf16>, tensor<512x128xf16>) -> tensor<32768x128xf16>
    kernel.yield %r : tensor<32768x128xf16>
  }
  return
}
func.func @main(%a: memref<32768x512xf16>, %b: memref<512x128xf16>, %c: memref<32768x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @resident_two_columns(%a, %b, %c) : (memref<32768x512xf16>, memref<512x128xf16>, memref<32768x128xf16>) -> ()
  return
}

// -----

// Three consumers on a persistent grid: 4 stages of 48 KiB and a staging of 64 columns
// (192 x 144 bytes) fit 227 KiB, 5 stages do not: not a configuration of this GEMM, whose
// configurations (the error lists them) include both persistent rings of 192 x 192 tiles.
// expected-error @+1 {{128x128x64_s4_ws2_p_pp, 192x192x64_s4_ws3, 192x192x64_s4_ws3_p, 192x192x64_s3_ws3_p)}}
kernel.func @three_deep(%a: memref<6304x768xf16>, %b: memref<768x3072xf16>, %c: memref<6304x3072xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 192, tile_n = 192, tile_k = 64, stages = 5, consumers = 3, persistent = true>} {
  matmul ins(%a, %b : memref<6304x768xf16>, memref<768x3072xf16>) outs(%c : memref<6304x3072xf16>) {
  ^bb0(%x: tensor<6304x768xf16>, %y: tensor<768x3072xf16>):
    %r = graph.matmul %x, %y : (tensor<6304x768xf16>, tensor<768x3072xf16>) -> tensor<6304x3072xf16>
    kernel.yield %r : tensor<6304x3072xf16>
  }
  return
}
func.func @main(%a: memref<6304x768xf16>, %b: memref<768x3072xf16>, %c: memref<6304x3072xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @three_deep(%a, %b, %c) : (memref<6304x768xf16>, memref<768x3072xf16>, memref<6304x3072xf16>) -> ()
  return
}
