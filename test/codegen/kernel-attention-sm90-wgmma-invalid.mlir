// The flash_attention family on sm_90a: configurations of the wgmma variant that are not
// legal for the kernel are errors naming the configuration. (Parameters the attribute does
// not have are parse errors: test/kernel/invalid.mlir.)
// RUN: kiln-opt --split-input-file --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --verify-diagnostics %s

// The wgmma variant reads rows of one or two 128-byte swizzle atoms: D from 64 to 128.
// expected-error @+1 {{is not a configuration of this attention (Sq 128, Skv 128, D 48) on sm_90a}}
kernel.func @Wgmma_d48(%q: memref<2x3x128x48xf16>, %k: memref<2x3x128x48xf16>, %v: memref<2x3x128x48xf16>, %o: memref<2x3x128x48xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 64, block_kv = 64, stages = 2, warps = 4, wgmma = true>} {
  attention ins(%q, %k, %v : memref<2x3x128x48xf16>, memref<2x3x128x48xf16>, memref<2x3x128x48xf16>) outs(%o : memref<2x3x128x48xf16>) {
  ^bb0(%a: tensor<2x3x128x48xf16>, %b: tensor<2x3x128x48xf16>, %c: tensor<2x3x128x48xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x48xf16>, tensor<2x3x128x48xf16>, tensor<2x3x128x48xf16>) -> tensor<2x3x128x48xf16>
    kernel.yield %r : tensor<2x3x128x48xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x48xf16>, %k: memref<2x3x128x48xf16>, %v: memref<2x3x128x48xf16>, %o: memref<2x3x128x48xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Wgmma_d48(%q, %k, %v, %o) : (memref<2x3x128x48xf16>, memref<2x3x128x48xf16>, memref<2x3x128x48xf16>, memref<2x3x128x48xf16>) -> ()
  return
}

// -----

// One warpgroup computes 64 rows: 64 rows and 8 warps do not fit (the attribute's check).
// expected-error @+1 {{block_q must be a multiple of 16 rows a warp, got 64 over 8 warps}}
kernel.func @Wgmma_rows(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 64, block_kv = 64, stages = 2, warps = 8, wgmma = true>} {
  attention ins(%q, %k, %v : memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x128x64xf16>, %b: tensor<2x3x128x64xf16>, %c: tensor<2x3x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Wgmma_rows(%q, %k, %v, %o) : (memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) -> ()
  return
}

// -----

// The TMA form is two consumer warpgroups of 64 rows and a producer: 12 warps, 128 rows.
// expected-error @+1 {{tma needs wgmma, 12 warps and block_q = 128 (two consumer warpgroups of 64 rows and a producer), got block_q = 128, warps = 8}}
kernel.func @Tma_warps(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 8, wgmma = true, tma = true>} {
  attention ins(%q, %k, %v : memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x128x64xf16>, %b: tensor<2x3x128x64xf16>, %c: tensor<2x3x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}

// -----

// K and V shared by both batches ([1, 3, 128, 64]): a tensor map of one batch cannot be
// indexed by the CTA's batch, so the TMA form is not a configuration of this attention.
// expected-error @+1 {{is not a configuration of this attention (Sq 128, Skv 128, D 64) on sm_90a}}
kernel.func @Tma_broadcast(%q: memref<2x3x128x64xf16>, %k: memref<1x3x128x64xf16>, %v: memref<1x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 12, wgmma = true, tma = true>} {
  attention ins(%q, %k, %v : memref<2x3x128x64xf16>, memref<1x3x128x64xf16>, memref<1x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x128x64xf16>, %b: tensor<1x3x128x64xf16>, %c: tensor<1x3x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<1x3x128x64xf16>, tensor<1x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x64xf16>, %k: memref<1x3x128x64xf16>, %v: memref<1x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Tma_broadcast(%q, %k, %v, %o) : (memref<2x3x128x64xf16>, memref<1x3x128x64xf16>, memref<1x3x128x64xf16>, memref<2x3x128x64xf16>) -> ()
  return
}

// -----

// The TMA form holds O and the P of a P V in flight during the next softmax; as a
// precaution its configurations are those ptxas 13.0 assembles without spills, and at D
// above 80 a causal kernel with 128-wide KV tiles spills: not a configuration of this
// attention (64-wide ones are).
// expected-error @+1 {{is not a configuration of this attention (Sq 512, Skv 512, D 128) on sm_90a}}
kernel.func @Tma_causal_wide(%q: memref<2x8x512x128xf16>, %k: memref<2x8x512x128xf16>, %v: memref<2x8x512x128xf16>, %o: memref<2x8x512x128xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 128, stages = 2, warps = 12, wgmma = true, tma = true>} {
  attention ins(%q, %k, %v : memref<2x8x512x128xf16>, memref<2x8x512x128xf16>, memref<2x8x512x128xf16>) outs(%o : memref<2x8x512x128xf16>) {
  ^bb0(%a: tensor<2x8x512x128xf16>, %b: tensor<2x8x512x128xf16>, %c: tensor<2x8x512x128xf16>):
    %r = graph.attention %a, %b, %c {causal, scale = 0.088388 : f32} : (tensor<2x8x512x128xf16>, tensor<2x8x512x128xf16>, tensor<2x8x512x128xf16>) -> tensor<2x8x512x128xf16>
    kernel.yield %r : tensor<2x8x512x128xf16>
  }
  return
}
func.func @main(%q: memref<2x8x512x128xf16>, %k: memref<2x8x512x128xf16>, %v: memref<2x8x512x128xf16>, %o: memref<2x8x512x128xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Tma_causal_wide(%q, %k, %v, %o) : (memref<2x8x512x128xf16>, memref<2x8x512x128xf16>, memref<2x8x512x128xf16>, memref<2x8x512x128xf16>) -> ()
  return
}
