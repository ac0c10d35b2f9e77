// kernel-autotune without a timer (kiln-opt): the cost model chooses, unless a timing
// cache (kernel-autotune-cache.mlir) knows better.
// RUN: kiln-opt --split-input-file --kernel-autotune %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kernel-autotune=target=sm_80 %s | FileCheck %s --check-prefix=SM80

// A large GEMM: the sm90 template beats the generic lowering by far.
// CHECK-LABEL: kernel.func @large
// CHECK-SAME: kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 6, consumers = 2>
// CHECK-SAME: kernel.tuning = {micros = {{.*}} : f64, signature = "{{[0-9a-f]+}}", source = "cost-model"}
// On sm_80 the mma.sync template (sm80_gemm): 64x64 tiles, of which there are
// enough for every SM.
// SM80-LABEL: kernel.func @large
// SM80-SAME: kernel.config = #kernel.sm80_gemm<tile_m = 64, tile_n = 64, tile_k = 32, stages = 4, warps_m = 2, warps_n = 2>
kernel.func @large(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) {
  matmul ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf16>) {
  ^bb0(%x: tensor<1024x1024xf16>, %y: tensor<1024x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<1024x1024xf16>, tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
    kernel.yield %r : tensor<1024x1024xf16>
  }
  return
}

// -----

// One 128x128x64 tile: a launch either way, but the generic lowering's threads each run
// the 64 steps of their dot product one after another (~0.1 us a step: its loads wait on
// the L2), longer than the tile's pipeline.
// CHECK-LABEL: kernel.func @one_tile
// SM80-LABEL: kernel.func @one_tile
// CHECK-SAME: kernel.config = #kernel.sm90_gemm<{{.*}}consumers = 2
// CHECK-SAME: source = "cost-model"
kernel.func @one_tile(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %r = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    kernel.yield %r : tensor<128x128xf16>
  }
  return
}

// -----

// Kernels no template takes (f32, pointwise) have nothing to tune.
// CHECK-LABEL: kernel.func @f32_matmul
// CHECK-NOT: kernel.config
// CHECK-LABEL: kernel.func @relu
// CHECK-NOT: kernel.config
kernel.func @f32_matmul(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
  matmul ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: tensor<256x256xf32>, %y: tensor<256x256xf32>):
    %r = graph.matmul %x, %y : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
    kernel.yield %r : tensor<256x256xf32>
  }
  return
}
kernel.func @relu(%x: memref<8x16xf32>, %y: memref<8x16xf32>) {
  pointwise ins(%x : memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%a: tensor<8x16xf32>):
    %r = graph.relu %a : tensor<8x16xf32>
    kernel.yield %r : tensor<8x16xf32>
  }
  return
}

// -----

// A configuration already chosen is kept (no kernel.tuning is added).
// CHECK-LABEL: kernel.func @chosen
// CHECK-SAME: kernel.config = #kernel.generic
// CHECK-NOT: kernel.tuning
kernel.func @chosen(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) attributes {kernel.config = #kernel.generic} {
  matmul ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf16>) {
  ^bb0(%x: tensor<1024x1024xf16>, %y: tensor<1024x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<1024x1024xf16>, tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
    kernel.yield %r : tensor<1024x1024xf16>
  }
  return
}

// -----

// Kernels identical up to their name share one signature (and one decision).
// CHECK-LABEL: kernel.func @twin_a
// CHECK-SAME: signature = "[[SIGNATURE:[0-9a-f]+]]"
// CHECK-LABEL: kernel.func @twin_b
// CHECK-SAME: signature = "[[SIGNATURE]]"
kernel.func @twin_a(%a: memref<512x512xbf16>, %b: memref<512x512xbf16>, %c: memref<512x512xbf16>) {
  matmul ins(%a, %b : memref<512x512xbf16>, memref<512x512xbf16>) outs(%c : memref<512x512xbf16>) {
  ^bb0(%x: tensor<512x512xbf16>, %y: tensor<512x512xbf16>):
    %r = graph.matmul %x, %y : (tensor<512x512xbf16>, tensor<512x512xbf16>) -> tensor<512x512xbf16>
    kernel.yield %r : tensor<512x512xbf16>
  }
  return
}
kernel.func @twin_b(%a: memref<512x512xbf16>, %b: memref<512x512xbf16>, %c: memref<512x512xbf16>) {
  matmul ins(%a, %b : memref<512x512xbf16>, memref<512x512xbf16>) outs(%c : memref<512x512xbf16>) {
  ^bb0(%x: tensor<512x512xbf16>, %y: tensor<512x512xbf16>):
    %r = graph.matmul %x, %y : (tensor<512x512xbf16>, tensor<512x512xbf16>) -> tensor<512x512xbf16>
    kernel.yield %r : tensor<512x512xbf16>
  }
  return
}

// -----

