// sm90_gemm refuses row variants (kernel.row_variants) it cannot launch, naming
// the pass and what is wrong.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file -verify-diagnostics

// Split-K in 8 parts does not pay for K = 768 (12 k-tiles, 4 a part at least).
// expected-error @+1 {{kernel-instantiate-templates: row variant #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 8> is not a warp-specialised configuration of this GEMM at 128 rows or fewer}}
kernel.func @MatMul_0(%a: memref<?x?x768xf16>, %b: memref<768x3072xf16>, %c: memref<?x?x3072xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 8>>]} {
  matmul ins(%a, %b : memref<?x?x768xf16>, memref<768x3072xf16>) outs(%c : memref<?x?x3072xf16>) {
  ^bb0(%x: tensor<?x?x768xf16>, %y: tensor<768x3072xf16>):
    %r = graph.matmul %x, %y : (tensor<?x?x768xf16>, tensor<768x3072xf16>) -> tensor<?x?x3072xf16>
    kernel.yield %r : tensor<?x?x3072xf16>
  }
  return
}
func.func @main(%a: memref<?x?x768xf16> {kernel.min_shape = array<i64: 1, 16, 768>, kernel.opt_shape = array<i64: 8, 128, 768>, kernel.max_shape = array<i64: 64, 512, 768>}, %b: memref<768x3072xf16>) -> memref<?x?x3072xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %a, %c0 : memref<?x?x768xf16>
  %seq = memref.dim %a, %c1 : memref<?x?x768xf16>
  %c = memref.alloc(%batch, %seq) : memref<?x?x3072xf16>
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<?x?x768xf16>, memref<768x3072xf16>, memref<?x?x3072xf16>) -> ()
  return %c : memref<?x?x3072xf16>
}

// -----

// Without a min shape nothing says what rows the variant was chosen for.
// expected-error @+1 {{kernel-instantiate-templates: a row variant at 128 rows or fewer needs the profile's min shape (kernel.min_shape)}}
kernel.func @NoMinShape(%a: memref<?x?x768xf16>, %b: memref<768x3072xf16>, %c: memref<?x?x3072xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>]} {
  matmul ins(%a, %b : memref<?x?x768xf16>, memref<768x3072xf16>) outs(%c : memref<?x?x3072xf16>) {
  ^bb0(%x: tensor<?x?x768xf16>, %y: tensor<768x3072xf16>):
    %r = graph.matmul %x, %y : (tensor<?x?x768xf16>, tensor<768x3072xf16>) -> tensor<?x?x3072xf16>
    kernel.yield %r : tensor<?x?x3072xf16>
  }
  return
}
func.func @main(%a: memref<?x?x768xf16> {kernel.opt_shape = array<i64: 8, 128, 768>, kernel.max_shape = array<i64: 64, 512, 768>}, %b: memref<768x3072xf16>) -> memref<?x?x3072xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %a, %c0 : memref<?x?x768xf16>
  %seq = memref.dim %a, %c1 : memref<?x?x768xf16>
  %c = memref.alloc(%batch, %seq) : memref<?x?x3072xf16>
  kernel.launch @NoMinShape(%a, %b, %c) : (memref<?x?x768xf16>, memref<768x3072xf16>, memref<?x?x3072xf16>) -> ()
  return %c : memref<?x?x3072xf16>
}

// -----

// A static GEMM has one M: nothing to choose per call.
// expected-error @+1 {{kernel-instantiate-templates: kernel.row_variants on a GEMM whose rows are static}}
kernel.func @Static(%a: memref<256x768xf16>, %b: memref<768x768xf16>, %c: memref<256x768xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>]} {
  matmul ins(%a, %b : memref<256x768xf16>, memref<768x768xf16>) outs(%c : memref<256x768xf16>) {
  ^bb0(%x: tensor<256x768xf16>, %y: tensor<768x768xf16>):
    %r = graph.matmul %x, %y : (tensor<256x768xf16>, tensor<768x768xf16>) -> tensor<256x768xf16>
    kernel.yield %r : tensor<256x768xf16>
  }
  return
}

// -----

