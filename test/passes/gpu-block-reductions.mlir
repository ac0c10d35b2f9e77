// RUN: kiln-opt %s --split-input-file --gpu-block-reductions | FileCheck %s
// RUN: kiln-opt %s --split-input-file --gpu-vectorize-pointwise-loops --gpu-block-reductions \
// RUN:   | FileCheck %s --check-prefix=VECTOR

// EfficientNet-B0's last squeeze-excite pool at batch 32, channels last: 36864 outputs,
// each the mean of 7 x 7 values. Scalar f16 reads (2 bytes): 32 consecutive outputs span
// 64 bytes, so a CTA takes 32 outputs and 8 threads an output (49 iterations: 6 or 7 a
// thread); 294912 threads, no slices. Thread y sums iterations y, y + 8, ... of the two
// loops collapsed (h = r / 7, w = r % 7), four at once, from -0.0 into shared memory;
// after the barrier, the threads of y = 0 add their output's 8 values to the loop's 0.0
// and divide.
// CHECK-LABEL: func.func @pool
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 4.900000e+01 : f32
// CHECK: scf.parallel (%[[CTA:.*]]) = (%c0{{.*}}) to (%c1152{{.*}}) step
// CHECK:   %[[PARTS:.*]] = memref.alloca() : memref<8x32xf32, #gpu.address_space<workgroup>>
// CHECK:   %[[BASE:.*]] = arith.muli %[[CTA]], %c32
// CHECK:   scf.parallel (%[[Y:.*]], %[[X:.*]]) = ({{.*}}) to (%c8{{.*}}, %c32{{.*}})
// CHECK:     %[[OUT:.*]] = arith.addi %[[BASE]], %[[X]] : index
// CHECK:     %[[C:.*]] = arith.remui %[[OUT]], %c1152
// CHECK:     %[[B:.*]] = arith.divui %[[OUT]], %c1152
// CHECK:     %[[LAST:.*]] = arith.subi %c49{{.*}}, %c1
// CHECK:     %[[PART:.*]] = scf.for %[[R:.*]] = %[[Y]] to %c49{{.*}} step %c32{{.*}} iter_args(%[[ACC:.*]] = %[[NEG:cst.*]]) -> (f32) {
// CHECK:       %[[W:.*]] = arith.remui %[[R]], %c7
// CHECK:       %[[H:.*]] = arith.divui %[[R]], %c7
// CHECK:       memref.load %arg0[%[[B]], %[[H]], %[[W]], %[[C]]] : memref<32x7x7x1152xf16>
// CHECK:       %[[T0:.*]] = arith.addf %[[ACC]], %{{.*}} : f32
// Three more iterations (r + 8, r + 16, r + 24) in the same body, their loads together;
// one past the end reads the last element and counts -0.0 instead.
// CHECK:       %[[NEXT:.*]] = arith.addi %[[R]], %c8
// CHECK:       %[[IN:.*]] = arith.cmpi ult, %[[NEXT]], %c49
// CHECK:       %[[AT:.*]] = arith.minui %[[NEXT]], %[[LAST]]
// CHECK:       arith.remui %[[AT]], %c7
// CHECK:       memref.load %arg0
// CHECK:       %[[V1:.*]] = arith.select %[[IN]], %{{.*}}, %[[NEG]] : f32
// CHECK:       arith.addf %[[T0]], %[[V1]] : f32
// CHECK:       arith.addi %[[R]], %c16
// CHECK:       arith.addi %[[R]], %c24
// CHECK:       scf.yield
// CHECK:     memref.store %[[PART]], %[[PARTS]][%[[Y]], %[[X]]]
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:   gpu.barrier
// CHECK:   scf.parallel (%[[Y2:.*]], %[[X2:.*]]) = ({{.*}}) to (%c8{{.*}}, %c32{{.*}})
// CHECK:     %[[FIRST:.*]] = arith.cmpi eq, %[[Y2]], %c0
// CHECK:     scf.if %[[FIRST]] {
// CHECK:       %[[TOTAL:.*]] = scf.for %[[K:.*]] = %c0{{.*}} to %c8{{.*}} step %c1{{.*}} iter_args(%[[T:.*]] = %[[ZERO]]) -> (f32) {
// CHECK:         %[[P:.*]] = memref.load %[[PARTS]][%[[K]], %[[X2]]]
// CHECK:         arith.addf %[[T]], %[[P]] : f32
// CHECK:       %[[MEAN:.*]] = arith.divf %[[TOTAL]], %[[COUNT]] : f32
// CHECK:       arith.truncf %[[MEAN]] : f32 to f16
// CHECK:       memref.store {{.*}}, %arg1[{{.*}}] : memref<32x1152xf16>
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// CHECK-NOT: scf.parallel
// The same pool vectorized first: 4608 outputs of vectors of 8 (16 bytes a read). 8 of
// them span a line, but 32 threads an output (or 16) would leave fewer than 4 of the 49
// iterations a thread: 8 threads an output, 32 outputs a CTA.
// VECTOR-LABEL: func.func @pool
// VECTOR: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c144{{.*}})
// VECTOR:   memref.alloca() : memref<8x32x8xf32, #gpu.address_space<workgroup>>
// VECTOR:   scf.for {{.*}} iter_args(%{{.*}} = %cst{{.*}}) -> (vector<8xf32>)
// VECTOR:     vector.load %arg0{{.*}} : memref<32x7x7x1152xf16>, vector<8xf16>
// VECTOR:   vector.store {{.*}} : memref<8x32x8xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// VECTOR:   gpu.barrier
// VECTOR:   vector.load {{.*}} : memref<8x32x8xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// VECTOR:   vector.store {{.*}} : memref<32x1152xf16>, vector<8xf16>
func.func @pool(%x: memref<32x7x7x1152xf16>, %y: memref<32x1152xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %c1152 = arith.constant 1152 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  scf.parallel (%b, %c) = (%c0, %c0) to (%c32, %c1152) step (%c1, %c1) {
    %s = scf.for %h = %c0 to %c7 step %c1 iter_args(%a = %zero) -> (f32) {
      %t = scf.for %w = %c0 to %c7 step %c1 iter_args(%a2 = %a) -> (f32) {
        %v = memref.load %x[%b, %h, %w, %c] : memref<32x7x7x1152xf16>
        %e = arith.extf %v : f16 to f32
        %n2 = arith.addf %a2, %e : f32
        scf.yield %n2 : f32
      }
      scf.yield %t : f32
    }
    %m = arith.divf %s, %n : f32
    %r = arith.truncf %m : f32 to f16
    memref.store %r, %y[%b, %c] : memref<32x1152xf16>
    scf.reduce
  }
  return
}

