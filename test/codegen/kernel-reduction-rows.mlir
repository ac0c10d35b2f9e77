// rows replaces the reduction kernels over innermost axes with row
// kernels: a group of threads a row, 16-byte loads and stores, shuffles (and, for CTA
// rows, a shared-memory combine), the prologue and epilogue applied per element.
// RUN: kiln-opt --split-input-file --kernel-select-templates="target=sm_90a templates=rows" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s

// Attention's unrecognised softmax: scale and a [B, 1, 1, S] padding mask in the
// prologue. 128 f16 a row: 8 threads of 16 elements (two 8-wide vectors), 16 rows a CTA
// of 128 threads, 8*12*128 / 16 CTAs. The mask is read at (row / (12*128)) * 128 + column.
// CHECK-NOT: kernel.func
// CHECK: gpu.launch_func {{ *}}@kiln_rows_softmax_12288x128_{{[0-9a-f]+}}_t8r16v8::@rows_softmax_12288x128_{{[0-9a-f]+}}_t8r16v8 blocks in (%c768, %c1{{.*}}, %c1{{.*}}) threads in (%c128, %c1{{.*}}, %c1{{.*}})
// CHECK: gpu.func @rows_softmax_12288x128_{{.*}}(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: arith.divui %{{.*}}, %c1536
// CHECK: vector.load {{.*}} : memref<1572864xf16>, vector<8xf16>
// CHECK: vector.load {{.*}} : memref<1024xf16>, vector<8xf16>
// The row maximum: max.f32 over the thread's elements, then over the 8 lanes of the row.
// CHECK: llvm.call_intrinsic "llvm.nvvm.fmax.f"
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
// CHECK: vector.store {{.*}} : memref<1572864xf16>, vector<8xf16>
// The input is read from device memory once: two 8-wide loads of it a thread.
// CHECK-NOT: vector.load {{.*}} : memref<1572864xf16>
// CHECK: gpu.return
kernel.func @Softmax_0(%x: memref<8x12x128x128xf16>, %mask: memref<8x1x1x128xf16>, %y: memref<8x12x128x128xf16>) {
  reduction ins(%x, %mask : memref<8x12x128x128xf16>, memref<8x1x1x128xf16>) outs(%y : memref<8x12x128x128xf16>) {
  ^bb0(%a: tensor<8x12x128x128xf16>, %m: tensor<8x1x1x128xf16>):
    %scale = graph.constant dense<1.250000e-01> : tensor<f16>
    %s = graph.mul %a, %scale : (tensor<8x12x128x128xf16>, tensor<f16>) -> tensor<8x12x128x128xf16>
    %t = graph.add %s, %m : (tensor<8x12x128x128xf16>, tensor<8x1x1x128xf16>) -> tensor<8x12x128x128xf16>
    %r = graph.softmax %t {axis = -1 : i64} : (tensor<8x12x128x128xf16>) -> tensor<8x12x128x128xf16>
    kernel.yield %r : tensor<8x12x128x128xf16>
  }
  return
}
func.func @main(%x: memref<8x12x128x128xf16>, %mask: memref<8x1x1x128xf16>, %y: memref<8x12x128x128xf16>) {
  kernel.launch @Softmax_0(%x, %mask, %y) : (memref<8x12x128x128xf16>, memref<8x1x1x128xf16>, memref<8x12x128x128xf16>) -> ()
  return
}

// -----

