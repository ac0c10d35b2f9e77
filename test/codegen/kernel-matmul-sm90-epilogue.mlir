// sm90_gemm with fused epilogues (passes/kernel/Sm90Epilogue.h): the elementwise
// ops after the product run on the f32 accumulators of a thread's columns (16 bytes of C:
// 8 of f16, 4 of f32) just before the store,
// their other operands read through extra kernel parameters after %M, %N, %K. Cases: BERT's
// ffn1 (bias + GELU), bias + residual, a scalar scale with a cast to f32, the
// one-warpgroup template, split-K (the reduction kernel applies the epilogue; the parts
// store raw f32 sums), a classifier's product of flattened features, and a linear layer on
// a [B, S, K] activation (graph-unflatten-matmuls' form). kernel-matmul-sm90-epilogue-unmatched.mlir: what stays generic.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// BERT-base ffn1 at 256 tokens: bias (one value per column, from a constant global) and
// GELU (erf), computed in f32 and rounded once. Its result is f16, so GELU is the tanh
// form with one tanh.approx.f32 (emitHalfPrecisionGelu): u = x (sqrt(2 / pi) + 0.044715
// sqrt(2 / pi) x^2), one fma with the constant sqrt(2 / pi) = 0f3F4C422A, and 0.5 x (1 +
// tanh u) as fma(h, t, h).
// CHECK-LABEL: func.func @main
// CHECK: %[[BIAS:.*]] = memref.get_global @bias : memref<3072xf16>
// CHECK: %[[BP:.*]] = memref.reinterpret_cast %[[BIAS]] {{.*}} : memref<3072xf16> to memref<f16>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_add_gelu_[[KEY:[0-9a-f]+]]::@gemm_f16_f16_128x128x64_s4_ws2_add_gelu_[[KEY]]
// CHECK-SAME: %c256_i32 : i32, %c3072_i32 : i32, %c768_i32 : i32, %[[BP]] : memref<f16>)
// CHECK-NOT: kernel.func
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_add_gelu_[[KEY]]({{.*}}, %{{.*}}: i32, %[[PB:.*]]: memref<f16>)
// The bias's eight columns, the same for every item of a thread, are loaded once before
// its items; then per item, after the f32 vector is read from the staging, the add and
// GELU per lane, then the rounding.
// CHECK: memref.reinterpret_cast %[[PB]] {{.*}} : memref<f16> to memref<?xf16>
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<?xf16>, vector<8xf16>
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: %[[V:.*]] = vector.load %{{.*}} : memref<128x128xf32, strided<[132, 1]>, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK-NOT: memref<?xf16>
// CHECK: vector.extract %[[V]][0] : f32 from vector<8xf32>
// CHECK: arith.addf {{.*}} : f32
// CHECK: math.fma {{.*}} : f32
// CHECK: llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f" {{.*}} : (f32) -> f32
// CHECK: math.fma {{.*}} : f32
// CHECK-COUNT-7: llvm.inline_asm asm_dialect = att "tanh.approx.f32
// CHECK-NOT: math.erf
// CHECK: %[[E:.*]] = vector.from_elements {{.*}} : vector<8xf32>
// CHECK: arith.truncf %[[E]] : vector<8xf32> to vector<8xf16>
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_add_gelu_
// PTX: .param .u64 .ptr .align 1 gemm_f16_f16_128x128x64_s4_ws2_add_gelu_{{.*}}_param_6
// PTX: ld.global.v4.b32
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-DAG: fma.rn.f32 {{.*}}, 0f3F4C422A;
// PTX-DAG: tanh.approx.f32
// PTX-DAG: cvt.rn.f16x2.f32
memref.global "private" constant @bias : memref<3072xf16> = dense<0.5>
kernel.func @ffn1(%a: memref<256x768xf16>, %b: memref<768x3072xf16>, %bias: memref<3072xf16>, %c: memref<256x3072xf16>) {
  matmul ins(%a, %b, %bias : memref<256x768xf16>, memref<768x3072xf16>, memref<3072xf16>) outs(%c : memref<256x3072xf16>) {
  ^bb0(%x: tensor<256x768xf16>, %y: tensor<768x3072xf16>, %z: tensor<3072xf16>):
    %p = graph.matmul %x, %y : (tensor<256x768xf16>, tensor<768x3072xf16>) -> tensor<256x3072xf16>
    %s = graph.add %p, %z : (tensor<256x3072xf16>, tensor<3072xf16>) -> tensor<256x3072xf16>
    %g = graph.gelu %s {approximate = "none"} : tensor<256x3072xf16>
    kernel.yield %g : tensor<256x3072xf16>
  }
  return
}
func.func @main(%a: memref<256x768xf16>, %b: memref<768x3072xf16>, %c: memref<256x3072xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %bias = memref.get_global @bias : memref<3072xf16>
  kernel.launch @ffn1(%a, %b, %bias, %c) : (memref<256x768xf16>, memref<768x3072xf16>, memref<3072xf16>, memref<256x3072xf16>) -> ()
  return
}