// A convolution sm90_conv takes (channels last, constant weight): its
// configurations are candidates too. Batch 32 of 56x56x64 -> 256, 1x1: the GEMM is
// 100352x256x64, whose 128x256 tiles fill the GPU (784 CTAs).
// CHECK-LABEL: kernel.func @conv
// CHECK-SAME: kernel.config = #kernel.sm90_conv<
// CHECK-SAME: source = "cost-model"
// On sm_80, sm80_conv's configurations (the same GEMM template).
// SM80-LABEL: kernel.func @conv
// SM80-SAME: kernel.config = #kernel.sm80_conv<
memref.global "private" constant @w : memref<256x1x1x64xf16> = dense<1.0>
kernel.func @conv(%x: memref<32x56x56x64xf16>, %w: memref<256x1x1x64xf16>, %y: memref<32x56x56x256xf16>) {
  conv ins(%x, %w : memref<32x56x56x64xf16>, memref<256x1x1x64xf16>) outs(%y : memref<32x56x56x256xf16>) {
  ^bb0(%a: tensor<32x56x56x64xf16>, %b: tensor<256x1x1x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<32x56x56x64xf16>, tensor<256x1x1x64xf16>) -> tensor<32x56x56x256xf16>
    kernel.yield %r : tensor<32x56x56x256xf16>
  }
  return
}
func.func @main(%x: memref<32x56x56x64xf16>, %y: memref<32x56x56x256xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<256x1x1x64xf16>
  kernel.launch @conv(%x, %w, %y) : (memref<32x56x56x64xf16>, memref<256x1x1x64xf16>, memref<32x56x56x256xf16>) -> ()
  return
}

// -----

// The ResNet bottleneck's end, fused (bias + residual + ReLU, the epilogue of
// sm90_conv): a tuner candidate like the bare convolution.
// CHECK-LABEL: kernel.func @fused_conv
// CHECK-SAME: kernel.config = #kernel.sm90_conv<
// CHECK-SAME: source = "cost-model"
memref.global "private" constant @w : memref<256x1x1x64xf16> = dense<1.0>
memref.global "private" constant @b : memref<256xf16> = dense<0.5>
kernel.func @fused_conv(%x: memref<32x56x56x64xf16>, %w: memref<256x1x1x64xf16>, %bias: memref<256xf16>, %res: memref<32x56x56x256xf16>, %y: memref<32x56x56x256xf16>) {
  conv ins(%x, %w, %bias, %res : memref<32x56x56x64xf16>, memref<256x1x1x64xf16>, memref<256xf16>, memref<32x56x56x256xf16>) outs(%y : memref<32x56x56x256xf16>) {
  ^bb0(%a: tensor<32x56x56x64xf16>, %b: tensor<256x1x1x64xf16>, %c: tensor<256xf16>, %d: tensor<32x56x56x256xf16>):
    %r = graph.conv %a, %b, %c {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<32x56x56x64xf16>, tensor<256x1x1x64xf16>, tensor<256xf16>) -> tensor<32x56x56x256xf16>
    %s = graph.add %r, %d : (tensor<32x56x56x256xf16>, tensor<32x56x56x256xf16>) -> tensor<32x56x56x256xf16>
    %t = graph.relu %s : tensor<32x56x56x256xf16>
    kernel.yield %t : tensor<32x56x56x256xf16>
  }
  return
}
func.func @main(%x: memref<32x56x56x64xf16>, %res: memref<32x56x56x256xf16>, %y: memref<32x56x56x256xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @w : memref<256x1x1x64xf16>
  %b = memref.get_global @b : memref<256xf16>
  kernel.launch @fused_conv(%x, %w, %b, %res, %y) : (memref<32x56x56x64xf16>, memref<256x1x1x64xf16>, memref<256xf16>, memref<32x56x56x256xf16>, memref<32x56x56x256xf16>) -> ()
  return
}

// -----

// The same convolution with a weight computed at run time: sm90_conv would leave
// it generic, so there is nothing to tune.
// CHECK-LABEL: kernel.func @runtime_weight
// CHECK-NOT: kernel.config
kernel.func @runtime_weight(%x: memref<32x56x56x64xf16>, %w: memref<256x1x1x64xf16>, %y: memref<32x56x56x256xf16>) {
  conv ins(%x, %w : memref<32x56x56x64xf16>, memref<256x1x1x64xf16>) outs(%y : memref<32x56x56x256xf16>) {
  ^bb0(%a: tensor<32x56x56x64xf16>, %b: tensor<256x1x1x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<32x56x56x64xf16>, tensor<256x1x1x64xf16>) -> tensor<32x56x56x256xf16>
    kernel.yield %r : tensor<32x56x56x256xf16>
  }
  return
}
func.func @main(%x: memref<32x56x56x64xf16>, %w: memref<256x1x1x64xf16>, %y: memref<32x56x56x256xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @runtime_weight(%x, %w, %y) : (memref<32x56x56x64xf16>, memref<256x1x1x64xf16>, memref<32x56x56x256xf16>) -> ()
  return
}