// The variants are listed by ascending max_rows.
// expected-error @+1 {{kernel-instantiate-templates: kernel.row_variants must list the small buckets (max_rows) by ascending max_rows, then at most one large bucket (above_rows) not below them, not}}
kernel.func @Unordered(%a: memref<?x768xf16>, %b: memref<768x768xf16>, %c: memref<?x768xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>, #kernel.row_variant<max_rows = 64, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>]} {
  matmul ins(%a, %b : memref<?x768xf16>, memref<768x768xf16>) outs(%c : memref<?x768xf16>) {
  ^bb0(%x: tensor<?x768xf16>, %y: tensor<768x768xf16>):
    %r = graph.matmul %x, %y : (tensor<?x768xf16>, tensor<768x768xf16>) -> tensor<?x768xf16>
    kernel.yield %r : tensor<?x768xf16>
  }
  return
}
func.func @main(%a: memref<?x768xf16> {kernel.min_shape = array<i64: 1, 768>, kernel.opt_shape = array<i64: 1024, 768>, kernel.max_shape = array<i64: 4096, 768>}, %b: memref<768x768xf16>) -> memref<?x768xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %a, %c0 : memref<?x768xf16>
  %c = memref.alloc(%rows) : memref<?x768xf16>
  kernel.launch @Unordered(%a, %b, %c) : (memref<?x768xf16>, memref<768x768xf16>, memref<?x768xf16>) -> ()
  return %c : memref<?x768xf16>
}

// -----

// The large Ms' bucket comes after the small ones, above them.
// expected-error @+1 {{kernel-instantiate-templates: kernel.row_variants must list the small buckets (max_rows) by ascending max_rows, then at most one large bucket (above_rows) not below them, not}}
kernel.func @LargeBelowSmall(%a: memref<?x768xf16>, %b: memref<768x768xf16>, %c: memref<?x768xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>, #kernel.row_variant<above_rows = 64, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>]} {
  matmul ins(%a, %b : memref<?x768xf16>, memref<768x768xf16>) outs(%c : memref<?x768xf16>) {
  ^bb0(%x: tensor<?x768xf16>, %y: tensor<768x768xf16>):
    %r = graph.matmul %x, %y : (tensor<?x768xf16>, tensor<768x768xf16>) -> tensor<?x768xf16>
    kernel.yield %r : tensor<?x768xf16>
  }
  return
}
func.func @main(%a: memref<?x768xf16> {kernel.min_shape = array<i64: 1, 768>, kernel.opt_shape = array<i64: 1024, 768>, kernel.max_shape = array<i64: 4096, 768>}, %b: memref<768x768xf16>) -> memref<?x768xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %a, %c0 : memref<?x768xf16>
  %c = memref.alloc(%rows) : memref<?x768xf16>
  kernel.launch @LargeBelowSmall(%a, %b, %c) : (memref<?x768xf16>, memref<768x768xf16>, memref<?x768xf16>) -> ()
  return %c : memref<?x768xf16>
}

// -----

// One bucket of large Ms at most: it takes every M above its bound.
// expected-error @+1 {{kernel-instantiate-templates: kernel.row_variants must list the small buckets (max_rows) by ascending max_rows, then at most one large bucket (above_rows) not below them, not}}
kernel.func @TwoLarge(%a: memref<?x768xf16>, %b: memref<768x768xf16>, %c: memref<?x768xf16>) attributes {kernel.row_variants = [#kernel.row_variant<above_rows = 2048, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>, #kernel.row_variant<above_rows = 3000, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>]} {
  matmul ins(%a, %b : memref<?x768xf16>, memref<768x768xf16>) outs(%c : memref<?x768xf16>) {
  ^bb0(%x: tensor<?x768xf16>, %y: tensor<768x768xf16>):
    %r = graph.matmul %x, %y : (tensor<?x768xf16>, tensor<768x768xf16>) -> tensor<?x768xf16>
    kernel.yield %r : tensor<?x768xf16>
  }
  return
}
func.func @main(%a: memref<?x768xf16> {kernel.min_shape = array<i64: 1, 768>, kernel.opt_shape = array<i64: 1024, 768>, kernel.max_shape = array<i64: 4096, 768>}, %b: memref<768x768xf16>) -> memref<?x768xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %a, %c0 : memref<?x768xf16>
  %c = memref.alloc(%rows) : memref<?x768xf16>
  kernel.launch @TwoLarge(%a, %b, %c) : (memref<?x768xf16>, memref<768x768xf16>, memref<?x768xf16>) -> ()
  return %c : memref<?x768xf16>
}

// -----

