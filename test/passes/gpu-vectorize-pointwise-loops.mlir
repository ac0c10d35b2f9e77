// RUN: kiln-opt %s --split-input-file --gpu-vectorize-pointwise-loops | FileCheck %s
// RUN: kiln-opt %s --split-input-file --gpu-vectorize-pointwise-loops --gpu-map-loops \
// RUN:   | FileCheck --check-prefix=MAPPED %s
// RUN: kiln-opt %s --split-input-file --gpu-vectorize-pointwise-loops --gpu-map-loops --gpu-kernel-outlining --kiln-lower-gpu-device \
// RUN:   | kiln-translate --emit-ptx -split-input-file -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// EfficientNet-B0's squeeze-excite gate at batch 256, channels last: the gate [B, 1, 1, C]
// times the activations [B, H, W, C]. Each iteration of the innermost loop takes 8
// channels (16 bytes of f16): both loads and the store are vectors of 8, the arithmetic
// works on vectors of 8 in the same order, and gpu-map-loops gives a thread each 8
// channels (256 x 112 x 112 x 4 threads: 50176 blocks of 256).
// CHECK-LABEL: func.func @gate
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: scf.parallel (%[[B:.*]], %[[H:.*]], %[[W:.*]], %[[C:.*]]) = {{.*}} step (%c1, %c1, %c1, %[[C8]])
// CHECK:   %[[G:.*]] = vector.load %arg0[%[[B]], %c0, %c0, %[[C]]] {alignment = 16 : i64} : memref<256x1x1x32xf16>, vector<8xf16>
// CHECK:   %[[X:.*]] = vector.load %arg1[%[[B]], %[[H]], %[[W]], %[[C]]] {alignment = 16 : i64} : memref<256x112x112x32xf16>, vector<8xf16>
// CHECK:   %[[GF:.*]] = arith.extf %[[G]] : vector<8xf16> to vector<8xf32>
// CHECK:   %[[XF:.*]] = arith.extf %[[X]] : vector<8xf16> to vector<8xf32>
// CHECK:   %[[P:.*]] = arith.mulf %[[GF]], %[[XF]] fastmath<contract> : vector<8xf32>
// CHECK:   %[[R:.*]] = arith.truncf %[[P]] : vector<8xf32> to vector<8xf16>
// CHECK:   vector.store %[[R]], %arg2[%[[B]], %[[H]], %[[W]], %[[C]]] {alignment = 16 : i64} : memref<256x112x112x32xf16>, vector<8xf16>
// CHECK-NOT: memref.load
// MAPPED-LABEL: func.func @gate
// MAPPED: gpu.launch blocks({{.*}}) in ({{.*}} = %c50176, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c256
// PTX-LABEL: .visible .entry gate_k0
// PTX-COUNT-2: ld.global.v4.b32
// PTX: st.global.v4.b32
func.func @gate(%g: memref<256x1x1x32xf16>, %x: memref<256x112x112x32xf16>, %y: memref<256x112x112x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c112 = arith.constant 112 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%b, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c256, %c112, %c112, %c32) step (%c1, %c1, %c1, %c1) {
    %0 = memref.load %g[%b, %c0, %c0, %c] : memref<256x1x1x32xf16>
    %1 = memref.load %x[%b, %h, %w, %c] : memref<256x112x112x32xf16>
    %2 = arith.extf %0 : f16 to f32
    %3 = arith.extf %1 : f16 to f32
    %4 = arith.mulf %2, %3 fastmath<contract> : f32
    %5 = arith.truncf %4 : f32 to f16
    memref.store %5, %y[%b, %h, %w, %c] : memref<256x112x112x32xf16>
    scf.reduce
  }
  return
}

// -----

