//===- CalibrationTest.cpp - INT8 calibration: histograms, thresholds, cache ----===//

#include "passes/quantization/Calibration.h"
#include "passes/quantization/CalibrationCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace kiln::quant;

namespace {

constexpr CalibrationMethod kAllMethods[] = {CalibrationMethod::MinMax, CalibrationMethod::Entropy,
                                             CalibrationMethod::Percentile};

std::vector<float> gaussian(size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<float> values(count);
  for (float &value : values)
    value = float(normal(generator));
  return values;
}

/// Values whose |x| is uniform on [0, 1), with random signs.
std::vector<float> uniformMagnitudes(size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> magnitude(0.0f, 1.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> values(count);
  for (float &value : values)
    value = negative(generator) ? -magnitude(generator) : magnitude(generator);
  return values;
}

/// The value below which `percentile` % of |values| lie: the exact sample quantile.
double exactQuantile(llvm::ArrayRef<float> values, double percentile) {
  std::vector<double> magnitudes;
  for (float value : values)
    magnitudes.push_back(std::fabs(value));
  std::sort(magnitudes.begin(), magnitudes.end());
  size_t rank = size_t(std::ceil(percentile / 100 * double(magnitudes.size())));
  return magnitudes[std::max<size_t>(rank, 1) - 1];
}

void expectSameHistogram(const ActivationHistogram &actual, const ActivationHistogram &expected) {
  EXPECT_EQ(actual.range(), expected.range());
  EXPECT_EQ(actual.absMax(), expected.absMax());
  EXPECT_EQ(actual.total(), expected.total());
  EXPECT_EQ(actual.nonFiniteCount(), expected.nonFiniteCount());
  EXPECT_TRUE(actual.counts() == expected.counts()) << "the bin counts differ";
  for (CalibrationMethod method : kAllMethods)
    EXPECT_EQ(calibrationThreshold(actual, method), calibrationThreshold(expected, method))
        << calibrationMethodName(method).str();
}

uint64_t sumOfCounts(const ActivationHistogram &histogram) {
  uint64_t sum = 0;
  for (uint64_t count : histogram.counts())
    sum += count;
  return sum;
}

//===----------------------------------------------------------------------===//
// Methods
//===----------------------------------------------------------------------===//

TEST(CalibrationMethod, NamesRoundTrip) {
  for (CalibrationMethod method : kAllMethods)
    EXPECT_EQ(parseCalibrationMethod(calibrationMethodName(method)), method);
  EXPECT_EQ(calibrationMethodName(CalibrationMethod::MinMax), "minmax");
  EXPECT_EQ(calibrationMethodName(CalibrationMethod::Entropy), "entropy");
  EXPECT_EQ(calibrationMethodName(CalibrationMethod::Percentile), "percentile");
  EXPECT_FALSE(parseCalibrationMethod(""));
  EXPECT_FALSE(parseCalibrationMethod("kl"));
  EXPECT_FALSE(parseCalibrationMethod("min-max"));
}

//===----------------------------------------------------------------------===//
// ActivationHistogram
//===----------------------------------------------------------------------===//

TEST(ActivationHistogram, EmptyBatchesChangeNothing) {
  ActivationHistogram histogram;
  histogram.observe({});
  EXPECT_EQ(histogram.total(), 0u);
  EXPECT_EQ(histogram.absMax(), 0);
  EXPECT_EQ(histogram.range(), 0);
  EXPECT_EQ(histogram.binCount(), ActivationHistogram::kDefaultBinCount);
  for (CalibrationMethod method : kAllMethods)
    EXPECT_EQ(calibrationThreshold(histogram, method), 0);
  EXPECT_EQ(int8Scale(0), 1.0f);
}

TEST(ActivationHistogram, AllZeroTensorHasThresholdZero) {
  ActivationHistogram histogram;
  std::vector<float> zeros(1000, 0.0f);
  zeros[7] = -0.0f;
  histogram.observe(zeros);
  histogram.observe(zeros);
  EXPECT_EQ(histogram.total(), 2000u);
  EXPECT_EQ(histogram.counts()[0], 2000u);
  EXPECT_EQ(histogram.range(), 0);
  for (CalibrationMethod method : kAllMethods)
    EXPECT_EQ(calibrationThreshold(histogram, method), 0) << calibrationMethodName(method).str();
}

TEST(ActivationHistogram, ZerosBeforeTheFirstNonzeroValueStayInBinZero) {
  ActivationHistogram histogram;
  histogram.observe(std::vector<float>(10, 0.0f));
  histogram.observe({3.0f, -1.0f});
  EXPECT_EQ(histogram.range(), 4.0);
  EXPECT_EQ(histogram.binWidth(), 4.0 / 2048);
  EXPECT_EQ(histogram.total(), 12u);
  EXPECT_EQ(sumOfCounts(histogram), 12u);
  EXPECT_EQ(histogram.counts()[0], 10u);
  EXPECT_EQ(histogram.counts()[512], 1u);  // 1.0 / (4 / 2048)
  EXPECT_EQ(histogram.counts()[1536], 1u); // 3.0 / (4 / 2048)
}

TEST(ActivationHistogram, RangeIsThePowerOfTwoAboveAbsMax) {
  ActivationHistogram histogram;
  histogram.observe({0.3f, -0.2f});
  EXPECT_EQ(histogram.range(), 0.5);
  EXPECT_FLOAT_EQ(histogram.absMax(), 0.3f);
  histogram.observe({0.5f}); // a power of two itself: the range must stay above it
  EXPECT_EQ(histogram.range(), 1.0);
  EXPECT_EQ(histogram.counts()[1024], 1u);
  histogram.observe({-1000.0f});
  EXPECT_EQ(histogram.range(), 1024.0);
  EXPECT_EQ(histogram.absMax(), 1000.0);
  EXPECT_EQ(histogram.counts()[2000], 1u);
  EXPECT_EQ(sumOfCounts(histogram), 4u);
}

TEST(ActivationHistogram, GrowthMergesAdjacentBinPairs) {
  ActivationHistogram histogram(128);
  // Range 128, bins one wide: |x| = k + 0.5 lands in bin k.
  std::vector<float> values;
  for (int bin = 0; bin < 128; ++bin)
    for (int copy = 0; copy <= bin % 5; ++copy)
      values.push_back(bin % 2 ? bin + 0.5f : -(bin + 0.5f));
  histogram.observe(values);
  ASSERT_EQ(histogram.range(), 128.0);
  std::vector<uint64_t> before(histogram.counts().begin(), histogram.counts().end());

  histogram.observe({300.0f}); // range 512: two doublings, bins four wide
  ASSERT_EQ(histogram.range(), 512.0);
  for (size_t bin = 0; bin < 32; ++bin)
    EXPECT_EQ(histogram.counts()[bin],
              before[4 * bin] + before[4 * bin + 1] + before[4 * bin + 2] + before[4 * bin + 3])
        << "bin " << bin;
  EXPECT_EQ(histogram.counts()[75], 1u); // 300 / 4
  EXPECT_EQ(histogram.total(), values.size() + 1);
  EXPECT_EQ(sumOfCounts(histogram), values.size() + 1);
}

TEST(ActivationHistogram, BatchingAndOrderDoNotChangeTheHistogram) {
  // Batches whose maxima grow (0.01, 0.1, 1, ...), so the range doubles many times.
  std::vector<std::vector<float>> batches;
  std::vector<float> all;
  for (int batch = 0; batch < 5; ++batch) {
    std::vector<float> values = gaussian(20000, 100 + batch);
    for (float &value : values)
      value *= std::pow(10.0f, float(batch) - 2);
    all.insert(all.end(), values.begin(), values.end());
    batches.push_back(std::move(values));
  }
  ActivationHistogram oneBatch;
  oneBatch.observe(all);

  ActivationHistogram increasing, decreasing;
  for (const std::vector<float> &batch : batches)
    increasing.observe(batch);
  for (auto batch = batches.rbegin(); batch != batches.rend(); ++batch)
    decreasing.observe(*batch);

  EXPECT_EQ(oneBatch.total(), all.size());
  EXPECT_EQ(sumOfCounts(increasing), all.size());
  expectSameHistogram(increasing, oneBatch);
  expectSameHistogram(decreasing, oneBatch);
}

TEST(ActivationHistogram, NonFiniteValuesAreExcludedAndCounted) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  ActivationHistogram histogram;
  histogram.observe({nan, inf, -inf}); // nothing finite: no range yet
  EXPECT_EQ(histogram.range(), 0);
  histogram.observe({1.5f, nan, -2.5f, inf, 0.0f});
  EXPECT_EQ(histogram.nonFiniteCount(), 5u);
  EXPECT_EQ(histogram.total(), 3u);
  EXPECT_EQ(sumOfCounts(histogram), 3u);
  EXPECT_EQ(histogram.absMax(), 2.5);
  EXPECT_EQ(histogram.range(), 4.0);
  EXPECT_EQ(calibrationThreshold(histogram, CalibrationMethod::MinMax), 2.5);
  for (CalibrationMethod method : kAllMethods) {
    double threshold = calibrationThreshold(histogram, method);
    EXPECT_TRUE(std::isfinite(threshold) && threshold > 0 && threshold <= 2.5)
        << calibrationMethodName(method).str() << ": " << threshold;
  }
}

TEST(ActivationHistogram, MergeEqualsObservingBoth) {
  std::vector<float> small = gaussian(30000, 1);
  std::vector<float> large = gaussian(30000, 2);
  for (float &value : large)
    value *= 37;
  large.push_back(std::numeric_limits<float>::quiet_NaN());

  ActivationHistogram both;
  both.observe(small);
  both.observe(large);

  ActivationHistogram smallOnly, largeOnly;
  smallOnly.observe(small);
  largeOnly.observe(large);

  ActivationHistogram smallThenLarge = smallOnly;
  smallThenLarge.merge(largeOnly); // this one grows
  expectSameHistogram(smallThenLarge, both);
  ActivationHistogram largeThenSmall = largeOnly;
  largeThenSmall.merge(smallOnly); // the other one is coarsened
  expectSameHistogram(largeThenSmall, both);

  // Empty and all-zero sides.
  ActivationHistogram empty, zeros;
  zeros.observe({0.0f, 0.0f, 0.0f});
  ActivationHistogram merged;
  merged.merge(smallOnly);
  merged.merge(empty);
  merged.merge(zeros);
  ActivationHistogram observed;
  observed.observe(small);
  observed.observe({0.0f, 0.0f, 0.0f});
  expectSameHistogram(merged, observed);
}

//===----------------------------------------------------------------------===//
// Thresholds
//===----------------------------------------------------------------------===//

TEST(CalibrationThreshold, MinMaxIsTheExactAbsMax) {
  std::vector<float> values = gaussian(10000, 3);
  values[1234] = -7.123456f;
  ActivationHistogram histogram;
  histogram.observe(values);
  EXPECT_EQ(calibrationThreshold(histogram, CalibrationMethod::MinMax), double(7.123456f));
  EXPECT_EQ(int8Scale(double(7.123456f)), float(double(7.123456f) / 127));
}

TEST(CalibrationThreshold, PercentileOfUniformMagnitudesWithinABin) {
  std::vector<float> values = uniformMagnitudes(1000000, 4);
  ActivationHistogram histogram;
  histogram.observe(values);
  ASSERT_EQ(histogram.range(), 1.0);
  for (double percentile : {50.0, 90.0, 99.0, 99.9, 99.99}) {
    double threshold = calibrationThreshold(histogram, CalibrationMethod::Percentile, percentile);
    EXPECT_NEAR(threshold, exactQuantile(values, percentile), histogram.binWidth())
        << percentile << "%";
    // The population quantile too, for a sample this large (its spread is ~1e-3 at 50%).
    EXPECT_NEAR(threshold, percentile / 100, 2e-3) << percentile << "%";
  }
  EXPECT_EQ(calibrationThreshold(histogram, CalibrationMethod::Percentile, 100),
            histogram.absMax());
  EXPECT_EQ(calibrationThreshold(histogram, CalibrationMethod::Percentile, 0), 0);
}

TEST(CalibrationThreshold, PercentileIgnoresOutlierMass) {
  // 0.1 % of the values at 1000: the 99.9th percentile stays with the bulk.
  std::vector<float> values = uniformMagnitudes(999000, 5);
  values.insert(values.end(), 1000, 1000.0f);
  ActivationHistogram histogram;
  histogram.observe(values);
  double threshold = calibrationThreshold(histogram, CalibrationMethod::Percentile, 99.8);
  EXPECT_NEAR(threshold, exactQuantile(values, 99.8), histogram.binWidth());
  EXPECT_LT(threshold, 1.0);
}

TEST(CalibrationThreshold, EntropyClipsOutliersOfAGaussian) {
  std::vector<float> values = gaussian(1000000, 6);
  values.insert(values.end(), {100.0f, -100.0f, 100.0f, 100.0f, -100.0f});
  ActivationHistogram histogram;
  histogram.observe(values);
  ASSERT_EQ(histogram.range(), 128.0);
  EXPECT_EQ(calibrationThreshold(histogram, CalibrationMethod::MinMax), 100.0);
  // The search starts at 128 of the 2048 bins: 128.5 bins of 1/16 is 8.03, above the
  // Gaussian's own optimum (about 4.7, below), so clipping the five outliers at the
  // smallest threshold the search can express costs least.
  EXPECT_DOUBLE_EQ(calibrationThreshold(histogram, CalibrationMethod::Entropy),
                   128.5 * histogram.binWidth());

  // With 8192 bins (1/64 wide) the search reaches down to 2. Below ~3 sigma the tail
  // clipped into one bin (>= 0.27 % of the mass) costs more than resolution gains; above
  // the Gaussian's largest sample (~5.4) there is nothing left to clip but the outliers.
  ActivationHistogram fine(8192);
  fine.observe(values);
  double threshold = calibrationThreshold(fine, CalibrationMethod::Entropy);
  EXPECT_GE(threshold, 3.0);
  EXPECT_LE(threshold, 5.5);
}

TEST(CalibrationThreshold, EntropyClipsTheSparseTailOfAGaussian) {
  // No outliers: absmax ~5.4, range 8, bins 1/256 wide. The few samples beyond ~4.5 sigma
  // are worth less than the resolution clipping them buys.
  ActivationHistogram histogram;
  histogram.observe(gaussian(1000000, 7));
  double threshold = calibrationThreshold(histogram, CalibrationMethod::Entropy);
  EXPECT_GE(threshold, 3.0);
  EXPECT_LT(threshold, histogram.absMax() - 0.25);
}

TEST(CalibrationThreshold, EntropyIgnoresTheZerosOfAReLU) {
  // A ReLU's output: half of it exactly zero. Those zeros sit in bin 0, which a
  // candidate represents exactly only while bin 0 is a level of its own: counted as they
  // are, they pull the threshold down (to 1.5 here, clipping 13 % of the positive values).
  // Bin 0 counts as its neighbour does instead.
  std::vector<float> values = gaussian(1000000, 8);
  for (float &value : values)
    value = std::max(value, 0.0f);
  ActivationHistogram histogram;
  histogram.observe(values);
  ASSERT_EQ(histogram.range(), 8.0);
  double threshold = calibrationThreshold(histogram, CalibrationMethod::Entropy);
  EXPECT_GE(threshold, 3.0);
  EXPECT_LE(threshold, histogram.absMax());
}

TEST(CalibrationThreshold, EntropyKeepsUniformDataWhole) {
  // A uniform distribution has no tail: clipping it only folds mass into one bin.
  ActivationHistogram histogram;
  histogram.observe(uniformMagnitudes(1000000, 8));
  EXPECT_GE(calibrationThreshold(histogram, CalibrationMethod::Entropy), 0.99 * histogram.absMax());
}

TEST(CalibrationThreshold, ConstantTensorKeepsItsValue) {
  // Every value in one bin: any threshold below it would represent nothing but the clip.
  ActivationHistogram histogram;
  histogram.observe(std::vector<float>(1000, -3.0f));
  for (CalibrationMethod method : kAllMethods)
    EXPECT_EQ(calibrationThreshold(histogram, method), 3.0) << calibrationMethodName(method).str();
}

//===----------------------------------------------------------------------===//
// int8Scale
//===----------------------------------------------------------------------===//

TEST(Int8Scale, IsThresholdOver127AndNeverZero) {
  EXPECT_EQ(int8Scale(127.0), 1.0f);
  EXPECT_EQ(int8Scale(12.7), float(12.7 / 127));
  EXPECT_EQ(int8Scale(0), 1.0f);
  EXPECT_EQ(int8Scale(-3), 1.0f);
  EXPECT_EQ(int8Scale(std::numeric_limits<double>::quiet_NaN()), 1.0f);
  EXPECT_EQ(int8Scale(std::numeric_limits<double>::infinity()), 1.0f);
  EXPECT_EQ(int8Scale(1e-44), std::numeric_limits<float>::denorm_min());
}

//===----------------------------------------------------------------------===//
// CalibrationCache
//===----------------------------------------------------------------------===//

/// A fresh folder under the system's temporary directory, removed afterwards.
class TempDir {
public:
  TempDir() { llvm::sys::fs::createUniqueDirectory("kiln-calibration", path); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> joined(path);
    llvm::sys::path::append(joined, name);
    return std::string(joined);
  }
  /// The names in the folder.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    std::error_code error;
    for (llvm::sys::fs::directory_iterator entry(path, error), end; !error && entry != end;
         entry.increment(error))
      names.push_back(llvm::sys::path::filename(entry->path()).str());
    std::sort(names.begin(), names.end());
    return names;
  }
  llvm::SmallString<128> path;
};

