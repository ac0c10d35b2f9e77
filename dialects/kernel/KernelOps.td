//===- KernelOps.td - Operations of the kernel dialect -----*- tablegen -*-===//

#ifndef KILN_KERNEL_OPS
#define KILN_KERNEL_OPS

include "dialects/kernel/KernelAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kernel_FuncOp : Kernel_Op<"func",
    [FunctionOpInterface, IsolatedFromAbove, OpAsmOpInterface]> {
  let summary = "One GPU kernel, in destination-passing style";
  let description = [{
    Arguments are buffers (memrefs) and scalars (integers, indices, floats); the kernel
    reads and writes the buffers and returns nothing. The body ends in `kernel.return`.

    ```mlir
    kernel.func @matmul_0(%a: memref<128x64xf16>, %b: memref<64x256xf16>,
                          %c: memref<128x256xf16>)
        attributes {config = #kernel.config<tile = [128, 256, 64], stages = 4, warps = 8>} {
      kernel.return
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    OptionalAttr<StrAttr>:$sym_visibility,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs,
    OptionalAttr<Kernel_ConfigAttr>:$config);
  let regions = (region SizedRegion<1>:$body);

  let builders = [OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    static ::llvm::StringRef getDefaultDialect() { return "kernel"; }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Kernel_ReturnOp : Kernel_Op<"return", [Pure, HasParent<"FuncOp">, Terminator]> {
  let summary = "Ends a kernel";
  let assemblyFormat = "attr-dict";
}

def Kernel_LaunchOp : Kernel_Op<"launch",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs a kernel on buffers, after the launches before it";
  let description = [{
    Part of the host schedule: launches `callee` with `operands`, whose types must match
    the kernel's arguments. Launches in one block run in order.

    ```mlir
    kernel.launch @matmul_0(%a, %b, %c) : (memref<128x64xf16>, memref<64x256xf16>,
                                           memref<128x256xf16>)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
}

#endif // KILN_KERNEL_OPS
