// gpu-block-reductions computes what the nests it rewrites compute. The nests run on the
// CPU (mlir-runner) with and without the pass; the CTAs' phases then run one after
// another, which is what their barriers ensure on the GPU (the run drops the barriers and
// the shared-memory address space, which the CPU lowering does not know). The inputs are
// multiples of 1/4 below 2 (integers for the integer sum), so that every partial sum is
// exact and every order of combining gives the same bits.
// - @pool: a channels-last mean over 64 x 64 pixels of 2 x 16 channels, vectorized first
//   (8 outputs of 4 lanes, the f32 result's width): 4 outputs x 64 threads a CTA, 8
//   slices, 8 iterations a thread four at once, a tree of 64 -> 4 -> 1 values, and a
//   second nest over the slices, itself in CTAs;
// - @row_sums: 4 rows of 8192, read along the reduction: 1 output x 256 threads, 4 slices;
// - @max_and_count: the maximum of 1000 values from a bias and an integer sum of the same
//   rows (two carried values): 125 iterations a thread, the last group past the end;
// - @middle: sums over the middle axis of [37, 100, 5]: 185 outputs, a partial last CTA.
// REQUIRES: mlir-runner
// RUN: kiln-opt %s | %mlir_lower_cpu | %mlir_run | grep -v "Unranked Memref" > %t.whole
// RUN: kiln-opt %s --gpu-vectorize-pointwise-loops --gpu-block-reductions \
// RUN:   | sed -e '/gpu.barrier/d' -e 's/, #gpu.address_space<workgroup>//g' \
// RUN:   | %mlir_lower_cpu | %mlir_run | grep -v "Unranked Memref" > %t.blocks
// RUN: diff %t.whole %t.blocks
// RUN: FileCheck %s --input-file %t.blocks --check-prefix=VALUES
// RUN: kiln-opt %s --gpu-vectorize-pointwise-loops --gpu-block-reductions | FileCheck %s

// Every nest is rewritten (a CTA nest each, with its shared memory).
// CHECK-LABEL: func.func @pool
// CHECK: memref.alloc() : memref<8x8x4xf32>
// CHECK: memref.alloca() : memref<64x4x4xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func @row_sums
// CHECK: memref.alloca() : memref<256x1xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func @max_and_count
// CHECK: memref.alloca() : memref<128x2xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloca() : memref<128x2xi32, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func @middle
// CHECK: gpu.barrier

// Spot values: @fill makes element i (i mod 7 - 3) / 4, so row 0 of the sums is the sum
// of those over i < 8192: 1170 whole cycles of 7 (which sum to 0) and 2 more, -3/4 - 2/4.
// VALUES: {{\[}}-1.25,
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

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

func.func @max_and_count(%x: memref<4x8192xf32>, %bias: memref<2xf32>, %y: memref<2xf32>, %z: memref<2xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c1000 = arith.constant 1000 : index
  %seven = arith.constant 7 : i32
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %init = memref.load %bias[%i] : memref<2xf32>
    %s:2 = scf.for %k = %c0 to %c1000 step %c1 iter_args(%a = %init, %q = %seven) -> (f32, i32) {
      %e = memref.load %x[%i, %k] : memref<4x8192xf32>
      %t = arith.maximumf %a, %e : f32
      %four = arith.constant 4.0 : f32
      %scaled = arith.mulf %e, %four : f32
      %int = arith.fptosi %scaled : f32 to i32
      %u = arith.addi %q, %int : i32
      scf.yield %t, %u : f32, i32
    }
    memref.store %s#0, %y[%i] : memref<2xf32>
    memref.store %s#1, %z[%i] : memref<2xi32>
    scf.reduce
  }
  return
}

func.func @middle(%x: memref<37x100x5xf32>, %y: memref<37x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c37 = arith.constant 37 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c37, %c5) step (%c1, %c1) {
    %s = scf.for %k = %c0 to %c100 step %c1 iter_args(%a = %zero) -> (f32) {
      %e = memref.load %x[%i, %k, %j] : memref<37x100x5xf32>
      %t = arith.addf %a, %e : f32
      scf.yield %t : f32
    }
    memref.store %s, %y[%i, %j] : memref<37x5xf32>
    scf.reduce
  }
  return
}

// Element i of a flat buffer of `count`: (i mod 7 - 3) / 4.
func.func @fill(%flat: memref<?xf32>, %count: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %quarter = arith.constant 0.25 : f32
  scf.for %i = %c0 to %count step %c1 {
    %r = arith.remui %i, %c7 : index
    %k = arith.subi %r, %c3 : index
    %ki = arith.index_cast %k : index to i32
    %f = arith.sitofp %ki : i32 to f32
    %v = arith.mulf %f, %quarter : f32
    memref.store %v, %flat[%i] : memref<?xf32>
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
  %rd = memref.cast %rf : memref<32768xf32> to memref<?xf32>
  %c32768 = arith.constant 32768 : index
  call @fill(%rd, %c32768) : (memref<?xf32>, index) -> ()
  %sums = memref.alloc() : memref<4xf32>
  call @row_sums(%rows, %sums) : (memref<4x8192xf32>, memref<4xf32>) -> ()

  %bias = memref.alloc() : memref<2xf32>
  %low = arith.constant -5.0 : f32
  %high = arith.constant 9.0 : f32
  memref.store %low, %bias[%c0] : memref<2xf32>
  memref.store %high, %bias[%c1] : memref<2xf32>
  %maxima = memref.alloc() : memref<2xf32>
  %counts = memref.alloc() : memref<2xi32>
  call @max_and_count(%rows, %bias, %maxima, %counts)
      : (memref<4x8192xf32>, memref<2xf32>, memref<2xf32>, memref<2xi32>) -> ()

  %cube = memref.alloc() : memref<37x100x5xf32>
  %cf = memref.collapse_shape %cube [[0, 1, 2]] : memref<37x100x5xf32> into memref<18500xf32>
  %cd = memref.cast %cf : memref<18500xf32> to memref<?xf32>
  %c18500 = arith.constant 18500 : index
  call @fill(%cd, %c18500) : (memref<?xf32>, index) -> ()
  %middle = memref.alloc() : memref<37x5xf32>
  call @middle(%cube, %middle) : (memref<37x100x5xf32>, memref<37x5xf32>) -> ()

  %su = memref.cast %sums : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  %yu = memref.cast %y : memref<2x16xf32> to memref<*xf32>
  call @printMemrefF32(%yu) : (memref<*xf32>) -> ()
  %mu = memref.cast %maxima : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%mu) : (memref<*xf32>) -> ()
  %cu = memref.cast %counts : memref<2xi32> to memref<*xi32>
  call @printMemrefI32(%cu) : (memref<*xi32>) -> ()
  %du = memref.cast %middle : memref<37x5xf32> to memref<*xf32>
  call @printMemrefF32(%du) : (memref<*xf32>) -> ()
  return
}