// f32 buffers take 4 lanes; an operand that does not depend on the innermost variable (a
// row's scale) is loaded once as a scalar and splat; a constant too. A sigmoid's exp and
// division run on the vector (libdevice one lane at a time in the device lowering).
// CHECK-LABEL: func.func @row_scale
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = {{.*}} step (%c1, %c4)
// CHECK:   %[[S:.*]] = memref.load %arg1[%[[I]]] : memref<64xf32>
// CHECK:   %[[X:.*]] = vector.load %arg0[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<64x256xf32>, vector<4xf32>
// CHECK:   %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<4xf32>
// CHECK:   %[[P:.*]] = arith.mulf %[[X]], %[[SV]] : vector<4xf32>
// CHECK:   %[[N:.*]] = arith.negf %[[P]] : vector<4xf32>
// CHECK:   %[[E:.*]] = math.exp %[[N]] : vector<4xf32>
// CHECK:   %[[ONE:.*]] = vector.broadcast %cst : f32 to vector<4xf32>
// CHECK:   %[[D:.*]] = arith.addf %[[ONE]], %[[E]] : vector<4xf32>
// CHECK:   arith.divf {{.*}} : vector<4xf32>
// CHECK:   vector.store {{.*}} {alignment = 16 : i64} : memref<64x256xf32>, vector<4xf32>
// PTX-LABEL: .visible .entry row_scale_k0
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
func.func @row_scale(%x: memref<64x256xf32>, %s: memref<64xf32>, %y: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
    %0 = memref.load %s[%i] : memref<64xf32>
    %1 = memref.load %x[%i, %j] : memref<64x256xf32>
    %2 = arith.mulf %1, %0 : f32
    %3 = arith.negf %2 : f32
    %4 = math.exp %3 : f32
    %5 = arith.addf %one, %4 : f32
    %6 = arith.divf %one, %5 : f32
    memref.store %6, %y[%i, %j] : memref<64x256xf32>
    scf.reduce
  }
  return
}

// -----

// A concatenation along the innermost axis (Concat of two [4096, 4096] f16 matrices on
// axis 1): the choice compares the variable with 4096, a multiple of the 8 lanes, so it is
// the same in every lane and stays scalar, evaluated at the vector's first; the second
// operand is read at the variable minus 4096, also a multiple of 8.
// CHECK-LABEL: func.func @concat_inner
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = {{.*}} step (%c1, %c8)
// CHECK:   %[[SECOND:.*]] = arith.cmpi uge, %[[J]], %c4096 : index
// CHECK:   %[[WHICH:.*]] = arith.select %[[SECOND]], %c1, %c0 : index
// CHECK:   %[[V:.*]] = scf.index_switch %[[WHICH]] -> vector<8xf16>
// CHECK:   case 1 {
// CHECK:     %[[K:.*]] = arith.subi %[[J]], %c4096 : index
// CHECK:     %[[B:.*]] = vector.load %arg1[%[[I]], %[[K]]] {alignment = 16 : i64} : memref<4096x4096xf16>, vector<8xf16>
// CHECK:     scf.yield %[[B]] : vector<8xf16>
// CHECK:   default {
// CHECK:     %[[A:.*]] = vector.load %arg0[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<4096x4096xf16>, vector<8xf16>
// CHECK:   vector.store %[[V]], %arg2[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<4096x8192xf16>, vector<8xf16>
// PTX-LABEL: .visible .entry concat_inner_k0
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
func.func @concat_inner(%a: memref<4096x4096xf16>, %b: memref<4096x4096xf16>, %y: memref<4096x8192xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4096, %c8192) step (%c1, %c1) {
    %second = arith.cmpi uge, %j, %c4096 : index
    %which = arith.select %second, %c1, %c0 : index
    %v = scf.index_switch %which -> f16
    case 1 {
      %k = arith.subi %j, %c4096 : index
      %0 = memref.load %b[%i, %k] : memref<4096x4096xf16>
      scf.yield %0 : f16
    }
    default {
      %0 = memref.load %a[%i, %j] : memref<4096x4096xf16>
      scf.yield %0 : f16
    }
    memref.store %v, %y[%i, %j] : memref<4096x8192xf16>
    scf.reduce
  }
  return
}

// -----

// Fewer lanes where 8 do not divide the extent: rows of 12 f16 take vectors of 4 (8
// bytes), the most that divide 12.
// CHECK-LABEL: func.func @four_lanes
// CHECK: scf.parallel {{.*}} step (%c1, %c4)
// CHECK:   vector.load %arg0[{{.*}}] {alignment = 8 : i64} : memref<64x12xf16>, vector<4xf16>
// CHECK:   vector.store {{.*}} {alignment = 8 : i64} : memref<64x12xf16>, vector<4xf16>
func.func @four_lanes(%x: memref<64x12xf16>, %y: memref<64x12xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c12) step (%c1, %c1) {
    %0 = memref.load %x[%i, %j] : memref<64x12xf16>
    %1 = math.absf %0 : f16
    memref.store %1, %y[%i, %j] : memref<64x12xf16>
    scf.reduce
  }
  return
}