// -----

// Bias, then a residual of C's shape (BERT's attention output and ffn2): the bias is read
// per column (once a thread, whose items share their columns; with one CTA an SM, before
// the main loop, whose wgmma cover the load's latency); the residual comes through
// shared memory: the producer loads each tile's 128 x 128 box of it by TMA (its tensor map
// is the kernel's last parameter, `_r` ends the name), and the epilogue reads it at the
// element's [row, column] of the tile instead of waiting out global loads.
// CHECK-LABEL: func.func @main
// CHECK: %[[MAPR:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c128{{.*}}] : memref<*xbf16> -> <tensor = memref<128x128xbf16, 3>, swizzle = none
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_bf16_bf16_128x128x64_s4_ws2_add_add_{{[0-9a-f]+}}_r::
// CHECK-SAME: %c768_i32 : i32, %{{.*}} : memref<bf16>, %{{.*}} : memref<bf16>, %[[MAPR]] : !nvgpu.tensormap.descriptor<tensor = memref<128x128xbf16, 3>, swizzle = none
// CHECK: gpu.func @gemm_bf16_bf16_128x128x64_s4_ws2_add_add_{{[0-9a-f]+}}_r({{.*}}, %[[PB:[a-z0-9]+]]: memref<bf16>, %{{[a-z0-9]+}}: memref<bf16>, %[[DR:[a-z0-9]+]]: !nvgpu.tensormap.descriptor<tensor = memref<128x128xbf16, 3>
// CHECK: nvgpu.tma.async.load %[[DR]][
// CHECK: memref.reinterpret_cast %[[PB]] to offset: [0], sizes: [%{{.*}}], strides: [1]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[TILE:.*]] = memref.view {{.*}} to memref<128x128xbf16, #gpu.address_space<workgroup>>
// CHECK: vector.load %[[TILE]][
// CHECK-COUNT-16: arith.addf {{.*}} : f32
// PTX-LABEL: .visible .entry gemm_bf16_bf16_128x128x64_s4_ws2_add_add_
// PTX: _param_8
// PTX: ld.global.v4.b32
// PTX-NOT: ld.global
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-NOT: ld.global
// PTX: ld.shared.v4.b32 {{.*}}+131072];
// PTX-COUNT-16: add.f32
// PTX: st.global.v4.b32
kernel.func @ffn2(%a: memref<256x3072xbf16>, %b: memref<3072x768xbf16>, %bias: memref<1x768xbf16>, %res: memref<256x768xbf16>, %c: memref<256x768xbf16>) {
  matmul ins(%a, %b, %bias, %res : memref<256x3072xbf16>, memref<3072x768xbf16>, memref<1x768xbf16>, memref<256x768xbf16>) outs(%c : memref<256x768xbf16>) {
  ^bb0(%x: tensor<256x3072xbf16>, %y: tensor<3072x768xbf16>, %z: tensor<1x768xbf16>, %r: tensor<256x768xbf16>):
    %p = graph.matmul %x, %y : (tensor<256x3072xbf16>, tensor<3072x768xbf16>) -> tensor<256x768xbf16>
    %s = graph.add %p, %z : (tensor<256x768xbf16>, tensor<1x768xbf16>) -> tensor<256x768xbf16>
    %t = graph.add %r, %s : (tensor<256x768xbf16>, tensor<256x768xbf16>) -> tensor<256x768xbf16>
    kernel.yield %t : tensor<256x768xbf16>
  }
  return
}
func.func @main(%a: memref<256x3072xbf16>, %b: memref<3072x768xbf16>, %bias: memref<1x768xbf16>, %res: memref<256x768xbf16>, %c: memref<256x768xbf16>) attributes {kernel.num_inputs = 4 : i64} {
  kernel.launch @ffn2(%a, %b, %bias, %res, %c) : (memref<256x3072xbf16>, memref<3072x768xbf16>, memref<1x768xbf16>, memref<256x768xbf16>, memref<256x768xbf16>) -> ()
  return
}

