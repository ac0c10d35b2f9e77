//===- Calibration.cpp - INT8 calibration statistics and thresholds -------===//

#include "passes/quantization/Calibration.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using llvm::ArrayRef;
using llvm::StringRef;

namespace kiln::quant {

/// The nonnegative int8 levels 0..127: what [0, T] is quantized to.
static constexpr size_t kInt8Levels = 128;

std::optional<CalibrationMethod> parseCalibrationMethod(StringRef name) {
  for (CalibrationMethod method :
       {CalibrationMethod::MinMax, CalibrationMethod::Entropy, CalibrationMethod::Percentile})
    if (name == calibrationMethodName(method))
      return method;
  return std::nullopt;
}

StringRef calibrationMethodName(CalibrationMethod method) {
  switch (method) {
  case CalibrationMethod::MinMax:
    return "minmax";
  case CalibrationMethod::Entropy:
    return "entropy";
  case CalibrationMethod::Percentile:
    return "percentile";
  }
  llvm_unreachable("unknown calibration method");
}

//===----------------------------------------------------------------------===//
// ActivationHistogram
//===----------------------------------------------------------------------===//

/// The smallest power of two strictly above `value` (> 0).
static double powerOfTwoAbove(double value) {
  int exponent = 0;
  std::frexp(value, &exponent); // value = f * 2^exponent with f in [0.5, 1)
  return std::ldexp(1.0, exponent);
}

/// Adds `source`, a histogram over a range 2^`doublings` times smaller than `target`'s and
/// with as many bins, into `target`: source bin j lies inside target bin j >> doublings.
static void addCoarsened(std::vector<uint64_t> &target, ArrayRef<uint64_t> source,
                         unsigned doublings) {
  for (size_t bin = 0; bin < source.size(); ++bin) {
    // Past 63 doublings every source bin (there are fewer than 2^64) falls in bin 0; the
    // shift itself would be undefined.
    size_t coarse = doublings < 64 ? bin >> doublings : 0;
    target[coarse] += source[bin];
  }
}

/// How many doublings take power of two `from` to power of two `to` (>= from).
static unsigned doublingsBetween(double from, double to) {
  int fromExponent = 0, toExponent = 0;
  std::frexp(from, &fromExponent);
  std::frexp(to, &toExponent);
  return unsigned(toExponent - fromExponent);
}

ActivationHistogram::ActivationHistogram(size_t binCount) : binCounts(binCount, 0) {
  assert(binCount >= kInt8Levels && "the entropy method needs at least 128 bins");
}

void ActivationHistogram::growTo(double newRange) {
  if (upperEdge == 0) {
    // Only zeros so far, already in bin 0, which they stay in on any grid.
    upperEdge = newRange;
    return;
  }
  if (newRange <= upperEdge)
    return;
  std::vector<uint64_t> coarse(binCounts.size(), 0);
  addCoarsened(coarse, binCounts, doublingsBetween(upperEdge, newRange));
  binCounts = std::move(coarse);
  upperEdge = newRange;
}

void ActivationHistogram::observe(ArrayRef<float> values) {
  // First the batch's maximum, so that the grid is final before any value is binned.
  double batchMax = 0;
  for (float value : values)
    if (std::isfinite(value))
      batchMax = std::max(batchMax, double(std::fabs(value)));
  if (batchMax >= upperEdge && batchMax > 0)
    growTo(powerOfTwoAbove(batchMax));
  maxAbs = std::max(maxAbs, batchMax);

  // The range is a power of two and the bins are `binCount` of it, so |x| / range is exact
  // and bin = floor(|x| / range * binCount) halves exactly when the range doubles: a value
  // binned now lands where it would have had the range been final from the start.
  const double binsPerUnit = upperEdge > 0 ? double(binCounts.size()) / upperEdge : 0;
  const size_t lastBin = binCounts.size() - 1;
  for (float value : values) {
    if (!std::isfinite(value)) {
      ++nanOrInfCount;
      continue;
    }
    double scaled = double(std::fabs(value)) * binsPerUnit;
    ++binCounts[std::min(size_t(scaled), lastBin)];
    ++finiteCount;
  }
}

void ActivationHistogram::merge(const ActivationHistogram &other) {
  assert(other.binCount() == binCount() && "merging histograms of different bin counts");
  if (other.upperEdge > upperEdge)
    growTo(other.upperEdge);
  unsigned doublings = other.upperEdge > 0 ? doublingsBetween(other.upperEdge, upperEdge) : 0;
  addCoarsened(binCounts, other.binCounts, doublings);
  maxAbs = std::max(maxAbs, other.maxAbs);
  finiteCount += other.finiteCount;
  nanOrInfCount += other.nanOrInfCount;
}

//===----------------------------------------------------------------------===//
// Thresholds
//===----------------------------------------------------------------------===//

static double percentileThreshold(const ActivationHistogram &histogram, double percentile) {
  if (std::isnan(percentile))
    percentile = 100;
  percentile = std::clamp(percentile, 0.0, 100.0);
  double wanted = percentile / 100 * double(histogram.total());
  if (wanted <= 0)
    return 0;
  ArrayRef<uint64_t> counts = histogram.counts();
  uint64_t below = 0;
  for (size_t bin = 0; bin < counts.size(); ++bin) {
    if (counts[bin] == 0 || double(below + counts[bin]) < wanted) {
      below += counts[bin];
      continue;
    }
    // The values are taken as spread uniformly across the bin.
    double fraction = (wanted - double(below)) / double(counts[bin]);
    return std::min((double(bin) + fraction) * histogram.binWidth(), histogram.absMax());
  }
  return histogram.absMax(); // rounding in `wanted` only
}

namespace {
/// The KL divergence of quantizing the histogram with each candidate number of bins. Kept
/// as a class so that the buffers are allocated once for the whole search.
class EntropySearch {
public:
  explicit EntropySearch(const ActivationHistogram &histogram)
      : counts(histogram.counts().begin(), histogram.counts().end()) {
    // Bin 0 counts as bin 1 does. It holds the exact zeros (a ReLU makes half of its
    // output zeros), which only a candidate whose first level is bin 0 alone (the
    // smallest threshold, 128 bins) represents exactly: counted as they are, they pull
    // every threshold down to range / 16. (NVIDIA's pytorch-quantization does the same.)
    if (counts.size() > 1)
      counts[0] = counts[1];
    countsBelow.assign(counts.size() + 1, 0);
    for (size_t bin = 0; bin < counts.size(); ++bin)
      countsBelow[bin + 1] = countsBelow[bin] + counts[bin];
    total = double(countsBelow.back());
    reference.reserve(counts.size());
    candidate.reserve(counts.size());
  }

