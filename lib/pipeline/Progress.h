//===- Progress.h - Progress lines of the kiln commands ---------*- C++ -*-===//

#ifndef KILN_LIB_PIPELINE_PROGRESS_H
#define KILN_LIB_PIPELINE_PROGRESS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace kiln {

/// Progress lines on stderr ("kiln: what (1.23 s)"), with the time each step took;
/// silent when `quiet`.
class Progress {
public:
  explicit Progress(bool quiet) : quiet(quiet) {}
  void step(const llvm::Twine &what) {
    auto now = std::chrono::steady_clock::now();
    if (!quiet)
      llvm::errs() << llvm::formatv("kiln: {0} ({1:f2} s)\n", what.str(),
                                    std::chrono::duration<double>(now - last).count());
    last = now;
  }

private:
  bool quiet;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

} // namespace kiln

#endif // KILN_LIB_PIPELINE_PROGRESS_H
