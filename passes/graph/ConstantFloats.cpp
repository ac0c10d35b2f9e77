//===- ConstantFloats.cpp - Float constants as doubles --------------------===//

#include "passes/graph/ConstantFloats.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>
#include <vector>

using namespace mlir;

std::optional<SmallVector<double>> kiln::graph::readConstantFloats(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  ElementsAttr attr = constant.getValue();
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  auto floatType = dyn_cast<FloatType>(type.getElementType());
  if (!floatType)
    return std::nullopt;
  auto toDouble = [](APFloat number) {
    bool lost = false;
    number.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return number.convertToDouble();
  };
  SmallVector<double> values;
  values.reserve(type.getNumElements());
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    for (const APFloat &number : dense.getValues<APFloat>())
      values.push_back(toDouble(number));
    return values;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource)
    return std::nullopt;
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  unsigned width = floatType.getWidth();
  if (!blob || width % 8 != 0 || width > 64)
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  size_t bytes = width / 8;
  if (data.size() != bytes * type.getNumElements())
    return std::nullopt;
  for (size_t offset = 0; offset < data.size(); offset += bytes) {
    uint64_t bits = 0;
    std::memcpy(&bits, data.data() + offset, bytes); // little-endian, as the importer stores
    values.push_back(toDouble(APFloat(floatType.getFloatSemantics(), APInt(width, bits))));
  }
  return values;
}

double kiln::graph::roundToFloatType(double value, FloatType type) {
  APFloat number(value);
  bool lost = false;
  number.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  number.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return number.convertToDouble();
}

Value kiln::graph::createFloatConstant(OpBuilder &builder, Location loc, RankedTensorType type,
                                       ArrayRef<double> values, StringRef blobName) {
  auto floatType = cast<FloatType>(type.getElementType());
  unsigned bytes = floatType.getWidth() / 8;
  std::vector<char> data(values.size() * bytes);
  for (auto [index, value] : llvm::enumerate(values)) {
    APFloat number(value);
    bool lost = false;
    number.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    uint64_t bits = number.bitcastToAPInt().getZExtValue();
    std::memcpy(data.data() + index * bytes, &bits, bytes);
  }
  ElementsAttr attr;
  if (values.size() <= 16)
    attr = DenseElementsAttr::getFromRawBuffer(type, data);
  else
    attr = DenseResourceElementsAttr::get(
        type, blobName, HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(data), bytes));
  return ConstantOp::create(builder, loc, attr);
}
