//===- ConvAttributes.cpp - ONNX's convolution attributes, normalised ----===//

#include "lib/onnx/ConvAttributes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::onnx {

FailureOr<SmallVector<int64_t>> resolveAutoPad(NodeImporter &node, llvm::StringRef autoPad,
                                               ArrayRef<int64_t> inputSpatial,
                                               ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                                               ArrayRef<int64_t> dilations) {
  size_t rank = kernel.size();
  SmallVector<int64_t> pads(2 * rank, 0);
  if (autoPad == "VALID")
    return pads;
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return LogicalResult(node.error() << "unknown auto_pad '" << autoPad << "'");
  for (size_t i = 0; i < rank; ++i) {
    if (i >= inputSpatial.size() || ShapedType::isDynamic(inputSpatial[i]) ||
        ShapedType::isDynamic(kernel[i]))
      return LogicalResult(node.error() << "auto_pad " << autoPad
                                        << " needs static spatial input extents and kernel");
    int64_t in = inputSpatial[i];
    int64_t out = (in + strides[i] - 1) / strides[i];
    int64_t window = (kernel[i] - 1) * dilations[i] + 1;
    int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + window - in);
    int64_t small = total / 2, large = total - small;
    // SAME_UPPER puts the extra padding at the end, SAME_LOWER at the beginning.
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[i + rank] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

FailureOr<SmallVector<NamedAttribute>> convAttributes(NodeImporter &node, Value input,
                                                      Value weight) {
  auto weightType = dyn_cast<RankedTensorType>(weight.getType());
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto kernelShape = node.intsAttr("kernel_shape");
  auto strides = node.intsAttr("strides");
  auto dilations = node.intsAttr("dilations");
  auto pads = node.intsAttr("pads");
  auto group = node.intAttr("group", 1);
  auto autoPad = node.stringAttr("auto_pad", "NOTSET");
  if (failed(kernelShape) || failed(strides) || failed(dilations) || failed(pads) ||
      failed(group) || failed(autoPad))
    return failure();
  if (*group < 1)
    return LogicalResult(node.error() << "attribute 'group' must be positive, got " << *group);

  SmallVector<int64_t> kernel;
  if (*kernelShape)
    kernel = **kernelShape;
  else if (weightType && weightType.getRank() >= 3)
    kernel.assign(weightType.getShape().drop_front(2).begin(), weightType.getShape().end());
  else
    return LogicalResult(node.error() << "needs kernel_shape or a weight of known rank");
  size_t rank = kernel.size();
  if (weightType && size_t(weightType.getRank()) != rank + 2)
    return LogicalResult(node.error() << "kernel_shape has " << rank
                                      << " extents for a weight of rank " << weightType.getRank());

  SmallVector<int64_t> stridesValue = strides->value_or(SmallVector<int64_t>(rank, 1));
  SmallVector<int64_t> dilationsValue = dilations->value_or(SmallVector<int64_t>(rank, 1));
  if (stridesValue.size() != rank || dilationsValue.size() != rank)
    return LogicalResult(node.error() << "strides and dilations need " << rank << " extents");
  SmallVector<int64_t> padsValue;
  if (*autoPad == "NOTSET") {
    padsValue = pads->value_or(SmallVector<int64_t>(2 * rank, 0));
  } else {
    if (*pads)
      return LogicalResult(node.error()
                           << "pads and auto_pad " << *autoPad << " are mutually exclusive");
    SmallVector<int64_t> inputSpatial;
    if (inputType)
      inputSpatial.assign(inputType.getShape().drop_front(2).begin(), inputType.getShape().end());
    auto resolved =
        resolveAutoPad(node, *autoPad, inputSpatial, kernel, stridesValue, dilationsValue);
    if (failed(resolved))
      return failure();
    padsValue = *resolved;
  }

  OpBuilder &b = node.builder();
  return SmallVector<NamedAttribute>{
      b.getNamedAttr("strides", b.getDenseI64ArrayAttr(stridesValue)),
      b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dilationsValue)),
      b.getNamedAttr("pads", b.getDenseI64ArrayAttr(padsValue)),
      b.getNamedAttr("group", b.getI64IntegerAttr(*group))};
}

} // namespace kiln::onnx
