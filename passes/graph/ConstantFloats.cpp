//===- ConstantFloats.cpp - Float constants as doubles --------------------===//

#include "passes/graph/ConstantFloats.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace mlir;
using kiln::graph::FloatRounding;

namespace {
/// The binary exponent of a finite, non-zero, normal double.
int exponentOf(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return int((bits >> 52) & 0x7ff) - 1023;
}

/// 2^exponent, for exponents of normal doubles.
double powerOfTwo(int exponent) {
  uint64_t bits = uint64_t(exponent + 1023) << 52;
  double value = 0;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// The bits of `value`, a finite f16, bf16 or f32 value (already rounded to the type).
uint64_t encode(FloatType type, double value) {
  float single = float(value);
  uint32_t word = 0;
  std::memcpy(&word, &single, sizeof(word));
  if (type.isF32())
    return word;
  if (type.isBF16())
    return word >> 16;
  uint64_t sign = (word >> 16) & 0x8000;
  int exponent = int((word >> 23) & 0xff) - 127;
  if (single == 0)
    return sign;
  if (exponent < -14) // subnormal: multiples of 2^-24
    return sign | uint64_t(std::abs(value) * 16777216.0);
  return sign | (uint64_t(exponent + 15) << 10) | ((word & 0x7fffff) >> 13);
}

/// The value of the bits of an f16, bf16 or f32 element.
double decode(FloatType type, uint64_t bits) {
  if (type.isF32() || type.isBF16()) {
    uint32_t word = type.isF32() ? uint32_t(bits) : uint32_t(bits) << 16;
    float single = 0;
    std::memcpy(&single, &word, sizeof(single));
    return single;
  }
  double sign = bits & 0x8000 ? -1.0 : 1.0;
  int exponent = int(bits >> 10) & 0x1f;
  double mantissa = double(bits & 0x3ff);
  if (exponent == 0)
    return sign * mantissa * powerOfTwo(-24);
  if (exponent == 31)
    return mantissa == 0 ? sign * HUGE_VAL : std::nan("");
  return sign * (1024.0 + mantissa) * powerOfTwo(exponent - 25);
}

bool isBinaryFormat(FloatType type) { return type.isF16() || type.isBF16() || type.isF32(); }
} // namespace

FloatRounding::FloatRounding(FloatType type) : type(type) {
  if (type.isF16())
    precision = 11, minExponent = -14, maxExponent = 15;
  else if (type.isBF16())
    precision = 8, minExponent = -126, maxExponent = 127;
  else if (type.isF32())
    precision = 24, minExponent = -126, maxExponent = 127;
}

double FloatRounding::quantum(int exponent) const {
  return powerOfTwo(std::max(exponent, minExponent) - (precision - 1));
}

bool FloatRounding::exact(double value) const {
  if (precision == 0 || !std::isfinite(value) || value == 0)
    return false;
  int exponent = exponentOf(value);
  return exponent > -1023 && exponent <= maxExponent;
}

double FloatRounding::round(double value) const {
  if (exact(value)) {
    double step = quantum(exponentOf(value));
    return std::nearbyint(value / step) * step;
  }
  APFloat number(value);
  bool lost = false;
  number.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  number.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return number.convertToDouble();
}

double FloatRounding::next(double value, bool down) const {
  if (exact(value)) {
    // Away from zero the spacing is the value's own; towards zero it halves below a power
    // of two (above the subnormals).
    int exponent = exponentOf(value);
    bool towardZero = (value > 0) == down;
    bool power = std::abs(value) == powerOfTwo(exponent);
    double step = quantum(towardZero && power ? exponent - 1 : exponent);
    return down ? value - step : value + step;
  }
  APFloat number(value);
  bool lost = false;
  number.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  number.next(down);
  number.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return number.convertToDouble();
}

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
  unsigned width = floatType.getWidth();
  size_t bytes = width / 8, count = type.getNumElements();
  SmallVector<double> values;
  values.reserve(count);
  // The elements' bits as stored (little-endian, as the importer stores), or one splat
  // element's.
  auto decodeAll = [&](ArrayRef<char> data) {
    bool fast = isBinaryFormat(floatType);
    for (size_t index = 0; index < count; ++index) {
      uint64_t bits = 0;
      std::memcpy(&bits, data.data() + (data.size() == bytes ? 0 : index * bytes), bytes);
      if (fast) {
        values.push_back(decode(floatType, bits));
        continue;
      }
      APFloat number(floatType.getFloatSemantics(), APInt(width, bits));
      bool lost = false;
      number.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(number.convertToDouble());
    }
  };
  if (width % 8 != 0 || width > 64)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    ArrayRef<char> raw = dense.getRawData();
    if (raw.size() != bytes * count && raw.size() != bytes)
      return std::nullopt;
    decodeAll(raw);
    return values;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob = resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob || blob->getData().size() != bytes * count)
    return std::nullopt;
  decodeAll(blob->getData());
  return values;
}

Value kiln::graph::createFloatConstant(OpBuilder &builder, Location loc, RankedTensorType type,
                                       ArrayRef<double> values, StringRef blobName) {
  auto floatType = cast<FloatType>(type.getElementType());
  FloatRounding rounding(floatType);
  unsigned bytes = floatType.getWidth() / 8;
  double largest = isBinaryFormat(floatType)
                       ? APFloat::getLargest(floatType.getFloatSemantics()).convertToDouble()
                       : 0;
  std::vector<char> data(values.size() * bytes);
  for (auto [index, value] : llvm::enumerate(values)) {
    double rounded = rounding.round(value);
    uint64_t bits = 0;
    if (std::abs(rounded) <= largest) {
      bits = encode(floatType, rounded);
    } else {
      APFloat number(value);
      bool lost = false;
      number.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      bits = number.bitcastToAPInt().getZExtValue();
    }
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