// -----

// EfficientNet-B0's first squeeze-excite pool at batch 1: 32 outputs of 112 x 112 values.
// f32 reads: 32 outputs would span a line, but one CTA would leave the GPU idle, so a CTA
// takes the 8 outputs of a 32-byte sector, 32 threads each (4 CTAs). Still too few: the
// reduction is also split into 49 slices of 256 iterations (8 a thread), 196 CTAs; 32
// values an output go through a first combine of 16 by threads y < 2. The workspace
// [49, 32] goes to a second nest, itself a reduction of 32 outputs over 49 slices: one
// CTA of 32 outputs x 8 threads, no slices again, which adds each output's values to 0.0
// and scales the total.
// CHECK-LABEL: func.func @sliced
// CHECK: %[[WORK:.*]] = memref.alloc() : memref<49x32xf32>
// CHECK: scf.parallel (%[[CTA:.*]]) = (%c0{{.*}}) to (%c196{{.*}})
// CHECK:   %[[PARTS:.*]] = memref.alloca() : memref<32x8xf32, #gpu.address_space<workgroup>>
// CHECK:   %[[TILE:.*]] = arith.remui %[[CTA]], %c4
// CHECK:   %[[SLICE:.*]] = arith.divui %[[CTA]], %c4
// CHECK:   scf.parallel (%[[Y:.*]], %[[X:.*]]) = ({{.*}}) to (%c32{{.*}}, %c8{{.*}})
// CHECK:     %[[START:.*]] = arith.muli %[[SLICE]], %c256
// CHECK:     %[[FIRST:.*]] = arith.addi %[[START]], %[[Y]]
// CHECK:     %[[STOP:.*]] = arith.addi %[[START]], %c256
// CHECK:     %[[END:.*]] = arith.minui %[[STOP]], %c12544
// CHECK:     scf.for %{{.*}} = %[[FIRST]] to %[[END]] step %c128
// CHECK:   gpu.barrier
// CHECK:   arith.cmpi ult, %{{.*}}, %c2
// CHECK:   gpu.barrier
// CHECK:   scf.parallel
// CHECK:     scf.if
// CHECK:       %[[SUM:.*]] = scf.for {{.*}} to %c2
// CHECK:       memref.store %[[SUM]], %[[WORK]][%[[SLICE]], %{{.*}}] : memref<49x32xf32>
// CHECK: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c1{{.*}})
// CHECK-NOT: memref.alloc()
// CHECK:   memref.alloca() : memref<8x32xf32, #gpu.address_space<workgroup>>
// CHECK:   scf.parallel (%[[Y2:.*]], %[[X2:.*]]) = ({{.*}}) to (%c8{{.*}}, %c32{{.*}})
// CHECK:     scf.for %[[S:.*]] = %[[Y2]] to %c49{{.*}} step %c32
// CHECK:       memref.load %[[WORK]][%[[S]], %{{.*}}] : memref<49x32xf32>
// CHECK:   gpu.barrier
// CHECK:       %[[TOTAL:.*]] = scf.for {{.*}} to %c8{{.*}} iter_args(%{{.*}} = %cst{{.*}})
// CHECK:       arith.mulf %[[TOTAL]]
// CHECK:       memref.store {{.*}}, %arg1[%{{.*}}] : memref<32xf32>
func.func @sliced(%x: memref<112x112x32xf32>, %y: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c112 = arith.constant 112 : index
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 7.97193861e-05 : f32
  scf.parallel (%c) = (%c0) to (%c32) step (%c1) {
    %s = scf.for %h = %c0 to %c112 step %c1 iter_args(%a = %zero) -> (f32) {
      %t = scf.for %w = %c0 to %c112 step %c1 iter_args(%a2 = %a) -> (f32) {
        %v = memref.load %x[%h, %w, %c] : memref<112x112x32xf32>
        %n2 = arith.addf %a2, %v : f32
        scf.yield %n2 : f32
      }
      scf.yield %t : f32
    }
    %m = arith.mulf %s, %scale : f32
    memref.store %m, %y[%c] : memref<32xf32>
    scf.reduce
  }
  return
}

