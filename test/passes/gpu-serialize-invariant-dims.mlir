// RUN: kiln-opt %s --split-input-file --gpu-serialize-invariant-dims | FileCheck %s
// RUN: kiln-opt %s --split-input-file --gpu-serialize-invariant-dims --gpu-map-loops \
// RUN:   | FileCheck --check-prefix=MAPPED %s

// A nearest 2x Resize of [32, 16, 128, 128]: the source row and column (f64 arithmetic
// on h and on w) are the same for every image and channel. Both the batch and the
// channel leave all of it shared; the batch, the longer, runs 16 images a thread: the
// nest keeps 32 / 16 = 2 of them, and the thread computes the indices once, then loads
// and stores at n = 16 n' + t for t in [0, 16): four images a turn (a load of one f16
// each), their four loads before their four stores.
// CHECK-LABEL: func.func @nearest
// CHECK: %[[C16:c16_[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: scf.parallel (%[[N:.*]], %[[C:.*]], %[[H:.*]], %[[W:.*]]) = ({{.*}}) to (%[[C2]], %c16, %c256, %c256)
// CHECK:   %[[ROW:.*]] = arith.fptosi {{.*}} : f64 to i64
// CHECK:   %[[COL:.*]] = arith.fptosi {{.*}} : f64 to i64
// CHECK:   %[[C4:.*]] = arith.constant 4 : index
// CHECK:   scf.for %[[T:.*]] = %{{.*}} to %[[C16]] step %[[C4]]
// CHECK-NEXT: %[[NB:.*]] = arith.muli %[[N]], %[[C16]]
// CHECK-NEXT: %[[NT:.*]] = arith.addi %[[NB]], %[[T]]
// CHECK-NEXT: %[[V0:.*]] = memref.load %arg0[%[[NT]], %[[C]], %{{.*}}, %{{.*}}]
// CHECK-NEXT: %[[NT1:.*]] = arith.addi %[[NT]], %c1
// CHECK-NEXT: %[[V1:.*]] = memref.load %arg0[%[[NT1]], %[[C]], %{{.*}}, %{{.*}}]
// CHECK-NEXT: %[[NT2:.*]] = arith.addi %[[NT]], %c2
// CHECK-NEXT: %[[V2:.*]] = memref.load %arg0[%[[NT2]], %[[C]], %{{.*}}, %{{.*}}]
// CHECK-NEXT: %[[NT3:.*]] = arith.addi %[[NT]], %c3
// CHECK-NEXT: %[[V3:.*]] = memref.load %arg0[%[[NT3]], %[[C]], %{{.*}}, %{{.*}}]
// CHECK-NEXT: memref.store %[[V0]], %arg1[%[[NT]], %[[C]], %[[H]], %[[W]]]
// CHECK-NEXT: memref.store %[[V1]], %arg1[%[[NT1]], %[[C]], %[[H]], %[[W]]]
// CHECK-NEXT: memref.store %[[V2]], %arg1[%[[NT2]], %[[C]], %[[H]], %[[W]]]
// CHECK-NEXT: memref.store %[[V3]], %arg1[%[[NT3]], %[[C]], %[[H]], %[[W]]]
// CHECK-NEXT: }
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
// CHECK:   scf.for %[[C:.*]] = %{{.*}} to %[[C16]] step %c4
// CHECK-NEXT: memref.load %arg0[%[[N]], %[[C]]
// CHECK-COUNT-3: memref.load %arg0[%[[N]]
// CHECK-NEXT: memref.store {{.*}}, %arg2[%[[N]], %[[C]], %[[H]], %[[W]]]
// CHECK-COUNT-3: memref.store {{.*}}, %arg2[%[[N]]
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

// -----

// The loop's iterations read what the nest writes (a running buffer updated in place):
// a turn's loads cannot move before its stores, so the loop runs one iteration a turn.
// CHECK-LABEL: func.func @reads_written
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK-NEXT: memref.load %arg2[
// CHECK-NEXT: memref.load %arg0[
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
func.func @reads_written(%in: memref<1x16x128x128xf32>, %grid: memref<1x512x512x2xf32>, %acc: memref<1x16x512x512xf32>) {
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
    %old = memref.load %acc[%n, %c, %h, %w] : memref<1x16x512x512xf32>
    %v = memref.load %in[%n, %c, %yi, %xi] : memref<1x16x128x128xf32>
    %sum = arith.addf %old, %v : f32
    memref.store %sum, %acc[%n, %c, %h, %w] : memref<1x16x512x512xf32>
    scf.reduce
  }
  return
}

// -----

// Loads of 8 f32 lanes (8 registers each), two an iteration, 8 images a thread: two
// iterations a turn keep the loaded values at 32 registers.
// CHECK-LABEL: func.func @wide_loads
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8{{.*}} step %c2
// CHECK-COUNT-4: vector.load
// CHECK-COUNT-2: vector.store
// CHECK-NEXT: }
func.func @wide_loads(%a: memref<64x16x128x128xf32>, %b: memref<64x16x128x128xf32>, %grid: memref<128x128xindex>, %out: memref<64x16x128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c127 = arith.constant 127 : index
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c64, %c16, %c128, %c128) step (%c1, %c1, %c1, %c8) {
    %g = memref.load %grid[%h, %w] : memref<128x128xindex>
    %g1 = arith.muli %g, %c8 : index
    %g2 = arith.remsi %g1, %c128 : index
    %g3 = arith.divsi %g, %c8 : index
    %g4 = arith.remsi %g3, %c128 : index
    %g5 = arith.addi %g4, %c1 : index
    %g6 = arith.minsi %g5, %c127 : index
    %g7 = arith.muli %g6, %c8 : index
    %g8 = arith.remsi %g7, %c128 : index
    %g9 = arith.maxsi %g8, %c0 : index
    %g10 = arith.minsi %g9, %c127 : index
    %g11 = arith.subi %g10, %g10 : index
    %g12 = arith.addi %g11, %g2 : index
    %g13 = arith.minsi %g12, %c127 : index
    %g14 = arith.maxsi %g13, %c0 : index
    %g15 = arith.divsi %g14, %c8 : index
    %g16 = arith.muli %g15, %c8 : index
    %g17 = arith.minsi %g16, %c127 : index
    %x = vector.load %a[%n, %c, %g4, %g16] : memref<64x16x128x128xf32>, vector<8xf32>
    %y = vector.load %b[%n, %c, %g4, %g16] : memref<64x16x128x128xf32>, vector<8xf32>
    %s = arith.addf %x, %y : vector<8xf32>
    vector.store %s, %out[%n, %c, %h, %w] : memref<64x16x128x128xf32>, vector<8xf32>
    scf.reduce
  }
  return
}
