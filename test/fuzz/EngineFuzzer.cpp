//===- EngineFuzzer.cpp - libFuzzer target for the engine reader ----------===//
//
// Feeds arbitrary bytes to deserializeEngine. Any input may be refused, with one line; none
// may crash, hang, leak, read outside the bytes, or allocate more than the input's size
// suggests. Each input is tried twice: as it is (header checks), and with its checksum
// recomputed, so mutations reach the payload parser and Engine::validate instead of
// stopping at the checksum. An accepted engine must write back to bytes that read again.
// Built with -DKILN_BUILD_FUZZERS=ON by clang (scripts/fuzz-engine.sh).
//
//===----------------------------------------------------------------------===//

#include "runtime/Engine.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace {

void checkOneLine(const std::string &message) {
  if (message.find('\n') != std::string::npos)
    std::abort(); // refusals are one line
}

void tryBytes(const uint8_t *data, size_t size) {
  kiln::engine::Engine engine;
  std::string message = kiln::engine::deserializeEngine(data, size, "fuzz.kiln", engine);
  checkOneLine(message);
  if (!message.empty())
    return;
  // Accepted: validate agrees, and a round trip through the writer reads back.
  if (!engine.validate().empty())
    std::abort();
  std::vector<uint8_t> again;
  kiln::engine::serializeEngine(engine, again);
  kiln::engine::Engine copy;
  if (!kiln::engine::deserializeEngine(again.data(), again.size(), "again", copy).empty())
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tryBytes(data, size);
  constexpr size_t kChecksumAt = 24, kChecksummedFrom = 32;
  if (size < kChecksummedFrom)
    return 0;
  std::vector<uint8_t> fixed(data, data + size);
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = kChecksummedFrom; i < size; ++i) {
    hash ^= fixed[i];
    hash *= 0x100000001b3ull;
  }
  for (int i = 0; i < 8; ++i)
    fixed[kChecksumAt + i] = static_cast<uint8_t>(hash >> (8 * i));
  tryBytes(fixed.data(), fixed.size());
  return 0;
}
