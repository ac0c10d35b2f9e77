//===- GemmMatch.cpp - The GEMMs of matmul and convolution kernels --------===//

#include "passes/kernel/GemmMatch.h"
#include "dialects/kernel/KernelDialect.h"

#include "dialects/graph/GraphOps.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// "graph.sigmoid, graph.mul": the ops after `anchor` in its kernel body, for refusals.
std::string describeOpsAfter(Operation *anchor) {
  std::string names;
  for (Operation *op = anchor->getNextNode(); op && !op->hasTrait<OpTrait::IsTerminator>();
       op = op->getNextNode())
    if (!isa<graph::ConstantOp>(op))
      names += (names.empty() ? "" : ", ") + op->getName().getStringRef().str();
  return names;
}

/// The batched product of `product` (a graph.matmul of A [.., M, K] by B [.., K, N], its
/// batch dimensions broadcast as NumPy does): static shapes, f16 or bf16 operands, B read
/// row-major (GemmProblem::batched). `refuse` says why not.
std::optional<kiln::GemmProblem>
matchBatchedProduct(Operation *product, RankedTensorType lhsType, MemRefType aType,
                    MemRefType bType, MemRefType cType, bool viewed,
                    function_ref<std::optional<kiln::GemmProblem>(const std::string &)> refuse) {
  if (viewed || !lhsType.hasStaticShape() || !bType.hasStaticShape() || !cType.hasStaticShape() ||
      aType.getShape() != lhsType.getShape())
    return refuse("a batched product of shapes known at run time, or of a reshaped A");
  int64_t rank = cType.getRank(), batchRank = rank - 2;
  ArrayRef<int64_t> a = aType.getShape(), b = bType.getShape(), c = cType.getShape();
  kiln::GemmProblem problem;
  problem.batched = true;
  problem.matrixRows = a[a.size() - 2];
  problem.k = a.back();
  problem.n = b.back();
  if (b[b.size() - 2] != problem.k || c[rank - 2] != problem.matrixRows || c[rank - 1] != problem.n)
    return refuse("a batched product whose extents do not match");
  // Each operand's batch dimensions align with C's innermost ones; an extent of 1 (or a
  // missing dimension) broadcasts.
  auto strides = [&](ArrayRef<int64_t> shape, int64_t &matrices,
                     SmallVectorImpl<int64_t> &out) -> bool {
    int64_t operandBatchRank = int64_t(shape.size()) - 2, stride = 1;
    out.assign(batchRank, 0);
    for (int64_t d = batchRank - 1; d >= 0; --d) {
      int64_t at = d - (batchRank - operandBatchRank);
      if (at < 0)
        continue;
      if (shape[at] == c[d]) {
        out[d] = c[d] == 1 ? 0 : stride;
        stride *= shape[at];
      } else if (shape[at] != 1) {
        return false;
      }
    }
    matrices = stride;
    return true;
  };
  if (!strides(a, problem.aMatrices, problem.aBatchStrides) ||
      !strides(b, problem.bMatrices, problem.bBatchStrides))
    return refuse("batch dimensions that do not broadcast");
  problem.batchExtents.assign(c.begin(), c.begin() + batchRank);
  problem.m = problem.batch() * problem.matrixRows;
  problem.maxM = problem.m;
  problem.operand = aType.getElementType();
  problem.result = cType.getElementType();
  Type productType = cast<ShapedType>(product->getResult(0).getType()).getElementType();
  if (!(problem.operand.isF16() || problem.operand.isBF16()) ||
      bType.getElementType() != problem.operand || productType != problem.operand)
    return refuse("a batched product of other operands than f16 or bf16");
  std::optional<kiln::Sm90Epilogue> epilogue = kiln::matchSm90Epilogue(product, Value(), cType);
  if (!epilogue)
    return refuse("an epilogue the templates cannot apply (" + describeOpsAfter(product) + ")");
  problem.epilogue = std::move(*epilogue);
  if (problem.epilogue.empty() && problem.result != problem.operand)
    return refuse("a result type other than the operands' without an epilogue");
  return problem;
}

} // namespace

