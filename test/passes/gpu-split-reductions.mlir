// RUN: kiln-opt %s --split-input-file --gpu-split-reductions | FileCheck %s

// EfficientNet-B0's first squeeze-excite pool at batch 256 (channels last): 256 x 32
// outputs, each the mean of 112 x 112 values. 8192 outputs are split into 56 slices of
// the rows (458752 iterations, 2 x 112 values each; the vectorizer then gives a thread 4
// or 8 of them) summing into an f32 workspace [56, 256, 32]; a second nest adds each
// output's 56 partial sums, then divides and rounds as before.
// CHECK-LABEL: func.func @pool
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 1.254400e+04 : f32
// CHECK: %[[PARTS:.*]] = memref.alloc() : memref<56x256x32xf32>
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.parallel (%[[S:.*]], %[[B:.*]], %[[C:.*]]) = ({{.*}}) to (%c56, %c256, %c32)
// CHECK:   %[[FIRST:.*]] = arith.muli %[[S]], %[[C2]] : index
// CHECK:   %[[END:.*]] = arith.addi %[[FIRST]], %[[C2]] : index
// CHECK:   %[[SUM:.*]] = scf.for %[[H:.*]] = %[[FIRST]] to %[[END]] {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32) {
// CHECK:     scf.for
// CHECK:       memref.load %arg0[%[[B]], %[[H]], %{{.*}}, %[[C]]] : memref<256x112x112x32xf16>
// CHECK:   memref.store %[[SUM]], %[[PARTS]][%[[S]], %[[B]], %[[C]]] : memref<56x256x32xf32>
// CHECK: scf.parallel (%[[B2:.*]], %[[C2:.*]]) = ({{.*}}) to (%c256, %c32)
// CHECK:   %[[TOTAL:.*]] = scf.for %[[P:.*]] = {{.*}} to %c56{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:     %[[PART:.*]] = memref.load %[[PARTS]][%[[P]], %[[B2]], %[[C2]]] : memref<56x256x32xf32>
// CHECK:     arith.addf %[[ACC]], %[[PART]] : f32
// CHECK:   %[[MEAN:.*]] = arith.divf %[[TOTAL]], %[[COUNT]] : f32
// CHECK:   arith.truncf %[[MEAN]] : f32 to f16
// CHECK:   memref.store {{.*}}, %arg1[%[[B2]], %[[C2]], %c0, %c0] : memref<256x32x1x1xf16>
// CHECK-NOT: scf.parallel
func.func @pool(%x: memref<256x112x112x32xf16>, %y: memref<256x32x1x1xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c112 = arith.constant 112 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 12544.0 : f32
  scf.parallel (%b, %c) = (%c0, %c0) to (%c256, %c32) step (%c1, %c1) {
    %s = scf.for %h = %c0 to %c112 step %c1 iter_args(%a = %zero) -> (f32) {
      %t = scf.for %w = %c0 to %c112 step %c1 iter_args(%a2 = %a) -> (f32) {
        %v = memref.load %x[%b, %h, %w, %c] : memref<256x112x112x32xf16>
        %e = arith.extf %v : f16 to f32
        %n2 = arith.addf %a2, %e : f32
        scf.yield %n2 : f32
      }
      scf.yield %t : f32
    }
    %m = arith.divf %s, %n : f32
    %r = arith.truncf %m : f32 to f16
    memref.store %r, %y[%b, %c, %c0, %c0] : memref<256x32x1x1xf16>
    scf.reduce
  }
  return
}

// -----

// Left as they are: a nest with enough outputs (524288 already); a sum that does
// not start at 0.0 (a bias folded into it would be added once a slice); a maximum (no
// sum); a loop of run-time bounds; two sums in one body; a store in the loop; a sum of
// 96 values (every split would leave fewer than 64 a slice).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @left_alone(%x: memref<524288x64xf32>, %y: memref<524288xf32>, %u: memref<16x4096xf32>, %v: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %c4096 = arith.constant 4096 : index
  %c524288 = arith.constant 524288 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c524288) step (%c1) {
    %s = scf.for %k = %c0 to %c64 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %x[%i, %k] : memref<524288x64xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %y[%i] : memref<524288xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = scf.for %k = %c0 to %c4096 step %c1 iter_args(%a = %one) -> (f32) {
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
      %t = arith.maximumf %a, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %v[%i] : memref<16xf32>
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
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    %s2 = scf.for %k = %c0 to %c4096 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %u[%i, %k] : memref<16x4096xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    %both = arith.addf %s, %s2 : f32
    memref.store %both, %v[%i] : memref<16xf32>
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
    %s = scf.for %k = %c0 to %c96 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %u[%i, %k] : memref<16x4096xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %v[%i] : memref<16xf32>
    scf.reduce
  }
  return
}