void writeText(const std::string &path, llvm::StringRef text) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  ASSERT_FALSE(error) << path;
  os << text;
}

std::string readText(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

uint64_t bits(double value) {
  uint64_t result;
  std::memcpy(&result, &value, sizeof(result));
  return result;
}

CalibrationCache sampleCache() {
  CalibrationCache cache;
  cache.method = CalibrationMethod::Percentile;
  cache.percentile = 99.999;
  cache.model = "sha256:0123abcd resnet50.onnx";
  cache.tensors["/layer1/conv/Conv_output_0"] = {0.1, 1.0 / 3};
  cache.tensors["input:0"] = {6.02214076e23, 5e-324};
  cache.tensors["a tensor with spaces"] = {std::nextafter(1.0, 2.0), 2.0};
  cache.tensors["Ünïcødé/层:0 ✓"] = {123456789.123456789, 9007199254740993.0};
  cache.tensors["zero"] = {0, 0};
  cache.tensors["pi"] = {M_PI, std::numeric_limits<double>::max()};
  return cache;
}

TEST(CalibrationCache, RoundTripIsExact) {
  TempDir dir;
  std::string path = dir.file("calibration.json");
  CalibrationCache cache = sampleCache();
  ASSERT_FALSE(llvm::errorToBool(cache.write(path)));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"calibration.json"}); // no temporaries

  llvm::Expected<CalibrationCache> read = CalibrationCache::read(path);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->method, cache.method);
  EXPECT_EQ(bits(read->percentile), bits(cache.percentile));
  EXPECT_EQ(read->model, cache.model);
  ASSERT_EQ(read->tensors.size(), cache.tensors.size());
  for (const auto &[key, expected] : cache.tensors) {
    auto found = read->tensors.find(key);
    ASSERT_NE(found, read->tensors.end()) << key;
    EXPECT_EQ(bits(found->second.amax), bits(expected.amax)) << key;
    EXPECT_EQ(bits(found->second.threshold), bits(expected.threshold)) << key;
  }
}

