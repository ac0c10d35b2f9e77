// The kernel dialect rejects malformed kernels, launches and configs.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{must not return values: kernels write to their buffer arguments}}
kernel.func @returns_value(%a: memref<4xf32>) -> f32 {
  kernel.return
}

// -----

// expected-error @+1 {{argument 0 has type 'tensor<4xf32>'; expected a memref, an integer, an index or a float}}
kernel.func @tensor_argument(%a: tensor<4xf32>) {
  kernel.return
}

// -----

kernel.func @k(%a: memref<4xf32>) {
  kernel.return
}
func.func @launch_arity(%a: memref<4xf32>) {
  // expected-error @+1 {{passes 2 operands to 'k', which takes 1}}
  kernel.launch @k(%a, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

kernel.func @k(%a: memref<4xf32>) {
  kernel.return
}
func.func @launch_types(%a: memref<8xf32>) {
  // expected-error @+1 {{operand 0 has type 'memref<8xf32>' but 'k' expects 'memref<4xf32>'}}
  kernel.launch @k(%a) : (memref<8xf32>) -> ()
  return
}

// -----

func.func @not_a_kernel(%a: memref<4xf32>) {
  return
}
func.func @launch_unknown(%a: memref<4xf32>) {
  // expected-error @+1 {{'not_a_kernel' does not name a kernel.func}}
  kernel.launch @not_a_kernel(%a) : (memref<4xf32>) -> ()
  return
}

// -----

func.func @return_outside_kernel() {
  // expected-error @+1 {{expects parent op 'kernel.func'}}
  kernel.return
}

// -----

// expected-error @+1 {{consumers must be 0 (one warpgroup), 1, 2 or 3, got 4}}
func.func @bad_consumers() attributes {c = #kernel.sm90_gemm<tile_m = 256, tile_n = 128, tile_k = 64, stages = 4, consumers = 4>} {
  return
}

// -----

// expected-error @+1 {{persistent grids, two CTAs an SM and a resident B need the warp-specialised template (consumers > 0)}}
func.func @persistent_one_warpgroup() attributes {c = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 0, persistent = true>} {
  return
}

// -----

// expected-error @+1 {{tf32 and int8 exclude each other}}
func.func @tf32_int8() attributes {c = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 32, stages = 4, consumers = 2, tf32 = true, int8 = true>} {
  return
}

// -----

// expected-error @+1 {{a resident B needs a persistent grid without split-K}}
func.func @resident_b_not_persistent() attributes {c = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, resident_b_k_tiles = 2>} {
  return
}

// -----

// A ping-pong consumer holds a whole tile's accumulators: 256 columns would not fit.
// expected-error @+1 {{ping-pong consumers need two consumers on a persistent grid of one CTA an SM, 128-row tiles at most 128 wide, f16 or bf16 operands, no split-K and no resident B}}
func.func @pingpong_wide() attributes {c = #kernel.sm90_gemm<tile_m = 128, tile_n = 256, tile_k = 64, stages = 3, consumers = 2, persistent = true, pingpong = true>} {
  return
}

// -----

// Stream-K's parts are the last items of CTAs that walk the tiles.
// expected-error @+1 {{stream-K needs two consumers on a persistent grid of one CTA an SM, f16 or bf16 operands, no split-K and no resident B}}
func.func @stream_k_not_persistent() attributes {c = #kernel.sm90_gemm<tile_m = 128, tile_n = 256, tile_k = 64, stages = 3, consumers = 2, stream_k = 4>} {
  return
}

// -----

// expected-error @+1 {{stream_k must be positive, got 0}}
func.func @stream_k_zero() attributes {c = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, pingpong = true, stream_k = 0>} {
  return
}

// -----

// The consumers' turns walk the CTA's tiles of a persistent grid.
// expected-error @+1 {{ping-pong consumers need two consumers on a persistent grid}}
func.func @pingpong_not_persistent() attributes {c = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, pingpong = true>} {
  return
}

// -----

// Each consumer warpgroup computes 64 rows of a tile.
// expected-error @+1 {{one or two consumers compute 128-row tiles, got tile_m = 192}}
func.func @two_consumers_192_rows() attributes {c = #kernel.sm90_gemm<tile_m = 192, tile_n = 192, tile_k = 64, stages = 3, consumers = 2, persistent = true>} {
  return
}

// -----

// expected-error @+1 {{three consumers compute 192-row tiles of f16 or bf16 operands, one CTA an SM, without split-K, stream-K, ping-pong or a resident B}}
func.func @three_consumers_128_rows() attributes {c = #kernel.sm90_gemm<tile_m = 128, tile_n = 192, tile_k = 64, stages = 3, consumers = 3>} {
  return
}

// -----

// expected-error @+1 {{three consumers compute 192-row tiles of f16 or bf16 operands}}
func.func @three_consumers_stream_k() attributes {c = #kernel.sm90_gemm<tile_m = 192, tile_n = 192, tile_k = 64, stages = 3, consumers = 3, persistent = true, stream_k = 4>} {
  return
}

// -----

// expected-error @+1 {{tile_n must be positive, got 0}}
func.func @bad_tile() attributes {c = #kernel.sm90_gemm<tile_m = 128, tile_n = 0, tile_k = 64, stages = 4, consumers = 2>} {
  return
}

// -----

// expected-error @+1 {{struct is missing required parameter: consumers}}
func.func @missing_consumers() attributes {c = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4>} {
  return
}

// -----

// A parameter the family does not have (the flash-attention configuration has no
// consumers) is no configuration.
// expected-error @+1 {{duplicate or unknown struct parameter name: consumers}}
func.func @unknown_parameter() attributes {c = #kernel.flash_attention<block_q = 64, block_kv = 64, stages = 2, warps = 4, consumers = 1>} {
  return
}

// -----

// expected-error @+1 {{tile_k must be a multiple of 16 (mma.sync m16n8k16), got 24}}
func.func @sm80_tile_k() attributes {c = #kernel.sm80_gemm<tile_m = 128, tile_n = 128, tile_k = 24, stages = 4, warps_m = 2, warps_n = 2>} {
  return
}

// -----

// expected-error @+1 {{stages must be at least 2 (a cp.async ring), got 1}}
func.func @sm80_one_stage() attributes {c = #kernel.sm80_conv<tile_m = 128, tile_n = 128, tile_k = 32, stages = 1, warps_m = 2, warps_n = 2>} {
  return
}

// -----

// expected-error @+1 {{each warp's tile must be whole 16x16 fragments: 128x40 over 2x2 warps}}
func.func @sm80_fragments() attributes {c = #kernel.sm80_gemm<tile_m = 128, tile_n = 40, tile_k = 32, stages = 4, warps_m = 2, warps_n = 2>} {
  return
}

// -----

// expected-error @+1 {{warps must be 4 or 8, got 2}}
func.func @attention_warps() attributes {c = #kernel.flash_attention<block_q = 64, block_kv = 64, stages = 2, warps = 2>} {
  return
}

// -----

// expected-error @+1 {{block_q must be a multiple of 16 rows a warp, got 48 over 4 warps}}
func.func @attention_rows() attributes {c = #kernel.flash_attention<block_q = 48, block_kv = 64, stages = 2, warps = 4>} {
  return
}

// -----

// expected-error @+1 {{tma needs wgmma, 12 warps and block_q = 128 (two consumer warpgroups of 64 rows and a producer), got block_q = 128, warps = 12, no wgmma}}
func.func @attention_tma() attributes {c = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 12, tma = true>} {
  return
}

// -----

// expected-error @+1 {{pixels must be 1, 2, 4 or 8, got 3}}
func.func @depthwise_pixels() attributes {c = #kernel.depthwise<pixels = 3, threads = 256>} {
  return
}

// -----

// expected-error @+1 {{a channels-first configuration has tile_h, tile_w and planes (all positive) and no threads}}
func.func @depthwise_both_layouts() attributes {c = #kernel.depthwise<pixels = 4, threads = 256, tile_h = 16, tile_w = 56, planes = 1>} {
  return
}

// -----

// expected-error @+1 {{a channels-last configuration has threads (positive), got 0}}
func.func @depthwise_no_threads() attributes {c = #kernel.depthwise<pixels = 4>} {
  return
}

// -----

// expected-error @+1 {{threads_per_row must be a power of two up to 1024, got 48}}
func.func @rows_threads() attributes {c = #kernel.rows<threads_per_row = 48, rows_per_cta = 1, vector = 4>} {
  return
}

// -----

// expected-error @+1 {{rows_per_cta must be positive, 1 when a row takes more than a warp, and at most 1024 threads a CTA; got 2 rows of 64 threads}}
func.func @rows_per_cta() attributes {c = #kernel.rows<threads_per_row = 64, rows_per_cta = 2, vector = 4>} {
  return
}

// -----

// expected-error @+1 {{threads must be a power of two from 32 to 1024, got 48}}
func.func @top_k_threads() attributes {c = #kernel.top_k<threads = 48>} {
  return
}

// -----

// expected-error @+1 {{vector must be 1, 2, 4 or 8, got 3}}
func.func @rows_vector() attributes {c = #kernel.rows<threads_per_row = 32, rows_per_cta = 4, vector = 3>} {
  return
}

// -----

// expected-error @+1 {{a row variant has either max_rows (a bucket of small Ms) or above_rows (the bucket of large Ms), positive}}
func.func @row_variant_both() attributes {c = #kernel.row_variant<max_rows = 128, above_rows = 4096, config = #kernel.generic>} {
  return
}

// -----

// expected-error @+1 {{'kernel.config' belongs on a kernel.func}}
func.func @config_elsewhere() attributes {kernel.config = #kernel.generic} {
  return
}

// -----

// expected-error @+1 {{'kernel.config' must be a template configuration (#kernel.sm90_gemm<...>, ..., #kernel.generic), not "fast"}}
kernel.func @config_string(%x: memref<4xf32>) attributes {kernel.config = "fast"} {
  return
}

// -----

// expected-error @+1 {{'kernel.row_variants' must be an array of #kernel.row_variant on a kernel.func}}
kernel.func @row_variants_dictionary(%x: memref<4xf32>) attributes {kernel.row_variants = [{max_rows = 128 : i64}]} {
  return
}

// -----

kernel.func @body_argument_type(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{body argument 0 has type 'tensor<4xf16>'; input buffer 0 is read as 'tensor<4xf32>'}}
  kernel.pointwise ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: tensor<4xf16>):
    %r = graph.cast %a {to = f32} : (tensor<4xf16>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  kernel.return
}

// -----

kernel.func @body_arity(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{body has 0 arguments for 1 input buffers}}
  kernel.pointwise ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    %r = graph.constant dense<1.0> : tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  kernel.return
}