// LayerNorm after a residual add, f32, 768 a row: a warp a row (24 elements a thread,
// 4-wide vectors), the scale and bias read along the row; mean and variance from the
// registers (two sums, five shuffles each).
// CHECK: gpu.launch_func {{ *}}@kiln_rows_layer_norm_1024x768_{{[0-9a-f]+}}_t32r4v4::@rows_layer_norm_1024x768_{{[0-9a-f]+}}_t32r4v4 blocks in (%c256,
// CHECK: gpu.func @rows_layer_norm_1024x768
// CHECK-COUNT-6: vector.load {{.*}} : memref<786432xf32>, vector<4xf32>
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: math.rsqrt
// CHECK: vector.load {{.*}} : memref<768xf32>, vector<4xf32>
// CHECK: vector.store {{.*}} : memref<786432xf32>, vector<4xf32>
kernel.func @LayerNorm_0(%x: memref<1024x768xf32>, %r: memref<1024x768xf32>, %w: memref<768xf32>, %b: memref<768xf32>, %y: memref<1024x768xf32>) {
  reduction ins(%x, %r, %w, %b : memref<1024x768xf32>, memref<1024x768xf32>, memref<768xf32>, memref<768xf32>) outs(%y : memref<1024x768xf32>) {
  ^bb0(%a: tensor<1024x768xf32>, %c: tensor<1024x768xf32>, %s: tensor<768xf32>, %t: tensor<768xf32>):
    %sum = graph.add %a, %c : (tensor<1024x768xf32>, tensor<1024x768xf32>) -> tensor<1024x768xf32>
    %n, %mean, %inv = graph.layer_normalization %sum, %s, %t {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<1024x768xf32>, tensor<768xf32>, tensor<768xf32>) -> (tensor<1024x768xf32>, tensor<1024x1xf32>, tensor<1024x1xf32>)
    kernel.yield %n : tensor<1024x768xf32>
  }
  return
}
func.func @main(%x: memref<1024x768xf32>, %r: memref<1024x768xf32>, %w: memref<768xf32>, %b: memref<768xf32>, %y: memref<1024x768xf32>) {
  kernel.launch @LayerNorm_0(%x, %r, %w, %b, %y) : (memref<1024x768xf32>, memref<1024x768xf32>, memref<768xf32>, memref<768xf32>, memref<1024x768xf32>) -> ()
  return
}

// -----

// Two outputs of the result space (a DETR decoder's LayerNorm: the normalised rows, and
// the rows plus the query position embedding as the next attention's query): one row
// kernel stores both, each chunk's normalised lanes once into %y and, with %pos added,
// into %q. f16 rows of 256: 8 threads a row (two 8-wide chunks a thread), 16 rows a CTA.
// CHECK: gpu.launch_func {{ *}}@kiln_rows_layer_norm_9600x256_{{[0-9a-f]+}}_t{{[0-9]+}}r{{[0-9]+}}v8::
// CHECK: gpu.func @rows_layer_norm_9600x256_{{.*}}(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>) kernel
// CHECK: math.rsqrt
// CHECK: vector.store %{{.*}}, %[[Y:.*]][%[[AT:.*]]] {alignment = 16 : i64} : memref<2457600xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[Q:.*]][%[[AT]]] {alignment = 16 : i64} : memref<2457600xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[Y]][%[[AT2:.*]]] {alignment = 16 : i64} : memref<2457600xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[Q]][%[[AT2]]] {alignment = 16 : i64} : memref<2457600xf16>, vector<8xf16>
// CHECK: gpu.return
kernel.func @LayerNorm_two_outputs(%x: memref<32x300x256xf16>, %w: memref<256xf16>, %b: memref<256xf16>, %pos: memref<32x300x256xf16>, %y: memref<32x300x256xf16>, %q: memref<32x300x256xf16>) {
  reduction ins(%x, %w, %b, %pos : memref<32x300x256xf16>, memref<256xf16>, memref<256xf16>, memref<32x300x256xf16>) outs(%y, %q : memref<32x300x256xf16>, memref<32x300x256xf16>) {
  ^bb0(%a: tensor<32x300x256xf16>, %s: tensor<256xf16>, %t: tensor<256xf16>, %p: tensor<32x300x256xf16>):
    %n, %mean, %inv = graph.layer_normalization %a, %s, %t {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<32x300x256xf16>, tensor<256xf16>, tensor<256xf16>) -> (tensor<32x300x256xf16>, tensor<32x300x1xf32>, tensor<32x300x1xf32>)
    %sum = graph.add %n, %p : (tensor<32x300x256xf16>, tensor<32x300x256xf16>) -> tensor<32x300x256xf16>
    kernel.yield %n, %sum : tensor<32x300x256xf16>, tensor<32x300x256xf16>
  }
  return
}
func.func @main(%x: memref<32x300x256xf16>, %w: memref<256xf16>, %b: memref<256xf16>, %pos: memref<32x300x256xf16>, %y: memref<32x300x256xf16>, %q: memref<32x300x256xf16>) {
  kernel.launch @LayerNorm_two_outputs(%x, %w, %b, %pos, %y, %q) : (memref<32x300x256xf16>, memref<256xf16>, memref<256xf16>, memref<32x300x256xf16>, memref<32x300x256xf16>, memref<32x300x256xf16>) -> ()
  return
}