// -----

// A thread's run of 2 lanes in a CTA (gpu-tile-transposes' phase 2): the variable shifted
// by a value its arithmetic makes a multiple of 2 (a thread's base, 2 x), the row of a
// workgroup tile read as a vector of 2 and stored as one.
// CHECK-LABEL: func.func @lanes_in_cta
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c2) step (%c2{{.*}})
// CHECK:   vector.load %{{.*}} {alignment = 4 : i64} : memref<8x66xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK:   vector.store %{{.*}}, %arg1[{{.*}}] {alignment = 4 : i64} : memref<100x64xf16>, vector<2xf16>
// The same shift by a value not known to be even: left scalar.
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c2) step (%c1)
// CHECK-NOT: vector.store
// CHECK: return
func.func @lanes_in_cta(%in: memref<100x64xf16>, %out: memref<100x64xf16>, %base: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%cta) = (%c0) to (%c100) step (%c1) {
    %tile = memref.alloca() : memref<8x66xf16, #gpu.address_space<workgroup>>
    scf.parallel (%x) = (%c0) to (%c32) step (%c1) {
      %x2 = arith.muli %x, %c2 : index
      scf.parallel (%lane) = (%c0) to (%c2) step (%c1) {
        %j = arith.addi %lane, %x2 : index
        %v = memref.load %tile[%c0, %j] : memref<8x66xf16, #gpu.address_space<workgroup>>
        memref.store %v, %out[%cta, %j] : memref<100x64xf16>
        scf.reduce
      }
      %other = arith.addi %x, %base : index
      scf.parallel (%lane) = (%c0) to (%c2) step (%c1) {
        %j = arith.addi %lane, %other : index
        %v = memref.load %tile[%c0, %j] : memref<8x66xf16, #gpu.address_space<workgroup>>
        memref.store %v, %out[%cta, %j] : memref<100x64xf16>
        scf.reduce
      }
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// Gathers: a nearest 2x upsampling along the innermost axis reads in[i, j / 2], a
// position computed from the variable. The stores along j take vectors of 8; the
// position is the same arithmetic on the vector of the lanes' variables (j + 0, ..., j +
// 7), and the read one scalar load a lane, gathered into a vector.
// CHECK-LABEL: func.func @gather
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = {{.*}} step (%c1, %c8)
// CHECK:   %[[SPLAT:.*]] = vector.broadcast %[[J]] : index to vector<8xindex>
// CHECK:   %[[STEP:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
// CHECK:   %[[LANES:.*]] = arith.addi %[[SPLAT]], %[[STEP]] : vector<8xindex>
// CHECK:   %[[HALF:.*]] = arith.divui %[[LANES]], %{{.*}} : vector<8xindex>
// CHECK:   %[[P0:.*]] = vector.extract %[[HALF]][0] : index from vector<8xindex>
// CHECK:   %[[X0:.*]] = memref.load %arg0[%[[I]], %[[P0]]] : memref<16x32xf16>
// CHECK-COUNT-7: memref.load %arg0
// CHECK:   %[[X:.*]] = vector.from_elements %[[X0]], {{.*}} : vector<8xf16>
// CHECK:   vector.store %[[X]], %arg1[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<16x64xf16>, vector<8xf16>
// In the PTX, 4 loads (lanes 2m and 2m + 1 read the same element) and one 16-byte store.
// PTX-LABEL: .visible .entry gather_k0
// PTX-COUNT-4: ld.global.b16
// PTX-NOT: ld.global
// PTX: st.global.v4.b32
func.func @gather(%in: memref<16x32xf16>, %out: memref<16x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
    %h = arith.divui %j, %c2 : index
    %v = memref.load %in[%i, %h] : memref<16x32xf16>
    memref.store %v, %out[%i, %j] : memref<16x64xf16>
    scf.reduce
  }
  return
}

// -----

// A nest that gathers keeps each lane's positions and values in registers: lanes times
// the ops a lane computes for itself stay within 160 (GridSample's 60-odd ops a lane took
// 180 registers at 8 lanes). The gather, its position and 20 products a lane: 22 ops, 4
// lanes instead of 8.
// CHECK-LABEL: func.func @gather_work
// CHECK: scf.parallel {{.*}} step (%c1, %c4)
// CHECK:   vector.store %{{.*}}, %arg1[{{.*}}] {alignment = 8 : i64} : memref<16x64xf16>, vector<4xf16>
func.func @gather_work(%in: memref<16x32xf16>, %out: memref<16x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
    %h = arith.divui %j, %c2 : index
    %m0 = memref.load %in[%i, %h] : memref<16x32xf16>
    %m1 = arith.mulf %m0, %m0 : f16
    %m2 = arith.mulf %m1, %m1 : f16
    %m3 = arith.mulf %m2, %m2 : f16
    %m4 = arith.mulf %m3, %m3 : f16
    %m5 = arith.mulf %m4, %m4 : f16
    %m6 = arith.mulf %m5, %m5 : f16
    %m7 = arith.mulf %m6, %m6 : f16
    %m8 = arith.mulf %m7, %m7 : f16
    %m9 = arith.mulf %m8, %m8 : f16
    %m10 = arith.mulf %m9, %m9 : f16
    %m11 = arith.mulf %m10, %m10 : f16
    %m12 = arith.mulf %m11, %m11 : f16
    %m13 = arith.mulf %m12, %m12 : f16
    %m14 = arith.mulf %m13, %m13 : f16
    %m15 = arith.mulf %m14, %m14 : f16
    %m16 = arith.mulf %m15, %m15 : f16
    %m17 = arith.mulf %m16, %m16 : f16
    %m18 = arith.mulf %m17, %m17 : f16
    %m19 = arith.mulf %m18, %m18 : f16
    %m20 = arith.mulf %m19, %m19 : f16
    memref.store %m20, %out[%i, %j] : memref<16x64xf16>
    scf.reduce
  }
  return
}

