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
    buffers it is given and returns nothing. Its `kernel.config` attribute, one template
    family's configuration attribute (`#kernel.sm90_gemm<...>`, ..., `#kernel.generic`),
    says which code generator computes it and how; a kernel without one is still open for
    kernel-autotune and kernel-select-templates. The host side is a function of
    `kernel.launch` ops that call kernels on buffers in order.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  // The attributes the kernel passes put on a kernel.func.
  let discardableAttrs = (ins
    // The chosen configuration (kernel-autotune, kernel-select-templates).
    "::kiln::kernel::TemplateConfigAttrInterface":$config,
    // A dynamic GEMM's configurations for buckets of rows far from the opt shape's: an
    // array of #kernel.row_variant.
    "::mlir::ArrayAttr":$row_variants,
    // How kernel-autotune chose: {source = "measured" | "cache" | "cost-model",
    // micros = <f64>, signature = "<hex>"}.
    "::mlir::DictionaryAttr":$tuning,
    // A dynamic engine's optimization profile, on the inputs of the model's function
    // (argument attributes): their smallest, best and largest shapes.
    "::mlir::DenseI64ArrayAttr":$min_shape,
    "::mlir::DenseI64ArrayAttr":$opt_shape,
    "::mlir::DenseI64ArrayAttr":$max_shape,
    // The host function graph-to-kernel makes: how many of its arguments are the model's
    // inputs (the rest are its outputs).
    "::mlir::IntegerAttr":$num_inputs,
    // kernel-plan-buffers: each buffer's offset in the arena, the arena's size, and the
    // size all buffers would take without reuse.
    "::mlir::IntegerAttr":$arena_offset,
    "::mlir::IntegerAttr":$arena_bytes,
    "::mlir::IntegerAttr":$unplanned_bytes,
    // gpu-programmatic-launch, on a gpu.module: each of its kernels begins with
    // griddepcontrol.wait, so the engine launches them with programmatic stream
    // serialization.
    "::mlir::UnitAttr":$programmatic_launch);
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

#endif // KILN_KERNEL_DIALECT
