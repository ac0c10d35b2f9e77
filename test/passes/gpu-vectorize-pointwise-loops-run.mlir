// gpu-vectorize-pointwise-loops computes what the scalar nests compute: both forms of
// four nests run on the CPU (mlir-runner) and print the same values. The nests: the
// squeeze-excite gate (a broadcast operand along three dimensions, f16 in and out, an exp),
// ViT's token concatenation (the class token or a patch, chosen by an scf.index_switch on
// the position, plus the position embedding), an f32 row scale (4 lanes, a scalar
// operand splat, a select) and a concatenation along the innermost axis (the operand
// chosen by comparing the variable with 8, the second read at the variable minus 8).
// REQUIRES: mlir-runner
// RUN: kiln-opt %s | %mlir_lower_cpu \
// RUN:   | %mlir_run | grep -v "Unranked Memref" > %t.scalar
// RUN: kiln-opt %s --gpu-vectorize-pointwise-loops | %mlir_lower_cpu \
// RUN:   | %mlir_run | grep -v "Unranked Memref" > %t.vector
// RUN: diff %t.scalar %t.vector
// RUN: FileCheck %s --input-file %t.vector --check-prefix=VALUES
// RUN: kiln-opt %s --gpu-vectorize-pointwise-loops | FileCheck %s

// All three nests are vectorized, 4 lanes each (each stores f32 values).
// CHECK-LABEL: func.func @gate
// CHECK: step (%c1, %c1, %c1, %c4)
// CHECK-LABEL: func.func @tokens
// CHECK: step (%c1, %c1, %c4)
// CHECK: scf.index_switch {{.*}} -> vector<4xf16>
// CHECK-LABEL: func.func @row_scale
// CHECK: step (%c1, %c4{{.*}})
// CHECK-LABEL: func.func @concat_inner
// CHECK: step (%c1, %c4)
// CHECK: scf.index_switch {{.*}} -> vector<4xf16>

// A spot value: @fill makes element i (i mod 7 - 3) x its scale, so the gate's first
// element is exp((-3 / 8) x (-3 / 4)) = exp(0.28125).
// VALUES: {{\[}}{{\[}}{{\[}}{{\[}}1.32478,
func.func private @printMemrefF32(memref<*xf32>)

func.func @gate(%g: memref<2x1x1x16xf16>, %x: memref<2x3x3x16xf16>, %y: memref<2x3x3x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%b, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c3, %c16) step (%c1, %c1, %c1, %c1) {
    %0 = memref.load %g[%b, %c0, %c0, %c] : memref<2x1x1x16xf16>
    %1 = memref.load %x[%b, %h, %w, %c] : memref<2x3x3x16xf16>
    %2 = arith.extf %0 : f16 to f32
    %3 = arith.extf %1 : f16 to f32
    %4 = arith.mulf %2, %3 : f32
    %5 = math.exp %4 : f32
    memref.store %5, %y[%b, %h, %w, %c] : memref<2x3x3x16xf32>
    scf.reduce
  }
  return
}

func.func @tokens(%cls: memref<2x1x16xf16>, %x: memref<2x4x16xf16>, %pos: memref<1x5x16xf16>, %y: memref<2x5x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%b, %t, %d) = (%c0, %c0, %c0) to (%c2, %c5, %c16) step (%c1, %c1, %c1) {
    %0 = memref.load %pos[%c0, %t, %d] : memref<1x5x16xf16>
    %1 = arith.cmpi uge, %t, %c1 : index
    %2 = arith.select %1, %c1, %c0 : index
    %3 = scf.index_switch %2 -> f16
    case 1 {
      %7 = arith.subi %t, %c1 : index
      %8 = memref.load %x[%b, %7, %d] : memref<2x4x16xf16>
      scf.yield %8 : f16
    }
    default {
      %8 = memref.load %cls[%b, %c0, %d] : memref<2x1x16xf16>
      scf.yield %8 : f16
    }
    %4 = arith.extf %3 : f16 to f32
    %5 = arith.extf %0 : f16 to f32
    %6 = arith.addf %4, %5 : f32
    memref.store %6, %y[%b, %t, %d] : memref<2x5x16xf32>
    scf.reduce
  }
  return
}

func.func @row_scale(%x: memref<4x8xf32>, %s: memref<4xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %0 = memref.load %s[%i] : memref<4xf32>
    %1 = memref.load %x[%i, %j] : memref<4x8xf32>
    %2 = arith.mulf %1, %0 : f32
    %3 = arith.cmpf ogt, %2, %zero : f32
    %4 = arith.select %3, %2, %zero : f32
    memref.store %4, %y[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// Concat([a, b], axis = 1) of two 3 x 8 f16 matrices, stored as f32 (4 lanes).
func.func @concat_inner(%a: memref<3x8xf16>, %b: memref<3x8xf16>, %y: memref<3x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c16) step (%c1, %c1) {
    %second = arith.cmpi uge, %j, %c8 : index
    %which = arith.select %second, %c1, %c0 : index
    %v = scf.index_switch %which -> f16
    case 1 {
      %k = arith.subi %j, %c8 : index
      %0 = memref.load %b[%i, %k] : memref<3x8xf16>
      scf.yield %0 : f16
    }
    default {
      %0 = memref.load %a[%i, %j] : memref<3x8xf16>
      scf.yield %0 : f16
    }
    %w = arith.extf %v : f16 to f32
    memref.store %w, %y[%i, %j] : memref<3x16xf32>
    scf.reduce
  }
  return
}

// Fills a buffer with (i mod 7 - 3) * scale, i its element's offset.
func.func @fill(%buffer: memref<?xf16>, %scale: f16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c3 = arith.constant 3 : index
  %n = memref.dim %buffer, %c0 : memref<?xf16>
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.remui %i, %c7 : index
    %k = arith.subi %r, %c3 : index
    %ki = arith.index_cast %k : index to i32
    %f = arith.sitofp %ki : i32 to f16
    %v = arith.mulf %f, %scale : f16
    memref.store %v, %buffer[%i] : memref<?xf16>
  }
  return
}