// -----

// A shifted variable as a value (an iota): the vector of the lanes' values, j + 16 + 0,
// ..., j + 16 + 3 (4 lanes of i32).
// CHECK-LABEL: func.func @iota
// CHECK: scf.parallel (%{{.*}}, %[[J:.*]]) = {{.*}} step (%c1, %c4)
// CHECK:   %[[K:.*]] = arith.addi %[[J]], %c16 : index
// CHECK:   %[[SPLAT:.*]] = vector.broadcast %[[K]] : index to vector<4xindex>
// CHECK:   %[[STEP:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK:   %[[LANES:.*]] = arith.addi %[[SPLAT]], %[[STEP]] : vector<4xindex>
// CHECK:   %[[N:.*]] = arith.index_cast %[[LANES]] : vector<4xindex> to vector<4xi32>
// CHECK:   vector.store %[[N]], %arg0[%{{.*}}, %[[J]]] {alignment = 16 : i64} : memref<8x32xi32>, vector<4xi32>
func.func @iota(%z: memref<8x32xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
    %k = arith.addi %j, %c16 : index
    %n = arith.index_cast %k : index to i32
    memref.store %n, %z[%i, %j] : memref<8x32xi32>
    scf.reduce
  }
  return
}

// -----

// A sum over the middle axis, one thread an output (after gpu-promote-accumulators: the
// sum carried by the loop): the loop's loads along the innermost variable become vectors
// of 8, the f32 sum a vector of 8 carried by the loop (its initial value splat), and the
// store after it 8 wide. Each lane adds the same values in the same order. A maximum
// carried beside it from a value the same in every lane (the row's first element, read
// at a fixed column) stays scalar until it meets a varying one.
// CHECK-LABEL: func.func @middle_sums
// CHECK: scf.parallel (%[[I:.*]], %[[K:.*]]) = {{.*}} step (%c1, %c8)
// CHECK:   %[[ZERO:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK:   %[[S:.*]]:2 = scf.for %[[H:.*]] = %c0 to %c1024 step %c1 iter_args(%[[ACC:.*]] = %[[ZERO]], %[[M:.*]] = %{{.*}}) -> (vector<8xf32>, f32) {
// CHECK:     %[[X:.*]] = vector.load %arg0[%[[I]], %[[H]], %[[K]]] {alignment = 16 : i64} : memref<64x1024x512xf16>, vector<8xf16>
// CHECK:     %[[XF:.*]] = arith.extf %[[X]] : vector<8xf16> to vector<8xf32>
// CHECK:     %[[A:.*]] = arith.addf %[[ACC]], %[[XF]] : vector<8xf32>
// CHECK:     %[[F:.*]] = memref.load %arg0[%[[I]], %[[H]], %c0] : memref<64x1024x512xf16>
// CHECK:     %[[FF:.*]] = arith.extf %[[F]] : f16 to f32
// CHECK:     %[[MX:.*]] = arith.maxnumf %[[M]], %[[FF]] : f32
// CHECK:     scf.yield %[[A]], %[[MX]] : vector<8xf32>, f32
// CHECK:   %[[MV:.*]] = vector.broadcast %[[S]]#1 : f32 to vector<8xf32>
// CHECK:   %[[T:.*]] = arith.addf %[[S]]#0, %[[MV]] : vector<8xf32>
// CHECK:   %[[R:.*]] = arith.truncf %[[T]] : vector<8xf32> to vector<8xf16>
// CHECK:   vector.store %[[R]], %arg1[%[[I]], %[[K]]] {alignment = 16 : i64} : memref<64x512xf16>, vector<8xf16>
// MAPPED-LABEL: func.func @middle_sums
// MAPPED: gpu.launch
// MAPPED: scf.for {{.*}} -> (vector<8xf32>, f32)
// PTX-LABEL: .visible .entry middle_sums_k0
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
func.func @middle_sums(%x: memref<64x1024x512xf16>, %y: memref<64x512xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -3.0e38 : f32
  scf.parallel (%i, %k) = (%c0, %c0) to (%c64, %c512) step (%c1, %c1) {
    %sum:2 = scf.for %h = %c0 to %c1024 step %c1 iter_args(%acc = %zero, %m = %low) -> (f32, f32) {
      %0 = memref.load %x[%i, %h, %k] : memref<64x1024x512xf16>
      %1 = arith.extf %0 : f16 to f32
      %2 = arith.addf %acc, %1 : f32
      %3 = memref.load %x[%i, %h, %c0] : memref<64x1024x512xf16>
      %4 = arith.extf %3 : f16 to f32
      %5 = arith.maxnumf %m, %4 : f32
      scf.yield %2, %5 : f32, f32
    }
    %6 = arith.addf %sum#0, %sum#1 : f32
    %7 = arith.truncf %6 : f32 to f16
    memref.store %7, %y[%i, %k] : memref<64x512xf16>
    scf.reduce
  }
  return
}