  /// KL(P || Q) for a threshold at `kept` bins, where
  ///  - P, the reference, is the first `kept` bins with the mass beyond (what the
  ///    threshold clips) added to the last of them: the distribution after clipping;
  ///  - Q, the candidate, is the first `kept` bins without that mass, merged into 128
  ///    levels and expanded back, each level's mass spread evenly over its bins where P is
  ///    nonzero: what int8 can represent. Leaving the clipped mass out of Q is what makes
  ///    clipping cost something.
  /// Zero bins: a bin where P is 0 contributes 0 (the limit of p log(p/q) as p -> 0), so
  /// it needs no smoothing. Q is spread over P's nonzero bins, so Q > 0 wherever P > 0,
  /// but for one case: the clipped mass lands in a level that holds no values of its own
  /// (outliers clipped to a threshold in an empty stretch of the histogram). There the
  /// divergence is infinite, which would forbid clipping outliers, the very thing the
  /// method is for. Like the standard implementations, such a bin of Q gets a small mass
  /// instead (kEmptyBinCount of a value), so clipping costs about p log(p N / 1e-4): in
  /// proportion to the clipped mass p, rather than without bound.
  double divergence(size_t kept) {
    reference.assign(counts.begin(), counts.begin() + kept);
    reference[kept - 1] += double(countsBelow.back() - countsBelow[kept]);
    candidate.assign(kept, 0.0);
    for (size_t level = 0; level < kInt8Levels; ++level) {
      // Levels take floor or ceil(kept / 128) bins, spread evenly over the range.
      size_t begin = level * kept / kInt8Levels;
      size_t end = (level + 1) * kept / kInt8Levels;
      double mass = double(countsBelow[end] - countsBelow[begin]);
      size_t support = 0;
      for (size_t bin = begin; bin < end; ++bin)
        support += reference[bin] > 0;
      if (support == 0)
        continue; // no mass in P here, hence none in the level either
      for (size_t bin = begin; bin < end; ++bin)
        if (reference[bin] > 0)
          candidate[bin] = mass / double(support);
    }
    // Everything beyond the threshold: int8 would represent nothing but the clipped
    // value. (The candidate keeping every bin always has values.)
    double candidateTotal = double(countsBelow[kept]);
    if (candidateTotal == 0)
      return std::numeric_limits<double>::infinity();
    double sum = 0;
    for (size_t bin = 0; bin < kept; ++bin) {
      if (reference[bin] == 0)
        continue;
      double p = reference[bin] / total;
      double q = std::max(candidate[bin], kEmptyBinCount) / candidateTotal;
      sum += p * std::log(p / q);
    }
    return sum;
  }

private:
  /// The mass, in values, given to a bin of Q that holds none where P holds some.
  static constexpr double kEmptyBinCount = 1e-4;

  std::vector<uint64_t> counts;
  double total = 0;
  /// countsBelow[k]: the values in bins 0..k-1.
  std::vector<uint64_t> countsBelow;
  std::vector<double> reference, candidate;
};
} // namespace

static double entropyThreshold(const ActivationHistogram &histogram) {
  EntropySearch search(histogram);
  size_t bestKept = histogram.binCount();
  double bestDivergence = std::numeric_limits<double>::infinity();
  for (size_t kept = kInt8Levels; kept <= histogram.binCount(); ++kept) {
    double divergence = search.divergence(kept);
    // Strictly less: of equal divergences the smaller threshold, the finer scale, wins.
    if (divergence < bestDivergence) {
      bestDivergence = divergence;
      bestKept = kept;
    }
  }
  // As in TensorRT's description: the middle of the bin past the kept ones.
  return std::min((double(bestKept) + 0.5) * histogram.binWidth(), histogram.absMax());
}

double calibrationThreshold(const ActivationHistogram &histogram, CalibrationMethod method,
                            double percentile) {
  // No values or only zeros: nothing to quantize, and the methods below need a range.
  if (histogram.absMax() == 0)
    return 0;
  switch (method) {
  case CalibrationMethod::MinMax:
    return histogram.absMax();
  case CalibrationMethod::Percentile:
    return percentileThreshold(histogram, percentile);
  case CalibrationMethod::Entropy:
    return entropyThreshold(histogram);
  }
  llvm_unreachable("unknown calibration method");
}

float int8Scale(double threshold) {
  if (!(threshold > 0) || !std::isfinite(threshold))
    return 1.0f;
  float scale = float(threshold / 127);
  return scale > 0 ? scale : std::numeric_limits<float>::denorm_min();
}

} // namespace kiln::quant
