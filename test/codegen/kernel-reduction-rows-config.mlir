// The rows family follows the `kernel.config` a kernel carries (set by kernel-autotune):
// `#kernel.generic` keeps the generic lowering, a legal rows configuration is
// instantiated, another family's configuration is that family's to refuse (a softmax is
// no attention), and a rows configuration the kernel cannot take is an error naming it.
// RUN: kiln-opt --split-input-file --kernel-select-templates="target=sm_80 templates=rows" --kernel-instantiate-templates=target=sm_80 --verify-diagnostics %s | FileCheck %s

// CHECK-LABEL: kernel.func @asks_generic
// CHECK-NOT: gpu.module
// CHECK: kernel.launch @asks_generic
kernel.func @asks_generic(%x: memref<64x768xf16>, %y: memref<64x768xf16>) attributes {kernel.config = #kernel.generic} {
  reduction ins(%x : memref<64x768xf16>) outs(%y : memref<64x768xf16>) {
  ^bb0(%a: tensor<64x768xf16>):
    %r = graph.softmax %a {axis = -1 : i64} : (tensor<64x768xf16>) -> tensor<64x768xf16>
    kernel.yield %r : tensor<64x768xf16>
  }
  return
}
func.func @main(%x: memref<64x768xf16>, %y: memref<64x768xf16>) {
  kernel.launch @asks_generic(%x, %y) : (memref<64x768xf16>, memref<64x768xf16>) -> ()
  return
}

// -----

// Two warps a row (16 elements a thread; the default is a warp of 24), a CTA each.
// CHECK-NOT: kernel.func
// CHECK: gpu.launch_func {{ *}}@kiln_rows_softmax_64x768_{{[0-9a-f]+}}_t64r1v8::{{.*}} blocks in (%c64{{[_0-9]*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c64{{[_0-9]*}},
// CHECK: gpu.barrier
kernel.func @asks_two_warps(%x: memref<64x768xf16>, %y: memref<64x768xf16>) attributes {kernel.config = #kernel.rows<threads_per_row = 64, rows_per_cta = 1, vector = 8>} {
  reduction ins(%x : memref<64x768xf16>) outs(%y : memref<64x768xf16>) {
  ^bb0(%a: tensor<64x768xf16>):
    %r = graph.softmax %a {axis = -1 : i64} : (tensor<64x768xf16>) -> tensor<64x768xf16>
    kernel.yield %r : tensor<64x768xf16>
  }
  return
}
func.func @main(%x: memref<64x768xf16>, %y: memref<64x768xf16>) {
  kernel.launch @asks_two_warps(%x, %y) : (memref<64x768xf16>, memref<64x768xf16>) -> ()
  return
}

// -----

// A configuration of another template family: that family's error.
// expected-error @+1 {{kernel-instantiate-templates: #kernel.flash_attention<block_q = 64, block_kv = 64, stages = 2, warps = 4> is for an attention of half-precision operands (D a multiple of 16 up to 256) with no mask, an additive mask or a causal one, which this kernel is not}}
kernel.func @other_family(%x: memref<64x768xf16>, %y: memref<64x768xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 64, block_kv = 64, stages = 2, warps = 4>} {
  reduction ins(%x : memref<64x768xf16>) outs(%y : memref<64x768xf16>) {
  ^bb0(%a: tensor<64x768xf16>):
    %r = graph.softmax %a {axis = -1 : i64} : (tensor<64x768xf16>) -> tensor<64x768xf16>
    kernel.yield %r : tensor<64x768xf16>
  }
  return
}
func.func @main(%x: memref<64x768xf16>, %y: memref<64x768xf16>) {
  kernel.launch @other_family(%x, %y) : (memref<64x768xf16>, memref<64x768xf16>) -> ()
  return
}

// -----

// A vector of more than 16 bytes is no configuration of any kernel (the attribute's check).
// expected-error @+1 {{vector must be 1, 2, 4 or 8, got 32}}
kernel.func @asks_wide_vectors(%x: memref<64x768xf16>, %y: memref<64x768xf16>) attributes {kernel.config = #kernel.rows<threads_per_row = 32, rows_per_cta = 4, vector = 32>} {
  reduction ins(%x : memref<64x768xf16>) outs(%y : memref<64x768xf16>) {
  ^bb0(%a: tensor<64x768xf16>):
    %r = graph.softmax %a {axis = -1 : i64} : (tensor<64x768xf16>) -> tensor<64x768xf16>
    kernel.yield %r : tensor<64x768xf16>
  }
  return
}
func.func @main(%x: memref<64x768xf16>, %y: memref<64x768xf16>) {
  kernel.launch @asks_wide_vectors(%x, %y) : (memref<64x768xf16>, memref<64x768xf16>) -> ()
  return
}

// -----

// Two warps a row cannot share a CTA with other rows (the attribute's check).
// expected-error @+1 {{rows_per_cta must be positive, 1 when a row takes more than a warp}}
kernel.func @asks_two_wide_rows(%x: memref<64x768xf16>, %y: memref<64x768xf16>) attributes {kernel.config = #kernel.rows<threads_per_row = 64, rows_per_cta = 2, vector = 8>} {
  reduction ins(%x : memref<64x768xf16>) outs(%y : memref<64x768xf16>) {
  ^bb0(%a: tensor<64x768xf16>):
    %r = graph.softmax %a {axis = -1 : i64} : (tensor<64x768xf16>) -> tensor<64x768xf16>
    kernel.yield %r : tensor<64x768xf16>
  }
  return
}
func.func @main(%x: memref<64x768xf16>, %y: memref<64x768xf16>) {
  kernel.launch @asks_two_wide_rows(%x, %y) : (memref<64x768xf16>, memref<64x768xf16>) -> ()
  return
}

// -----

// Half a warp would reread the row (48 elements a thread), which only a default may do.
// expected-error @+1 {{is not a configuration of this kernel}}
kernel.func @asks_half_warps(%x: memref<64x768xf16>, %y: memref<64x768xf16>) attributes {kernel.config = #kernel.rows<threads_per_row = 16, rows_per_cta = 8, vector = 8>} {
  reduction ins(%x : memref<64x768xf16>) outs(%y : memref<64x768xf16>) {
  ^bb0(%a: tensor<64x768xf16>):
    %r = graph.softmax %a {axis = -1 : i64} : (tensor<64x768xf16>) -> tensor<64x768xf16>
    kernel.yield %r : tensor<64x768xf16>
  }
  return
}
func.func @main(%x: memref<64x768xf16>, %y: memref<64x768xf16>) {
  kernel.launch @asks_half_warps(%x, %y) : (memref<64x768xf16>, memref<64x768xf16>) -> ()
  return
}