// -----

// A pool's totals written channels first, [B, C, 1, 1] at [b, c, 0, 0]: the store goes
// through a view without the unit dimensions, along c, and takes vectors like any other.
// CHECK-LABEL: func.func @pool_totals
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : memref<32x64x1x1xf16> into memref<32x64xf16>
// CHECK: scf.parallel (%[[B:.*]], %[[C:.*]]) = {{.*}} step (%c1, %c4)
// CHECK:   scf.for {{.*}} -> (vector<4xf32>)
// CHECK:     vector.load %arg0[%{{.*}}, %[[B]], %[[C]]] {alignment = 16 : i64} : memref<56x32x64xf32>, vector<4xf32>
// CHECK:   vector.store %{{.*}}, %[[VIEW]][%[[B]], %[[C]]] {alignment = 8 : i64} : memref<32x64xf16>, vector<4xf16>
func.func @pool_totals(%parts: memref<56x32x64xf32>, %y: memref<32x64x1x1xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c56 = arith.constant 56 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%b, %c) = (%c0, %c0) to (%c32, %c64) step (%c1, %c1) {
    %sum = scf.for %p = %c0 to %c56 step %c1 iter_args(%acc = %zero) -> (f32) {
      %0 = memref.load %parts[%p, %b, %c] : memref<56x32x64xf32>
      %1 = arith.addf %acc, %0 : f32
      scf.yield %1 : f32
    }
    %2 = arith.truncf %sum : f32 to f16
    memref.store %2, %y[%b, %c, %c0, %c0] : memref<32x64x1x1xf16>
    scf.reduce
  }
  return
}

// -----