TEST(CalibrationCache, FileHasTheDocumentedShape) {
  TempDir dir;
  std::string path = dir.file("calibration.json");
  CalibrationCache cache;
  cache.method = CalibrationMethod::Entropy;
  cache.model = "model-fingerprint";
  cache.tensors["x/y:0"] = {6.5, 4.25};
  ASSERT_FALSE(llvm::errorToBool(cache.write(path)));

  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(readText(path));
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *root = parsed->getAsObject();
  ASSERT_TRUE(root);
  EXPECT_EQ(root->getString("format"), llvm::StringRef("kiln-calibration"));
  EXPECT_EQ(root->getInteger("version"), 1);
  EXPECT_EQ(root->getString("method"), llvm::StringRef("entropy"));
  EXPECT_EQ(root->getNumber("percentile"), 99.99);
  EXPECT_EQ(root->getString("model"), llvm::StringRef("model-fingerprint"));
  const llvm::json::Object *tensors = root->getObject("tensors");
  ASSERT_TRUE(tensors);
  const llvm::json::Object *tensor = tensors->getObject("x/y:0");
  ASSERT_TRUE(tensor);
  EXPECT_EQ(tensor->getNumber("amax"), 6.5);
  EXPECT_EQ(tensor->getNumber("threshold"), 4.25);
}

