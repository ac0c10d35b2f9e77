//===- Calibration.h - INT8 calibration statistics and thresholds -*- C++ -*-===//
//
// The numeric core of INT8 post-training calibration for symmetric quantization: the
// statistics of one tensor over the calibration batches (ActivationHistogram) and the
// clipping threshold T each method derives from them; the int8 scale is T / 127.
// docs/quantization.md (## Calibration) describes the methods and their guarantees.
//
// Depends on LLVM Support only: which tensors are observed, and how, is the caller's.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_QUANTIZATION_CALIBRATION_H
#define KILN_PASSES_QUANTIZATION_CALIBRATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::quant {

/// How a tensor's clipping threshold is chosen.
enum class CalibrationMethod {
  /// The largest |x| seen: nothing is clipped.
  MinMax,
  /// The threshold whose int8 quantization loses the least information (KL divergence).
  Entropy,
  /// The given percentile of |x|.
  Percentile,
};

/// "minmax", "entropy" or "percentile" (the `--calib-method` spellings); nullopt otherwise.
std::optional<CalibrationMethod> parseCalibrationMethod(llvm::StringRef name);
/// The spelling parseCalibrationMethod accepts.
llvm::StringRef calibrationMethodName(CalibrationMethod method);

/// Statistics of |x| for one tensor across calibration batches: the absolute maximum and a
/// histogram of `binCount()` equal bins over [0, range()).
///
/// The range is always a power of two, the smallest one above the largest |x| seen. When a
/// batch brings a larger |x|, the range doubles as many times as needed and each doubling
/// merges adjacent bin pairs. Because every range is a power of two, a value's bin on the
/// final grid does not depend on when it arrived: the histogram is the same, count for
/// count, however the data is split into batches and in whatever order they come, and
/// merge() is exact. The price is resolution: the data spans between half and all of the
/// bins.
///
/// Zeros are counted in bin 0 even before a nonzero value has set the range. NaN and ±Inf
/// are left out of every statistic and only counted (nonFiniteCount()).
class ActivationHistogram {
public:
  static constexpr size_t kDefaultBinCount = 2048;

  /// `binCount` must be at least 128, the number of levels the entropy method quantizes to.
  explicit ActivationHistogram(size_t binCount = kDefaultBinCount);

  /// Adds one batch of values.
  void observe(llvm::ArrayRef<float> values);
  /// Adds the statistics of `other` (which must have the same bin count), as if its values
  /// had been observed here: the per-thread or per-batch statistics combine exactly.
  void merge(const ActivationHistogram &other);

  /// The largest finite |x| seen (0 when none).
  double absMax() const { return maxAbs; }
  /// The upper edge of the last bin: a power of two above absMax(), or 0 while every value
  /// seen is zero (then bin 0 holds them all and binWidth() is 0).
  double range() const { return upperEdge; }
  double binWidth() const { return upperEdge / double(binCounts.size()); }
  size_t binCount() const { return binCounts.size(); }
  /// Bin k counts the |x| in [k * binWidth(), (k + 1) * binWidth()).
  llvm::ArrayRef<uint64_t> counts() const { return binCounts; }
  /// The finite values seen; the counts add up to it.
  uint64_t total() const { return finiteCount; }
  /// The NaN and ±Inf values seen (and left out).
  uint64_t nonFiniteCount() const { return nanOrInfCount; }

private:
  /// Widens the range to `newRange` (a power of two, at least the current range).
  void growTo(double newRange);

  std::vector<uint64_t> binCounts;
  double upperEdge = 0;
  double maxAbs = 0;
  uint64_t finiteCount = 0;
  uint64_t nanOrInfCount = 0;
};

/// The clipping threshold T of the tensor `histogram` describes: values are clipped to
/// [-T, T] and quantized with scale T / 127. T never exceeds absMax() (clipping above the
/// largest value only wastes levels), and T is 0 when there is nothing to quantize (no
/// values, or all zero); int8Scale(0) then gives the neutral scale 1.
///  - MinMax: absMax().
///  - Percentile: the |x| below which `percentile` % of the finite values lie, interpolated
///    linearly inside its bin. `percentile` is clamped to [0, 100]; NaN means 100.
///  - Entropy: the threshold of least KL divergence between the clipped distribution and its
///    128-level quantization, searched over 128 to binCount() bins (so T is at least
///    128.5 bin widths, or absMax() if that is smaller).
double calibrationThreshold(const ActivationHistogram &histogram, CalibrationMethod method,
                            double percentile = 99.99);

/// The symmetric int8 scale of threshold T: T / 127. A threshold of 0 (nothing to quantize),
/// a negative or non-finite one gives 1, which leaves values unchanged; a positive threshold
/// too small for a float scale gives the smallest positive float, never 0.
float int8Scale(double threshold);

} // namespace kiln::quant

#endif // KILN_PASSES_QUANTIZATION_CALIBRATION_H
