//===- CalibrationCache.cpp - Calibration results kept in a file ----------===//

#include "passes/quantization/CalibrationCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <unistd.h>

using llvm::StringRef;
using llvm::Twine;
namespace json = llvm::json;

namespace kiln::quant {

static llvm::Error error(StringRef path, const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), path + ": " + message);
}

/// `text` quoted for a message, as JSON would write it.
static std::string quoted(StringRef text) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << json::Value(json::fixUTF8(text));
  return result;
}

static bool isValidPercentile(double percentile) {
  return std::isfinite(percentile) && percentile > 0 && percentile <= 100;
}

static bool isValidMagnitude(double value) { return std::isfinite(value) && value >= 0; }

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// What read() would reject, checked before any file is touched. JSON cannot hold NaN or
/// infinities, and llvm::json would silently replace invalid UTF-8 in a key.
static llvm::Error validate(const CalibrationCache &cache, StringRef path) {
  if (!isValidPercentile(cache.percentile))
    return error(path, llvm::formatv("cannot write a calibration cache with percentile {0} "
                                     "(must be in (0, 100])",
                                     cache.percentile));
  if (!json::isUTF8(cache.model))
    return error(path, "cannot write a calibration cache: the model fingerprint is not UTF-8");
  for (const auto &[key, calibration] : cache.tensors) {
    if (!json::isUTF8(key))
      return error(path,
                   "cannot write a calibration cache: tensor key " + quoted(key) + " is not UTF-8");
    if (!isValidMagnitude(calibration.amax) || !isValidMagnitude(calibration.threshold))
      return error(path, llvm::formatv("cannot write a calibration cache: tensor {0} has amax "
                                       "{1} and threshold {2} (both must be finite and >= 0)",
                                       quoted(key), calibration.amax, calibration.threshold));
  }
  return llvm::Error::success();
}

llvm::Error CalibrationCache::write(StringRef path) const {
  if (llvm::Error invalid = validate(*this, path))
    return invalid;

  json::Object tensorObjects;
  for (const auto &[key, calibration] : tensors)
    tensorObjects[key] =
        json::Object{{"amax", calibration.amax}, {"threshold", calibration.threshold}};
  // llvm::json writes doubles with 17 significant digits, which read back bit for bit.
  json::Value root = json::Object{
      {"format", kFormat},        {"version", kVersion}, {"method", calibrationMethodName(method)},
      {"percentile", percentile}, {"model", model},      {"tensors", std::move(tensorObjects)}};

  // The temporary file sits beside `path` so that the rename stays within one file system
  // and is atomic; its unique name keeps concurrent writers apart.
  int fd = -1;
  llvm::SmallString<256> temporary;
  if (std::error_code code = llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temporary))
    return error(path, "cannot create a temporary file beside it: " + code.message());
  auto fail = [&](const Twine &message) {
    llvm::sys::fs::remove(temporary);
    return error(path, "cannot write: " + message);
  };
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << llvm::formatv("{0:2}", root) << "\n";
    os.flush();
    // On disk before the rename: a crash right after it must not leave an empty cache.
    if (!os.has_error() && ::fsync(fd) != 0)
      return fail(std::error_code(errno, std::generic_category()).message());
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error(); // otherwise the stream's destructor reports the error fatally
      return fail(message);
    }
  }
  if (std::error_code code = llvm::sys::fs::rename(temporary, path))
    return fail(code.message());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

llvm::Expected<CalibrationCache> CalibrationCache::read(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return error(path, "cannot read the calibration cache: " + buffer.getError().message());
  llvm::Expected<json::Value> parsed = json::parse((*buffer)->getBuffer());
  if (!parsed)
    return error(path, "not a calibration cache: invalid JSON (" +
                           llvm::toString(parsed.takeError()) + ")");
  const json::Object *root = parsed->getAsObject();
  if (!root)
    return error(path, "not a calibration cache: the top level is not a JSON object");

  std::optional<StringRef> format = root->getString("format");
  if (!format || *format != kFormat)
    return error(path, Twine("not a calibration cache: no \"format\": \"") + kFormat + "\"");
  const json::Value *version = root->get("version");
  if (!version || !version->getAsInteger())
    return error(path, "\"version\" is missing or not an integer");
  if (*version->getAsInteger() != kVersion)
    return error(path, llvm::formatv("calibration cache version {0} is not supported (this "
                                     "build reads version {1})",
                                     *version->getAsInteger(), kVersion));

  CalibrationCache cache;
  std::optional<StringRef> method = root->getString("method");
  if (!method)
    return error(path, "\"method\" is missing or not a string");
  std::optional<CalibrationMethod> parsedMethod = parseCalibrationMethod(*method);
  if (!parsedMethod)
    return error(path, "unknown calibration method " + quoted(*method) +
                           " (expected minmax, entropy or percentile)");
  cache.method = *parsedMethod;

  std::optional<double> percentile = root->getNumber("percentile");
  if (!percentile)
    return error(path, "\"percentile\" is missing or not a number");
  if (!isValidPercentile(*percentile))
    return error(path, llvm::formatv("\"percentile\" is {0}; it must be in (0, 100]", *percentile));
  cache.percentile = *percentile;

  std::optional<StringRef> model = root->getString("model");
  if (!model)
    return error(path, "\"model\" is missing or not a string");
  cache.model = model->str();

  const json::Object *tensorObjects = root->getObject("tensors");
  if (!tensorObjects)
    return error(path, "\"tensors\" is missing or not an object");
  for (const auto &[key, value] : *tensorObjects) {
    std::string tensor = "tensor " + quoted(key.str());
    const json::Object *entry = value.getAsObject();
    if (!entry)
      return error(path, tensor + " is not an object with \"amax\" and \"threshold\"");
    TensorCalibration calibration;
    for (auto [field, target] :
         {std::pair<StringRef, double *>{"amax", &calibration.amax},
          std::pair<StringRef, double *>{"threshold", &calibration.threshold}}) {
      std::optional<double> number = entry->getNumber(field);
      if (!number)
        return error(path, tensor + ": \"" + field + "\" is missing or not a number");
      if (!isValidMagnitude(*number))
        return error(path, llvm::formatv("{0}: \"{1}\" is {2}; it must be finite and >= 0", tensor,
                                         field, *number));
      *target = *number;
    }
    cache.tensors[key.str()] = calibration;
  }
  return cache;
}

} // namespace kiln::quant