// -----

// A row maximum stored twice, as it is and halved: the row's first thread stores both.
// CHECK: gpu.func @rows_reduce_max_512x64
// CHECK: scf.if
// CHECK: arith.mulf
// CHECK: memref.store %{{.*}}, %[[M:.*]][%[[AT:.*]]] : memref<512xf32>
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[AT]]] : memref<512xf32>
// CHECK: gpu.return
kernel.func @ReduceMax_two_outputs(%x: memref<512x64xf32>, %m: memref<512x1xf32>, %h: memref<512x1xf32>) {
  reduction ins(%x : memref<512x64xf32>) outs(%m, %h : memref<512x1xf32>, memref<512x1xf32>) {
  ^bb0(%a: tensor<512x64xf32>):
    %axes = graph.constant dense<1> : tensor<1xi64>
    %r = graph.reduce_max %a, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<512x64xf32>, tensor<1xi64>) -> tensor<512x1xf32>
    %half = graph.constant dense<5.000000e-01> : tensor<f32>
    %s = graph.mul %r, %half : (tensor<512x1xf32>, tensor<f32>) -> tensor<512x1xf32>
    kernel.yield %r, %s : tensor<512x1xf32>, tensor<512x1xf32>
  }
  return
}
func.func @main(%x: memref<512x64xf32>, %m: memref<512x1xf32>, %h: memref<512x1xf32>) {
  kernel.launch @ReduceMax_two_outputs(%x, %m, %h) : (memref<512x64xf32>, memref<512x1xf32>, memref<512x1xf32>) -> ()
  return
}

// -----

// A LayerNorm's 1 / sigma alone (graph-fold-layer-norm-into-products: the products that
// read the normalised rows apply it), f16 rows of 768: the same two sums from the
// registers, then one f32 a row stored by the row's first thread; neither the scale nor
// the bias is read and no normalised row is written.
// CHECK: gpu.launch_func {{ *}}@kiln_rows_layer_norm_inv_std_dev_1024x768_{{[0-9a-f]+}}_t32r4v8::
// CHECK: gpu.func @rows_layer_norm_inv_std_dev_1024x768
// CHECK-COUNT-3: vector.load {{.*}} : memref<786432xf16>, vector<8xf16>
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: math.rsqrt
// CHECK-NOT: vector.load
// CHECK: memref.store {{.*}} : memref<1024xf32>
// CHECK-NOT: vector.store
// CHECK: gpu.return
kernel.func @LayerNormStatistic_0(%x: memref<1024x768xf16>, %w: memref<768xf16>, %b: memref<768xf16>, %inv: memref<1024x1xf32>) {
  reduction ins(%x, %w, %b : memref<1024x768xf16>, memref<768xf16>, memref<768xf16>) outs(%inv : memref<1024x1xf32>) {
  ^bb0(%a: tensor<1024x768xf16>, %s: tensor<768xf16>, %t: tensor<768xf16>):
    %n, %mean, %r = graph.layer_normalization %a, %s, %t {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<1024x768xf16>, tensor<768xf16>, tensor<768xf16>) -> (tensor<1024x768xf16>, tensor<1024x1xf32>, tensor<1024x1xf32>)
    kernel.yield %r : tensor<1024x1xf32>
  }
  return
}
func.func @main(%x: memref<1024x768xf16>, %w: memref<768xf16>, %b: memref<768xf16>, %inv: memref<1024x1xf32>) {
  kernel.launch @LayerNormStatistic_0(%x, %w, %b, %inv) : (memref<1024x768xf16>, memref<768xf16>, memref<768xf16>, memref<1024x1xf32>) -> ()
  return
}

// -----

