//===- MakeTestEngine.cpp - Writes the sample engine for tests ------------===//
//
//   make-test-engine OUT.kiln [--target sm_80] [--placeholder-cubin] [--cubins DIR]
//                    [--data-dir DIR] [--inconsistent] [--format-version N] [--dynamic]
//                    [--read-back]
//
// Writes test/tools/make-test-engine/SampleEngine.h's engine. --data-dir also writes its
// inputs (x.npy, y.npy) and expected outputs (sum.npy, xy.npy, flags.npy), so
// `kiln run OUT.kiln --inputs-dir DIR --expect-dir DIR` checks the GPU's results.
// --cubins DIR embeds DIR/<module>.cubin where present (cubins made on the GPU machine
// with ptxas from `kiln inspect --dump-kernels`). --inconsistent and --format-version
// write engines the runtime must refuse (with a valid checksum). --dynamic writes the
// dynamic sample (rows 1 to 4). --read-back writes the kernel-free read-back sample (a
// data-dependent output; its --data-dir files are x.npy and head.npy). Links KilnRuntime
// only.
//
//===----------------------------------------------------------------------===//

#include "test/tools/make-test-engine/SampleEngine.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

int usage() {
  std::fprintf(stderr, "usage: make-test-engine OUT.kiln [--target sm_XY] [--placeholder-cubin] "
                       "[--cubins DIR] [--data-dir DIR] [--inconsistent] [--format-version N] "
                       "[--dynamic] [--read-back]\n");
  return 2;
}

bool writeFile(const std::string &path, const void *data, size_t size) {
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    std::fprintf(stderr, "make-test-engine: cannot write '%s'\n", path.c_str());
    return false;
  }
  bool ok = std::fwrite(data, 1, size, file) == size;
  ok &= std::fclose(file) == 0;
  if (!ok)
    std::fprintf(stderr, "make-test-engine: cannot write '%s'\n", path.c_str());
  return ok;
}

/// A NumPy .npy file (format 1.0) holding `count` elements of `descr` ("<f4", "|u1").
bool writeNpy(const std::string &path, const char *descr, const std::vector<int> &shape,
              const void *data, size_t bytes) {
  std::string dims;
  for (int extent : shape)
    dims += std::to_string(extent) + ", ";
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string file = "\x93NUMPY";
  file += '\x01';
  file += '\x00';
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  file += header;
  file.append(static_cast<const char *>(data), bytes);
  return writeFile(path, file.data(), file.size());
}

} // namespace

int main(int argc, char **argv) {
  std::string output, target = "sm_80", cubins, dataDir;
  bool placeholderCubin = false, inconsistent = false, dynamic = false, readBack = false;
  long formatVersion = -1;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    auto value = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    if (argument == "--target") {
      const char *text = value();
      if (!text)
        return usage();
      target = text;
    } else if (argument == "--placeholder-cubin") {
      placeholderCubin = true;
    } else if (argument == "--cubins") {
      const char *text = value();
      if (!text)
        return usage();
      cubins = text;
    } else if (argument == "--data-dir") {
      const char *text = value();
      if (!text)
        return usage();
      dataDir = text;
    } else if (argument == "--inconsistent") {
      inconsistent = true;
    } else if (argument == "--dynamic") {
      dynamic = true;
    } else if (argument == "--read-back") {
      readBack = true;
    } else if (argument == "--format-version") {
      const char *text = value();
      if (!text)
        return usage();
      formatVersion = std::strtol(text, nullptr, 10);
    } else if (!argument.empty() && argument[0] != '-' && output.empty()) {
      output = argument;
    } else {
      return usage();
    }
  }
  if (output.empty())
    return usage();

  kiln::engine::Engine model = readBack  ? kiln::test::readBackSampleEngine(target)
                               : dynamic ? kiln::test::dynamicSampleEngine(target)
                                         : kiln::test::sampleEngine(target, placeholderCubin);
  if (!cubins.empty())
    for (kiln::engine::Module &module : model.modules) {
      std::ifstream file(cubins + "/" + module.name + ".cubin", std::ios::binary);
      if (file)
        module.cubin.assign(std::istreambuf_iterator<char>(file), {});
    }
  if (inconsistent && readBack)
    model.steps[1].bytes = 3; // a read-back of 1, 2, 4 or 8 bytes
  else if (inconsistent)
    model.steps[0].kernel = 7; // the engine has two kernels

  std::vector<uint8_t> bytes;
  kiln::engine::serializeEngine(model, bytes);
  if (formatVersion >= 0) // outside the checksummed bytes
    for (int b = 0; b < 4; ++b)
      bytes[8 + b] = static_cast<uint8_t>(static_cast<unsigned long>(formatVersion) >> (8 * b));
  if (!inconsistent && formatVersion < 0) {
    // The normal path, through the writer the compiler uses.
    if (std::string problem = kiln::engine::writeEngineFile(model, output); !problem.empty()) {
      std::fprintf(stderr, "make-test-engine: %s\n", problem.c_str());
      return 1;
    }
  } else if (!writeFile(output, bytes.data(), bytes.size())) {
    return 1;
  }

  if (!dataDir.empty() && readBack) {
    // n = 3: head is x[1 .. 4].
    std::vector<int64_t> x = {3, 10, 20, 30, 40, 50, 60, 70};
    std::vector<int64_t> head = kiln::test::readBackSampleOutput(x);
    if (!writeNpy(dataDir + "/x.npy", "<i8", {int(x.size())}, x.data(), x.size() * 8) ||
        !writeNpy(dataDir + "/head.npy", "<i8", {int(head.size())}, head.data(), head.size() * 8))
      return 1;
  } else if (!dataDir.empty()) {
    std::vector<float> x, y, sum, xy;
    std::vector<uint8_t> flags;
    kiln::test::sampleInputs(x, y);
    kiln::test::sampleOutputs(x, y, sum, xy, flags);
    std::vector<int> shape = {kiln::test::kSampleRows, kiln::test::kSampleColumns};
    size_t bytesPerTensor = x.size() * sizeof(float);
    if (!writeNpy(dataDir + "/x.npy", "<f4", shape, x.data(), bytesPerTensor) ||
        !writeNpy(dataDir + "/y.npy", "<f4", shape, y.data(), bytesPerTensor) ||
        !writeNpy(dataDir + "/sum.npy", "<f4", shape, sum.data(), bytesPerTensor) ||
        !writeNpy(dataDir + "/xy.npy", "<f4", shape, xy.data(), bytesPerTensor) ||
        !writeNpy(dataDir + "/flags.npy", "|u1", {4}, flags.data(), flags.size()))
      return 1;
  }
  return 0;
}