// -----

kernel.func @yield_type(%x: memref<4xf32>, %y: memref<4xi32>) {
  kernel.pointwise ins(%x : memref<4xf32>) outs(%y : memref<4xi32>) {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{value 0 has type 'tensor<4xf32>'; output buffer 0 holds 'tensor<4xi32>'}}
    kernel.yield %a : tensor<4xf32>
  }
  kernel.return
}

// -----

kernel.func @matmul_without_anchor(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  // expected-error @+1 {{body must start with a graph.matmul or graph.gemm}}
  kernel.matmul ins(%x : memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%a: tensor<4x4xf32>):
    %r = graph.relu %a : tensor<4x4xf32>
    kernel.yield %r : tensor<4x4xf32>
  }
  kernel.return
}

// -----

kernel.func @reduction_without_reduction(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{body must hold a reduction (an op with the graph Reduction trait)}}
  kernel.reduction ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %r = graph.relu %a : tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  kernel.return
}

// -----

func.func @yield_outside_template(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op to be one of}}
  kernel.yield %a : tensor<4xf32>
}

// -----

// kernel.programmatic_launch says a gpu.module's kernels wait for the grids before them.
// expected-error @+1 {{'kernel.programmatic_launch' must be a unit attribute on a gpu.module}}
func.func @programmatic_launch_on_a_function() attributes {kernel.programmatic_launch} {
  return
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{'kernel.programmatic_launch' must be a unit attribute on a gpu.module}}
  gpu.module @kernels attributes {kernel.programmatic_launch = 1 : i32} {
  }
}

// -----

// kernel.read_back reads exactly one element, of its result's type.
func.func @read_back_many(%b: memref<2xindex>) -> index {
  // expected-error @+1 {{'kernel.read_back' op reads one element; the buffer has 2}}
  %n = kernel.read_back %b : memref<2xindex> -> index
  return %n : index
}

// -----

func.func @read_back_type(%b: memref<i32>) -> i64 {
  // expected-error @+1 {{'kernel.read_back' op reads 'i32' into a value of type 'i64'}}
  %n = kernel.read_back %b : memref<i32> -> i64
  return %n : i64
}