// An RMSNorm's 1 / rms alone (graph-fold-layer-norm-into-products), LLaMA's rows of 4096
// f16: one pass (no mean, so the row is not kept), a CTA a row, the sum of squares over
// the warp's lanes and then the CTA's warps in shared memory, one f32 a row; the scale is
// not read.
// CHECK: gpu.launch_func {{ *}}@kiln_rows_rms_norm_inv_rms_512x4096_{{[0-9a-f]+}}_t256r1v8::
// CHECK: gpu.func @rows_rms_norm_inv_rms_512x4096
// CHECK-COUNT-2: vector.load {{.*}} : memref<2097152xf16>, vector<8xf16>
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: math.rsqrt
// CHECK-NOT: vector.load
// CHECK: memref.store {{.*}} : memref<512xf32>
// CHECK-NOT: vector.store
// CHECK: gpu.return
kernel.func @RmsStatistic_0(%x: memref<512x4096xf16>, %w: memref<4096xf16>, %inv: memref<512x1xf32>) {
  reduction ins(%x, %w : memref<512x4096xf16>, memref<4096xf16>) outs(%inv : memref<512x1xf32>) {
  ^bb0(%a: tensor<512x4096xf16>, %s: tensor<4096xf16>):
    %n, %r = graph.rms_normalization %a, %s {axis = -1 : i64, epsilon = 1.0e-06 : f32} : (tensor<512x4096xf16>, tensor<4096xf16>) -> (tensor<512x4096xf16>, tensor<512x1xf32>)
    kernel.yield %r : tensor<512x1xf32>
  }
  return
}
func.func @main(%x: memref<512x4096xf16>, %w: memref<4096xf16>, %inv: memref<512x1xf32>) {
  kernel.launch @RmsStatistic_0(%x, %w, %inv) : (memref<512x4096xf16>, memref<4096xf16>, memref<512x1xf32>) -> ()
  return
}

// -----

// A mean over the last axis without keepdims, of a cast, with a tanh after it: one value
// a row, stored by the row's first thread.
// CHECK: gpu.func @rows_reduce_mean_4096x64
// CHECK: vector.load {{.*}} : memref<262144xbf16>, vector<8xbf16>
// CHECK: gpu.shuffle xor
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK: math.tanh
// CHECK: memref.store {{.*}} : memref<4096xf32>
kernel.func @ReduceMean_0(%x: memref<4096x64xbf16>, %y: memref<4096xf32>) {
  reduction ins(%x : memref<4096x64xbf16>) outs(%y : memref<4096xf32>) {
  ^bb0(%a: tensor<4096x64xbf16>):
    %axes = graph.constant dense<1> : tensor<1xi64>
    %c = graph.cast %a {to = f32} : (tensor<4096x64xbf16>) -> tensor<4096x64xf32>
    %m = graph.reduce_mean %c, %axes {keepdims = false, noop_with_empty_axes = false} : (tensor<4096x64xf32>, tensor<1xi64>) -> tensor<4096xf32>
    %t = graph.tanh %m : tensor<4096xf32>
    kernel.yield %t : tensor<4096xf32>
  }
  return
}
func.func @main(%x: memref<4096x64xbf16>, %y: memref<4096xf32>) {
  kernel.launch @ReduceMean_0(%x, %y) : (memref<4096x64xbf16>, memref<4096xf32>) -> ()
  return
}

// -----

// GPT-2's vocabulary: 50257 (odd) f32 a row, so scalar accesses; a CTA of 1024 threads a
// row, which keeps the row in shared memory (201028 bytes) between its three passes; the
// warps' partials combine through shared memory.
// CHECK: gpu.launch_func {{ *}}@kiln_rows_softmax_4x50257_{{[0-9a-f]+}}_t1024r1v1::{{.*}} blocks in (%c4, %c1{{.*}}, %c1{{.*}}) threads in (%c1024, %c1{{.*}}, %c1{{.*}}) {{ *}}dynamic_shared_memory_size %c201028_i32
// CHECK: gpu.func @rows_softmax_4x50257
// CHECK-SAME: workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>)
// CHECK: gpu.dynamic_shared_memory
// CHECK: scf.for
// CHECK: memref.load {{.*}} : memref<201028xf32>
// CHECK: memref.store {{.*}} : memref<50257xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<50257xf32, #gpu.address_space<workgroup>>
kernel.func @Softmax_1(%x: memref<4x50257xf32>, %y: memref<4x50257xf32>) {
  reduction ins(%x : memref<4x50257xf32>) outs(%y : memref<4x50257xf32>) {
  ^bb0(%a: tensor<4x50257xf32>):
    %r = graph.softmax %a {axis = 1 : i64} : (tensor<4x50257xf32>) -> tensor<4x50257xf32>
    kernel.yield %r : tensor<4x50257xf32>
  }
  return
}
func.func @main(%x: memref<4x50257xf32>, %y: memref<4x50257xf32>) {
  kernel.launch @Softmax_1(%x, %y) : (memref<4x50257xf32>, memref<4x50257xf32>) -> ()
  return
}

