//===- PatchifyConvolutions.cpp - Convolutions whose kernel is their stride ===//
//
// graph-patchify-convolutions: a 2-D convolution whose kernel equals its stride, with no
// padding or dilation and one group (a vision transformer's patch embedding, 16x16 with
// stride 16), reads every input element once, for one output position: it is a matrix
// product of the input's patches. No convolution template takes such a stride (the
// implicit-GEMM boxes step by at most 8), and the generic loops ran ViT-B/16's in 4.7 ms at
// batch 32; as a reshape, a transpose and a product it is a data movement and a GEMM:
//
//   x [N, C, OH*KH, OW*KW] -> [N, C, OH, KH, OW, KW] -> [N, OH, OW, C, KH, KW]
//     -> [N, OH*OW, C*KH*KW] x W' [C*KH*KW, O] (+ bias) -> [N, OH, OW, O] -> [N, O, OH, OW]
//
// with W' the weight [O, C, KH, KW] reshaped and transposed (constant folding does it at
// compile time for a constant weight). The batch may be dynamic: the reshapes copy it
// (a 0 in the target shape).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/GraphBuilders.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHPATCHIFYCONVOLUTIONS
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// Whether `conv` is a patchify convolution this pass rewrites.
bool isPatchify(graph::ConvOp conv) {
  auto input = dyn_cast<RankedTensorType>(conv.getInput().getType());
  auto weight = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  auto result = dyn_cast<RankedTensorType>(conv.getResult().getType());
  if (!input || !weight || !result || input.getRank() != 4 || weight.getRank() != 4 ||
      !weight.hasStaticShape() || conv.getChannelsLast() || conv.getGroup() != 1)
    return false;
  // Static extents but the batch, whole patches.
  if (llvm::any_of(input.getShape().drop_front(), ShapedType::isDynamic))
    return false;
  ArrayRef<int64_t> strides = conv.getStrides(), kernel = weight.getShape().drop_front(2);
  if (strides.size() != 2 || !llvm::equal(strides, kernel) || kernel[0] * kernel[1] < 2)
    return false;
  if (llvm::any_of(conv.getDilations(), [](int64_t d) { return d != 1; }) ||
      llvm::any_of(conv.getPads(), [](int64_t p) { return p != 0; }))
    return false;
  return input.getDimSize(2) % kernel[0] == 0 && input.getDimSize(3) % kernel[1] == 0 &&
         input.getDimSize(1) == weight.getDimSize(1);
}

void patchify(graph::ConvOp conv) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  Type element = input.getElementType();
  int64_t n = input.getDimSize(0), c = input.getDimSize(1);
  int64_t kh = weight.getDimSize(2), kw = weight.getDimSize(3), o = weight.getDimSize(0);
  int64_t oh = input.getDimSize(2) / kh, ow = input.getDimSize(3) / kw, k = c * kh * kw;
  auto type = [&](ArrayRef<int64_t> shape, Type of) { return RankedTensorType::get(shape, of); };

  Value patches = graph::createReshape(b, loc, conv.getInput(), {0, c, oh, kh, ow, kw},
                                       type({n, c, oh, kh, ow, kw}, element));
  patches = graph::createTranspose(b, loc, patches, {0, 2, 4, 1, 3, 5});
  patches = graph::createReshape(b, loc, patches, {0, oh * ow, k}, type({n, oh * ow, k}, element));
  Type weightElement = weight.getElementType();
  Value matrix =
      graph::createReshape(b, loc, conv.getWeight(), {o, k}, type({o, k}, weightElement));
  matrix = graph::createTranspose(b, loc, matrix, {1, 0});
  auto productType = type({n, oh * ow, o}, getElementTypeOrSelf(conv.getResult().getType()));
  Value product =
      graph::MatMulOp::create(b, loc, TypeRange{productType}, ValueRange{patches, matrix});
  if (Value bias = conv.getBias())
    product = graph::AddOp::create(b, loc, TypeRange{productType}, ValueRange{product, bias});
  Value grid = graph::createReshape(b, loc, product, {0, oh, ow, o},
                                    type({n, oh, ow, o}, productType.getElementType()));
  Value result = graph::createTranspose(b, loc, grid, {0, 3, 1, 2});
  conv.getResult().replaceAllUsesWith(result);
  conv.erase();
}

struct GraphPatchifyConvolutions
    : kiln::impl::GraphPatchifyConvolutionsBase<GraphPatchifyConvolutions> {
  void runOnOperation() override {
    SmallVector<graph::ConvOp> convs;
    getOperation().walk([&](graph::ConvOp conv) {
      if (isPatchify(conv))
        convs.push_back(conv);
    });
    for (graph::ConvOp conv : convs)
      patchify(conv);
  }
};

} // namespace
