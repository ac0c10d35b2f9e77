// RUN: kiln-opt %s --split-input-file --gpu-tile-transposes --canonicalize | FileCheck %s
// RUN: kiln-opt %s --split-input-file --gpu-tile-transposes --gpu-vectorize-pointwise-loops \
// RUN:   | FileCheck %s --check-prefix=VECTOR
// RUN: kiln-opt %s --split-input-file --gpu-tile-transposes --gpu-vectorize-pointwise-loops \
// RUN:   --gpu-map-loops --verify-diagnostics | FileCheck %s --check-prefix=MAPPED
// RUN: kiln-opt %s --split-input-file --gpu-tile-transposes --gpu-vectorize-pointwise-loops \
// RUN:   --gpu-map-loops --gpu-kernel-outlining \
// RUN:   --kiln-lower-gpu-device | kiln-translate --emit-ptx -split-input-file -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// A matrix transpose in f16: out[i, j] = in[j, i]. The read's contiguous axis follows i
// (k), the store's j. A thread moves 2 elements (4 bytes) at once: one CTA per tile of
// 64 x 64, 128 x 64 tiles. Phase 1 reads the tile along i, thread x two elements at
// i0 + 2x (one vector), rows j0 + y + 8s, and writes them down a column of the 64 x 66
// workgroup buffer (tile rows along j, 33 words each); after the barrier, phase 2 runs
// the body for rows i0 + y + 8r, thread x at j0 + 2x and the next: a loop of 2 lanes
// reading a row of the tile (gpu-vectorize-pointwise-loops makes it one vector). No
// guards: 64 divides the extents.
// CHECK-LABEL: func.func @matrix
// CHECK: scf.parallel (%[[CTA:.*]]) = (%c0) to (%c8192) step (%c1) {
// CHECK:   %[[TJ:.*]] = arith.remui %[[CTA]], %c128
// CHECK:   %[[REST:.*]] = arith.divui %[[CTA]], %c128
// CHECK:   %[[J0:.*]] = arith.muli %[[TJ]], %c64
// CHECK:   %[[TK:.*]] = arith.remui %[[REST]], %c64
// CHECK:   %[[K0:.*]] = arith.muli %[[TK]], %c64
// CHECK:   %[[TILE:.*]] = memref.alloca() : memref<64x66xf16, #gpu.address_space<workgroup>>
// CHECK:   scf.parallel (%[[Y:.*]], %[[X:.*]]) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
// CHECK:     scf.for %[[S:.*]] = %c0 to %c8 step %c1 {
// CHECK:       %[[S8:.*]] = arith.muli %[[S]], %c8
// CHECK:       %[[JL:.*]] = arith.addi %[[Y]], %[[S8]]
// CHECK:       %[[KL:.*]] = arith.muli %[[X]], %c2
// CHECK:       %[[J:.*]] = arith.addi %[[J0]], %[[JL]]
// CHECK:       %[[K:.*]] = arith.addi %[[K0]], %[[KL]]
// CHECK:       %[[V:.*]] = vector.load %arg0[%[[J]], %[[K]]] {alignment = 4 : i64} : memref<8192x4096xf16>, vector<2xf16>
// CHECK:       %[[V0:.*]] = vector.extract %[[V]][0]
// CHECK:       memref.store %[[V0]], %[[TILE]][%[[KL]], %[[JL]]]
// CHECK:       %[[V1:.*]] = vector.extract %[[V]][1]
// CHECK:       %[[KL1:.*]] = arith.addi %[[KL]], %c1
// CHECK:       memref.store %[[V1]], %[[TILE]][%[[KL1]], %[[JL]]]
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:   gpu.barrier
// CHECK:   scf.parallel (%[[Y2:.*]], %[[X2:.*]]) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
// CHECK:     scf.for %[[R:.*]] = %c0 to %c8 step %c1 {
// CHECK:       %[[R8:.*]] = arith.muli %[[R]], %c8
// CHECK:       %[[KL2:.*]] = arith.addi %[[Y2]], %[[R8]]
// CHECK:       %[[JL2:.*]] = arith.muli %[[X2]], %c2
// CHECK:       %[[JB:.*]] = arith.addi %[[J0]], %[[JL2]]
// CHECK:       %[[K2:.*]] = arith.addi %[[K0]], %[[KL2]]
// CHECK:       scf.parallel (%[[LANE:.*]]) = (%c0) to (%c2) step (%c1) {
// CHECK:         %[[JLL:.*]] = arith.addi %[[LANE]], %[[JL2]]
// CHECK:         %[[JJ:.*]] = arith.addi %[[LANE]], %[[JB]]
// CHECK:         %[[T:.*]] = memref.load %[[TILE]][%[[KL2]], %[[JLL]]]
// CHECK:         memref.store %[[T]], %arg1[%[[K2]], %[[JJ]]] : memref<4096x8192xf16>
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// One launch: 8192 CTAs of 32 x 8 threads, the tile a workgroup attribution; the lanes'
// loop one vector of 2: 4-byte loads, shared-memory reads and stores.
// VECTOR-LABEL: func.func @matrix
// VECTOR: gpu.barrier
// VECTOR: %[[T:.*]] = vector.load %{{.*}} {alignment = 4 : i64} : memref<64x66xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// VECTOR: vector.store %[[T]], %arg1[{{.*}}] {alignment = 4 : i64} : memref<4096x8192xf16>, vector<2xf16>
// MAPPED-LABEL: func.func @matrix
// MAPPED: gpu.launch blocks({{.*}}) in ({{.*}} = %c8192{{.*}}, {{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c8{{.*}}, {{.*}} = %c1{{.*}}) workgroup(%{{.*}} : memref<64x66xf16, #gpu.address_space<workgroup>>)
// MAPPED-NOT: scf.parallel
// MAPPED: gpu.barrier
// MAPPED-NOT: scf.parallel
// MAPPED: gpu.terminator
// PTX-LABEL: .visible .entry matrix_k0
// PTX: .shared .align 16 .b8 {{.*}}[8448];
// PTX-COUNT-8: ld.global.v2.b16
// PTX: st.shared.b16
// PTX: bar.sync 0;
// PTX-COUNT-8: ld.shared.b32
// PTX: st.global.b32
func.func @matrix(%in: memref<8192x4096xf16>, %out: memref<4096x8192xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4096, %c8192) step (%c1, %c1) {
    %v = memref.load %in[%j, %i] : memref<8192x4096xf16>
    memref.store %v, %out[%i, %j] : memref<4096x8192xf16>
    scf.reduce
  }
  return
}