// -----

// Attention (b8 h12 s512 d64): the flash-attention configurations. sm_90a: the wgmma
// variant, 64 query rows a CTA and 128-wide KV tiles; sm_80: mma.sync with 32 rows a warp.
// CHECK-LABEL: kernel.func @attention
// CHECK-SAME: kernel.config = #kernel.flash_attention<block_q = 64, block_kv = 128, stages = 2, warps = 4, wgmma = true>
// CHECK-SAME: source = "cost-model"
// SM80-LABEL: kernel.func @attention
// SM80-SAME: kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 4>
kernel.func @attention(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %o: memref<8x12x512x64xf16>) {
  attention ins(%q, %k, %v : memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>) outs(%o : memref<8x12x512x64xf16>) {
  ^bb0(%a: tensor<8x12x512x64xf16>, %b: tensor<8x12x512x64xf16>, %c: tensor<8x12x512x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>) -> tensor<8x12x512x64xf16>
    kernel.yield %r : tensor<8x12x512x64xf16>
  }
  return
}
func.func @main(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %o: memref<8x12x512x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @attention(%q, %k, %v, %o) : (memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>) -> ()
  return
}

// -----

// Head size 128: sm_90a the TMA form with 128-wide KV tiles in 2 stages (the cost model's
// factors from the H200); sm_80 mma.sync.
// CHECK-LABEL: kernel.func @attention_d128
// CHECK-SAME: kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 128, stages = 2, warps = 12, wgmma = true, tma = true>
// CHECK-SAME: source = "cost-model"
// SM80-LABEL: kernel.func @attention_d128
// SM80-SAME: kernel.config = #kernel.flash_attention<block_q = {{[0-9]+}}, block_kv = {{[0-9]+}}, stages = {{[0-9]}}, warps = {{[0-9]}}>
// SM80-SAME: source = "cost-model"
kernel.func @attention_d128(%q: memref<4x32x512x128xf16>, %k: memref<4x32x512x128xf16>, %v: memref<4x32x512x128xf16>, %o: memref<4x32x512x128xf16>) {
  attention ins(%q, %k, %v : memref<4x32x512x128xf16>, memref<4x32x512x128xf16>, memref<4x32x512x128xf16>) outs(%o : memref<4x32x512x128xf16>) {
  ^bb0(%a: tensor<4x32x512x128xf16>, %b: tensor<4x32x512x128xf16>, %c: tensor<4x32x512x128xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.088388 : f32} : (tensor<4x32x512x128xf16>, tensor<4x32x512x128xf16>, tensor<4x32x512x128xf16>) -> tensor<4x32x512x128xf16>
    kernel.yield %r : tensor<4x32x512x128xf16>
  }
  return
}
func.func @main(%q: memref<4x32x512x128xf16>, %k: memref<4x32x512x128xf16>, %v: memref<4x32x512x128xf16>, %o: memref<4x32x512x128xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @attention_d128(%q, %k, %v, %o) : (memref<4x32x512x128xf16>, memref<4x32x512x128xf16>, memref<4x32x512x128xf16>, memref<4x32x512x128xf16>) -> ()
  return
}

// -----

// ResNet-50's layer3 3x3 convolution at batch 1, channels-last: 196 output positions x
// 256 channels, 2304 steps of reduction. Its flops at the SIMT rate would take 4 us, but
// the generic lowering's one wave of threads runs the 2304 steps serially (~0.4 ms on the
// H200); the template's 4 tiles take a few us.
// CHECK-LABEL: kernel.func @small_conv
// CHECK-SAME: kernel.config = #kernel.sm90_conv<
// CHECK-SAME: source = "cost-model"
memref.global "private" constant @w3 : memref<256x3x3x256xf16> = dense<1.0>
kernel.func @small_conv(%x: memref<1x14x14x256xf16>, %w: memref<256x3x3x256xf16>, %y: memref<1x14x14x256xf16>) {
  conv ins(%x, %w : memref<1x14x14x256xf16>, memref<256x3x3x256xf16>) outs(%y : memref<1x14x14x256xf16>) {
  ^bb0(%a: tensor<1x14x14x256xf16>, %k: tensor<256x3x3x256xf16>):
    %r = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x14x14x256xf16>, tensor<256x3x3x256xf16>) -> tensor<1x14x14x256xf16>
    kernel.yield %r : tensor<1x14x14x256xf16>
  }
  return
}
func.func @main(%x: memref<1x14x14x256xf16>, %y: memref<1x14x14x256xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w3 : memref<256x3x3x256xf16>
  kernel.launch @small_conv(%x, %w, %y) : (memref<1x14x14x256xf16>, memref<256x3x3x256xf16>, memref<1x14x14x256xf16>) -> ()
  return
}