// A variant is one bucket: a bound on one side (the attribute's own check).
// expected-error @+1 {{a row variant has either max_rows (a bucket of small Ms) or above_rows (the bucket of large Ms), positive}}
kernel.func @BothBounds(%a: memref<?x768xf16>, %b: memref<768x768xf16>, %c: memref<?x768xf16>) attributes {kernel.row_variants = [#kernel.row_variant<max_rows = 128, above_rows = 64, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>>]} {
  matmul ins(%a, %b : memref<?x768xf16>, memref<768x768xf16>) outs(%c : memref<?x768xf16>) {
  ^bb0(%x: tensor<?x768xf16>, %y: tensor<768x768xf16>):
    %r = graph.matmul %x, %y : (tensor<?x768xf16>, tensor<768x768xf16>) -> tensor<?x768xf16>
    kernel.yield %r : tensor<?x768xf16>
  }
  return
}
func.func @main(%a: memref<?x768xf16> {kernel.min_shape = array<i64: 1, 768>, kernel.opt_shape = array<i64: 1024, 768>, kernel.max_shape = array<i64: 4096, 768>}, %b: memref<768x768xf16>) -> memref<?x768xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %a, %c0 : memref<?x768xf16>
  %c = memref.alloc(%rows) : memref<?x768xf16>
  kernel.launch @BothBounds(%a, %b, %c) : (memref<?x768xf16>, memref<768x768xf16>, memref<?x768xf16>) -> ()
  return %c : memref<?x768xf16>
}

// -----

// Split-K cannot pay at the max shape's 4096 rows (256 tiles of 128 x 128 in 1024 x 768).
// expected-error @+1 {{kernel-instantiate-templates: row variant #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 2> is not a warp-specialised configuration of this GEMM above 2048 rows}}
kernel.func @LargeSplitK(%a: memref<?x768xf16>, %b: memref<768x768xf16>, %c: memref<?x768xf16>) attributes {kernel.row_variants = [#kernel.row_variant<above_rows = 2048, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 2>>]} {
  matmul ins(%a, %b : memref<?x768xf16>, memref<768x768xf16>) outs(%c : memref<?x768xf16>) {
  ^bb0(%x: tensor<?x768xf16>, %y: tensor<768x768xf16>):
    %r = graph.matmul %x, %y : (tensor<?x768xf16>, tensor<768x768xf16>) -> tensor<?x768xf16>
    kernel.yield %r : tensor<?x768xf16>
  }
  return
}
func.func @main(%a: memref<?x768xf16> {kernel.min_shape = array<i64: 1, 768>, kernel.opt_shape = array<i64: 1024, 768>, kernel.max_shape = array<i64: 4096, 768>}, %b: memref<768x768xf16>) -> memref<?x768xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %a, %c0 : memref<?x768xf16>
  %c = memref.alloc(%rows) : memref<?x768xf16>
  kernel.launch @LargeSplitK(%a, %b, %c) : (memref<?x768xf16>, memref<768x768xf16>, memref<?x768xf16>) -> ()
  return %c : memref<?x768xf16>
}

// -----

// Without a max shape nothing says what rows the large variant was chosen for.
// expected-error @+1 {{kernel-instantiate-templates: a row variant above 2048 rows needs the profile's max shape (kernel.max_shape)}}
kernel.func @NoMaxShape(%a: memref<?x768xf16>, %b: memref<768x768xf16>, %c: memref<?x768xf16>) attributes {kernel.row_variants = [#kernel.row_variant<above_rows = 2048, config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true>>]} {
  matmul ins(%a, %b : memref<?x768xf16>, memref<768x768xf16>) outs(%c : memref<?x768xf16>) {
  ^bb0(%x: tensor<?x768xf16>, %y: tensor<768x768xf16>):
    %r = graph.matmul %x, %y : (tensor<?x768xf16>, tensor<768x768xf16>) -> tensor<?x768xf16>
    kernel.yield %r : tensor<?x768xf16>
  }
  return
}
func.func @main(%a: memref<?x768xf16> {kernel.min_shape = array<i64: 1, 768>, kernel.opt_shape = array<i64: 1024, 768>}, %b: memref<768x768xf16>) -> memref<?x768xf16> attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %a, %c0 : memref<?x768xf16>
  %c = memref.alloc(%rows) : memref<?x768xf16>
  kernel.launch @NoMaxShape(%a, %b, %c) : (memref<?x768xf16>, memref<768x768xf16>, memref<?x768xf16>) -> ()
  return %c : memref<?x768xf16>
}