TEST(CalibrationCache, OverwriteReplacesTheWholeFile) {
  TempDir dir;
  std::string path = dir.file("calibration.json");
  CalibrationCache first = sampleCache();
  ASSERT_FALSE(llvm::errorToBool(first.write(path)));
  CalibrationCache second;
  second.model = "other";
  second.tensors["only"] = {1, 0.5};
  ASSERT_FALSE(llvm::errorToBool(second.write(path)));
  llvm::Expected<CalibrationCache> read = CalibrationCache::read(path);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->model, "other");
  EXPECT_EQ(read->tensors.size(), 1u);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"calibration.json"});
}

TEST(CalibrationCache, FailedWriteIsAnErrorAndLeavesNoFile) {
  TempDir dir;
  CalibrationCache cache = sampleCache();

  // The folder is a regular file (permissions would not stop root).
  std::string notAFolder = dir.file("plain-file");
  writeText(notAFolder, "x");
  std::string inside = notAFolder + "/calibration.json";
  llvm::Error error = cache.write(inside);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find(inside), std::string::npos);

  // The target is a folder: the rename fails after the temporary file was written.
  std::string folder = dir.file("a-folder");
  ASSERT_FALSE(llvm::sys::fs::create_directory(folder));
  error = cache.write(folder);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find(folder), std::string::npos);

  // A missing folder is not created.
  std::string missing = dir.file("missing/calibration.json");
  error = cache.write(missing);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find(missing), std::string::npos);

  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"a-folder", "plain-file"}));
  EXPECT_FALSE(llvm::sys::fs::exists(dir.file("a-folder/calibration.json")));
}