// -----

// NCHW to NHWC in f32 with extents the tiles do not divide ([2, 40, 17, 19] to
// [2, 17, 19, 40]): j is c (40), k is w (19), b and h the CTA's point. Tiles of 32 x 32
// (rows of 33 words): 2 x 1 tiles per (b, h), 68 CTAs; both phases guard i and j.
// CHECK-LABEL: func.func @nhwc
// CHECK: scf.parallel (%[[CTA:.*]]) = (%c0) to (%c68) step (%c1) {
// CHECK:   %[[TJ:.*]] = arith.remui %[[CTA]], %c2
// CHECK:   %[[REST:.*]] = arith.divui %[[CTA]], %c2
// CHECK:   %[[J0:.*]] = arith.muli %[[TJ]], %c32
// CHECK:   %[[H:.*]] = arith.remui %[[REST]], %c17
// CHECK:   %[[B:.*]] = arith.divui %[[REST]], %c17
// CHECK:   %[[TILE:.*]] = memref.alloca() : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK:   scf.parallel (%{{.*}}, %[[K:.*]]) =
// CHECK:     scf.for %[[S:.*]] = %c0 to %c4 step %c1 {
// CHECK:       %[[J:.*]] = arith.addi %[[J0]], %{{.*}} : index
// CHECK-DAG:   %[[INK:.*]] = arith.cmpi ult, %[[K]], %c19
// CHECK-DAG:   %[[INJ:.*]] = arith.cmpi ult, %[[J]], %c40
// CHECK:       %[[IN:.*]] = arith.andi %[[INJ]], %[[INK]]
// CHECK:       scf.if %[[IN]] {
// CHECK:         memref.load %arg0[%[[B]], %[[J]], %[[H]], %[[K]]] : memref<2x40x17x19xf32>
// CHECK:   gpu.barrier
// CHECK:   scf.parallel
// CHECK:     scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK:       scf.if
// CHECK:         %[[T:.*]] = memref.load %[[TILE]]
// CHECK:         memref.store %[[T]], %arg1[%[[B]], %[[H]], %{{.*}}, %{{.*}}] : memref<2x17x19x40xf32>
// MAPPED-LABEL: func.func @nhwc
// MAPPED: gpu.launch blocks({{.*}}) in ({{.*}} = %c68{{.*}}) threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c8{{.*}}, {{.*}}) workgroup(%{{.*}} : memref<32x33xf32, #gpu.address_space<workgroup>>)
// PTX-LABEL: .visible .entry nhwc_k0
// PTX: bar.sync 0;
func.func @nhwc(%in: memref<2x40x17x19xf32>, %out: memref<2x17x19x40xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c17 = arith.constant 17 : index
  %c19 = arith.constant 19 : index
  %c40 = arith.constant 40 : index
  scf.parallel (%b, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c2, %c17, %c19, %c40) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %in[%b, %c, %h, %w] : memref<2x40x17x19xf32>
    memref.store %v, %out[%b, %h, %w, %c] : memref<2x17x19x40xf32>
    scf.reduce
  }
  return
}

