// A host function with an elementwise loop (bf16), a row reduction calling a math
// function, and a matmul goes through kiln-lower-gpu-device, the NVPTX backend and
// ptxas. Kernels take one 64-bit pointer per buffer (bare-pointer convention), math
// comes from libdevice (no extern functions left), and bf16 arithmetic works on sm_80,
// which has no native bf16 for every op.
// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-lower-gpu-device="chip=sm_90a features=+ptx80" -o %t.sm90.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.sm90.mlir
// RUN: kiln-translate --emit-ptx %t.sm90.mlir -o %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: %ptxas -arch=sm_90a %t.sm90.ptx -o %t.sm90.cubin
// RUN: kiln-opt %s --kiln-lower-gpu-device="chip=sm_80" | kiln-translate --emit-ptx -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin

// The host stays func.func with launches and buffers, for the engine builder.
// HOST: module attributes {gpu.container_module}
// HOST: func.func @main
// HOST: gpu.launch_func @main_kernels::@Gelu_0_k0 blocks in ({{.*}}) threads in ({{.*}}) args(%arg0 : memref<64x32xbf16>, %arg1 : memref<64x32xbf16>)
// HOST: gpu.launch_func @main_kernels::@ReduceLogSumExp_1_k1 {{.*}} args(%arg2 : memref<64x32xf32>, %arg3 : memref<64xf32>)
// HOST: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x32xf32>
// HOST: gpu.launch_func @main_kernels::@main_k2 {{.*}} args(%arg2 : memref<64x32xf32>, %[[T]] : memref<64x32xf32>)
// HOST: gpu.launch_func @main_kernels::@MatMul_2_k3 {{.*}} args(%arg4 : memref<32x32xf32>, %[[T]] : memref<64x32xf32>, %arg2 : memref<64x32xf32>)
// HOST-NOT: memref.copy
// HOST: gpu.module @main_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80", link = ["{{.*}}libdevice.10.bc"]>]
// HOST: llvm.func @Gelu_0_k0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {gpu.kernel

// PTX: .target sm_90a
// PTX-NOT: .extern
// PTX: .visible .entry Gelu_0_k0(
// PTX-NEXT: .param .u64 .ptr .align 1 Gelu_0_k0_param_0,
// PTX-NEXT: .param .u64 .ptr .align 1 Gelu_0_k0_param_1
// PTX: .visible .entry ReduceLogSumExp_1_k1(
// PTX: ex2.approx
// PTX: .visible .entry main_k2(
// PTX: .visible .entry MatMul_2_k3(
// PTX-NEXT: .param .u64 .ptr .align 1 MatMul_2_k3_param_0,
// PTX-NEXT: .param .u64 .ptr .align 1 MatMul_2_k3_param_1,
// PTX-NEXT: .param .u64 .ptr .align 1 MatMul_2_k3_param_2
// PTX: {{(fma|mul)}}.rn.f32

func.func @main(%x: memref<64x32xbf16>, %y: memref<64x32xbf16>, %a: memref<64x32xf32>,
                %lse: memref<64xf32>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : bf16
  %one = arith.constant 1.0 : bf16
  // Elementwise on bf16: y = x * 0.5 * (1 + tanh(x)).
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c32) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x32xbf16>
    %t = math.tanh %v : bf16
    %s = arith.addf %t, %one : bf16
    %h = arith.mulf %v, %half : bf16
    %r = arith.mulf %h, %s : bf16
    %m = arith.maximumf %r, %v : bf16
    %d = arith.divf %m, %s : bf16
    memref.store %d, %y[%i, %j] : memref<64x32xbf16>
    scf.reduce
  } loc("Gelu#0")
  // One thread per row: log(sum(exp(a))).
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %a[%i, %k] : memref<64x32xf32>
      %e = math.exp %v : f32
      %n = arith.addf %acc, %e : f32
      scf.yield %n : f32
    }
    %l = math.log %sum : f32
    memref.store %l, %lse[%i] : memref<64xf32>
    scf.reduce
  } loc("ReduceLogSumExp#1")
  // c = t^T * a with t a temporary: one thread per output element.
  %t = memref.alloc() {alignment = 64 : i64} : memref<64x32xf32>
  memref.copy %a, %t : memref<64x32xf32> to memref<64x32xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
    memref.store %zero, %c[%i, %j] : memref<32x32xf32>
    scf.for %k = %c0 to %c64 step %c1 {
      %p = memref.load %t[%k, %i] : memref<64x32xf32>
      %q = memref.load %a[%k, %j] : memref<64x32xf32>
      %acc = memref.load %c[%i, %j] : memref<32x32xf32>
      %pq = arith.mulf %p, %q : f32
      %n = arith.addf %acc, %pq : f32
      memref.store %n, %c[%i, %j] : memref<32x32xf32>
    }
    scf.reduce
  } loc("MatMul#2")
  return
}