// A 2x2 average pool of stride 2 (RT-DETR's ResNet-D shortcuts): its reads at 2 w + kw
// (an affine.apply) take the 16 elements from 2 w on as one vector, every other from kw:
// two shuffles chosen by kw (the window loop unrolled later makes it one). The window
// count, clipped at the border as ONNX's ceil mode has it, is the lanes' own.
// CHECK-LABEL: func.func @strided_pool
// CHECK: scf.parallel {{.*}} step (%c1, %c1, %c1, %c8)
// CHECK:   scf.for {{.*}} -> (vector<8xf32>)
// CHECK:     scf.for {{.*}} -> (vector<8xf32>)
// CHECK:       %[[START:.*]] = arith.muli %{{.*}}, %c2{{[_0-9]*}} : index
// CHECK:       %[[BLOCK:.*]] = vector.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %[[START]]] {alignment = 16 : i64} : memref<2x4x32x64xf16>, vector<16xf16>
// CHECK:       vector.shuffle %[[BLOCK]], %[[BLOCK]] [1, 3, 5, 7, 9, 11, 13, 15]
// CHECK:       vector.shuffle %[[BLOCK]], %[[BLOCK]] [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK:       arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf16>
// CHECK:   arith.constant dense<[0, 2, 4, 6, 8, 10, 12, 14]> : vector<8xindex>
// CHECK:   vector.store %{{.*}}, %arg1[{{.*}}] {alignment = 16 : i64} : memref<2x4x16x32xf16>, vector<8xf16>
// PTX-LABEL: .entry strided_pool
// PTX-COUNT-4: ld.global.v4.b32
// PTX-NOT: ld.global
// PTX: st.global.v4.b32
func.func @strided_pool(%x: memref<2x4x32x64xf16>, %y: memref<2x4x16x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c4, %c16, %c32) step (%c1, %c1, %c1, %c1) {
    %sum = scf.for %kh = %c0 to %c2 step %c1 iter_args(%a = %zero) -> (f32) {
      %inner = scf.for %kw = %c0 to %c2 step %c1 iter_args(%b = %a) -> (f32) {
        %row = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%h, %kh)
        %col = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%w, %kw)
        %v = memref.load %x[%n, %c, %row, %col] : memref<2x4x32x64xf16>
        %e = arith.extf %v : f16 to f32
        %s = arith.addf %b, %e : f32
        scf.yield %s : f32
      }
      scf.yield %inner : f32
    }
    %w2 = arith.muli %w, %c2 : index
    %last = arith.subi %c63, %w2 : index
    %span = arith.minsi %last, %c1 : index
    %count = arith.addi %span, %c1 : index
    %count2 = arith.muli %count, %c2 : index
    %ci = arith.index_cast %count2 : index to i64
    %cf = arith.sitofp %ci : i64 to f32
    %mean = arith.divf %sum, %cf : f32
    %r = arith.truncf %mean : f32 to f16
    memref.store %r, %y[%n, %c, %h, %w] : memref<2x4x16x32xf16>
    scf.reduce
  }
  return
}

// -----

// A pool with padding reads at 2 w + kw - 1, which may leave the 16 elements from 2 w
// (kw - 1 in [-1, 0]): a gather, a scalar load a lane at its own index.
// CHECK-LABEL: func.func @strided_pool_padded
// CHECK-NOT: vector<16xf16>
// CHECK: memref.load %arg0
// CHECK: vector.from_elements
// CHECK: vector.store
func.func @strided_pool_padded(%x: memref<2x64xf16>, %y: memref<2x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f16
  scf.parallel (%n, %w) = (%c0, %c0) to (%c2, %c32) step (%c1, %c1) {
    %sum = scf.for %kw = %c0 to %c2 step %c1 iter_args(%b = %zero) -> (f16) {
      %w2 = arith.muli %w, %c2 : index
      %at = arith.addi %w2, %kw : index
      %col = arith.subi %at, %c1 : index
      %inside = arith.maxsi %col, %c0 : index
      %v = memref.load %x[%n, %inside] : memref<2x64xf16>
      %s = arith.addf %b, %v : f16
      scf.yield %s : f16
    }
    memref.store %sum, %y[%n, %w] : memref<2x32xf16>
    scf.reduce
  }
  return
}

// -----

// A pool that reads channels-last activations and writes channels first: its strided
// index is W's, 2 x 64 f16 a lane apart: a transpose, left to one thread an element.
// CHECK-LABEL: func.func @strided_pool_transposed
// CHECK-NOT: vector.
// CHECK: return
func.func @strided_pool_transposed(%x: memref<2x64x64xf16>, %y: memref<2x64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f16
  scf.parallel (%n, %c, %w) = (%c0, %c0, %c0) to (%c2, %c64, %c32) step (%c1, %c1, %c1) {
    %sum = scf.for %kw = %c0 to %c2 step %c1 iter_args(%b = %zero) -> (f16) {
      %w2 = arith.muli %w, %c2 : index
      %col = arith.addi %w2, %kw : index
      %v = memref.load %x[%n, %col, %c] : memref<2x64x64xf16>
      %s = arith.addf %b, %v : f16
      scf.yield %s : f16
    }
    memref.store %sum, %y[%n, %c, %w] : memref<2x64x32xf16>
    scf.reduce
  }
  return
}

