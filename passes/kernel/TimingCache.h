//===- TimingCache.h - Measured kernel times, kept across compiles -*- C++ -*-===//
//
// kernel-autotune's memory: every candidate it measured, keyed by
//   GPU (sm name + device name, "sm_90 NVIDIA H200"), driver version ("13000"),
//   kernel signature (a hash of the kernel.func without its name, locations and tuning
//   attributes: kernelSignature in passes/kernel/Autotune.h), and configuration (the
//   `kernel.config` dictionary as MLIR prints it),
// with the microseconds measured and when. Stored as JSON (docs/tuning.md shows a file):
//
//   {"format": "kiln-timing-cache", "version": 1, "entries": [
//     {"gpu": "...", "driver": "...", "kernel": "<sha256 hex>", "config": "{...}",
//      "micros": 14.2, "when": "2026-11-22T10:00:00Z", "problem": "MatMul_12 ..."}]}
//
// Written atomically (a temporary file in the same folder, then a rename). A file that is
// missing is an empty cache; one that does not parse, is another format or version, or
// holds malformed entries is reported (naming the file) and treated as empty: it is never
// fatal, and the next save replaces it.
//
// No LLVM/MLIR IR dependency: keys are strings, so the runtime-free tools could read it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_TIMINGCACHE_H
#define KILN_PASSES_KERNEL_TIMINGCACHE_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kiln {

/// Which GPU a time was measured on.
struct TimingGpu {
  /// "sm_90 NVIDIA H200": the runtime's smName() and deviceName().
  std::string name;
  /// The driver's CUDA version as the runtime reports it ("13000"); empty on a lookup
  /// means "any driver" (compiles without a GPU, which have no driver to ask).
  std::string driver;

  /// The GPU a compile for `target` stands for when no GPU is present: sm_90a's is the
  /// H200 ("sm_90 NVIDIA H200"), sm_80's the A100 ("sm_80 NVIDIA A100-SXM4-80GB"); the
  /// driver is left empty (any).
  static TimingGpu defaultForTarget(llvm::StringRef target);
};

struct TimingEntry {
  double micros = 0;
  /// ISO 8601 UTC time of the measurement.
  std::string when;
  /// For people reading the file: the kernel's name and problem when it was measured.
  std::string problem;
};

class TimingCache {
public:
  /// The default file: $KILN_CACHE_DIR/timing-cache.json, else
  /// $XDG_CACHE_HOME/kiln/timing-cache.json, else ~/.cache/kiln/timing-cache.json.
  static std::string defaultPath();

  TimingCache() = default;
  explicit TimingCache(std::string path) : path(std::move(path)) {}

  /// Reads the file (a missing file is an empty cache). Returns a warning ("timing cache
  /// 'FILE': <problem>; ignored") when the file is unusable; the cache is then empty.
  std::optional<std::string> load();
  /// Writes every entry to the file atomically, creating its folder. Returns the problem,
  /// if any ("cannot write the timing cache 'FILE': ...").
  std::optional<std::string> save() const;

  /// Every configuration timed for `kernel` on `gpu`, configuration -> entry. With an
  /// empty `gpu.driver` the entries of any driver count (the most recent wins).
  std::map<std::string, TimingEntry> lookup(const TimingGpu &gpu, llvm::StringRef kernel) const;
  std::optional<TimingEntry> lookup(const TimingGpu &gpu, llvm::StringRef kernel,
                                    llvm::StringRef config) const;
  /// Records a measurement (replacing one of the same key); `when` defaults to now.
  void insert(const TimingGpu &gpu, llvm::StringRef kernel, llvm::StringRef config,
              TimingEntry entry);

  size_t size() const { return entries.size(); }
  bool isDirty() const { return dirty; }
  const std::string &getPath() const { return path; }

  /// The current UTC time, ISO 8601.
  static std::string now();

  static constexpr llvm::StringLiteral kFormat = "kiln-timing-cache";
  static constexpr int kVersion = 1;

private:
  /// gpu, driver, kernel, config.
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::string path;
  std::map<Key, TimingEntry> entries;
  bool dirty = false;
};

} // namespace kiln

#endif // KILN_PASSES_KERNEL_TIMINGCACHE_H
