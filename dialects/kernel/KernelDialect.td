//===- KernelDialect.td - The kernel dialect ---------------*- tablegen -*-===//
//
// The kernel dialect is the boundary between the graph and code generation: one
// `kernel.func` per fused group, each carrying the tunable configuration its template
// needs, and a host schedule of `kernel.launch` ops on buffers.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_KERNEL_DIALECT
#define KILN_KERNEL_DIALECT

include "mlir/IR/OpBase.td"

def Kernel_Dialect : Dialect {
  let name = "kernel";
  let cppNamespace = "::kiln::kernel";
  let summary = "GPU kernels with tunable configurations and their launch schedule";
  let description = [{
    A `kernel.func` is one GPU kernel in destination-passing style: it reads and writes the
    buffers it is given and returns nothing. Its optional `config` attribute fixes the
    choices the autotuner makes (tile shape, pipeline stages, warps, split-k, swizzle);
    a kernel without one is still open for tuning. The host side is a function of
    `kernel.launch` ops that call kernels on buffers in order.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

#endif // KILN_KERNEL_DIALECT
