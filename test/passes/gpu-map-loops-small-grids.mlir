// RUN: kiln-opt %s --split-input-file --gpu-map-loops | FileCheck %s
// RUN: kiln-opt %s --split-input-file --gpu-map-loops=min-blocks=1 | FileCheck %s --check-prefix=ONE

// A nest of few iterations: in blocks of 256, 8192 threads (ResNet-50's final pool at
// batch 32, 8 channels a thread) would be 32 blocks for 132 SMs; blocks halve, down to a
// warp, until there are 264 (min-blocks): 256 blocks of 32. With min-blocks=1, 32 blocks
// of 256.
// CHECK-LABEL: func.func @few_threads
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C256]], {{.*}}) threads({{.*}}) in (%{{.*}} = %[[C32]],
// ONE-LABEL: func.func @few_threads
// ONE-DAG: %[[C32:.*]] = arith.constant 32 : index
// ONE-DAG: %[[C256:.*]] = arith.constant 256 : index
// ONE: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C32]], {{.*}}) threads({{.*}}) in (%{{.*}} = %[[C256]],
func.func @few_threads(%in: memref<8192xf32>, %out: memref<8192xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8192 = arith.constant 8192 : index
  scf.parallel (%i) = (%c0) to (%c8192) step (%c1) {
    %x = memref.load %in[%i] : memref<8192xf32>
    memref.store %x, %out[%i] : memref<8192xf32>
    scf.reduce
  }
  return
}

// -----

// Blocks stop at a warp: 100 threads are 4 blocks of 32 (a tail guard for the last 28),
// not 264 blocks of fewer threads.
// CHECK-LABEL: func.func @fewer_than_a_warp_a_block
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C4]], {{.*}}) threads({{.*}}) in (%{{.*}} = %[[C32]],
// CHECK: scf.if
func.func @fewer_than_a_warp_a_block(%in: memref<100xf32>, %out: memref<100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i) = (%c0) to (%c100) step (%c1) {
    %x = memref.load %in[%i] : memref<100xf32>
    memref.store %x, %out[%i] : memref<100xf32>
    scf.reduce
  }
  return
}

// -----

// Enough blocks already: 1M threads stay in blocks of 256.
// CHECK-LABEL: func.func @many_threads
// CHECK-DAG: %[[C4096:.*]] = arith.constant 4096 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C4096]], {{.*}}) threads({{.*}}) in (%{{.*}} = %[[C256]],
func.func @many_threads(%in: memref<1048576xf32>, %out: memref<1048576xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1048576 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %in[%i] : memref<1048576xf32>
    memref.store %x, %out[%i] : memref<1048576xf32>
    scf.reduce
  }
  return
}
