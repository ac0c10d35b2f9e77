// RUN: kiln-opt %s --split-input-file --gpu-serialize-invariant-dims | FileCheck %s
// RUN: kiln-opt %s --split-input-file --gpu-serialize-invariant-dims --gpu-map-loops \
// RUN:   | FileCheck --check-prefix=MAPPED %s

// A nearest 2x Resize of [32, 16, 128, 128]: the source row and column (f64 arithmetic
// on h and on w) are the same for every image and channel. Both the batch and the
// channel leave all of it shared; the batch, the longer, runs 16 images a thread: the
// nest keeps 32 / 16 = 2 of them, and the thread computes the indices once, then loads
// and stores at n = 16 n' + t for t in [0, 16).
// CHECK-LABEL: func.func @nearest
// CHECK: %[[C16:c16_[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: scf.parallel (%[[N:.*]], %[[C:.*]], %[[H:.*]], %[[W:.*]]) = ({{.*}}) to (%[[C2]], %c16, %c256, %c256)
// CHECK:   %[[ROW:.*]] = arith.fptosi {{.*}} : f64 to i64
// CHECK:   %[[COL:.*]] = arith.fptosi {{.*}} : f64 to i64
// CHECK:   scf.for %[[T:.*]] = %{{.*}} to %[[C16]] step
// CHECK-NEXT: %[[NB:.*]] = arith.muli %[[N]], %[[C16]]
// CHECK-NEXT: %[[NT:.*]] = arith.addi %[[NB]], %[[T]]
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%[[NT]], %[[C]], %{{.*}}, %{{.*}}]
// CHECK-NEXT: memref.store %[[V]], %arg1[%[[NT]], %[[C]], %[[H]], %[[W]]]
// CHECK-NOT: arith.fptosi
// MAPPED-LABEL: func.func @nearest
// MAPPED: gpu.launch
// MAPPED: scf.for
// MAPPED: memref.load
// MAPPED: memref.store
func.func @nearest(%in: memref<32x16x128x128xf16>, %out: memref<32x16x256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c127 = arith.constant 127 : index
  %c256 = arith.constant 256 : index
  %half = arith.constant 0.5 : f64
  %two = arith.constant 2.0 : f64
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c32, %c16, %c256, %c256) step (%c1, %c1, %c1, %c1) {
    %hi = arith.index_cast %h : index to i64
    %hf = arith.sitofp %hi : i64 to f64
    %h1 = arith.addf %hf, %half : f64
    %h2 = arith.divf %h1, %two : f64
    %h3 = arith.subf %h2, %half : f64
    %h4 = arith.subf %h3, %half : f64
    %h5 = math.ceil %h4 : f64
    %h6 = arith.fptosi %h5 : f64 to i64
    %h7 = arith.index_cast %h6 : i64 to index
    %h8 = arith.maxsi %h7, %c0 : index
    %row = arith.minsi %h8, %c127 : index
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %w1 = arith.addf %wf, %half : f64
    %w2 = arith.divf %w1, %two : f64
    %w3 = arith.subf %w2, %half : f64
    %w4 = arith.subf %w3, %half : f64
    %w5 = math.ceil %w4 : f64
    %w6 = arith.fptosi %w5 : f64 to i64
    %w7 = arith.index_cast %w6 : i64 to index
    %w8 = arith.maxsi %w7, %c0 : index
    %col = arith.minsi %w8, %c127 : index
    %v = memref.load %in[%n, %c, %row, %col] : memref<32x16x128x128xf16>
    memref.store %v, %out[%n, %c, %h, %w] : memref<32x16x256x256xf16>
    scf.reduce
  }
  return
}

// -----

