// gpu-split-reductions computes what the nests it splits compute: a global average pool
// (channels last, 2 x 64 x 64 x 16: 32 outputs of 4096 values, split into 64 slices of a
// row each) and a sum of rows (4 rows of 8192: 128 slices) run on the CPU (mlir-runner)
// with and without the pass. The inputs are multiples of 1/4 below 2, so that every
// partial sum is exact in f32 and the two orders of summation give the same bits.
// REQUIRES: mlir-runner
// RUN: kiln-opt %s | %mlir_lower_cpu \
// RUN:   | %mlir_run | grep -v "Unranked Memref" > %t.whole
// RUN: kiln-opt %s --gpu-split-reductions | %mlir_lower_cpu \
// RUN:   | %mlir_run | grep -v "Unranked Memref" > %t.split
// RUN: diff %t.whole %t.split
// RUN: FileCheck %s --input-file %t.split --check-prefix=VALUES
// RUN: kiln-opt %s --gpu-split-reductions | FileCheck %s

// Both nests are split.
// CHECK-LABEL: func.func @pool
// CHECK: memref.alloc() : memref<64x2x16xf32>
// CHECK-LABEL: func.func @row_sums
// CHECK: memref.alloc() : memref<128x4xf32>

// A spot value: @fill makes element i (i mod 7 - 3) / 4, so row 0 of the sums is the sum
// of those over i < 8192: 1170 whole cycles of 7 (which sum to 0) and 2 more, -3/4 - 2/4.
// VALUES: {{\[}}-1.25,
func.func private @printMemrefF32(memref<*xf32>)

func.func @pool(%x: memref<2x64x64x16xf16>, %y: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 4096.0 : f32
  scf.parallel (%b, %c) = (%c0, %c0) to (%c2, %c16) step (%c1, %c1) {
    %s = scf.for %h = %c0 to %c64 step %c1 iter_args(%a = %zero) -> (f32) {
      %t = scf.for %w = %c0 to %c64 step %c1 iter_args(%a2 = %a) -> (f32) {
        %v = memref.load %x[%b, %h, %w, %c] : memref<2x64x64x16xf16>
        %e = arith.extf %v : f16 to f32
        %n2 = arith.addf %a2, %e : f32
        scf.yield %n2 : f32
      }
      scf.yield %t : f32
    }
    %m = arith.divf %s, %n : f32
    memref.store %m, %y[%b, %c] : memref<2x16xf32>
    scf.reduce
  }
  return
}

func.func @row_sums(%x: memref<4x8192xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %s = scf.for %k = %c0 to %c8192 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %x[%i, %k] : memref<4x8192xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %y[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %quarter = arith.constant 0.25 : f32
  %x = memref.alloc() : memref<2x64x64x16xf16>
  %xf = memref.collapse_shape %x [[0, 1, 2, 3]] : memref<2x64x64x16xf16> into memref<131072xf16>
  %c131072 = arith.constant 131072 : index
  scf.for %i = %c0 to %c131072 step %c1 {
    %r = arith.remui %i, %c7 : index
    %k = arith.subi %r, %c3 : index
    %ki = arith.index_cast %k : index to i32
    %f = arith.sitofp %ki : i32 to f32
    %v = arith.mulf %f, %quarter : f32
    %h = arith.truncf %v : f32 to f16
    memref.store %h, %xf[%i] : memref<131072xf16>
  }
  %y = memref.alloc() : memref<2x16xf32>
  call @pool(%x, %y) : (memref<2x64x64x16xf16>, memref<2x16xf32>) -> ()

  %rows = memref.alloc() : memref<4x8192xf32>
  %rf = memref.collapse_shape %rows [[0, 1]] : memref<4x8192xf32> into memref<32768xf32>
  %c32768 = arith.constant 32768 : index
  scf.for %i = %c0 to %c32768 step %c1 {
    %r = arith.remui %i, %c7 : index
    %k = arith.subi %r, %c3 : index
    %ki = arith.index_cast %k : index to i32
    %f = arith.sitofp %ki : i32 to f32
    %v = arith.mulf %f, %quarter : f32
    memref.store %v, %rf[%i] : memref<32768xf32>
  }
  %sums = memref.alloc() : memref<4xf32>
  call @row_sums(%rows, %sums) : (memref<4x8192xf32>, memref<4xf32>) -> ()

  %su = memref.cast %sums : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  %yu = memref.cast %y : memref<2x16xf32> to memref<*xf32>
  call @printMemrefF32(%yu) : (memref<*xf32>) -> ()
  return
}
