// RUN: kiln-opt --kernel-plan-buffers %s -split-input-file -verify-diagnostics | FileCheck %s

// A chain a -> b -> c -> d: a is dead once b is computed, so c reuses a's memory; b and d
// alternate the same way. Planned peak: two 4 KiB buffers instead of four.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: kernel.arena_bytes = 8192 : i64
// CHECK-SAME: kernel.unplanned_bytes = 16384 : i64
// CHECK: memref.alloc() {kernel.arena_offset = [[A:[0-9]+]] : i64}
// CHECK: memref.alloc() {kernel.arena_offset = [[B:[0-9]+]] : i64}
// CHECK: memref.alloc() {kernel.arena_offset = [[A]] : i64}
// CHECK: memref.alloc() {kernel.arena_offset = [[B]] : i64}
kernel.func @step(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  kernel.return
}
func.func @chain(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  %a = memref.alloc() : memref<1024xf32>
  kernel.launch @step(%x, %a) : (memref<1024xf32>, memref<1024xf32>) -> ()
  %b = memref.alloc() : memref<1024xf32>
  kernel.launch @step(%a, %b) : (memref<1024xf32>, memref<1024xf32>) -> ()
  %c = memref.alloc() : memref<1024xf32>
  kernel.launch @step(%b, %c) : (memref<1024xf32>, memref<1024xf32>) -> ()
  %d = memref.alloc() : memref<1024xf32>
  kernel.launch @step(%c, %d) : (memref<1024xf32>, memref<1024xf32>) -> ()
  kernel.launch @step(%d, %y) : (memref<1024xf32>, memref<1024xf32>) -> ()
  return
}

// -----

// A tensor map stands for its buffer: %a, made before %b's launch and read through its
// tensor map by the last launch, is live until then, so %b cannot take its place.
// CHECK-LABEL: func.func @tensor_map
// CHECK-SAME: kernel.arena_bytes = 65536 : i64
// CHECK: memref.alloc() {kernel.arena_offset = [[A:[0-9]+]] : i64} : memref<128x128xf16>
// CHECK-NOT: kernel.arena_offset = [[A]] : i64
// CHECK: memref.alloc() {kernel.arena_offset = {{[0-9]+}} : i64} : memref<128x128xf16>
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
kernel.func @fill(%out: memref<128x128xf16>) {
  kernel.return
}
gpu.module @kernels {
  gpu.func @read(%in: !map, %out: memref<128x128xf16>) kernel {
    gpu.return
  }
}
func.func @tensor_map(%y: memref<128x128xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %a = memref.alloc() : memref<128x128xf16>
  kernel.launch @fill(%a) : (memref<128x128xf16>) -> ()
  %unranked = memref.cast %a : memref<128x128xf16> to memref<*xf16>
  %map = nvgpu.tma.create.descriptor %unranked box[%c128, %c64] : memref<*xf16> -> !map
  %b = memref.alloc() : memref<128x128xf16>
  kernel.launch @fill(%b) : (memref<128x128xf16>) -> ()
  gpu.launch_func @kernels::@read blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%map : !map, %b : memref<128x128xf16>)
  kernel.launch @fill(%y) : (memref<128x128xf16>) -> ()
  return
}
}

// -----