// -----

// f16 rows of an odd length ([2, 71, 50] to [2, 50, 71]): phase 1 still reads 2
// elements at once (50 is even), but phase 2 cannot store 2 at once (the output's rows
// are not 4-byte aligned): each of a thread's 2 lanes is guarded by itself, and the
// vectorizer leaves them scalar.
// CHECK-LABEL: func.func @odd_rows
// CHECK:   vector.load %arg0{{.*}} vector<2xf16>
// CHECK:   gpu.barrier
// CHECK:   scf.parallel
// CHECK:       scf.if
// CHECK:         scf.parallel (%[[LANE:.*]]) = (%c0) to (%c2) step (%c1) {
// CHECK:           arith.addi %[[LANE]]
// CHECK-NEXT:      %[[J:.*]] = arith.addi %[[LANE]], %{{.*}}
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[J]], %c71
// CHECK:           scf.if %[[IN]] {
// CHECK:             memref.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}, %[[J]]] : memref<2x50x71xf16>
// VECTOR-LABEL: func.func @odd_rows
// VECTOR: gpu.barrier
// VECTOR-NOT: vector.store
// VECTOR: memref.store %{{.*}}, %arg1
func.func @odd_rows(%in: memref<2x71x50xf16>, %out: memref<2x50x71xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c50 = arith.constant 50 : index
  %c71 = arith.constant 71 : index
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c50, %c71) step (%c1, %c1, %c1) {
    %v = memref.load %in[%b, %j, %i] : memref<2x71x50xf16>
    memref.store %v, %out[%b, %i, %j] : memref<2x50x71xf16>
    scf.reduce
  }
  return
}

// -----

// Two transposed reads and a direct one, fused with their sum: out[i, j] = a[j, i] +
// b[j, i] + y[i, j]. Both transposed reads get a tile (read in phase 1 at the same
// iteration); the direct read stays in phase 2, coalesced along j as it is.
// CHECK-LABEL: func.func @fused
// CHECK:   %[[TA:.*]] = memref.alloca() : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK:   %[[TB:.*]] = memref.alloca() : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK:   scf.parallel
// CHECK:       %[[A:.*]] = memref.load %arg0[%[[J:.*]], %[[K:.*]]] : memref<64x96xf32>
// CHECK:       memref.store %[[A]], %[[TA]]
// CHECK:       %[[B:.*]] = memref.load %arg1[%[[J]], %[[K]]] : memref<64x96xf32>
// CHECK:       memref.store %[[B]], %[[TB]]
// CHECK:   gpu.barrier
// CHECK:   scf.parallel
// CHECK:       %[[AT:.*]] = memref.load %[[TA]]
// CHECK:       %[[BT:.*]] = memref.load %[[TB]]
// CHECK:       %[[Y:.*]] = memref.load %arg2[%[[K2:.*]], %[[J2:.*]]] : memref<96x64xf32>
// CHECK:       %[[S:.*]] = arith.addf %[[AT]], %[[BT]]
// CHECK:       %[[R:.*]] = arith.addf %[[S]], %[[Y]]
// CHECK:       memref.store %[[R]], %arg3[%[[K2]], %[[J2]]] : memref<96x64xf32>
// MAPPED-LABEL: func.func @fused
// MAPPED: workgroup(%{{.*}} : memref<32x33xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x33xf32, #gpu.address_space<workgroup>>)
func.func @fused(%a: memref<64x96xf32>, %b: memref<64x96xf32>, %y: memref<96x64xf32>, %out: memref<96x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c96, %c64) step (%c1, %c1) {
    %va = memref.load %a[%j, %i] : memref<64x96xf32>
    %vb = memref.load %b[%j, %i] : memref<64x96xf32>
    %vy = memref.load %y[%i, %j] : memref<96x64xf32>
    %s = arith.addf %va, %vb : f32
    %r = arith.addf %s, %vy : f32
    memref.store %r, %out[%i, %j] : memref<96x64xf32>
    scf.reduce
  }
  return
}