// -----

// Left as they are: a choice along the innermost axis at 12, no multiple of the 8 lanes
// (a vector would straddle it); one on an equality (true in one lane only).
// CHECK-LABEL: func.func @concat_left_alone
// CHECK-NOT: vector.
// CHECK: return
func.func @concat_left_alone(%a: memref<8x16xf16>, %b: memref<8x32xf16>, %y: memref<8x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
    %second = arith.cmpi uge, %j, %c12 : index
    %v = scf.if %second -> f16 {
      %k = arith.subi %j, %c12 : index
      %0 = memref.load %b[%i, %k] : memref<8x32xf16>
      scf.yield %0 : f16
    } else {
      %0 = memref.load %a[%i, %j] : memref<8x16xf16>
      scf.yield %0 : f16
    }
    memref.store %v, %y[%i, %j] : memref<8x32xf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
    %first = arith.cmpi eq, %j, %c16 : index
    %v = scf.if %first -> f16 {
      %0 = memref.load %a[%i, %c0] : memref<8x16xf16>
      scf.yield %0 : f16
    } else {
      %0 = memref.load %y[%i, %j] : memref<8x32xf16>
      scf.yield %0 : f16
    }
    memref.store %v, %y[%i, %j] : memref<8x32xf16>
    scf.reduce
  }
  return
}

// -----

// Left as they are: an innermost extent that is no multiple of the lanes (3 channels); a
// transpose (the innermost variable indexes a load's middle dimension); a store that
// every iteration makes to the same element; a
// strided view whose rows are not 16-byte aligned (a stride of 33); a loop in the body
// that stores (an accumulator left in memory: a store of some lanes' iterations); a
// buffer of i1 (a byte an element, where a vector of i1 is packed bits).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.
// CHECK: return
func.func @left_alone(%a: memref<8x16x3xf16>, %b: memref<8x16x3xf16>, %t: memref<8x32x16xf16>, %u: memref<8x16x32xf16>,
                      %v: memref<8xf16>, %w: memref<8x64xf16>, %z: memref<8x32xf16>, %p: memref<8x16x32xf16>, %q: memref<8x32xf32>,
                      %m: memref<8x32xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c8, %c16, %c3) step (%c1, %c1, %c1) {
    %0 = memref.load %a[%i, %j, %k] : memref<8x16x3xf16>
    memref.store %0, %b[%i, %j, %k] : memref<8x16x3xf16>
    scf.reduce
  }
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c8, %c16, %c32) step (%c1, %c1, %c1) {
    %0 = memref.load %t[%i, %k, %j] : memref<8x32x16xf16>
    memref.store %0, %u[%i, %j, %k] : memref<8x16x32xf16>
    scf.reduce
  }
  scf.parallel (%i, %k) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
    %0 = memref.load %z[%i, %k] : memref<8x32xf16>
    memref.store %0, %v[%i] : memref<8xf16>
    scf.reduce
  }
  %odd = memref.reinterpret_cast %w to offset: [0], sizes: [8, 32], strides: [33, 1] : memref<8x64xf16> to memref<8x32xf16, strided<[33, 1]>>
  scf.parallel (%i, %k) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
    %0 = memref.load %odd[%i, %k] : memref<8x32xf16, strided<[33, 1]>>
    memref.store %0, %z[%i, %k] : memref<8x32xf16>
    scf.reduce
  }
  scf.parallel (%i, %k) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
    scf.for %h = %c0 to %c16 step %c1 {
      %0 = memref.load %p[%i, %h, %k] : memref<8x16x32xf16>
      %1 = arith.extf %0 : f16 to f32
      %2 = memref.load %q[%i, %k] : memref<8x32xf32>
      %3 = arith.addf %2, %1 : f32
      memref.store %3, %q[%i, %k] : memref<8x32xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %k) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
    %0 = memref.load %z[%i, %k] : memref<8x32xf16>
    %1 = arith.extf %0 : f16 to f32
    %2 = arith.cmpf ogt, %1, %zero : f32
    memref.store %2, %m[%i, %k] : memref<8x32xi1>
    scf.reduce
  }
  return
}