std::optional<kiln::GemmProblem> kiln::matchGemmKernel(kernel::FuncOp function, bool allowTf32,
                                                       GemmRows rowsAt, std::string *why) {
  auto refuse = [&](const std::string &reason) -> std::optional<GemmProblem> {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  auto matmul = getTemplateOp<kernel::MatmulOp>(function);
  if (!matmul)
    return refuse("not a matmul kernel");
  Block &body = matmul.getBody().front();
  // The product, after the inlined constants its epilogue may read: graph.matmul, or
  // graph.gemm as a product with a bias (C, added first by the epilogue) whose B may be
  // transposed, i.e. stored N x K, which the template reads K-major as it is.
  SmallVector<Operation *> products;
  for (Operation &op : body)
    if (isa<graph::MatMulOp, graph::GemmOp>(op))
      products.push_back(&op);
  if (products.size() != 1)
    return refuse("the kernel holds " + std::to_string(products.size()) + " products");
  Operation *product = products.front();
  Value bias;
  bool transposedB = false;
  if (auto gemm = dyn_cast<graph::GemmOp>(product)) {
    if (gemm.getTransA() || !gemm.getAlpha().isExactlyValue(1.0) ||
        (gemm.getC() && !gemm.getBeta().isExactlyValue(1.0)))
      return refuse("a Gemm with trans_a, or alpha or beta other than 1");
    bias = gemm.getC();
    transposedB = gemm.getTransB();
  }
  // A is the first buffer, or a reshape of it to a matrix (a classifier's Flatten of its
  // [N, C, 1, 1] pooled features): a row-major buffer read as M x K is the same bytes. So
  // is a [B.., M, K] activation by a 2-D weight (graph-unflatten-matmuls' linear layers):
  // the product of B*..*M rows, its [B.., M, N] result those rows of C.
  Value a = product->getOperand(0);
  bool viewed = true; // A reaches the product through a Flatten or Reshape
  if (auto flatten = a.getDefiningOp<graph::FlattenOp>())
    a = flatten.getInput();
  else if (auto reshape = a.getDefiningOp<graph::ReshapeOp>())
    a = reshape.getInput();
  else
    viewed = false;
  if (a != body.getArgument(0) || product->getOperand(1) != body.getArgument(1))
    return refuse("A or B is computed in the kernel (a prologue), not read from a buffer");
  auto lhsType = dyn_cast<RankedTensorType>(product->getOperand(0).getType());
  if (!lhsType || lhsType.getRank() < 2 || lhsType.isDynamicDim(lhsType.getRank() - 1))
    return refuse("A is not a matrix of static K");

  // Buffers of static shape; or a dynamic engine's, whose rows (M) are known at run time
  // only: A's rows of K elements (as they are, or reshaped to the matrix: the same bytes),
  // C's of N, the rows at the profile's shape for the heuristics.
  GemmProblem problem;
  problem.dynamicM = !lhsType.hasStaticShape();
  auto buffersAt = [&](StringRef profile) -> std::optional<SmallVector<MemRefType>> {
    std::optional<ProfileArguments> arguments = getProfileArguments(function, profile);
    if (!arguments || llvm::is_contained(arguments->types, MemRefType()))
      return std::nullopt;
    return arguments->types;
  };
  std::optional<SmallVector<MemRefType>> buffers =
      problem.dynamicM ? buffersAt(rowsAt.profile) : getStaticBufferTypes(function);
  if (!buffers)
    return refuse("the buffers' shapes are not known (a dynamic engine without a profile)");
  SmallVector<MemRefType> &optTypes = *buffers;
  auto aType = cast<MemRefType>(function.getArgumentTypes().front());
  auto bType = cast<MemRefType>(function.getArgumentTypes()[1]);
  auto cType = cast<MemRefType>(function.getArgumentTypes().back());
  ArrayRef<int64_t> rows = lhsType.getShape().drop_back();
  // B with batch dimensions: a batched product of two activations.
  if (bType.getRank() >= 3 && isa<graph::MatMulOp>(product))
    return matchBatchedProduct(product, lhsType, aType, bType, cType, viewed, refuse);
  if (!bType.hasStaticShape() || bType.getRank() != 2 || cType.getRank() != lhsType.getRank() ||
      cType.getShape().drop_back() != rows || cType.isDynamicDim(cType.getRank() - 1))
    return refuse("B is not a static matrix, or C not A's rows of N");
  // A run-time M's A holds M rows of K elements: K is its last extent, or a Flatten or
  // Reshape (which keep the elements) made the product's [.., K] operand of it (a
  // classifier's [N, C, 1, 1] read as N x C; an attention's [B, S, heads, head size] as
  // [B, S, heads x head size]).
  if (problem.dynamicM ? !viewed && aType.getShape().back() != lhsType.getShape().back()
                       : aType.getNumElements() != lhsType.getNumElements())
    return refuse("A's buffer is not the product's rows of K");
  // The elementwise ops after the product (bias, activation, residual, scale, cast).
  std::optional<Sm90Epilogue> epilogue = matchSm90Epilogue(product, bias, cType);
  if (!epilogue)
    return refuse("an epilogue the templates cannot apply (" + describeOpsAfter(product) + ")");
  auto rowsOf = [](MemRefType c) {
    int64_t product = 1;
    for (int64_t extent : c.getShape().drop_back())
      product *= extent;
    return product;
  };
  problem.m = rowsOf(optTypes.back());
  problem.maxM = problem.m;
  if (problem.dynamicM) {
    std::optional<SmallVector<MemRefType>> atMax = buffersAt(kiln::kernel::kMaxShapeAttr);
    problem.maxM = rowsAt.maxRows > 0 ? rowsAt.maxRows : atMax ? rowsOf(atMax->back()) : 0;
  }
  problem.k = lhsType.getShape().back();
  problem.n = bType.getDimSize(transposedB ? 0 : 1);
  problem.operand = aType.getElementType();
  problem.result = cType.getElementType();
  problem.epilogue = std::move(*epilogue);
  if (bType.getDimSize(transposedB ? 1 : 0) != problem.k || cType.getShape().back() != problem.n)
    return refuse("B's or C's extents do not match K and N");
  // graph.matmul keeps its float operands' type; an epilogue may cast the f32 sums to
  // another float type. f32 operands are read as tf32 when allowed. An i8 product's i32
  // sums are only stored through an epilogue (their rescale to floats, then maybe a
  // requantization to i8), as for convolutions (matchConvKernel).
  Type productType = cast<ShapedType>(product->getResult(0).getType()).getElementType();
  bool tf32 = allowTf32 && problem.operand.isF32();
  bool int8 = problem.operand.isSignlessInteger(8) && productType.isSignlessInteger(32) &&
              !problem.epilogue.empty();
  bool floatOperands = problem.operand.isF16() || problem.operand.isBF16() || tf32;
  if (bType.getElementType() != problem.operand || !(floatOperands || int8) ||
      (floatOperands && productType != problem.operand) ||
      !(problem.result.isF16() || problem.result.isBF16() || problem.result.isF32() ||
        (int8 && problem.result.isSignlessInteger(8))))
    return refuse(problem.operand.isF32() && !allowTf32
                      ? "f32 operands (the tensor cores take f16, bf16, i8, and f32 as tf32 "
                        "with --tf32)"
                      : "operand or result types the templates do not take");
  if (problem.epilogue.empty() && problem.result != problem.operand)
    return refuse("a result type other than the operands' without an epilogue");
  // tf32's and int8's wgmma read B K-major only: a row-major B must be a constant, stored
  // transposed at compile time (a B computed at run time stays generic).
  problem.kMajorB = transposedB || tf32 || int8;
  problem.transposeConstantB = (tf32 || int8) && !transposedB;
  if (problem.transposeConstantB && !launchesPassConstant(function, 1))
    return refuse("a tf32 or i8 B computed at run time (read K-major only as a constant)");
  return problem;
}

std::string kiln::describeGemmShapeRefusal(const GemmProblem &problem, bool threadLoads) {
  int64_t rowAlignment = problem.operand.isInteger(8) ? 16 : 8;
  bool half = problem.operand.isF16() || problem.operand.isBF16();
  if (threadLoads && half) {
    if (problem.kMajorB && problem.k % 8)
      return "a K-major B of rows of K = " + std::to_string(problem.k) +
             ", not a multiple of 8 (its tensor map needs 16-byte rows)";
  } else if (problem.n % 8 || problem.k % rowAlignment)
    return "N = " + std::to_string(problem.n) + " and K = " + std::to_string(problem.k) +
           ": the templates read and write 16-byte rows (N a multiple of 8, K of " +
           std::to_string(rowAlignment) + ")";
  return "no configuration fits " + std::to_string(problem.m) + "x" + std::to_string(problem.n) +
         "x" + std::to_string(problem.k);
}

namespace {

/// The largest KH*KW*C an explicit im2col serves: its scratch buffer has N*OH*OW rows of
/// that many elements (a 7x7 RGB stem has 147).
constexpr int64_t kMaxExplicitIm2colK = 512;

} // namespace

std::optional<kiln::ConvGemmProblem> kiln::matchConvKernel(kernel::FuncOp function, bool allowTf32,
                                                           int64_t tapAlignment, bool runTimeBatch,
                                                           GemmRows rows, std::string *why) {
  auto refuse = [&](const std::string &reason) -> std::optional<ConvGemmProblem> {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  auto conv = kiln::getTemplateOp<kernel::ConvOp>(function);
  if (!conv)
    return refuse("not a convolution kernel");
  Block &body = conv.getBody().front();
  // The convolution, after the inlined constants its epilogue may read.
  auto convs = body.getOps<graph::ConvOp>();
  if (!llvm::hasSingleElement(convs))
    return refuse("the kernel holds several convolutions");
  graph::ConvOp op = *convs.begin();
  if (!op.getChannelsLast() || op.getInput() != body.getArgument(0) ||
      op.getWeight() != body.getArgument(1))
    return refuse(!op.getChannelsLast()
                      ? "channels first (the implicit-GEMM templates read NHWC: --channels-last)"
                      : "the input or the weight is computed in the kernel (a prologue)");
  int64_t spatialRank = op.getStrides().size();
  if (spatialRank != 2 && spatialRank != 3)
    return refuse("not 2-D or 3-D (graph-convolutions-to-2d makes 1-D ones 2-D)");
  // TMA takes every stride-th element of a box: at most 8.
  if (llvm::any_of(op.getStrides(), [](int64_t s) { return s < 1 || s > 8; }))
    return refuse("a stride above 8");

  std::optional<BatchBuffers> buffers = getBatchBuffers(function, rows.profile);
  if (!buffers || (buffers->dynamic && !runTimeBatch))
    return refuse("extents known at run time only, other than the batch");
  SmallVector<MemRefType> &types = buffers->types;
  MemRefType outputType = types.back();
  int64_t rank = spatialRank + 2;
  if (types[0].getRank() != rank || types[1].getRank() != rank || outputType.getRank() != rank)
    return refuse("buffers of another rank than the convolution's");
  // graph.conv's bias (one value per output channel) and the elementwise ops after it,
  // of the output's declared shape (a run-time batch's too).
  std::optional<kiln::Sm90Epilogue> epilogue = kiln::matchSm90Epilogue(
      op, op.getBias(), cast<MemRefType>(function.getArgumentTypes().back()));
  if (!epilogue)
    return refuse("an epilogue the templates cannot apply (" + describeOpsAfter(op) + ")");
  ConvGemmProblem p;
  p.dynamicBatch = buffers->dynamic;
  p.maxBatch = buffers->maxBatch;
  p.tapAlignment = tapAlignment;
  p.epilogue = std::move(*epilogue);
  // 2-D buffers are [N, H, W, C], [O, KH, KW, C/g], [N, OH, OW, O]; 3-D ones have a depth
  // before the height: read as 2-D past it.
  ArrayRef<int64_t> x = types[0].getShape(), w = types[1].getShape(), y = outputType.getShape();
  ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(), pads = op.getPads();
  p.spatialRank = spatialRank;
  if (spatialRank == 3) {
    p.depth = x[1], p.outDepth = y[1], p.kernelDepth = w[1];
    p.strideD = strides[0], p.dilationD = dilations[0], p.padFront = pads[0];
    x = x.drop_front(), w = w.drop_front(), y = y.drop_front();
    strides = strides.drop_front(), dilations = dilations.drop_front();
    pads = pads.drop_front();
  }
  p.batch = types[0].getDimSize(0), p.height = x[1], p.width = x[2], p.channels = x[3];
  int64_t groups = op.getGroup();
  p.outChannels = types[1].getDimSize(0), p.kernelHeight = w[1], p.kernelWidth = w[2];
  p.outHeight = y[1], p.outWidth = y[2];
  p.strideH = strides[0], p.strideW = strides[1];
  p.dilationH = dilations[0], p.dilationW = dilations[1];
  p.padTop = pads[0], p.padLeft = pads[1];
  p.operand = types[0].getElementType();
  p.result = outputType.getElementType();
  // graph.conv keeps its float operands' type, and an epilogue may cast the f32 sums to
  // another float type. An i8 convolution's i32 sums are only stored through an epilogue
  // (its rescale to floats, then maybe a requantization to i8): the template computes in
  // f32 from the accumulators, which hold the sums exactly up to 2^24.
  Type productType = op.getResult().getType().getElementType();
  bool floatOperands = p.operand.isF16() || p.operand.isBF16() || (allowTf32 && p.operand.isF32());
  bool int8 =
      p.operand.isSignlessInteger(8) && productType.isSignlessInteger(32) && !p.epilogue.empty();
  if (w[3] * groups != p.channels || p.outChannels % groups ||
      outputType.getDimSize(0) != p.batch || y[3] != p.outChannels ||
      types[1].getElementType() != p.operand || !(floatOperands || int8) ||
      (floatOperands && productType != p.operand) ||
      !(p.result.isF16() || p.result.isBF16() || p.result.isF32() ||
        (!p.epilogue.empty() && p.result.isSignlessInteger(8))) ||
      (p.epilogue.empty() && p.result != p.operand))
    return refuse(p.operand.isF32() && !allowTf32
                      ? "f32 operands (the tensor cores take f16, bf16, i8, and f32 as tf32 "
                        "with --tf32)"
                      : "operand or result types the templates do not take");
  // A bucket's bound on C's rows bounds the batch.
  if (p.dynamicBatch && rows.maxRows > 0)
    p.maxBatch = std::max<int64_t>(p.batch, rows.maxRows / p.outPositions());
  // 16-byte row strides: of B always, of the NHWC input to read it implicitly.
  if (p.outChannels % 8)
    return refuse(std::to_string(p.outChannels) +
                  " output channels, not a multiple of 8 (16-byte rows of the weight)");
  if (groups > 1) {
    // The template's groups are consecutive runs of the convolution's, packed so that
    // a tile's 64 columns (or a multiple) lie in one of them: their filters are
    // block-diagonal (zeros between the packed groups' channels). With too few groups
    // for that, one run of all: a dense convolution of block-diagonal filters.
    int64_t groupChannels = w[3], groupFilters = p.outChannels / groups;
    if (groupChannels == 1)
      return refuse("groups (" + std::to_string(groups) +
                    ") of one input channel: depthwise, the depthwise templates' form");
    // Each group's channels are read as a 16-byte aligned run of the input's rows.
    p.packedGroups = groups;
    for (int64_t packed = 1; packed < groups; ++packed)
      if (groups % packed == 0 && (packed * groupFilters) % 64 == 0 &&
          (packed * groupChannels) % p.channelAlignment() == 0) {
        p.packedGroups = packed;
        break;
      }
    p.group = groups / p.packedGroups;
    p.channels = p.packedGroups * groupChannels;
  }
  if (p.group == 1 && p.taps() == 1 && p.strideD == 1 && p.strideH == 1 && p.strideW == 1 &&
      p.padFront == 0 && p.padTop == 0 && p.padLeft == 0 && p.outDepth == p.depth &&
      p.outHeight == p.height && p.outWidth == p.width && p.channels % p.channelAlignment() == 0)
    p.a = ConvGemmProblem::A::Input;
  if (p.spatialRank == 3 && (p.group > 1 || p.channels % p.channelAlignment()))
    return refuse(p.group > 1 ? "3-D and grouped (graph-convolutions-to-2d splits these)"
                              : "3-D with " + std::to_string(p.channels) +
                                    " input channels, not a multiple of 16 bytes "
                                    "(graph-convolutions-to-2d splits these)");
  if (p.channels % p.channelAlignment()) {
    p.a = ConvGemmProblem::A::Im2col;
    // The im2col kernel indexes the input and counts its chunks in 32 bits.
    if (p.taps() * p.channels > kMaxExplicitIm2colK || p.maxInputElements() >= (int64_t(1) << 31) ||
        p.maxGemmM() * p.gemmK() / 8 >= (int64_t(1) << 31))
      return refuse(std::to_string(p.channels) +
                    " input channels, not a multiple of 8, with a filter too large for the "
                    "explicit im2col");
  }
  return p;
}

std::string kiln::convWindowName(const ConvGemmProblem &p) {
  if (p.spatialRank == 3) {
    std::string name = llvm::formatv("s{0}x{1}x{2}", p.strideD, p.strideH, p.strideW).str();
    if (p.dilationD != 1 || p.dilationH != 1 || p.dilationW != 1)
      name += llvm::formatv("d{0}x{1}x{2}", p.dilationD, p.dilationH, p.dilationW).str();
    return name + llvm::formatv("p{0}x{1}x{2}", p.padFront, p.padTop, p.padLeft).str();
  }
  std::string strides = p.strideH == p.strideW
                            ? std::to_string(p.strideH)
                            : std::to_string(p.strideH) + "x" + std::to_string(p.strideW);
  std::string dilations =
      p.dilationH == 1 && p.dilationW == 1
          ? std::string()
          : "d" + std::to_string(p.dilationH) + "x" + std::to_string(p.dilationW);
  std::string groups = p.group == 1 && p.packedGroups == 1
                           ? std::string()
                           : "g" + std::to_string(p.group) + "x" + std::to_string(p.packedGroups);
  return "s" + strides + dilations + "p" + std::to_string(p.padTop) + "x" +
         std::to_string(p.padLeft) + groups;
}

FailureOr<memref::GlobalOp> kiln::permutedConvWeight(SymbolTable &symbols, Value weight,
                                                     const ConvGemmProblem &p) {
  std::vector<char> splat;
  auto constant = constantGlobalBytes(weight, splat);
  if (!constant)
    return failure(); // a weight computed at run time: the generic lowering
  auto [global, bytes] = *constant;
  int64_t taps = p.taps(), o = p.outChannels, c = p.channels, rowsPerTap = p.rowsPerTap();
  int64_t k = p.gemmK();
  // The convolution's groups: each filter reads `groupChannels` of the channels.
  int64_t groupChannels = c / p.packedGroups;
  int64_t groupFilters = p.groupOutChannels() / p.packedGroups;
  size_t element = p.operand.getIntOrFloatBitWidth() / 8;
  if (bytes.size() != size_t(o * taps * groupChannels) * element)
    return failure();
  bool kMajor = p.kMajorB();
  auto type = kMajor ? MemRefType::get({o, k}, p.operand) : MemRefType::get({k, o}, p.operand);
  // Templates that pad the taps differently make matrices of other heights: those get the
  // height in their name.
  std::string name = (global.getSymName() + (kMajor ? "_oxk" : "_kxo")).str();
  if (auto existing = symbols.lookup<memref::GlobalOp>(name);
      existing && existing.getType() != type)
    name += "_k" + std::to_string(k);
  std::vector<char> permuted(size_t(k * o) * element, 0);
  // Column oc (its template group's filter oc % groupOutChannels) reads the channels of its
  // own packed group: zero elsewhere (block-diagonal).
  for (int64_t oc = 0; oc < o; ++oc) {
    int64_t packed = (oc % p.groupOutChannels()) / groupFilters;
    for (int64_t tap = 0; tap < taps; ++tap)
      for (int64_t ic = 0; ic < groupChannels; ++ic) {
        int64_t row = tap * rowsPerTap + packed * groupChannels + ic;
        std::memcpy(&permuted[(kMajor ? oc * k + row : row * o + oc) * element],
                    &bytes[((oc * taps + tap) * groupChannels + ic) * element], element);
      }
  }
  return getOrCreateConstantGlobal(symbols, global, name, type, permuted);
}

namespace {

/// The rows of C of `function` at `profile`'s shape, when known at run time only: a
/// GEMM's M, or an sm_90a convolution's N*OH*OW of a run-time batch.
std::optional<int64_t> runTimeRowsAt(kiln::kernel::FuncOp function, bool allowTf32,
                                     StringRef profile) {
  kiln::GemmRows at{profile};
  if (std::optional<kiln::GemmProblem> gemm = kiln::matchGemmKernel(function, allowTf32, at))
    return gemm->dynamicM ? std::optional<int64_t>(gemm->m) : std::nullopt;
  if (std::optional<kiln::ConvGemmProblem> conv =
          kiln::matchConvKernel(function, allowTf32, /*tapAlignment=*/0, /*runTimeBatch=*/true, at))
    return conv->dynamicBatch ? std::optional<int64_t>(conv->gemmM()) : std::nullopt;
  return std::nullopt;
}

/// The geometric mean of two row counts: the bound between two buckets.
int64_t rowsBetween(int64_t fewer, int64_t more) {
  return static_cast<int64_t>(std::sqrt(double(fewer) * double(more)));
}

} // namespace

std::optional<kiln::GemmRows> kiln::smallRowsBucket(kernel::FuncOp function, bool allowTf32) {
  std::optional<int64_t> atOpt = runTimeRowsAt(function, allowTf32, kiln::kernel::kOptShapeAttr);
  std::optional<int64_t> atMin =
      atOpt ? runTimeRowsAt(function, allowTf32, kiln::kernel::kMinShapeAttr) : std::nullopt;
  if (!atMin || *atMin <= 0 || 4 * *atMin > *atOpt)
    return std::nullopt;
  return GemmRows{kiln::kernel::kMinShapeAttr, rowsBetween(*atMin, *atOpt)};
}

std::optional<kiln::GemmRows> kiln::largeRowsBucket(kernel::FuncOp function, bool allowTf32) {
  std::optional<int64_t> atOpt = runTimeRowsAt(function, allowTf32, kiln::kernel::kOptShapeAttr);
  std::optional<int64_t> atMax =
      atOpt ? runTimeRowsAt(function, allowTf32, kiln::kernel::kMaxShapeAttr) : std::nullopt;
  if (!atMax || *atOpt <= 0 || *atMax < 4 * *atOpt)
    return std::nullopt;
  return GemmRows{kiln::kernel::kMaxShapeAttr, 0, rowsBetween(*atOpt, *atMax)};
}
