//===- ConvAttributes.h - ONNX's convolution attributes, normalised -*- C++ -*-===//
//
// Convolutions and pools (Conv, ConvTranspose, the pools, QLinearConv, ConvInteger) take
// ONNX's `auto_pad`; the graph ops take explicit pads, computed here at import.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_ONNX_CONVATTRIBUTES_H
#define KILN_LIB_ONNX_CONVATTRIBUTES_H

#include "lib/onnx/NodeImporter.h"

namespace kiln::onnx {

/// The attributes of a convolution node (kernel_shape, strides, dilations, pads,
/// auto_pad, group, with ONNX's defaults) as graph.conv's strides, dilations, pads and
/// group; shared by Conv, QLinearConv and ConvInteger.
mlir::FailureOr<llvm::SmallVector<mlir::NamedAttribute>>
convAttributes(NodeImporter &node, mlir::Value input, mlir::Value weight);

/// Explicit pads (all beginnings, then all ends) for `autoPad` (VALID, SAME_UPPER or
/// SAME_LOWER) over the input's spatial extents and the window (kernel, strides,
/// dilations). SAME_* needs static input extents; problems are reported on `node`.
mlir::FailureOr<llvm::SmallVector<int64_t>>
resolveAutoPad(NodeImporter &node, llvm::StringRef autoPad, llvm::ArrayRef<int64_t> inputSpatial,
               llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
               llvm::ArrayRef<int64_t> dilations);

} // namespace kiln::onnx

#endif // KILN_LIB_ONNX_CONVATTRIBUTES_H