// A buffer used through a view lives as long as the view is used; sizes are rounded up
// to 256 bytes. %a (1 KiB) is live until the last launch, so %b cannot take its place.
// CHECK-LABEL: func.func @view
// CHECK-SAME: kernel.arena_bytes = 1280 : i64
// CHECK: memref.alloc() {kernel.arena_offset = 0 : i64} : memref<256xf32>
// CHECK: memref.alloc() {kernel.arena_offset = 1024 : i64} : memref<3xi8>
kernel.func @use(%in: memref<16x16xf32>, %out: memref<3xi8>) {
  kernel.return
}
func.func @view(%y: memref<3xi8>) {
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<3xi8>
  %v = memref.expand_shape %a [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
  kernel.launch @use(%v, %b) : (memref<16x16xf32>, memref<3xi8>) -> ()
  kernel.launch @use(%v, %y) : (memref<16x16xf32>, memref<3xi8>) -> ()
  return
}

// -----

// Dynamic buffers are planned at the profile's max shape: %a holds [2 n, 8] f32, n at most
// 64 (the input's kernel.max_shape), 4096 bytes; %b [n + 1] i8 (at most 65, 256 aligned);
// %c is a view of the output stating its extents.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: kernel.arena_bytes = 4352 : i64
// CHECK: memref.alloc(%{{.*}}) {kernel.arena_offset = 0 : i64} : memref<?x8xf32>
// CHECK: memref.alloc(%{{.*}}) {kernel.arena_offset = 4096 : i64} : memref<?xi8>
kernel.func @fill(%out: memref<?x8xf32>, %bytes: memref<?xi8>) {
  kernel.return
}
func.func @dynamic(%x: memref<?x8xf32> {kernel.max_shape = array<i64: 64, 8>}, %y: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?x8xf32>
  %twice = arith.muli %n, %c2 : index
  %a = memref.alloc(%twice) : memref<?x8xf32>
  %more = arith.addi %n, %c1 : index
  %b = memref.alloc(%more) : memref<?xi8>
  kernel.launch @fill(%a, %b) : (memref<?x8xf32>, memref<?xi8>) -> ()
  %c = memref.reinterpret_cast %y to offset: [0], sizes: [%twice, 8], strides: [8, 1] : memref<?x8xf32> to memref<?x8xf32>
  %m = memref.dim %c, %c0 : memref<?x8xf32>
  %d = memref.alloc(%m) : memref<?x8xf32>
  kernel.launch @fill(%d, %b) : (memref<?x8xf32>, memref<?xi8>) -> ()
  return
}

// -----

func.func @unbounded(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  // expected-error @+1 {{reads extent 0 of argument 0, which has no kernel.max_shape: a dynamic shape needs the profile's shapes}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

func.func @data_dependent(%x: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{computes a run-time size with memref.load, which the engine's shape program does not evaluate}}
  %n = memref.load %x[%c0] : memref<4xindex>
  %a = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

// Where the op computing the size has no location (a lowering made it), the error is on
// the op that uses the size.
func.func @data_dependent_no_location(%x: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %n = memref.load %x[%c0] : memref<4xindex> loc(unknown)
  // expected-error @+1 {{computes a run-time size with memref.load, which the engine's shape program does not evaluate}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

// A host fill (gpu.memset: the engine's fill step) writes its buffer: %b, filled before
// %a's last read, is live from there and cannot take %a's memory.
// CHECK-LABEL: func.func @filled
// CHECK-SAME: kernel.arena_bytes = 8192 : i64
// CHECK: memref.alloc() {kernel.arena_offset = [[A:[0-9]+]] : i64}
// CHECK-NOT: kernel.arena_offset = [[A]] : i64
// CHECK: memref.alloc() {kernel.arena_offset = {{[0-9]+}} : i64}
// CHECK: gpu.memset
kernel.func @step(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  kernel.return
}
func.func @filled(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1024xf32>
  kernel.launch @step(%x, %a) : (memref<1024xf32>, memref<1024xf32>) -> ()
  %b = memref.alloc() : memref<1024xf32>
  gpu.memset %b, %zero : memref<1024xf32>, f32
  kernel.launch @step(%a, %y) : (memref<1024xf32>, memref<1024xf32>) -> ()
  kernel.launch @step(%b, %y) : (memref<1024xf32>, memref<1024xf32>) -> ()
  return
}

// -----

// A size chosen by a condition read back from the device (which branch of an If ran:
// gpu-predicate-branches) is planned at the larger side: %a holds max(16, 1024) f32,
// 4096 bytes, whichever way the condition reads at run time (unread, it reads as true).
// CHECK-LABEL: func.func @select_on_device_condition
// CHECK-SAME: kernel.arena_bytes = 4096 : i64
func.func @select_on_device_condition(%flag: memref<i64>) {
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0 : i64
  %read = kernel.read_back %flag : memref<i64> -> i64
  %taken = arith.cmpi ne, %read, %zero : i64
  %n = arith.select %taken, %c16, %c1024 : index
  %a = memref.alloc(%n) : memref<?xf32>
  return
}