// -----

// RMSNorm over the last two axes (8 x 256 = 2048 f16 a row): a CTA of 128 threads a row,
// its 4 warps' partial sums combined through shared memory.
// CHECK: gpu.func @rows_rms_norm_16x2048_{{[0-9a-f]+}}_t128r1v8
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: math.rsqrt
kernel.func @RMSNorm_0(%x: memref<16x8x256xf16>, %w: memref<8x256xf16>, %y: memref<16x8x256xf16>) {
  reduction ins(%x, %w : memref<16x8x256xf16>, memref<8x256xf16>) outs(%y : memref<16x8x256xf16>) {
  ^bb0(%a: tensor<16x8x256xf16>, %s: tensor<8x256xf16>):
    %r:2 = graph.rms_normalization %a, %s {axis = -2 : i64, epsilon = 1.0e-06 : f32} : (tensor<16x8x256xf16>, tensor<8x256xf16>) -> (tensor<16x8x256xf16>, tensor<16x1x1xf32>)
    kernel.yield %r#0 : tensor<16x8x256xf16>
  }
  return
}
func.func @main(%x: memref<16x8x256xf16>, %w: memref<8x256xf16>, %y: memref<16x8x256xf16>) {
  kernel.launch @RMSNorm_0(%x, %w, %y) : (memref<16x8x256xf16>, memref<8x256xf16>, memref<16x8x256xf16>) -> ()
  return
}

// -----

// Two launches of one kernel and an identical second kernel share one gpu.module; 100
// rows of 4 a CTA leave the last CTA's last rows recomputing row 101 and storing nothing.
// CHECK-COUNT-1: gpu.module @kiln_rows_reduce_max
// CHECK: arith.minui
// CHECK: arith.maximumf
kernel.func @ReduceMax_0(%x: memref<102x1000xf32>, %y: memref<102x1xf32>) {
  reduction ins(%x : memref<102x1000xf32>) outs(%y : memref<102x1xf32>) {
  ^bb0(%a: tensor<102x1000xf32>):
    %axes = graph.constant dense<-1> : tensor<1xi64>
    %m = graph.reduce_max %a, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<102x1000xf32>, tensor<1xi64>) -> tensor<102x1xf32>
    kernel.yield %m : tensor<102x1xf32>
  }
  return
}
kernel.func @ReduceMax_1(%x: memref<102x1000xf32>, %y: memref<102x1xf32>) {
  reduction ins(%x : memref<102x1000xf32>) outs(%y : memref<102x1xf32>) {
  ^bb0(%a: tensor<102x1000xf32>):
    %axes = graph.constant dense<-1> : tensor<1xi64>
    %m = graph.reduce_max %a, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<102x1000xf32>, tensor<1xi64>) -> tensor<102x1xf32>
    kernel.yield %m : tensor<102x1xf32>
  }
  return
}
func.func @main(%x: memref<102x1000xf32>, %y: memref<102x1xf32>, %z: memref<102x1xf32>) {
  kernel.launch @ReduceMax_0(%x, %y) : (memref<102x1000xf32>, memref<102x1xf32>) -> ()
  kernel.launch @ReduceMax_0(%x, %z) : (memref<102x1000xf32>, memref<102x1xf32>) -> ()
  kernel.launch @ReduceMax_1(%x, %y) : (memref<102x1000xf32>, memref<102x1xf32>) -> ()
  return
}