// -----

// A batch known at run time ([?, 48, 20] to [?, 20, 48]): the CTAs are the batch times
// the 2 x 1 tiles, counted on the host, and gpu-map-loops sizes the grid from that count.
// CHECK-LABEL: func.func @batch
// CHECK: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK: %[[CTAS:.*]] = arith.muli %[[N]], %c2
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%[[CTAS]]) step (%c1) {
// MAPPED-LABEL: func.func @batch
// MAPPED: %[[CTAS:.*]] = arith.muli
// MAPPED: %[[X:.*]] = arith.minui %[[CTAS]], %c2147483647
// MAPPED: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[X]], {{.*}}) threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c8{{.*}}, {{.*}}) workgroup
// MAPPED:   %[[COUNT:.*]] = arith.muli %c2{{.*}}, %{{.*}}
// MAPPED:   %[[INSIDE:.*]] = arith.cmpi ult, %{{.*}}, %[[COUNT]]
// MAPPED:   scf.if %[[INSIDE]] {
// MAPPED:     gpu.barrier
func.func @batch(%in: memref<?x48x20xf32>, %out: memref<?x20x48xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %c48 = arith.constant 48 : index
  %n = memref.dim %in, %c0 : memref<?x48x20xf32>
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%n, %c20, %c48) step (%c1, %c1, %c1) {
    %v = memref.load %in[%b, %j, %i] : memref<?x48x20xf32>
    memref.store %v, %out[%b, %i, %j] : memref<?x20x48xf32>
    scf.reduce
  }
  return
}

// -----

// What stays one thread per iteration: a transpose with an extent below 16 (most of a
// tile idle), a gather (its index read from memory), a read at twice the variable (not
// contiguous along it), a store that is itself transposed (nothing written along j), and
// an elementwise nest (nothing read across).
// CHECK-LABEL: func.func @unmatched
// CHECK-NOT: gpu.barrier
// CHECK-NOT: block_x
// CHECK: return
func.func @unmatched(%narrow: memref<4096x8xf32>, %narrowT: memref<8x4096xf32>,
                     %table: memref<64x64xf32>, %ids: memref<64xindex>, %gathered: memref<64x64xf32>,
                     %strided: memref<64x128xf32>, %both: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4096) step (%c1, %c1) {
    %v = memref.load %narrow[%j, %i] : memref<4096x8xf32>
    memref.store %v, %narrowT[%i, %j] : memref<8x4096xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %row = memref.load %ids[%j] : memref<64xindex>
    %v = memref.load %table[%row, %i] : memref<64x64xf32>
    memref.store %v, %gathered[%i, %j] : memref<64x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %i2 = arith.muli %i, %c2 : index
    %v = memref.load %strided[%j, %i2] : memref<64x128xf32>
    memref.store %v, %out[%i, %j] : memref<64x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %both[%j, %i] : memref<64x64xf32>
    memref.store %v, %out[%j, %i] : memref<64x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %v = memref.load %both[%i, %j] : memref<64x64xf32>
    memref.store %v, %out[%i, %j] : memref<64x64xf32>
    scf.reduce
  }
  return
}