// -----

// Reads contiguous along the reduction (the pixels of an NCHW image, 3136 a channel):
// one output a CTA, 256 threads on it, the reduction's threads along thread_x so that a
// warp reads 32 consecutive pixels. A maximum starts from -inf in each thread; the
// loop's own initial value (a bias) is combined once, by the last thread.
// CHECK-LABEL: func.func @contiguous_max
// CHECK: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c2048{{.*}})
// CHECK:   memref.alloca() : memref<256x1xf32, #gpu.address_space<workgroup>>
// CHECK:   scf.parallel
// CHECK-NOT:   memref.load %arg1
// CHECK:     %[[LOW:.*]] = arith.constant 0xFF800000 : f32
// CHECK:     scf.for {{.*}} step %c1024{{.*}} iter_args(%{{.*}} = %[[LOW]]) -> (f32) {
// CHECK:       arith.maximumf
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>, #gpu.loop_dim_map<processor = thread_y, {{.*}}>]}
// CHECK:   gpu.barrier
// 256 values an output: threads y < 16 first combine 16 each (y, y + 16, ...) in place.
// CHECK:   scf.parallel (%[[Y:.*]], %[[X:.*]]) =
// CHECK:     %[[ACTIVE:.*]] = arith.cmpi ult, %[[Y]], %c16
// CHECK:     scf.if %[[ACTIVE]] {
// CHECK:       scf.for %[[K:.*]] = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// CHECK:         %[[AT:.*]] = arith.muli %[[K]], %c16
// CHECK:         %[[SLOT:.*]] = arith.addi %[[Y]], %[[AT]]
// CHECK:         memref.load %{{.*}}[%[[SLOT]], %[[X]]]
// CHECK:       memref.store %{{.*}}, %{{.*}}[%[[Y]], %[[X]]]
// CHECK:   gpu.barrier
// CHECK:   scf.parallel
// CHECK:     %[[BIAS:.*]] = memref.load %arg1
// CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[BIAS]]) -> (f32) {
// CHECK:       arith.maximumf
func.func @contiguous_max(%x: memref<32x64x3136xf32>, %bias: memref<64xf32>, %y: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c3136 = arith.constant 3136 : index
  scf.parallel (%b, %c) = (%c0, %c0) to (%c32, %c64) step (%c1, %c1) {
    %init = memref.load %bias[%c] : memref<64xf32>
    %s = scf.for %p = %c0 to %c3136 step %c1 iter_args(%a = %init) -> (f32) {
      %v = memref.load %x[%b, %c, %p] : memref<32x64x3136xf32>
      %n2 = arith.maximumf %a, %v : f32
      scf.yield %n2 : f32
    }
    memref.store %s, %y[%b, %c] : memref<32x64xf32>
    scf.reduce
  }
  return
}