// -----

// GELU on f32 values (a product cast to f32 before it, kept in f32 by the precision
// pass): the exact form, erf (the rational approximation of gpu-approximate-erf, within
// 2.4e-6), not the tanh form of 16-bit results.
// CHECK-LABEL: func.func @main
// CHECK: gpu.func @gemm_f16_f32_128x128x64_s4_ws2_cast_gelu_
// CHECK: math.erf {{.*}} : f32
// CHECK-NOT: tanh.approx
kernel.func @gelu_f32(%a: memref<256x512xf16>, %b: memref<512x256xf16>, %c: memref<256x256xf32>) {
  matmul ins(%a, %b : memref<256x512xf16>, memref<512x256xf16>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: tensor<256x512xf16>, %y: tensor<512x256xf16>):
    %p = graph.matmul %x, %y : (tensor<256x512xf16>, tensor<512x256xf16>) -> tensor<256x256xf16>
    %f = graph.cast %p {to = f32} : (tensor<256x256xf16>) -> tensor<256x256xf32>
    %g = graph.gelu %f {approximate = "none"} : tensor<256x256xf32>
    kernel.yield %g : tensor<256x256xf32>
  }
  return
}
func.func @main(%a: memref<256x512xf16>, %b: memref<512x256xf16>, %c: memref<256x256xf32>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @gelu_f32(%a, %b, %c) : (memref<256x512xf16>, memref<512x256xf16>, memref<256x256xf32>) -> ()
  return
}

// -----

// SiLU and a sigmoid (an EfficientNet-style expansion's activation, a squeeze-excite
// gate's) with 16-bit results: 1 / (1 + 2^(-x log2 e)) with ex2.approx.ftz and
// rcp.approx.ftz (emitHalfPrecisionSigmoid), not libdevice's expf and the IEEE
// reciprocal (rcp.rn); on f32 values (the second kernel) the exact form stays.
// CHECK-LABEL: func.func @main
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_silu_sigmoid_
// CHECK: arith.mulf {{.*}} : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"
// CHECK-NOT: math.exp
// CHECK: gpu.func @gemm_f16_f32_128x128x64_s4_ws2_cast_silu_
// CHECK: math.exp
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_silu_sigmoid_
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: rcp.approx.ftz.f32
// PTX-NOT: rcp.rn.f32
// PTX-LABEL: .visible .entry gemm_f16_f32_128x128x64_s4_ws2_cast_silu_
// PTX: rcp.rn.f32
kernel.func @silu_sigmoid(%a: memref<256x512xf16>, %b: memref<512x256xf16>, %c: memref<256x256xf16>) {
  matmul ins(%a, %b : memref<256x512xf16>, memref<512x256xf16>) outs(%c : memref<256x256xf16>) {
  ^bb0(%x: tensor<256x512xf16>, %y: tensor<512x256xf16>):
    %p = graph.matmul %x, %y : (tensor<256x512xf16>, tensor<512x256xf16>) -> tensor<256x256xf16>
    %s = graph.silu %p : tensor<256x256xf16>
    %g = graph.sigmoid %s : tensor<256x256xf16>
    kernel.yield %g : tensor<256x256xf16>
  }
  return
}
kernel.func @silu_f32(%a: memref<256x512xf16>, %b: memref<512x256xf16>, %c: memref<256x256xf32>) {
  matmul ins(%a, %b : memref<256x512xf16>, memref<512x256xf16>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: tensor<256x512xf16>, %y: tensor<512x256xf16>):
    %p = graph.matmul %x, %y : (tensor<256x512xf16>, tensor<512x256xf16>) -> tensor<256x256xf16>
    %f = graph.cast %p {to = f32} : (tensor<256x256xf16>) -> tensor<256x256xf32>
    %s = graph.silu %f : tensor<256x256xf32>
    kernel.yield %s : tensor<256x256xf32>
  }
  return
}
func.func @main(%a: memref<256x512xf16>, %b: memref<512x256xf16>, %c: memref<256x256xf16>, %d: memref<256x256xf32>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @silu_sigmoid(%a, %b, %c) : (memref<256x512xf16>, memref<512x256xf16>, memref<256x256xf16>) -> ()
  kernel.launch @silu_f32(%a, %b, %d) : (memref<256x512xf16>, memref<512x256xf16>, memref<256x256xf32>) -> ()
  return
}

