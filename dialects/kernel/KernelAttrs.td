//===- KernelAttrs.td - Attributes of the kernel dialect ---*- tablegen -*-===//

#ifndef KILN_KERNEL_ATTRS
#define KILN_KERNEL_ATTRS

include "dialects/kernel/KernelDialect.td"
include "mlir/IR/AttrTypeBase.td"

// Tile extents, written as a bracketed list: `[128, 256, 64]`.
def Kernel_TileParameter : ArrayRefParameter<"int64_t", "tile extents, outermost first"> {
  let parser = [{ ::kiln::kernel::parseTile($_parser) }];
  let printer = [{ ::kiln::kernel::printTile($_printer, $_self) }];
}

def Kernel_ConfigAttr : AttrDef<Kernel_Dialect, "Config"> {
  let mnemonic = "config";
  let summary = "The tunable choices of one kernel";
  let description = [{
    `tile` is the work of one thread block, outermost dimension first (M, N, K for a
    matrix product; a single extent for a pointwise kernel). `stages` is the depth of the
    shared-memory pipeline, `warps` the warps per block, `split_k` how many blocks share
    one reduction (1: none) and `swizzle` how many tile rows are grouped when blocks are
    rasterised, for L2 reuse (1: plain row order).

    ```mlir
    #kernel.config<tile = [128, 256, 64], stages = 4, warps = 8, split_k = 1, swizzle = 8>
    ```
  }];
  let parameters = (ins
    Kernel_TileParameter:$tile,
    "int64_t":$stages,
    "int64_t":$warps,
    DefaultValuedParameter<"int64_t", "1">:$split_k,
    DefaultValuedParameter<"int64_t", "1">:$swizzle);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // KILN_KERNEL_ATTRS
