// RUN: kiln-opt --gpu-fuse-loop-nests %s -split-input-file | FileCheck %s

// A convolution's three nests (padding, bias initialisation, accumulation) and its
// epilogue: the padding is recomputed at the accumulation's loads (its buffer goes away),
// the rest is one nest per output element.
// CHECK-LABEL: func.func @conv(
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel
// CHECK: %[[B:.*]] = memref.load %arg2
// CHECK: memref.store %[[B]], %[[ACC]]
// CHECK: scf.for
// CHECK: arith.cmpi
// CHECK: %[[X:.*]] = memref.load %arg0
// CHECK: arith.select %{{.*}}, %[[X]], %{{.*}} : f32
// CHECK: memref.store {{.*}}, %[[ACC]]
// CHECK: }
// CHECK: %[[A:.*]] = memref.load %[[ACC]]
// CHECK: arith.maximumf %[[A]]
// CHECK: memref.store {{.*}}, %arg3
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
func.func @conv(%x: memref<4x8xf32>, %w: memref<4x3xf32>, %b: memref<4xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant 0.0 : f32
  %padded = memref.alloc() : memref<4x10xf32>
  scf.parallel (%c, %i) = (%c0, %c0) to (%c4, %c10) step (%c1, %c1) {
    %j = arith.subi %i, %c1 : index
    %low = arith.cmpi sge, %j, %c0 : index
    %high = arith.cmpi slt, %j, %c8 : index
    %in = arith.andi %low, %high : i1
    %k = arith.select %in, %j, %c0 : index
    %v = memref.load %x[%c, %k] : memref<4x8xf32>
    %p = arith.select %in, %v, %zero : f32
    memref.store %p, %padded[%c, %i] : memref<4x10xf32>
    scf.reduce
  }
  %acc = memref.alloc() : memref<4x8xf32>
  scf.parallel (%c, %i) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %bias = memref.load %b[%c] : memref<4xf32>
    memref.store %bias, %acc[%c, %i] : memref<4x8xf32>
    scf.reduce
  }
  scf.parallel (%c, %i) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    scf.for %t = %c0 to %c3 step %c1 {
      %at = arith.addi %i, %t : index
      %v = memref.load %padded[%c, %at] : memref<4x10xf32>
      %wt = memref.load %w[%c, %t] : memref<4x3xf32>
      %a = memref.load %acc[%c, %i] : memref<4x8xf32>
      %m = arith.mulf %v, %wt : f32
      %s = arith.addf %a, %m : f32
      memref.store %s, %acc[%c, %i] : memref<4x8xf32>
    }
    scf.reduce
  }
  scf.parallel (%c, %i) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %a = memref.load %acc[%c, %i] : memref<4x8xf32>
    %r = arith.maximumf %a, %zero : f32
    memref.store %r, %y[%c, %i] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// -----

// A nest that reads another iteration's element of what the earlier one wrote is not
// fused (each launch finishes before the next starts; one fused nest would not).
// CHECK-LABEL: func.func @shifted(
// CHECK: scf.parallel
// CHECK: math.exp
// CHECK: scf.parallel
// CHECK: arith.addi
func.func @shifted(%x: memref<8xf32>, %y: memref<7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    %e = math.exp %v : f32
    memref.store %e, %t[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c7) step (%c1) {
    %n = arith.addi %i, %c1 : index
    %v = memref.load %t[%n] : memref<8xf32>
    memref.store %v, %y[%i] : memref<7xf32>
    scf.reduce
  }
  return
}

// -----