// A GridSample-like nest of one image: the channel is the only variable the position
// arithmetic does not read, and its 16 iterations all run in the thread (the nest loses
// the dimension). The grid's reads move before the loop too (the nest writes only %out).
// CHECK-LABEL: func.func @one_image
// CHECK: %[[C16:c16_[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: scf.parallel (%[[N:.*]], %[[H:.*]], %[[W:.*]]) = ({{.*}}) to (%c1, %c512, %c512)
// CHECK:   memref.load %arg1[%[[N]], %[[H]], %[[W]], %c0]
// CHECK:   scf.for %[[C:.*]] = %{{.*}} to %[[C16]] step
// CHECK-NEXT: memref.load %arg0[%[[N]], %[[C]]
// CHECK-NEXT: memref.store {{.*}}, %arg2[%[[N]], %[[C]], %[[H]], %[[W]]]
func.func @one_image(%in: memref<1x16x128x128xf32>, %grid: memref<1x512x512x2xf32>, %out: memref<1x16x512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c127 = arith.constant 127 : index
  %c512 = arith.constant 512 : index
  %half = arith.constant 0.5 : f32
  %len = arith.constant 128.0 : f32
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c1, %c16, %c512, %c512) step (%c1, %c1, %c1, %c1) {
    %gx = memref.load %grid[%n, %h, %w, %c0] : memref<1x512x512x2xf32>
    %gy = memref.load %grid[%n, %h, %w, %c1] : memref<1x512x512x2xf32>
    %x1 = arith.mulf %gx, %len : f32
    %x2 = arith.subf %x1, %half : f32
    %x3 = math.floor %x2 : f32
    %x4 = arith.fptosi %x3 : f32 to i32
    %x5 = arith.index_cast %x4 : i32 to index
    %x6 = arith.maxsi %x5, %c0 : index
    %xi = arith.minsi %x6, %c127 : index
    %y1 = arith.mulf %gy, %len : f32
    %y2 = arith.subf %y1, %half : f32
    %y3 = math.floor %y2 : f32
    %y4 = arith.fptosi %y3 : f32 to i32
    %y5 = arith.index_cast %y4 : i32 to index
    %y6 = arith.maxsi %y5, %c0 : index
    %yi = arith.minsi %y6, %c127 : index
    %v = memref.load %in[%n, %c, %yi, %xi] : memref<1x16x128x128xf32>
    memref.store %v, %out[%n, %c, %h, %w] : memref<1x16x512x512xf32>
    scf.reduce
  }
  return
}

// -----

// A broadcast operand's read is all a row shares: too little to give up parallelism for.
// CHECK-LABEL: func.func @bias
// CHECK-NOT: scf.for
func.func @bias(%x: memref<256x64x128x128xf16>, %b: memref<64xf16>, %y: memref<256x64x128x128xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c256, %c64, %c128, %c128) step (%c1, %c1, %c1, %c1) {
    %bias = memref.load %b[%c] : memref<64xf16>
    %v = memref.load %x[%n, %c, %h, %w] : memref<256x64x128x128xf16>
    %s = arith.addf %v, %bias : f16
    memref.store %s, %y[%n, %c, %h, %w] : memref<256x64x128x128xf16>
    scf.reduce
  }
  return
}

// -----

// Shared work, but a nest of 16 x 16 x 32 x 32 = 2^18 iterations: serializing even 2
// images or channels would leave fewer threads than fill the GPU several times.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.for
func.func @small(%in: memref<16x16x16x16xf16>, %out: memref<16x16x32x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c15 = arith.constant 15 : index
  %c32 = arith.constant 32 : index
  %half = arith.constant 0.5 : f64
  %two = arith.constant 2.0 : f64
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c16, %c16, %c32, %c32) step (%c1, %c1, %c1, %c1) {
    %hi = arith.index_cast %h : index to i64
    %hf = arith.sitofp %hi : i64 to f64
    %h1 = arith.addf %hf, %half : f64
    %h2 = arith.divf %h1, %two : f64
    %h3 = arith.subf %h2, %half : f64
    %h4 = arith.subf %h3, %half : f64
    %h5 = math.ceil %h4 : f64
    %h6 = arith.fptosi %h5 : f64 to i64
    %h7 = arith.index_cast %h6 : i64 to index
    %h8 = arith.maxsi %h7, %c0 : index
    %row = arith.minsi %h8, %c15 : index
    %wi = arith.index_cast %w : index to i64
    %wf = arith.sitofp %wi : i64 to f64
    %w1 = arith.addf %wf, %half : f64
    %w2 = arith.divf %w1, %two : f64
    %w3 = arith.subf %w2, %half : f64
    %w4 = arith.subf %w3, %half : f64
    %w5 = math.ceil %w4 : f64
    %w6 = arith.fptosi %w5 : f64 to i64
    %w7 = arith.index_cast %w6 : i64 to index
    %w8 = arith.maxsi %w7, %c0 : index
    %col = arith.minsi %w8, %c15 : index
    %v = memref.load %in[%n, %c, %row, %col] : memref<16x16x16x16xf16>
    memref.store %v, %out[%n, %c, %h, %w] : memref<16x16x32x32xf16>
    scf.reduce
  }
  return
}