// -----

// An inlined scalar constant (a scale) and a cast to f32: the constant is compiled in, no
// parameter; C is f32, stored as it is.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f32_128x128x64_s4_ws2_mul_cast_{{[0-9a-f]+}}::
// CHECK-SAME: %c512_i32 : i32)
// CHECK: gpu.func @gemm_f16_f32_128x128x64_s4_ws2_mul_cast_{{[0-9a-f]+}}({{.*}}: memref<f32>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: %[[E:.*]] = vector.from_elements
// CHECK-NOT: arith.truncf %[[E]]
// CHECK: vector.store %[[E]]
// PTX-LABEL: .visible .entry gemm_f16_f32_128x128x64_s4_ws2_mul_cast_
// PTX: mul.f32 {{.*}}, 0f3E000000
// PTX: st.global.v4.b32
kernel.func @scaled(%a: memref<256x512xf16>, %b: memref<512x256xf16>, %c: memref<256x256xf32>) {
  matmul ins(%a, %b : memref<256x512xf16>, memref<512x256xf16>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: tensor<256x512xf16>, %y: tensor<512x256xf16>):
    %k = graph.constant dense<1.250000e-01> : tensor<f16>
    %p = graph.matmul %x, %y : (tensor<256x512xf16>, tensor<512x256xf16>) -> tensor<256x256xf16>
    %s = graph.mul %p, %k : (tensor<256x256xf16>, tensor<f16>) -> tensor<256x256xf16>
    %f = graph.cast %s {to = f32} : (tensor<256x256xf16>) -> tensor<256x256xf32>
    kernel.yield %f : tensor<256x256xf32>
  }
  return
}
func.func @main(%a: memref<256x512xf16>, %b: memref<512x256xf16>, %c: memref<256x256xf32>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @scaled(%a, %b, %c) : (memref<256x512xf16>, memref<512x256xf16>, memref<256x256xf32>) -> ()
  return
}

// -----

