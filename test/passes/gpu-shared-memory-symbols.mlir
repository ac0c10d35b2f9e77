// RUN: kiln-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(gpu-shared-memory-symbols))' | FileCheck %s
// RUN: kiln-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(gpu-shared-memory-symbols))' \
// RUN:   | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(gpu-shared-memory-symbols))' \
// RUN:   | kiln-translate --split-input-file --emit-ptx | FileCheck --check-prefix=PTX %s

// A kernel with a workgroup attribution and dynamic shared memory, as convert-gpu-to-nvvm
// leaves them: the dynamic symbol becomes a declaration (`.extern`: the driver's dynamic
// memory, after the static variables), the attribution 16-byte aligned (its four f32
// loads at constant indices become one 16-byte load).
// CHECK-LABEL: gpu.module @rows
// CHECK-DAG: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64, dso_local} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.mlir.global internal @__wg_rows_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x f32>
// PTX-DAG: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX-DAG: .shared .align 16 .b8 __wg_rows_0[512];
// PTX: ld.shared.v4.b32 {{.*}}[__wg_rows_0]
gpu.module @rows [#nvvm.target<chip = "sm_90a">] {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64, dso_local} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__wg_rows_0() {addr_space = 3 : i32} : !llvm.array<128 x f32>
  llvm.func @rows(%in: !llvm.ptr, %out: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
    %dynamic = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    %partials = llvm.mlir.addressof @__wg_rows_0 : !llvm.ptr<3>
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %x = llvm.load %in : !llvm.ptr -> f32
    %mine = llvm.getelementptr %partials[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    llvm.store %x, %mine : f32, !llvm.ptr<3>
    %row = llvm.getelementptr %dynamic[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    llvm.store %x, %row : f32, !llvm.ptr<3>
    nvvm.barrier0
    %p1 = llvm.getelementptr %partials[1] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
    %p2 = llvm.getelementptr %partials[2] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
    %p3 = llvm.getelementptr %partials[3] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
    %a = llvm.load %partials : !llvm.ptr<3> -> f32
    %b = llvm.load %p1 : !llvm.ptr<3> -> f32
    %c = llvm.load %p2 : !llvm.ptr<3> -> f32
    %d = llvm.load %p3 : !llvm.ptr<3> -> f32
    %e = llvm.load %dynamic : !llvm.ptr<3> -> f32
    %ab = llvm.fadd %a, %b : f32
    %cd = llvm.fadd %c, %d : f32
    %abcd = llvm.fadd %ab, %cd : f32
    %sum = llvm.fadd %abcd, %e : f32
    llvm.store %sum, %out : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// Nothing else changes: globals outside shared memory, a larger alignment, a shared
// global with an initializer-free non-empty type.
// CHECK-LABEL: gpu.module @others
// CHECK-DAG: llvm.mlir.global internal constant @table(dense<1.000000e+00> : tensor<4xf32>) {addr_space = 1 : i32} : !llvm.array<4 x f32>
// CHECK-DAG: llvm.mlir.global internal @__wg_tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<64 x f16>
// CHECK-DAG: llvm.mlir.global internal @__wg_flag() {addr_space = 3 : i32, alignment = 16 : i64} : i32
gpu.module @others [#nvvm.target<chip = "sm_90a">] {
  llvm.mlir.global internal constant @table(dense<1.0> : tensor<4xf32>) {addr_space = 1 : i32} : !llvm.array<4 x f32>
  llvm.mlir.global internal @__wg_tile() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<64 x f16>
  llvm.mlir.global internal @__wg_flag() {addr_space = 3 : i32, alignment = 4 : i64} : i32
}