// -----

// BERT's embeddings: two gathers of whole rows (a word table of 1000 rows, a token-type
// table of 2) by i64 ids, a position table added, LayerNorm. Each row's table offsets
// come from its ids (negative ids count from the table's end; ids kept in the table),
// read once a row; the gathered rows are loaded 8 f16 at a time like any operand.
// CHECK: gpu.func @rows_layer_norm_256x768_{{.*}}(%{{.*}}: memref<f16>, %{{.*}}: memref<i64>, %{{.*}}: memref<f16>, %{{.*}}: memref<i64>, %{{.*}}: memref<f16>
// CHECK: %[[WORD:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<256xi64>
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[WORD]], %c0_i64
// CHECK: %[[WRAP:.*]] = arith.addi %[[WORD]], %c1000_i64
// CHECK: %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[WORD]]
// CHECK: arith.maxsi %[[SEL]], %c0_i64
// CHECK: arith.minsi %{{.*}}, %c999_i64
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<256xi64>
// CHECK: arith.minsi %{{.*}}, %c1_i64
// CHECK: vector.load {{.*}} : memref<768000xf16>, vector<8xf16>
// CHECK: vector.load {{.*}} : memref<1536xf16>, vector<8xf16>
// CHECK: vector.load {{.*}} : memref<98304xf16>, vector<8xf16>
// CHECK: math.rsqrt
// CHECK: vector.store {{.*}} : memref<196608xf16>, vector<8xf16>
kernel.func @Embeddings_0(%word: memref<1000x768xf16>, %ids: memref<2x128xi64>, %type: memref<2x768xf16>, %types: memref<2x128xi64>, %pos: memref<1x128x768xf16>, %w: memref<768xf16>, %b: memref<768xf16>, %y: memref<2x128x768xf16>) {
  reduction ins(%word, %ids, %type, %types, %pos, %w, %b : memref<1000x768xf16>, memref<2x128xi64>, memref<2x768xf16>, memref<2x128xi64>, memref<1x128x768xf16>, memref<768xf16>, memref<768xf16>) outs(%y : memref<2x128x768xf16>) {
  ^bb0(%a: tensor<1000x768xf16>, %i: tensor<2x128xi64>, %c: tensor<2x768xf16>, %t: tensor<2x128xi64>, %p: tensor<1x128x768xf16>, %s: tensor<768xf16>, %o: tensor<768xf16>):
    %0 = graph.gather %a, %i {axis = 0 : i64} : (tensor<1000x768xf16>, tensor<2x128xi64>) -> tensor<2x128x768xf16>
    %1 = graph.gather %c, %t {axis = 0 : i64} : (tensor<2x768xf16>, tensor<2x128xi64>) -> tensor<2x128x768xf16>
    %2 = graph.add %0, %1 : (tensor<2x128x768xf16>, tensor<2x128x768xf16>) -> tensor<2x128x768xf16>
    %3 = graph.add %2, %p : (tensor<2x128x768xf16>, tensor<1x128x768xf16>) -> tensor<2x128x768xf16>
    %n, %mean, %inv = graph.layer_normalization %3, %s, %o {axis = -1 : i64, epsilon = 1.0e-12 : f32, stash_type = f32} : (tensor<2x128x768xf16>, tensor<768xf16>, tensor<768xf16>) -> (tensor<2x128x768xf16>, tensor<2x128x1xf32>, tensor<2x128x1xf32>)
    kernel.yield %n : tensor<2x128x768xf16>
  }
  return
}
func.func @embeddings(%word: memref<1000x768xf16>, %ids: memref<2x128xi64>, %type: memref<2x768xf16>, %types: memref<2x128xi64>, %pos: memref<1x128x768xf16>, %w: memref<768xf16>, %b: memref<768xf16>, %y: memref<2x128x768xf16>) {
  kernel.launch @Embeddings_0(%word, %ids, %type, %types, %pos, %w, %b, %y) : (memref<1000x768xf16>, memref<2x128xi64>, memref<2x768xf16>, memref<2x128xi64>, memref<1x128x768xf16>, memref<768xf16>, memref<768xf16>, memref<2x128x768xf16>) -> ()
  return
}
