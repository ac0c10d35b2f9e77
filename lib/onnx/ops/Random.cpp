//===- Random.cpp - Converters for random number generation ===//

#include "lib/onnx/NodeImporter.h"
#include "lib/onnx/Tensors.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::onnx {

/// The element type that the `dtype` attribute names, or `defaultType` when it is absent.
static FailureOr<Type> dtypeAttr(NodeImporter &node, Type defaultType) {
  auto code = node.intAttr("dtype");
  if (failed(code))
    return failure();
  if (!*code)
    return defaultType;
  auto type = elementType(*node.context(), int(**code));
  if (!type)
    return LogicalResult(node.error() << "unsupported dtype " << dataTypeName(int(**code)) << ": "
                                      << llvm::toString(type.takeError()));
  return *type;
}

/// Appends `seed` to `attributes` when the node has one; without it the op stays
/// nondeterministic.
static LogicalResult addSeed(NodeImporter &node, SmallVectorImpl<NamedAttribute> &attributes) {
  auto seed = node.floatAttr("seed");
  if (failed(seed))
    return failure();
  if (*seed) {
    OpBuilder &b = node.builder();
    attributes.push_back(b.getNamedAttr("seed", b.getF32FloatAttr(**seed)));
  }
  return success();
}

/// RandomUniform and RandomNormal (and their Like forms): the two float parameters of the
/// distribution, named `first` and `second`, with their ONNX defaults.
template <typename OpTy, bool Like>
static LogicalResult convertContinuous(NodeImporter &node, StringRef first, float firstDefault,
                                       StringRef second, float secondDefault) {
  OpBuilder &b = node.builder();
  SmallVector<Value> operands;
  SmallVector<NamedAttribute> attributes;
  FailureOr<Type> dtype;
  if (Like) {
    auto input = node.requiredInput(0);
    if (failed(input))
      return failure();
    operands.push_back(*input);
    dtype = dtypeAttr(node, getElementTypeOrSelf(input->getType()));
  } else {
    auto shape = node.intsAttr("shape");
    if (failed(shape))
      return failure();
    if (!*shape)
      return node.error() << "attribute 'shape' is required";
    attributes.push_back(b.getNamedAttr("shape", b.getDenseI64ArrayAttr(**shape)));
    dtype = dtypeAttr(node, b.getF32Type());
  }
  auto firstValue = node.floatAttr(first, firstDefault);
  auto secondValue = node.floatAttr(second, secondDefault);
  if (failed(dtype) || failed(firstValue) || failed(secondValue) ||
      failed(addSeed(node, attributes)))
    return failure();
  attributes.push_back(b.getNamedAttr("dtype", TypeAttr::get(*dtype)));
  attributes.push_back(b.getNamedAttr(first, b.getF32FloatAttr(*firstValue)));
  attributes.push_back(b.getNamedAttr(second, b.getF32FloatAttr(*secondValue)));
  return node.setResults(node.create<OpTy>(operands, attributes));
}

static LogicalResult convertRandomUniform(NodeImporter &node) {
  return convertContinuous<graph::RandomUniformOp, false>(node, "low", 0.0f, "high", 1.0f);
}

static LogicalResult convertRandomNormal(NodeImporter &node) {
  return convertContinuous<graph::RandomNormalOp, false>(node, "mean", 0.0f, "scale", 1.0f);
}

static LogicalResult convertRandomUniformLike(NodeImporter &node) {
  return convertContinuous<graph::RandomUniformLikeOp, true>(node, "low", 0.0f, "high", 1.0f);
}

static LogicalResult convertRandomNormalLike(NodeImporter &node) {
  return convertContinuous<graph::RandomNormalLikeOp, true>(node, "mean", 0.0f, "scale", 1.0f);
}

static LogicalResult convertBernoulli(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  auto dtype = dtypeAttr(node, getElementTypeOrSelf(input->getType()));
  SmallVector<NamedAttribute> attributes;
  if (failed(dtype) || failed(addSeed(node, attributes)))
    return failure();
  attributes.push_back(node.builder().getNamedAttr("dtype", TypeAttr::get(*dtype)));
  return node.setResults(node.create<graph::BernoulliOp>({*input}, attributes));
}

static LogicalResult convertMultinomial(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto sampleSize = node.intAttr("sample_size", 1);
  if (failed(input) || failed(sampleSize))
    return failure();
  OpBuilder &b = node.builder();
  // ONNX's default dtype is INT32.
  auto dtype = dtypeAttr(node, b.getI32Type());
  SmallVector<NamedAttribute> attributes;
  if (failed(dtype) || failed(addSeed(node, attributes)))
    return failure();
  if (*sampleSize < 1)
    return node.error() << "sample_size must be positive, got " << *sampleSize;
  if (!dtype->isSignlessInteger(32) && !dtype->isSignlessInteger(64))
    return node.error() << "dtype must be INT32 or INT64, got " << *dtype;
  attributes.push_back(b.getNamedAttr("sample_size", b.getI64IntegerAttr(*sampleSize)));
  attributes.push_back(b.getNamedAttr("dtype", TypeAttr::get(*dtype)));
  return node.setResults(node.create<graph::MultinomialOp>({*input}, attributes));
}

void addRandomConverters(ConverterRegistry &registry) {
  registry.add("RandomUniform", convertRandomUniform);
  registry.add("RandomNormal", convertRandomNormal);
  registry.add("RandomUniformLike", convertRandomUniformLike);
  registry.add("RandomNormalLike", convertRandomNormalLike);
  registry.add("Bernoulli", convertBernoulli, 15);
  registry.add("Multinomial", convertMultinomial, 7);
}

} // namespace kiln::onnx