// -----

// Two carried values of two types (a sum and an integer maximum from -7) over the
// outer axis: 100 outputs, 8 a CTA (the last CTA's partial: guarded), in 16 slices.
// CHECK-LABEL: func.func @two_values
// CHECK: memref.alloca() : memref<{{.*}}xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloca() : memref<{{.*}}xi32, #gpu.address_space<workgroup>>
// CHECK: scf.parallel
// CHECK:   arith.cmpi ult, %{{.*}}, %c100{{.*}}
// CHECK:   scf.for {{.*}} -> (f32, i32)
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} -> (f32, i32)
// CHECK:   arith.addf
// CHECK:   arith.maxsi
func.func @two_values(%x: memref<4096x10x10xf32>, %k: memref<4096x10x10xi32>, %y: memref<10x10xf32>, %z: memref<10x10xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -7 : i32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c10) step (%c1, %c1) {
    %s:2 = scf.for %p = %c0 to %c4096 step %c1 iter_args(%a = %zero, %m = %low) -> (f32, i32) {
      %v = memref.load %x[%p, %i, %j] : memref<4096x10x10xf32>
      %w = memref.load %k[%p, %i, %j] : memref<4096x10x10xi32>
      %n2 = arith.addf %a, %v : f32
      %m2 = arith.maxsi %w, %m : i32
      scf.yield %n2, %m2 : f32, i32
    }
    memref.store %s#0, %y[%i, %j] : memref<10x10xf32>
    memref.store %s#1, %z[%i, %j] : memref<10x10xi32>
    scf.reduce
  }
  return
}

// -----

// Left as they are: a nest with enough outputs (131072); a loop of run-time bounds; a
// store in the loop; a carried value combined by no reduction's op (x * 0.5 + v: each
// iteration depends on the order); a carried value read twice; a reduction of 6
// iterations (fewer than 4 a thread for any 2 threads); a reduction followed by another
// loop (a softmax's normalisation: it would run on the threads of y = 0 only).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: gpu.barrier
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @left_alone(%x: memref<131072x64xf32>, %y: memref<131072xf32>, %u: memref<16x4096xf32>, %v: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %c131072 = arith.constant 131072 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  scf.parallel (%i) = (%c0) to (%c131072) step (%c1) {
    %s = scf.for %k = %c0 to %c64 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %x[%i, %k] : memref<131072x64xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %y[%i] : memref<131072xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %u[%i, %k] : memref<16x4096xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %v[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = scf.for %k = %c0 to %c4096 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %u[%i, %k] : memref<16x4096xf32>
      memref.store %e, %v[%i] : memref<16xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %v[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = scf.for %k = %c0 to %c4096 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %u[%i, %k] : memref<16x4096xf32>
      %h = arith.mulf %a, %half : f32
      %t = arith.addf %h, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %v[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = scf.for %k = %c0 to %c4096 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %u[%i, %k] : memref<16x4096xf32>
      %m = arith.maximumf %a, %e : f32
      %t = arith.addf %a, %m : f32
      scf.yield %t : f32
    }
    memref.store %s, %v[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = scf.for %k = %c0 to %c6 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %u[%i, %k] : memref<16x4096xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %v[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = scf.for %k = %c0 to %c4096 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %u[%i, %k] : memref<16x4096xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    scf.for %k = %c0 to %c4096 step %c1 {
      %e = memref.load %u[%i, %k] : memref<16x4096xf32>
      %q = arith.divf %e, %s : f32
      memref.store %q, %u[%i, %k] : memref<16x4096xf32>
    }
    scf.reduce
  }
  return
}