func.func @main() {
  %eighth = arith.constant 0.125 : f16
  %quarter = arith.constant 0.25 : f16
  %g = memref.alloc() {alignment = 64 : i64} : memref<2x1x1x16xf16>
  %x = memref.alloc() {alignment = 64 : i64} : memref<2x3x3x16xf16>
  %y = memref.alloc() {alignment = 64 : i64} : memref<2x3x3x16xf32>
  %gf = memref.collapse_shape %g [[0, 1, 2, 3]] : memref<2x1x1x16xf16> into memref<32xf16>
  %gd = memref.cast %gf : memref<32xf16> to memref<?xf16>
  call @fill(%gd, %eighth) : (memref<?xf16>, f16) -> ()
  %xf = memref.collapse_shape %x [[0, 1, 2, 3]] : memref<2x3x3x16xf16> into memref<288xf16>
  %xd = memref.cast %xf : memref<288xf16> to memref<?xf16>
  call @fill(%xd, %quarter) : (memref<?xf16>, f16) -> ()
  call @gate(%g, %x, %y) : (memref<2x1x1x16xf16>, memref<2x3x3x16xf16>, memref<2x3x3x16xf32>) -> ()
  %yu = memref.cast %y : memref<2x3x3x16xf32> to memref<*xf32>
  call @printMemrefF32(%yu) : (memref<*xf32>) -> ()

  %cls = memref.alloc() {alignment = 64 : i64} : memref<2x1x16xf16>
  %p = memref.alloc() {alignment = 64 : i64} : memref<2x4x16xf16>
  %pos = memref.alloc() {alignment = 64 : i64} : memref<1x5x16xf16>
  %t = memref.alloc() {alignment = 64 : i64} : memref<2x5x16xf32>
  %clsf = memref.collapse_shape %cls [[0, 1, 2]] : memref<2x1x16xf16> into memref<32xf16>
  %clsd = memref.cast %clsf : memref<32xf16> to memref<?xf16>
  call @fill(%clsd, %eighth) : (memref<?xf16>, f16) -> ()
  %pf = memref.collapse_shape %p [[0, 1, 2]] : memref<2x4x16xf16> into memref<128xf16>
  %pd = memref.cast %pf : memref<128xf16> to memref<?xf16>
  call @fill(%pd, %quarter) : (memref<?xf16>, f16) -> ()
  %posf = memref.collapse_shape %pos [[0, 1, 2]] : memref<1x5x16xf16> into memref<80xf16>
  %posd = memref.cast %posf : memref<80xf16> to memref<?xf16>
  call @fill(%posd, %eighth) : (memref<?xf16>, f16) -> ()
  call @tokens(%cls, %p, %pos, %t) : (memref<2x1x16xf16>, memref<2x4x16xf16>, memref<1x5x16xf16>, memref<2x5x16xf32>) -> ()
  %tu = memref.cast %t : memref<2x5x16xf32> to memref<*xf32>
  call @printMemrefF32(%tu) : (memref<*xf32>) -> ()

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %rx = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  %rs = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %ry = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %half = arith.constant -0.5 : f32
    %si = arith.addf %fi, %half : f32
    memref.store %si, %rs[%i] : memref<4xf32>
    scf.for %j = %c0 to %c8 step %c1 {
      %jj = arith.index_cast %j : index to i32
      %fj = arith.sitofp %jj : i32 to f32
      %three = arith.constant 3.0 : f32
      %v = arith.subf %fj, %three : f32
      memref.store %v, %rx[%i, %j] : memref<4x8xf32>
    }
  }
  call @row_scale(%rx, %rs, %ry) : (memref<4x8xf32>, memref<4xf32>, memref<4x8xf32>) -> ()
  %ru = memref.cast %ry : memref<4x8xf32> to memref<*xf32>
  call @printMemrefF32(%ru) : (memref<*xf32>) -> ()

  %ca = memref.alloc() {alignment = 64 : i64} : memref<3x8xf16>
  %cb = memref.alloc() {alignment = 64 : i64} : memref<3x8xf16>
  %cy = memref.alloc() {alignment = 64 : i64} : memref<3x16xf32>
  %caf = memref.collapse_shape %ca [[0, 1]] : memref<3x8xf16> into memref<24xf16>
  %cad = memref.cast %caf : memref<24xf16> to memref<?xf16>
  call @fill(%cad, %eighth) : (memref<?xf16>, f16) -> ()
  %cbf = memref.collapse_shape %cb [[0, 1]] : memref<3x8xf16> into memref<24xf16>
  %cbd = memref.cast %cbf : memref<24xf16> to memref<?xf16>
  call @fill(%cbd, %quarter) : (memref<?xf16>, f16) -> ()
  call @concat_inner(%ca, %cb, %cy) : (memref<3x8xf16>, memref<3x8xf16>, memref<3x16xf32>) -> ()
  %cu = memref.cast %cy : memref<3x16xf32> to memref<*xf32>
  call @printMemrefF32(%cu) : (memref<*xf32>) -> ()
  return
}
