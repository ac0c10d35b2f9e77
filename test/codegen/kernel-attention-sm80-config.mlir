// flash_attention follows the `kernel.config` a kernel carries (set by kernel-autotune):
// `generic` keeps the generic lowering, a legal flash_attention configuration is
// instantiated (here 32 query rows a warp, 3 stages; 8 warps of 16), anything else is an
// error naming the configuration. Untuned, a large problem gets 32 rows a warp.
// RUN: kiln-opt --split-input-file --kernel-select-templates="target=sm_80 templates=flash_attention" --kernel-instantiate-templates=target=sm_80 --verify-diagnostics %s | FileCheck %s

// CHECK-LABEL: kernel.func @asks_generic
// CHECK-NOT: gpu.module
// CHECK: kernel.launch @asks_generic
kernel.func @asks_generic(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.config = #kernel.generic} {
  attention ins(%q, %k, %v : memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x128x64xf16>, %b: tensor<2x3x128x64xf16>, %c: tensor<2x3x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @asks_generic(%q, %k, %v, %o) : (memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) -> ()
  return
}

// -----

// Q 128 x 64, three K and three V stages of 64 x 64: 16384 + 6 x 8192 bytes; 4 warps.
// CHECK-NOT: kernel.func
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_128x64x3w4::@flash_attention_f16_d64_128x64x3w4 blocks in (%c1{{.*}}, %c6{{.*}}, %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) {{ *}}dynamic_shared_memory_size %c65536_i32
// CHECK: gpu.func @flash_attention_f16_d64_128x64x3w4
// 32 rows a warp: each K fragment feeds two row tiles.
// CHECK-COUNT-64: nvgpu.mma.sync
kernel.func @asks_32_rows(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 3, warps = 4>} {
  attention ins(%q, %k, %v : memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x128x64xf16>, %b: tensor<2x3x128x64xf16>, %c: tensor<2x3x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @asks_32_rows(%q, %k, %v, %o) : (memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) -> ()
  return
}

// -----

// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_128x64x2w8::@flash_attention_f16_d64_128x64x2w8 blocks in (%c1{{.*}}, %c6{{.*}}, %c1{{.*}}) threads in (%c256{{.*}}, %c1{{.*}}, %c1{{.*}}) {{ *}}dynamic_shared_memory_size %c49152_i32
kernel.func @asks_8_warps(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 8>} {
  attention ins(%q, %k, %v : memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x128x64xf16>, %b: tensor<2x3x128x64xf16>, %c: tensor<2x3x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @asks_8_warps(%q, %k, %v, %o) : (memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) -> ()
  return
}

// -----

// Untuned: b8 h12 s512 has 384 CTAs of 128 rows, enough for 32 rows a warp.
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_128x64x2w4::@flash_attention_f16_d64_128x64x2w4 blocks in (%c4{{.*}}, %c96{{.*}}, %c1{{.*}})
kernel.func @large_default(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %o: memref<8x12x512x64xf16>) {
  attention ins(%q, %k, %v : memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>) outs(%o : memref<8x12x512x64xf16>) {
  ^bb0(%a: tensor<8x12x512x64xf16>, %b: tensor<8x12x512x64xf16>, %c: tensor<8x12x512x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>) -> tensor<8x12x512x64xf16>
    kernel.yield %r : tensor<8x12x512x64xf16>
  }
  return
}
func.func @main(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %o: memref<8x12x512x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @large_default(%q, %k, %v, %o) : (memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>) -> ()
  return
}

// -----

// expected-error @+1 {{is not a configuration of this attention (Sq 128, Skv 128, D 64)}}
kernel.func @asks_too_many_rows(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 256, block_kv = 64, stages = 2, warps = 4>} {
  attention ins(%q, %k, %v : memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x128x64xf16>, %b: tensor<2x3x128x64xf16>, %c: tensor<2x3x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @asks_too_many_rows(%q, %k, %v, %o) : (memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) -> ()
  return
}

// -----

// A head dim of 128 with 32 rows a warp would not fit in registers.
// expected-error @+1 {{is not a configuration of this attention (Sq 128, Skv 128, D 128)}}
kernel.func @asks_spilling(%q: memref<2x3x128x128xf16>, %k: memref<2x3x128x128xf16>, %v: memref<2x3x128x128xf16>, %o: memref<2x3x128x128xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 4>} {
  attention ins(%q, %k, %v : memref<2x3x128x128xf16>, memref<2x3x128x128xf16>, memref<2x3x128x128xf16>) outs(%o : memref<2x3x128x128xf16>) {
  ^bb0(%a: tensor<2x3x128x128xf16>, %b: tensor<2x3x128x128xf16>, %c: tensor<2x3x128x128xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x128xf16>, tensor<2x3x128x128xf16>, tensor<2x3x128x128xf16>) -> tensor<2x3x128x128xf16>
    kernel.yield %r : tensor<2x3x128x128xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x128xf16>, %k: memref<2x3x128x128xf16>, %v: memref<2x3x128x128xf16>, %o: memref<2x3x128x128xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @asks_spilling(%q, %k, %v, %o) : (memref<2x3x128x128xf16>, memref<2x3x128x128xf16>, memref<2x3x128x128xf16>, memref<2x3x128x128xf16>) -> ()
  return
}

// -----

// Another family's configuration is that family's to check: the sm_90a GEMM is no
// configuration on sm_80 (nor of an attention).
// expected-error @+1 {{kernel-instantiate-templates: #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, consumers = 0> is for sm_90a (wgmma and TMA), not sm_80}}
kernel.func @asks_other_template(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, consumers = 0>} {
  attention ins(%q, %k, %v : memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x128x64xf16>, %b: tensor<2x3x128x64xf16>, %c: tensor<2x3x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @asks_other_template(%q, %k, %v, %o) : (memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) -> ()
  return
}

// -----

// The wgmma variant exists on sm_90a only (the target here is sm_80).
// expected-error @+1 {{is not a configuration of this attention (Sq 128, Skv 128, D 64) on sm_80}}
kernel.func @asks_wgmma_on_sm80(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 64, block_kv = 64, stages = 2, warps = 4, wgmma = true>} {
  attention ins(%q, %k, %v : memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x128x64xf16>, %b: tensor<2x3x128x64xf16>, %c: tensor<2x3x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @asks_wgmma_on_sm80(%q, %k, %v, %o) : (memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) -> ()
  return
}
