//===- TimingCache.cpp - Measured kernel times, kept across compiles ------===//

#include "passes/kernel/TimingCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <ctime>
#include <unistd.h>

using namespace llvm;

namespace kiln {

TimingGpu TimingGpu::defaultForTarget(StringRef target) {
  if (target.starts_with("sm_8"))
    return {"sm_80 NVIDIA A100-SXM4-80GB", ""};
  return {"sm_90 NVIDIA H200", ""};
}

std::string TimingCache::defaultPath() {
  SmallString<256> path;
  if (std::optional<std::string> dir = sys::Process::GetEnv("KILN_CACHE_DIR");
      dir && !dir->empty()) {
    path = *dir;
  } else if (std::optional<std::string> xdg = sys::Process::GetEnv("XDG_CACHE_HOME");
             xdg && !xdg->empty()) {
    path = *xdg;
    sys::path::append(path, "kiln");
  } else {
    std::optional<std::string> home = sys::Process::GetEnv("HOME");
    path = home && !home->empty() ? *home : std::string(".");
    sys::path::append(path, ".cache", "kiln");
  }
  sys::path::append(path, "timing-cache.json");
  return std::string(path);
}

std::string TimingCache::now() {
  std::time_t seconds = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::optional<std::string> TimingCache::load() {
  entries.clear();
  dirty = false;
  auto warn = [&](const Twine &problem) -> std::optional<std::string> {
    entries.clear();
    return ("timing cache '" + path + "': " + problem + "; ignored").str();
  };
  if (!sys::fs::exists(path))
    return std::nullopt;
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return warn("cannot read it: " + buffer.getError().message());
  Expected<json::Value> parsed = json::parse((*buffer)->getBuffer());
  if (!parsed) {
    std::string message = toString(parsed.takeError());
    return warn("not valid JSON (" + message + ")");
  }
  const json::Object *root = parsed->getAsObject();
  if (!root)
    return warn("not a Kiln timing cache (not a JSON object)");
  std::optional<StringRef> format = root->getString("format");
  if (!format || *format != kFormat)
    return warn("not a Kiln timing cache (no \"format\": \"kiln-timing-cache\")");
  std::optional<int64_t> version = root->getInteger("version");
  if (!version || *version != kVersion)
    return warn(formatv("version {0}, this compiler reads version {1}",
                        version ? std::to_string(*version) : std::string("?"), kVersion));
  const json::Array *list = root->getArray("entries");
  if (!list)
    return warn("no \"entries\" list");
  for (auto [index, value] : llvm::enumerate(*list)) {
    const json::Object *entry = value.getAsObject();
    std::optional<StringRef> gpu, driver, kernel, config;
    std::optional<double> micros;
    if (entry) {
      gpu = entry->getString("gpu");
      driver = entry->getString("driver");
      kernel = entry->getString("kernel");
      config = entry->getString("config");
      micros = entry->getNumber("micros");
    }
    if (!gpu || !driver || !kernel || !config || !micros || !std::isfinite(*micros) || *micros < 0)
      return warn(formatv("entry {0} is malformed (needs gpu, driver, kernel, config and "
                          "micros >= 0)",
                          index));
    TimingEntry stored;
    stored.micros = *micros;
    if (std::optional<StringRef> when = entry->getString("when"))
      stored.when = when->str();
    if (std::optional<StringRef> problem = entry->getString("problem"))
      stored.problem = problem->str();
    entries[Key{gpu->str(), driver->str(), kernel->str(), config->str()}] = std::move(stored);
  }
  return std::nullopt;
}

std::optional<std::string> TimingCache::save() const {
  auto problem = [&](const Twine &what) -> std::optional<std::string> {
    return ("cannot write the timing cache '" + path + "': " + what).str();
  };
  json::Array list;
  for (const auto &[key, entry] : entries) {
    const auto &[gpu, driver, kernel, config] = key;
    json::Object object{{"gpu", gpu},       {"driver", driver},       {"kernel", kernel},
                        {"config", config}, {"micros", entry.micros}, {"when", entry.when}};
    if (!entry.problem.empty())
      object["problem"] = entry.problem;
    list.push_back(std::move(object));
  }
  json::Value root =
      json::Object{{"format", kFormat}, {"version", kVersion}, {"entries", std::move(list)}};

  StringRef folder = sys::path::parent_path(path);
  if (!folder.empty())
    if (std::error_code error = sys::fs::create_directories(folder))
      return problem("cannot create '" + folder + "': " + error.message());
  // A temporary file beside it, then a rename: readers see the old file or the new one.
  std::string temporary = formatv("{0}.tmp{1}", path, ::getpid()).str();
  {
    std::error_code error;
    raw_fd_ostream os(temporary, error, sys::fs::OF_Text);
    if (error)
      return problem(error.message());
    os << formatv("{0:2}", root) << "\n";
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      sys::fs::remove(temporary);
      return problem(message);
    }
  }
  if (std::error_code error = sys::fs::rename(temporary, path)) {
    sys::fs::remove(temporary);
    return problem(error.message());
  }
  return std::nullopt;
}

std::map<std::string, TimingEntry> TimingCache::lookup(const TimingGpu &gpu,
                                                       StringRef kernel) const {
  std::map<std::string, TimingEntry> found;
  for (const auto &[key, entry] : entries) {
    const auto &[entryGpu, entryDriver, entryKernel, entryConfig] = key;
    if (entryGpu != gpu.name || entryKernel != kernel)
      continue;
    if (!gpu.driver.empty() && entryDriver != gpu.driver)
      continue;
    auto [at, inserted] = found.try_emplace(entryConfig, entry);
    // Any driver: the most recent measurement (ISO times sort as text).
    if (!inserted && entry.when > at->second.when)
      at->second = entry;
  }
  return found;
}

std::optional<TimingEntry> TimingCache::lookup(const TimingGpu &gpu, StringRef kernel,
                                               StringRef config) const {
  std::map<std::string, TimingEntry> found = lookup(gpu, kernel);
  auto at = found.find(config.str());
  if (at == found.end())
    return std::nullopt;
  return at->second;
}

void TimingCache::insert(const TimingGpu &gpu, StringRef kernel, StringRef config,
                         TimingEntry entry) {
  if (entry.when.empty())
    entry.when = now();
  entries[Key{gpu.name, gpu.driver, kernel.str(), config.str()}] = std::move(entry);
  dirty = true;
}

} // namespace kiln