TEST(CalibrationCache, WriteRefusesWhatReadWouldReject) {
  TempDir dir;
  std::string path = dir.file("calibration.json");
  auto expectRefused = [&](const CalibrationCache &cache, llvm::StringRef what) {
    llvm::Error error = cache.write(path);
    ASSERT_TRUE(bool(error)) << what.str() << " was written";
    std::string message = llvm::toString(std::move(error));
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_FALSE(llvm::sys::fs::exists(path)) << what.str();
    EXPECT_TRUE(dir.entries().empty()) << what.str();
  };
  CalibrationCache cache = sampleCache();
  cache.tensors["nan"] = {1, std::numeric_limits<double>::quiet_NaN()};
  expectRefused(cache, "a NaN threshold");
  cache = sampleCache();
  cache.tensors["negative"] = {-1, 0};
  expectRefused(cache, "a negative amax");
  cache = sampleCache();
  cache.tensors["infinite"] = {std::numeric_limits<double>::infinity(), 1};
  expectRefused(cache, "an infinite amax");
  cache = sampleCache();
  cache.percentile = 0;
  expectRefused(cache, "percentile 0");
  cache = sampleCache();
  cache.tensors["bad \xff utf-8"] = {1, 1};
  expectRefused(cache, "a key that is not UTF-8");
  cache = sampleCache();
  cache.model = "\xc3";
  expectRefused(cache, "a model that is not UTF-8");
}

