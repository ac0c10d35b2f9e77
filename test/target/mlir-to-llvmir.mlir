// kiln-translate --mlir-to-llvmir translates the LLVM dialect, NVVM intrinsics included.
// RUN: kiln-translate --mlir-to-llvmir %s | FileCheck %s

// CHECK-LABEL: define i32 @thread_index()
// CHECK: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.tid.x()
llvm.func @thread_index() -> i32 {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  llvm.return %tid : i32
}