// The one-warpgroup template (128x128x64_s3) applies the epilogue at the same place: a
// per-column scale read from a kernel input, then ReLU.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s3_mul_relu_{{[0-9a-f]+}}::{{.*}} blocks in (%c2, %c2{{.*}}, %c1)
// CHECK-SAME: %c256_i32 : i32, %{{.*}} : memref<f16>)
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s3_mul_relu_{{[0-9a-f]+}}({{.*}}: i32, %{{.*}}: memref<f16>)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: arith.mulf {{.*}} : f32
// CHECK: arith.maximumf {{.*}} : f32
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s3_mul_relu_
// PTX: max.NaN.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f00000000
kernel.func @basic(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %scale: memref<256xf16>, %c: memref<256x256xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, consumers = 0>} {
  matmul ins(%a, %b, %scale : memref<256x256xf16>, memref<256x256xf16>, memref<256xf16>) outs(%c : memref<256x256xf16>) {
  ^bb0(%x: tensor<256x256xf16>, %y: tensor<256x256xf16>, %s: tensor<256xf16>):
    %p = graph.matmul %x, %y : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
    %m = graph.mul %s, %p : (tensor<256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
    %r = graph.relu %m : tensor<256x256xf16>
    kernel.yield %r : tensor<256x256xf16>
  }
  return
}
func.func @main(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %scale: memref<256xf16>, %c: memref<256x256xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @basic(%a, %b, %scale, %c) : (memref<256x256xf16>, memref<256x256xf16>, memref<256xf16>, memref<256x256xf16>) -> ()
  return
}

// -----

// Split-K (3 parts of BERT's ffn2 at 1024 tokens): the parts store raw f32 partial sums
// with the plain GEMM (no parameter after K); the reduction kernel adds them up, then
// applies bias + ReLU to the sums (row = i / N, column = i % N) and rounds.
// CHECK-LABEL: func.func @main
// CHECK: %[[W:.*]] = memref.alloc() : memref<3x1024x768xf32>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_k3::@gemm_f16_f16_128x128x64_s4_ws2_k3 blocks in (%c144,
// CHECK-SAME: %c3072_i32 : i32)
// CHECK: gpu.launch_func {{ *}}@kiln_split_k_reduce_f16_3x768_add_relu_{{[0-9a-f]+}}::@split_k_reduce_f16_3x768_add_relu_{{[0-9a-f]+}} blocks in (%c768,
// CHECK-SAME: args(%{{.*}} : memref<f32>, %{{.*}} : memref<f16>, %c1024_i32{{.*}} : i32, %{{.*}} : memref<f16>)
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_k3(%{{.*}}, %{{.*}}, %{{.*}}: memref<f32>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: gpu.func @split_k_reduce_f16_3x768_add_relu_{{[0-9a-f]+}}(%{{.*}}: memref<f32>, %{{.*}}: memref<f16>, %{{.*}}: i32, %{{.*}}: memref<f16>)
// CHECK: arith.remui %{{.*}}, %c768
// CHECK: arith.maximumf
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_k3(
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry split_k_reduce_f16_3x768_add_relu_
// PTX-COUNT-3: ld.global.v4.b32
// PTX: max.NaN.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f00000000
// PTX: cvt.rn.f16x2.f32
memref.global "private" constant @b2 : memref<768xf16> = dense<0.25>
kernel.func @ffn2(%a: memref<1024x3072xf16>, %b: memref<3072x768xf16>, %bias: memref<768xf16>, %c: memref<1024x768xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 3>} {
  matmul ins(%a, %b, %bias : memref<1024x3072xf16>, memref<3072x768xf16>, memref<768xf16>) outs(%c : memref<1024x768xf16>) {
  ^bb0(%x: tensor<1024x3072xf16>, %y: tensor<3072x768xf16>, %z: tensor<768xf16>):
    %p = graph.matmul %x, %y : (tensor<1024x3072xf16>, tensor<3072x768xf16>) -> tensor<1024x768xf16>
    %s = graph.add %p, %z : (tensor<1024x768xf16>, tensor<768xf16>) -> tensor<1024x768xf16>
    %r = graph.relu %s : tensor<1024x768xf16>
    kernel.yield %r : tensor<1024x768xf16>
  }
  return
}
func.func @main(%a: memref<1024x3072xf16>, %b: memref<3072x768xf16>, %c: memref<1024x768xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %bias = memref.get_global @b2 : memref<768xf16>
  kernel.launch @ffn2(%a, %b, %bias, %c) : (memref<1024x3072xf16>, memref<3072x768xf16>, memref<768xf16>, memref<1024x768xf16>) -> ()
  return
}

// -----

// GELU as an fp16 ONNX export writes it when it is not recognised (x * (1 + erf(x / c)) *
// 0.5): not a chain, the biased product is read twice. The ops are evaluated in block
// order on each lane; the three inlined constants are compiled in, the division by one
// as a product with its reciprocal (1 / 1.4140625 = 0.707182...). Sums and products may
// contract into fused multiply-adds.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_add_div_erf_add_mul_mul_{{[0-9a-f]+}}::
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_add_div_erf_add_mul_mul_{{[0-9a-f]+}}(
// CHECK: %[[R:.*]] = arith.constant 0.707182347 : f32
// CHECK: %[[X:.*]] = arith.addf {{.*}} : f32
// CHECK: %[[D:.*]] = arith.mulf %[[X]], %[[R]] fastmath<contract> : f32
// CHECK: %[[E:.*]] = math.erf %[[D]] : f32
// CHECK: %[[A:.*]] = arith.addf %[[E]], {{.*}} fastmath<contract> : f32
// CHECK: arith.mulf %[[X]], %[[A]] fastmath<contract> : f32
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_add_div_erf_add_mul_mul_
// PTX: cvt.rn.f16x2.f32
memref.global "private" constant @bias : memref<3072xf16> = dense<0.5>
kernel.func @ffn1(%a: memref<256x768xf16>, %b: memref<768x3072xf16>, %bias: memref<3072xf16>, %c: memref<256x3072xf16>) {
  matmul ins(%a, %b, %bias : memref<256x768xf16>, memref<768x3072xf16>, memref<3072xf16>) outs(%c : memref<256x3072xf16>) {
  ^bb0(%x: tensor<256x768xf16>, %y: tensor<768x3072xf16>, %z: tensor<3072xf16>):
    %sqrt2 = graph.constant dense<1.414060e+00> : tensor<f16>
    %one = graph.constant dense<1.000000e+00> : tensor<f16>
    %half = graph.constant dense<5.000000e-01> : tensor<f16>
    %p = graph.matmul %x, %y : (tensor<256x768xf16>, tensor<768x3072xf16>) -> tensor<256x3072xf16>
    %s = graph.add %p, %z : (tensor<256x3072xf16>, tensor<3072xf16>) -> tensor<256x3072xf16>
    %d = graph.div %s, %sqrt2 : (tensor<256x3072xf16>, tensor<f16>) -> tensor<256x3072xf16>
    %e = graph.erf %d : tensor<256x3072xf16>
    %a1 = graph.add %e, %one : (tensor<256x3072xf16>, tensor<f16>) -> tensor<256x3072xf16>
    %m = graph.mul %s, %a1 : (tensor<256x3072xf16>, tensor<256x3072xf16>) -> tensor<256x3072xf16>
    %g = graph.mul %m, %half : (tensor<256x3072xf16>, tensor<f16>) -> tensor<256x3072xf16>
    kernel.yield %g : tensor<256x3072xf16>
  }
  return
}
func.func @main(%a: memref<256x768xf16>, %b: memref<768x3072xf16>, %c: memref<256x3072xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %bias = memref.get_global @bias : memref<3072xf16>
  kernel.launch @ffn1(%a, %b, %bias, %c) : (memref<256x768xf16>, memref<768x3072xf16>, memref<3072xf16>, memref<256x3072xf16>) -> ()
  return
}

// -----

// A classifier: the pooled features [N, C, 1, 1] flattened into the product's M x K
// operand (a Flatten in front of the product, a view of the same bytes), the bias, and
// the model's f32 output. The buffer is reinterpreted as the matrix for its tensor map.
// CHECK-LABEL: func.func @main
// CHECK: %[[A:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [256, 2048], strides: [2048, 1] : memref<256x2048x1x1xf16> to memref<256x2048xf16>
// CHECK: %[[U:.*]] = memref.cast %[[A]] : memref<256x2048xf16> to memref<*xf16>
// CHECK: nvgpu.tma.create.descriptor %[[U]]
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f32_bt_{{.*}}_bias_cast_{{[0-9a-f]+}}_nt::
// PTX-LABEL: .visible .entry gemm_f16_f32_bt_{{.*}}_bias_cast_
memref.global "private" constant @fc_w : memref<1000x2048xf16> = dense<1.0>
memref.global "private" constant @fc_b : memref<1000xf16> = dense<0.5>
kernel.func @fc(%arg0: memref<256x2048x1x1xf16>, %arg1: memref<1000x2048xf16>, %arg2: memref<1000xf16>, %arg3: memref<256x1000xf32>) {
  matmul ins(%arg0, %arg1, %arg2 : memref<256x2048x1x1xf16>, memref<1000x2048xf16>, memref<1000xf16>) outs(%arg3 : memref<256x1000xf32>) {
  ^bb0(%arg4: tensor<256x2048x1x1xf16>, %arg5: tensor<1000x2048xf16>, %arg6: tensor<1000xf16>):
    %0 = graph.flatten %arg4 {axis = 1 : i64} : (tensor<256x2048x1x1xf16>) -> tensor<256x2048xf16>
    %1 = graph.gemm %0, %arg5, %arg6 {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true} : (tensor<256x2048xf16>, tensor<1000x2048xf16>, tensor<1000xf16>) -> tensor<256x1000xf16>
    %2 = graph.cast %1 {to = f32} : (tensor<256x1000xf16>) -> tensor<256x1000xf32>
    kernel.yield %2 : tensor<256x1000xf32>
  }
  return
}
func.func @main(%x: memref<256x2048x1x1xf16>, %y: memref<256x1000xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @fc_w : memref<1000x2048xf16>
  %b = memref.get_global @fc_b : memref<1000xf16>
  kernel.launch @fc(%x, %w, %b, %y) : (memref<256x2048x1x1xf16>, memref<1000x2048xf16>, memref<1000xf16>, memref<256x1000xf32>) -> ()
  return
}

// -----

// On a persistent grid the residual has two slots: the producer loads a CTA's tile j into
// slot j % 2 once the consumers released the slot's tile j - 2, so that the next tile's
// residual lands while the consumers' epilogue reads this one's. Shared memory: the ring
// (2 x 32 KiB), the staging (128 x 132 floats), 2048 bytes of slack and two 128 x 128
// bf16 slots.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_bf16_bf16_128x128x64_s2_ws2_p_add_add_{{[0-9a-f]+}}_r::
// CHECK-SAME: blocks in (%c132
// CHECK-SAME: dynamic_shared_memory_size %c200704_i32
// CHECK: gpu.func @gemm_bf16_bf16_128x128x64_s2_ws2_p_add_add_{{[0-9a-f]+}}_r(
// The ring's barriers (two stages), then the residual's (two slots).
// CHECK-COUNT-2: nvgpu.mbarrier.create
// CHECK: %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// CHECK: %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// The producer: the slot's release, then the load into it.
// CHECK: %[[PSLOTI:.*]] = arith.remui %{{.*}}, %c2_i32 : i32
// CHECK: %[[PSLOT:.*]] = arith.index_castui %[[PSLOTI]] : i32 to index
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%[[PSLOT]]]
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%[[PSLOT]]], %c32768
// CHECK: nvgpu.tma.async.load {{.*}}, %[[FULL]][%[[PSLOT]]] to
// The consumers, after the main loop: wait for the slot, read it, release it.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[CSLOTI:.*]] = arith.remui %{{.*}}, %c2_i32 : i32
// CHECK: %[[CSLOT:.*]] = arith.index_castui %[[CSLOTI]] : i32 to index
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]][%[[CSLOT]]]
// CHECK: nvgpu.mbarrier.arrive %[[EMPTY]][%[[CSLOT]]]
kernel.func @ffn2(%a: memref<32768x3072xbf16>, %b: memref<3072x768xbf16>, %bias: memref<1x768xbf16>, %res: memref<32768x768xbf16>, %c: memref<32768x768xbf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 2, consumers = 2, persistent = true>} {
  matmul ins(%a, %b, %bias, %res : memref<32768x3072xbf16>, memref<3072x768xbf16>, memref<1x768xbf16>, memref<32768x768xbf16>) outs(%c : memref<32768x768xbf16>) {
  ^bb0(%x: tensor<32768x3072xbf16>, %y: tensor<3072x768xbf16>, %z: tensor<1x768xbf16>, %r: tensor<32768x768xbf16>):
    %p = graph.matmul %x, %y : (tensor<32768x3072xbf16>, tensor<3072x768xbf16>) -> tensor<32768x768xbf16>
    %s = graph.add %p, %z : (tensor<32768x768xbf16>, tensor<1x768xbf16>) -> tensor<32768x768xbf16>
    %t = graph.add %r, %s : (tensor<32768x768xbf16>, tensor<32768x768xbf16>) -> tensor<32768x768xbf16>
    kernel.yield %t : tensor<32768x768xbf16>
  }
  return
}
func.func @main(%a: memref<32768x3072xbf16>, %b: memref<3072x768xbf16>, %bias: memref<1x768xbf16>, %res: memref<32768x768xbf16>, %c: memref<32768x768xbf16>) attributes {kernel.num_inputs = 4 : i64} {
  kernel.launch @ffn2(%a, %b, %bias, %res, %c) : (memref<32768x3072xbf16>, memref<3072x768xbf16>, memref<1x768xbf16>, memref<32768x768xbf16>, memref<32768x768xbf16>) -> ()
  return
}

