// Round trip of the kernel dialect: kernels with and without a config, and the schedule.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// CHECK: kernel.func @matmul_0(%{{.*}}: memref<128x64xf16>, %{{.*}}: memref<64x256xf16>, %{{.*}}: memref<128x256xf16>)
// CHECK-SAME: attributes {config = #kernel.config<tile = [128, 256, 64], stages = 4, warps = 8, swizzle = 8>}
kernel.func @matmul_0(%a: memref<128x64xf16>, %b: memref<64x256xf16>, %c: memref<128x256xf16>)
    attributes {config = #kernel.config<tile = [128, 256, 64], stages = 4, warps = 8, split_k = 1, swizzle = 8>} {
  // The kernel dialect is the default inside kernel.func, so kernel.return prints as return.
  // CHECK-NEXT: {{^ *}}return
  kernel.return
}

// A kernel without a config is still open for the autotuner; scalars are allowed.
// CHECK: kernel.func @relu_1(%{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: index) {
kernel.func @relu_1(%in: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  kernel.return
}

// CHECK-LABEL: func.func @main
func.func @main(%a: memref<128x64xf16>, %b: memref<64x256xf16>, %c: memref<128x256xf16>,
                %x: memref<?xf32>, %n: index) {
  // CHECK: kernel.launch @matmul_0(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<128x64xf16>, memref<64x256xf16>, memref<128x256xf16>) -> ()
  kernel.launch @matmul_0(%a, %b, %c) : (memref<128x64xf16>, memref<64x256xf16>, memref<128x256xf16>) -> ()
  // CHECK: kernel.launch @relu_1
  kernel.launch @relu_1(%x, %x, %n) : (memref<?xf32>, memref<?xf32>, index) -> ()
  return
}

// The config parameters that default to 1 may be left out, and are printed only when set.
// CHECK-LABEL: func.func @configs
// CHECK-SAME: kiln.a = #kernel.config<tile = [1024], stages = 1, warps = 4>
// CHECK-SAME: kiln.b = #kernel.config<tile = [64, 64, 32], stages = 2, warps = 4, split_k = 4>
func.func @configs() attributes {
    kiln.a = #kernel.config<tile = [1024], stages = 1, warps = 4>,
    kiln.b = #kernel.config<tile = [64, 64, 32], stages = 2, warps = 4, split_k = 4, swizzle = 1>} {
  return
}
