//===- KernelOps.td - Operations of the kernel dialect -----*- tablegen -*-===//

#ifndef KILN_KERNEL_OPS
#define KILN_KERNEL_OPS

include "dialects/kernel/KernelAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kernel_FuncOp : Kernel_Op<"func",
    [FunctionOpInterface, IsolatedFromAbove, OpAsmOpInterface]> {
  let summary = "One GPU kernel, in destination-passing style";
  let description = [{
    Arguments are buffers (memrefs) and scalars (integers, indices, floats); the kernel
    reads and writes the buffers and returns nothing. The body holds one kernel template
    op (`kernel.pointwise`, `kernel.matmul`, ...) on the arguments and ends in
    `kernel.return`.

    ```mlir
    kernel.func @Relu_0(%x: memref<8x16xf32>, %y: memref<8x16xf32>) {
      pointwise ins(%x : memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
      ^bb0(%a: tensor<8x16xf32>):
        %r = graph.relu %a : tensor<8x16xf32>
        yield %r : tensor<8x16xf32>
      }
      return
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    OptionalAttr<StrAttr>:$sym_visibility,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs);
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

//===----------------------------------------------------------------------===//
// Kernel templates
//===----------------------------------------------------------------------===//

// A template op is the one computation of a kernel.func. Its `body` holds the fused group
// of graph ops on tensors: one block argument per input buffer (a tensor of the buffer's
// shape and element type), then one `index` argument per `symbols` operand (the run-time
// values of the dimension symbols, `batch` or `sequence`, from which the body computes the
// dynamic extents its ops take as operands: a reshape's target shape), and a
// `kernel.yield` of one tensor per output buffer. The body is the exact semantics; the
// template kind says what kind of computation it is, and the kernel.func's `kernel.config`
// (a template family's configuration attribute, KernelAttrs.td) which code generator
// computes it and how. Every template can be lowered generically (`#kernel.generic`: the
// body through the linalg path, one thread per output element); the fast generators
// recognise their body's shape.
class Kernel_TemplateOp<string mnemonic, string what, list<Trait> traits = []>
    : Kernel_Op<mnemonic, !listconcat(traits, [AttrSizedOperandSegments, IsolatedFromAbove,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  let summary = what;
  let arguments = (ins
    Variadic<AnyMemRef>:$inputs,
    Variadic<AnyMemRef>:$outputs,
    Variadic<Index>:$symbols);
  let regions = (region SizedRegion<1>:$body);
  // Declarations a template adds to the shared ones (getAnchor for anchored templates).
  code extraTemplateDeclaration = "";
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? `outs` `(` $outputs `:` type($outputs) `)`
    (`symbols` `(` $symbols^ `)`)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tensor type the body sees for a buffer of type `type`.
    static ::mlir::RankedTensorType getTensorType(::mlir::MemRefType type) {
      return ::mlir::RankedTensorType::get(type.getShape(), type.getElementType());
    }
  }] # extraTemplateDeclaration;
  let extraClassDefinition = [{
    void $cppClass::getEffects(::llvm::SmallVectorImpl<::mlir::SideEffects::EffectInstance<
                                   ::mlir::MemoryEffects::Effect>> &effects) {
      detail::getTemplateEffects(*this, getInputs(), getOutputs(), effects);
    }
  }];
}

def Kernel_PointwiseOp : Kernel_TemplateOp<"pointwise",
    "Elementwise ops with broadcasting, one output element per thread"> {
  let description = [{
    The body is a chain of graph ops that are elementwise with NumPy broadcasting (the
    `Pointwise` graph trait).

    ```mlir
    kernel.pointwise ins(%x : memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
    ^bb0(%a: tensor<8x16xf32>):
      %r = graph.relu %a : tensor<8x16xf32>
      kernel.yield %r : tensor<8x16xf32>
    }
    ```
  }];
}

def Kernel_ReductionOp : Kernel_TemplateOp<"reduction",
    "A reduction or normalisation along some axes, with elementwise ops around it"> {
  let description = [{
    The body holds one op with the graph `Reduction` trait (ReduceX, ArgMax, Softmax,
    LayerNormalization, ...) and pointwise ops before and after it.
  }];
  let extraTemplateDeclaration = [{
    /// The reduction the template is built around.
    ::mlir::Operation *getAnchor();
  }];
}

def Kernel_MatmulOp : Kernel_TemplateOp<"matmul",
    "A (batched) matrix product with an elementwise epilogue"> {
  let description = [{
    The body starts with the anchor, a `graph.matmul` or `graph.gemm`, optionally after a
    prologue of data-movement and pointwise ops (transposes, reshapes, scales) on its
    inputs, which the kernel's loads absorb; the ops after it are the epilogue, elementwise ops applied to the
    product before it is stored (bias, activation, residual).

    ```mlir
    kernel.matmul ins(%a, %b : memref<128x64xf16>, memref<64x256xf16>)
                  outs(%c : memref<128x256xf16>) {
    ^bb0(%x: tensor<128x64xf16>, %w: tensor<64x256xf16>):
      %p = graph.matmul %x, %w : (tensor<128x64xf16>, tensor<64x256xf16>) -> tensor<128x256xf16>
      kernel.yield %p : tensor<128x256xf16>
    }
    ```
  }];
  let extraTemplateDeclaration = [{
    /// The matrix product (graph.matmul or graph.gemm) after the prologue.
    ::mlir::Operation *getAnchor();
  }];
}

def Kernel_ConvOp : Kernel_TemplateOp<"conv",
    "A convolution (an implicit GEMM) with an elementwise epilogue"> {
  let description = [{
    The body starts with the anchor, a `graph.conv` (after an optional prologue, as for
    `kernel.matmul`); the ops after it are the epilogue.
    Its GEMM view: M = batch x output pixels, N = output channels, K = input channels x
    kernel window.
  }];
  let extraTemplateDeclaration = [{
    /// The convolution after the prologue.
    ::mlir::Operation *getAnchor();
  }];
}

def Kernel_AttentionOp : Kernel_TemplateOp<"attention",
    "Scaled dot-product attention, softmax(Q K^T * scale + mask) V, in one kernel"> {
  let description = [{
    The body computes attention from graph ops (matmul, scaling, an optional mask,
    softmax, matmul); the generator keeps the score matrix on chip.
  }];
}

def Kernel_MovementOp : Kernel_TemplateOp<"movement",
    "Data movement: transposes, reshapes, slices, gathers, scatters and concatenation"> {
  let description = [{
    The body holds ops with the graph `DataMovement` trait and pointwise ops. Each thread
    computes which input element an output element comes from.
  }];
}

def Kernel_GenericOp : Kernel_TemplateOp<"generic",
    "Any other computation, lowered through the generic path only"> {
  let description = [{
    For graph ops no template covers (pooling, resizing, sorting, control flow, ...). The
    body is lowered generically and has no tunable choices.
  }];
}

def Kernel_YieldOp : Kernel_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["PointwiseOp", "ReductionOp", "MatmulOp", "ConvOp", "AttentionOp",
                 "MovementOp", "GenericOp"]>]> {
  let summary = "The tensors a template stores into its output buffers";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
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

def Kernel_ReadBackOp : Kernel_Op<"read_back", [MemoryEffects<[MemRead]>]> {
  let summary = "Reads a value that kernels computed back to the host";
  let description = [{
    Part of the host schedule: waits for the launches before it and reads the one
    element of `buffer` (device memory) into a host value, an integer or index. The
    sizes of buffers that depend on values computed on the GPU (NonZero's count,
    NonMaxSuppression's selections, a Loop's trip count) are host values through it;
    `gpu-map-loops` inserts it, and the engine makes it a read-back step whose result
    the shape program continues from (docs/dynamic-shapes.md).

    ```mlir
    %count = kernel.read_back %buffer : memref<index> -> index
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$buffer);
  let results = (outs AnySignlessIntegerOrIndex:$value);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer) `->` type($value)";
  let hasVerifier = 1;
}

#endif // KILN_KERNEL_OPS
