//===- AutoPad.cpp - ONNX's auto_pad as explicit pads ---------------------===//

#include "lib/onnx/AutoPad.h"

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

} // namespace kiln::onnx