// -----

// BERT's attention output projection as graph-unflatten-matmuls leaves it: a [8, 128, 768]
// activation by a 2-D weight, with the bias and the [8, 128, 768] residual: the product of
// 1024 rows (A read as the 1024 x 768 matrix it is), the residual tile through its own
// tensor map as for 2-D products. 8 x 6 tiles of 128x128.
// CHECK-LABEL: func.func @main
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [1024, 768], strides: [768, 1] : memref<8x128x768xf16> to memref<1024x768xf16>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_add_add_{{[0-9a-f]+}}_r::{{.*}} blocks in (%c48, %c1, %c1)
// CHECK-SAME: %c1024_i32 : i32, %c768_i32 : i32, %c768_i32
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_add_add_{{[0-9a-f]+}}_r(
memref.global "private" constant @wo : memref<768x768xf16> = dense<0.5>
memref.global "private" constant @bo : memref<768xf16> = dense<0.25>
kernel.func @out(%a: memref<8x128x768xf16>, %b: memref<768x768xf16>, %bias: memref<768xf16>, %res: memref<8x128x768xf16>, %c: memref<8x128x768xf16>) {
  matmul ins(%a, %b, %bias, %res : memref<8x128x768xf16>, memref<768x768xf16>, memref<768xf16>, memref<8x128x768xf16>) outs(%c : memref<8x128x768xf16>) {
  ^bb0(%x: tensor<8x128x768xf16>, %y: tensor<768x768xf16>, %z: tensor<768xf16>, %r: tensor<8x128x768xf16>):
    %p = graph.matmul %x, %y : (tensor<8x128x768xf16>, tensor<768x768xf16>) -> tensor<8x128x768xf16>
    %s = graph.add %p, %z : (tensor<8x128x768xf16>, tensor<768xf16>) -> tensor<8x128x768xf16>
    %t = graph.add %s, %r : (tensor<8x128x768xf16>, tensor<8x128x768xf16>) -> tensor<8x128x768xf16>
    kernel.yield %t : tensor<8x128x768xf16>
  }
  return
}
func.func @main(%a: memref<8x128x768xf16>, %res: memref<8x128x768xf16>, %c: memref<8x128x768xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @wo : memref<768x768xf16>
  %bias = memref.get_global @bo : memref<768xf16>
  kernel.launch @out(%a, %w, %bias, %res, %c) : (memref<8x128x768xf16>, memref<768x768xf16>, memref<768xf16>, memref<8x128x768xf16>, memref<8x128x768xf16>) -> ()
  return
}

// -----

// A folded LayerNorm's product (graph-fold-layer-norm-into-products): x Wc widened, times
// the row's 1 / sigma ([8, 128, 1] f32, one value per row of C: a scalar load at the
// element's row, the same for the item's 8 lanes), plus the per-column shift, rounded to
// f16.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_cast_mul_add_cast_{{[0-9a-f]+}}::
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_cast_mul_add_cast_{{[0-9a-f]+}}({{.*}}, %[[PR:[a-z0-9]+]]: memref<f32>, %{{[a-z0-9]+}}: memref<f32>) kernel
// CHECK: %[[ROWS:.*]] = memref.reinterpret_cast %[[PR]] to offset: [0], sizes: [%{{.*}}], strides: [1] : memref<f32> to memref<?xf32>
// CHECK: memref.load %[[ROWS]][%{{.*}}] : memref<?xf32>
// CHECK-COUNT-8: arith.mulf {{.*}} : f32
// The shift's columns load once a thread (two 16-byte loads), the row's factor once an
// item; the scale and shift contract into one fma a lane.
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_cast_mul_add_cast_
// PTX: ld.global.v4.b32
// PTX: ld.global.b32
// PTX-COUNT-8: fma.rn.f32
// PTX: st.global.v4.b32
kernel.func @folded(%a: memref<8x128x768xf16>, %b: memref<768x2304xf16>, %inv: memref<8x128x1xf32>, %shift: memref<2304xf32>, %c: memref<8x128x2304xf16>) {
  matmul ins(%a, %b, %inv, %shift : memref<8x128x768xf16>, memref<768x2304xf16>, memref<8x128x1xf32>, memref<2304xf32>) outs(%c : memref<8x128x2304xf16>) {
  ^bb0(%x: tensor<8x128x768xf16>, %y: tensor<768x2304xf16>, %r: tensor<8x128x1xf32>, %s: tensor<2304xf32>):
    %p = graph.matmul %x, %y : (tensor<8x128x768xf16>, tensor<768x2304xf16>) -> tensor<8x128x2304xf16>
    %w = graph.cast %p {to = f32} : (tensor<8x128x2304xf16>) -> tensor<8x128x2304xf32>
    %m = graph.mul %w, %r : (tensor<8x128x2304xf32>, tensor<8x128x1xf32>) -> tensor<8x128x2304xf32>
    %t = graph.add %m, %s : (tensor<8x128x2304xf32>, tensor<2304xf32>) -> tensor<8x128x2304xf32>
    %o = graph.cast %t {to = f16} : (tensor<8x128x2304xf32>) -> tensor<8x128x2304xf16>
    kernel.yield %o : tensor<8x128x2304xf16>
  }
  return
}
func.func @main(%a: memref<8x128x768xf16>, %b: memref<768x2304xf16>, %inv: memref<8x128x1xf32>, %shift: memref<2304xf32>, %c: memref<8x128x2304xf16>) attributes {kernel.num_inputs = 4 : i64} {
  kernel.launch @folded(%a, %b, %inv, %shift, %c) : (memref<8x128x768xf16>, memref<768x2304xf16>, memref<8x128x1xf32>, memref<2304xf32>, memref<8x128x2304xf16>) -> ()
  return
}