TEST(CalibrationCache, MissingFileIsAnError) {
  TempDir dir;
  std::string path = dir.file("absent.json");
  llvm::Expected<CalibrationCache> read = CalibrationCache::read(path);
  ASSERT_FALSE(bool(read));
  std::string message = llvm::toString(read.takeError());
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("cannot read"), std::string::npos) << message;
}

/// A malformed cache file and what its error must say.
struct MalformedCase {
  std::string name;
  std::string text;
  std::string expected;
};

TEST(CalibrationCache, MalformedFilesAreClearErrors) {
  std::string header = R"("format": "kiln-calibration", "version": 1, "method": "entropy", )"
                       R"("percentile": 99.99, "model": "m", )";
  std::string prefix = "{" + header;
  const MalformedCase cases[] = {
      {"not-json", "this is not JSON", "invalid JSON"},
      {"truncated", R"({"format": "kiln-calibration", "version": 1, "tens)", "invalid JSON"},
      {"array", "[1, 2, 3]", "not a JSON object"},
      {"no-format", R"({"version": 1})", "\"format\": \"kiln-calibration\""},
      {"other-format", R"({"format": "kiln-timing-cache", "version": 1, "entries": []})",
       "\"format\": \"kiln-calibration\""},
      {"no-version", R"({"format": "kiln-calibration"})", "\"version\" is missing"},
      {"string-version", R"({"format": "kiln-calibration", "version": "1"})",
       "\"version\" is missing or not an integer"},
      {"future-version", R"({"format": "kiln-calibration", "version": 2})",
       "version 2 is not supported"},
      {"no-method",
       R"({"format": "kiln-calibration", "version": 1, "percentile": 99.99, "model": "m", )"
       R"("tensors": {}})",
       "\"method\" is missing"},
      {"unknown-method",
       R"({"format": "kiln-calibration", "version": 1, "method": "mse", "percentile": 99.99, )"
       R"("model": "m", "tensors": {}})",
       "unknown calibration method \"mse\""},
      {"no-percentile",
       R"({"format": "kiln-calibration", "version": 1, "method": "minmax", "model": "m", )"
       R"("tensors": {}})",
       "\"percentile\" is missing"},
      {"percentile-over-100",
       R"({"format": "kiln-calibration", "version": 1, "method": "minmax", "percentile": 101, )"
       R"("model": "m", "tensors": {}})",
       "\"percentile\" is 101"},
      {"model-not-string",
       R"({"format": "kiln-calibration", "version": 1, "method": "minmax", "percentile": 99, )"
       R"("model": 7, "tensors": {}})",
       "\"model\" is missing or not a string"},
      {"no-tensors", prefix + R"("other": {}})", "\"tensors\" is missing"},
      {"tensors-list",
       R"({"format": "kiln-calibration", "version": 1, "method": "minmax", )"
       R"("percentile": 99, "model": "m", "tensors": []})",
       "\"tensors\" is missing or not an object"},
      {"not-utf8", prefix + "\"tensors\": {\"\xff\": {\"amax\": 1, \"threshold\": 1}}}",
       "invalid JSON"},
      {"entry-not-object", prefix + R"("tensors": {"conv/out:0": 3}})",
       "tensor \"conv/out:0\" is not an object"},
      {"no-amax", prefix + R"("tensors": {"t": {"threshold": 1}}})",
       "tensor \"t\": \"amax\" is missing or not a number"},
      {"string-threshold", prefix + R"("tensors": {"t": {"amax": 2, "threshold": "1"}}})",
       "tensor \"t\": \"threshold\" is missing or not a number"},
      {"negative-threshold", prefix + R"("tensors": {"t": {"amax": 2, "threshold": -1}}})",
       "tensor \"t\": \"threshold\" is -1"},
      {"infinite-amax", prefix + R"("tensors": {"t": {"amax": 1e999, "threshold": 1}}})",
       "tensor \"t\": \"amax\""},
  };
  TempDir dir;
  for (const MalformedCase &malformed : cases) {
    std::string path = dir.file(malformed.name + ".json");
    writeText(path, malformed.text);
    llvm::Expected<CalibrationCache> read = CalibrationCache::read(path);
    ASSERT_FALSE(bool(read)) << malformed.name << " was accepted";
    std::string message = llvm::toString(read.takeError());
    EXPECT_NE(message.find(path), std::string::npos) << malformed.name << ": " << message;
    EXPECT_NE(message.find(malformed.expected), std::string::npos)
        << malformed.name << ": " << message;
  }
}
} // namespace
