//===- GemmMatch.cpp - The GEMMs of matmul and convolution kernels --------===//

#include "passes/kernel/GemmMatch.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;
namespace graph = kiln::graph;

std::optional<kiln::GemmProblem> kiln::matchGemmKernel(kernel::FuncOp function) {
  auto matmul = getTemplateOp<kernel::MatmulOp>(function);
  if (!matmul)
    return std::nullopt;
  Block &entry = function.getBody().front();
  Block &body = matmul.getBody().front();
  // The product, after the inlined constants its epilogue may read.
  auto products = body.getOps<graph::MatMulOp>();
  if (!llvm::hasSingleElement(products))
    return std::nullopt;
  graph::MatMulOp product = *products.begin();
  if (product.getLhs() != body.getArgument(0) || product.getRhs() != body.getArgument(1))
    return std::nullopt;

  SmallVector<MemRefType> types;
  for (BlockArgument argument : entry.getArguments()) {
    auto type = dyn_cast<MemRefType>(argument.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return std::nullopt;
    types.push_back(type);
  }
  MemRefType aType = types[0], bType = types[1], cType = types.back();
  if (aType.getRank() != 2 || bType.getRank() != 2 || cType.getRank() != 2)
    return std::nullopt;
  // The elementwise ops after the product (bias, activation, residual, scale, cast).
  std::optional<Sm90Epilogue> epilogue = matchSm90Epilogue(product, Value(), cType);
  if (!epilogue)
    return std::nullopt;
  GemmProblem problem;
  problem.m = aType.getDimSize(0);
  problem.k = aType.getDimSize(1);
  problem.n = bType.getDimSize(1);
  problem.operand = aType.getElementType();
  problem.result = cType.getElementType();
  problem.epilogue = std::move(*epilogue);
  if (bType.getDimSize(0) != problem.k || cType.getDimSize(0) != problem.m ||
      cType.getDimSize(1) != problem.n)
    return std::nullopt;
  // graph.matmul keeps its operands' type; an epilogue may cast the f32 sums to another
  // float type.
  Type productType = product.getResult().getType().getElementType();
  if (bType.getElementType() != problem.operand ||
      !(problem.operand.isF16() || problem.operand.isBF16()) || productType != problem.operand ||
      !(problem.result.isF16() || problem.result.isBF16() || problem.result.isF32()))
    return std::nullopt;
  if (problem.epilogue.empty() && problem.result != problem.operand)
    return std::nullopt;
  return problem;
}

namespace {

/// The largest KH*KW*C an explicit im2col serves: its scratch buffer has N*OH*OW rows of
/// that many elements (a 7x7 RGB stem has 147).
constexpr int64_t kMaxExplicitIm2colK = 512;

/// The constant global `value` reads (`memref.get_global` of a constant with an initial
/// value), if it does.
memref::GlobalOp constantGlobal(Value value) {
  auto get = value.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return nullptr;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(get, get.getNameAttr());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return nullptr;
  return global;
}

/// The constant initial bytes of the weight `value` reads, when it is a memref.global
/// (`storage` holds them for a splat).
std::optional<std::pair<memref::GlobalOp, ArrayRef<char>>>
constantWeight(Value value, std::vector<char> &storage) {
  memref::GlobalOp global = constantGlobal(value);
  if (!global)
    return std::nullopt;
  Attribute init = *global.getInitialValue();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return std::make_pair(global, blob->getData());
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    if (!dense.isSplat())
      return std::make_pair(global, dense.getRawData());
    ArrayRef<char> one = dense.getRawData();
    for (int64_t i = 0; i < dense.getNumElements(); ++i)
      storage.insert(storage.end(), one.begin(), one.end());
    return std::make_pair(global, ArrayRef<char>(storage));
  }
  return std::nullopt;
}

} // namespace

