//===- ShapeInference.cpp - Shape rules of graph ops ----------------------===//

#include "dialects/graph/ShapeInference.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace kiln::graph {

static bool isDynamic(int64_t extent) { return ShapedType::isDynamic(extent); }

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleave(
      shape, os,
      [&](int64_t extent) {
        if (isDynamic(extent))
          os << "?";
        else
          os << extent;
      },
      ", ");
  os << "]";
  return text;
}

static llvm::Error shapeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the innermost dimension; missing leading dimensions act as 1.
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a == 1) {
      result[i] = b;
    } else if (b == 1) {
      result[i] = a;
    } else if (isDynamic(a)) {
      // `?` against N > 1 can only be N (or 1, broadcast up to N).
      result[i] = b;
    } else if (isDynamic(b) || a == b) {
      result[i] = a;
    } else {
      return shapeError(
          llvm::formatv("shapes {0} and {1} do not broadcast", formatShape(lhs), formatShape(rhs)));
    }
  }
  return result;
}

llvm::Expected<int64_t> convOutputExtent(int64_t in, int64_t kernel, int64_t stride,
                                         int64_t dilation, int64_t padBegin, int64_t padEnd) {
  if (isDynamic(in) || isDynamic(kernel))
    return ShapedType::kDynamic;
  int64_t window = dilation * (kernel - 1) + 1;
  int64_t padded = in + padBegin + padEnd;
  if (padded < window)
    return shapeError(
        llvm::formatv("window of {0} (kernel {1}, dilation {2}) does not fit the padded extent {3}",
                      window, kernel, dilation, padded));
  return (padded - window) / stride + 1;
}

llvm::Expected<SmallVector<int64_t>> matmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  if (lhs.empty() || rhs.empty())
    return shapeError("matmul operands must have rank 1 or more");

  // A 1-D lhs is a row vector [1, K]; a 1-D rhs a column vector [K, 1].
  SmallVector<int64_t> a(lhs), b(rhs);
  if (a.size() == 1)
    a.insert(a.begin(), 1);
  if (b.size() == 1)
    b.push_back(1);

  int64_t lhsK = a.back(), rhsK = b[b.size() - 2];
  if (!isDynamic(lhsK) && !isDynamic(rhsK) && lhsK != rhsK)
    return shapeError(llvm::formatv("contracting dimensions differ: {0} in {1} against {2} in {3}",
                                    lhsK, formatShape(lhs), rhsK, formatShape(rhs)));

  auto batch = broadcastShapes(ArrayRef(a).drop_back(2), ArrayRef(b).drop_back(2));
  if (!batch)
    return shapeError("batch dimensions: " + llvm::toString(batch.takeError()));

  SmallVector<int64_t> result = std::move(*batch);
  if (lhs.size() > 1)
    result.push_back(a[a.size() - 2]);
  if (rhs.size() > 1)
    result.push_back(b.back());
  return result;
}

bool isRefinementCompatible(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [want, have] : llvm::zip(inferred, actual)) {
    if (getElementTypeOrSelf(want) != getElementTypeOrSelf(have))
      return false;
    if (failed(verifyCompatibleShape(want, have)))
      return false;
  }
  return true;
}

} // namespace kiln::graph