// A producer is not recomputed where what it reads has changed since: the second nest
// overwrites %x (in another order, so it does not fuse with the copy either), so the copy
// of %x must be taken first. (The second and third nests share no buffer: they fuse.)
// CHECK-LABEL: func.func @overwritten(
// CHECK: %[[T:.*]] = memref.alloc
// CHECK: scf.parallel
// CHECK: memref.store {{.*}}, %[[T]]
// CHECK: scf.parallel
// CHECK: memref.store {{.*}}, %arg0
// CHECK-NOT: scf.parallel
// CHECK: memref.load %[[T]]
func.func @overwritten(%x: memref<8xf32>, %y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %t[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %n = arith.subi %c8, %i : index
    %m = arith.subi %n, %c1 : index
    memref.store %one, %x[%m] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %n = arith.subi %c8, %i : index
    %m = arith.subi %n, %c1 : index
    %v = memref.load %t[%m] : memref<8xf32>
    memref.store %v, %y[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// Reducing rows and then normalising them: the normalisation becomes a loop inside the
// row's thread when there are enough rows (65536 here), and the two nests are one.
// CHECK-LABEL: func.func @rows(
// CHECK: scf.parallel (%[[R:.*]]) =
// CHECK: scf.for
// CHECK: scf.for %[[E:.*]] =
// CHECK: math.exp
// CHECK: memref.store {{.*}}, %arg1[%[[R]], %[[E]]]
// CHECK-NOT: scf.parallel
func.func @rows(%x: memref<65536x16xf32>, %y: memref<65536x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %rows = arith.constant 65536 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<65536x1xf32>
  scf.parallel (%r) = (%c0) to (%rows) step (%c1) {
    memref.store %zero, %sum[%r, %c0] : memref<65536x1xf32>
    scf.for %e = %c0 to %c16 step %c1 {
      %v = memref.load %x[%r, %e] : memref<65536x16xf32>
      %s = memref.load %sum[%r, %c0] : memref<65536x1xf32>
      %a = arith.addf %v, %s : f32
      memref.store %a, %sum[%r, %c0] : memref<65536x1xf32>
    }
    scf.reduce
  }
  scf.parallel (%r, %e) = (%c0, %c0) to (%rows, %c16) step (%c1, %c1) {
    %v = memref.load %x[%r, %e] : memref<65536x16xf32>
    %s = memref.load %sum[%r, %c0] : memref<65536x1xf32>
    %x2 = math.exp %v : f32
    %q = arith.divf %x2, %s : f32
    memref.store %q, %y[%r, %e] : memref<65536x16xf32>
    scf.reduce
  }
  return
}

// -----

// With fewer rows the normalisation keeps its own launch (more threads than rows).
// CHECK-LABEL: func.func @few_rows(
// CHECK: scf.parallel (%{{.*}}) =
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
func.func @few_rows(%x: memref<128x768xf32>, %y: memref<128x768xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c768 = arith.constant 768 : index
  %rows = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<128xf32>
  scf.parallel (%r) = (%c0) to (%rows) step (%c1) {
    memref.store %zero, %sum[%r] : memref<128xf32>
    scf.for %e = %c0 to %c768 step %c1 {
      %v = memref.load %x[%r, %e] : memref<128x768xf32>
      %s = memref.load %sum[%r] : memref<128xf32>
      %a = arith.addf %v, %s : f32
      memref.store %a, %sum[%r] : memref<128xf32>
    }
    scf.reduce
  }
  scf.parallel (%r, %e) = (%c0, %c0) to (%rows, %c768) step (%c1, %c1) {
    %v = memref.load %x[%r, %e] : memref<128x768xf32>
    %s = memref.load %sum[%r] : memref<128xf32>
    %q = arith.divf %v, %s : f32
    memref.store %q, %y[%r, %e] : memref<128x768xf32>
    scf.reduce
  }
  return
}

// -----

// Copies become nests and fuse like the rest (loops of one iteration do not count).
// CHECK-LABEL: func.func @copy(
// CHECK-NOT: memref.copy
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
func.func @copy(%x: memref<4x1xf32>, %y: memref<4x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<4x1xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i, %c0] : memref<4x1xf32>
    %m = math.exp %v : f32
    memref.store %m, %t[%i, %c0] : memref<4x1xf32>
    scf.reduce
  }
  memref.copy %t, %y : memref<4x1xf32> to memref<4x1xf32>
  return
}

// -----

// A quantization (division, rounding, clamp, conversion), then a transpose: the
// transpose reads each element of the quantized buffer once, so the quantization is
// recomputed there whatever its arithmetic; one nest, no buffer. A reader that reads each
// element twice (a broadcast) keeps the buffer: the work would be done twice.
// CHECK-LABEL: func.func @quantize_transpose(
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel
// CHECK: memref.load %arg0
// CHECK: math.round
// CHECK: arith.fptosi
// CHECK: memref.store {{.*}}, %arg1
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK-LABEL: func.func @quantize_broadcast(
// CHECK: memref.alloc() : memref<2x3xi8>
// CHECK: scf.parallel
// CHECK: scf.parallel
func.func @quantize_transpose(%x: memref<2x3x4xf32>, %y: memref<2x4x3xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %scale = arith.constant 0.02 : f32
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %t = memref.alloc() : memref<2x3x4xi8>
  scf.parallel (%a, %b, %c) = (%c0, %c0, %c0) to (%c2, %c3, %c4) step (%c1, %c1, %c1) {
    %v = memref.load %x[%a, %b, %c] : memref<2x3x4xf32>
    %d = arith.divf %v, %scale : f32
    %r = math.round %d : f32
    %m = arith.maximumf %r, %lo : f32
    %n = arith.minimumf %m, %hi : f32
    %q = arith.fptosi %n : f32 to i8
    memref.store %q, %t[%a, %b, %c] : memref<2x3x4xi8>
    scf.reduce
  }
  scf.parallel (%a, %b, %c) = (%c0, %c0, %c0) to (%c2, %c4, %c3) step (%c1, %c1, %c1) {
    %q = memref.load %t[%a, %c, %b] : memref<2x3x4xi8>
    memref.store %q, %y[%a, %b, %c] : memref<2x4x3xi8>
    scf.reduce
  }
  return
}
func.func @quantize_broadcast(%x: memref<2x3xf32>, %y: memref<2x2x3xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %scale = arith.constant 0.02 : f32
  %t = memref.alloc() : memref<2x3xi8>
  scf.parallel (%a, %b) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1) {
    %v = memref.load %x[%a, %b] : memref<2x3xf32>
    %d = arith.divf %v, %scale : f32
    %r = math.round %d : f32
    %q = arith.fptosi %r : f32 to i8
    memref.store %q, %t[%a, %b] : memref<2x3xi8>
    scf.reduce
  }
  scf.parallel (%i, %a, %b) = (%c0, %c0, %c0) to (%c2, %c2, %c3) step (%c1, %c1, %c1) {
    %q = memref.load %t[%a, %b] : memref<2x3xi8>
    memref.store %q, %y[%i, %a, %b] : memref<2x2x3xi8>
    scf.reduce
  }
  return
}