std::optional<kiln::ConvGemmProblem> kiln::matchConvKernel(kernel::FuncOp function,
                                                           int64_t tapAlignment) {
  auto conv = kiln::getTemplateOp<kernel::ConvOp>(function);
  if (!conv)
    return std::nullopt;
  Block &entry = function.getBody().front();
  Block &body = conv.getBody().front();
  // The convolution, after the inlined constants its epilogue may read.
  auto convs = body.getOps<graph::ConvOp>();
  if (!llvm::hasSingleElement(convs))
    return std::nullopt;
  graph::ConvOp op = *convs.begin();
  if (!op.getChannelsLast() || op.getInput() != body.getArgument(0) ||
      op.getWeight() != body.getArgument(1))
    return std::nullopt;
  if (op.getGroup() != 1 || op.getStrides().size() != 2 ||
      llvm::any_of(op.getDilations(), [](int64_t d) { return d != 1; }) ||
      op.getStrides()[0] != op.getStrides()[1] || op.getStrides()[0] > 8)
    return std::nullopt;

  SmallVector<MemRefType> types;
  for (BlockArgument argument : entry.getArguments()) {
    auto type = dyn_cast<MemRefType>(argument.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return std::nullopt;
    types.push_back(type);
  }
  MemRefType outputType = types.back();
  if (types[0].getRank() != 4 || types[1].getRank() != 4 || outputType.getRank() != 4)
    return std::nullopt;
  // graph.conv's bias (one value per output channel) and the elementwise ops after it.
  std::optional<kiln::Sm90Epilogue> epilogue =
      kiln::matchSm90Epilogue(op, op.getBias(), outputType);
  if (!epilogue)
    return std::nullopt;
  ConvGemmProblem p;
  p.tapAlignment = tapAlignment;
  p.epilogue = std::move(*epilogue);
  ArrayRef<int64_t> x = types[0].getShape(), w = types[1].getShape(), y = outputType.getShape();
  p.batch = x[0], p.height = x[1], p.width = x[2], p.channels = x[3];
  p.outChannels = w[0], p.kernelHeight = w[1], p.kernelWidth = w[2];
  p.outHeight = y[1], p.outWidth = y[2];
  p.stride = op.getStrides()[0];
  p.padTop = op.getPads()[0], p.padLeft = op.getPads()[1];
  p.operand = types[0].getElementType();
  p.result = outputType.getElementType();
  // graph.conv keeps its operands' type; an epilogue may cast the f32 sums to another
  // float type.
  if (w[3] != p.channels || y[0] != p.batch || y[3] != p.outChannels ||
      types[1].getElementType() != p.operand || !(p.operand.isF16() || p.operand.isBF16()) ||
      op.getResult().getType().getElementType() != p.operand ||
      !(p.result.isF16() || p.result.isBF16() || p.result.isF32()) ||
      (p.epilogue.empty() && p.result != p.operand))
    return std::nullopt;
  // 16-byte row strides: of B always, of the NHWC input to read it implicitly.
  if (p.outChannels % 8)
    return std::nullopt;
  if (p.kernelHeight == 1 && p.kernelWidth == 1 && p.stride == 1 && p.padTop == 0 &&
      p.padLeft == 0 && p.outHeight == p.height && p.outWidth == p.width && p.channels % 8 == 0)
    p.a = ConvGemmProblem::A::Input;
  if (p.channels % 8) {
    p.a = ConvGemmProblem::A::Im2col;
    // The im2col kernel indexes the input and counts its chunks in 32 bits.
    if (p.taps() * p.channels > kMaxExplicitIm2colK ||
        p.batch * p.height * p.width * p.channels >= (int64_t(1) << 31) ||
        p.gemmM() * p.gemmK() / 8 >= (int64_t(1) << 31))
      return std::nullopt;
  }
  return p;
}

bool kiln::launchedWithConstantWeights(kernel::FuncOp function) {
  auto module = function->getParentOfType<ModuleOp>();
  if (!module)
    return false;
  std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(function, module);
  if (!uses || uses->empty())
    return false;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto launch = dyn_cast<kernel::LaunchOp>(use.getUser());
    if (!launch || launch.getOperands().size() < 3 || !constantGlobal(launch.getOperands()[1]))
      return false;
  }
  return true;
}

FailureOr<memref::GlobalOp> kiln::permutedConvWeight(ModuleOp module, SymbolTable &symbols,
                                                     Value weight, const ConvGemmProblem &p) {
  std::vector<char> splat;
  auto constant = constantWeight(weight, splat);
  if (!constant)
    return failure(); // a weight computed at run time: the generic lowering
  auto [global, bytes] = *constant;
  int64_t taps = p.taps(), o = p.outChannels, c = p.channels, rowsPerTap = p.rowsPerTap();
  size_t element = p.operand.getIntOrFloatBitWidth() / 8;
  if (bytes.size() != size_t(o * taps * c) * element)
    return failure();
  auto type = MemRefType::get({p.gemmK(), o}, p.operand);
  // Templates that pad the taps differently make matrices of other heights: those get the
  // height in their name.
  std::string name = (global.getSymName() + "_kxo").str();
  if (auto existing = symbols.lookup<memref::GlobalOp>(name)) {
    if (existing.getType() == type)
      return existing;
    name += "_k" + std::to_string(p.gemmK());
    if (auto sized = symbols.lookup<memref::GlobalOp>(name))
      return sized;
  }
  std::vector<char> permuted(size_t(p.gemmK() * o) * element, 0);
  for (int64_t oc = 0; oc < o; ++oc)
    for (int64_t tap = 0; tap < taps; ++tap)
      for (int64_t ic = 0; ic < c; ++ic)
        std::memcpy(&permuted[((tap * rowsPerTap + ic) * o + oc) * element],
                    &bytes[((oc * taps + tap) * c + ic) * element], element);
  auto tensorType = RankedTensorType::get(type.getShape(), p.operand);
  auto init = DenseResourceElementsAttr::get(
      tensorType, name, HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<char>(permuted)));
  OpBuilder b(global);
  auto permutedGlobal =
      memref::GlobalOp::create(b, global.getLoc(), name, b.getStringAttr("private"), type, init,
                               /*constant=*/true, /*alignment=*/IntegerAttr());
  symbols.insert(permutedGlobal);
  return permutedGlobal;
}
