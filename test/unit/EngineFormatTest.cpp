//===- EngineFormatTest.cpp - Engine files: round trip and refusals -------===//
//
// No GPU needed: the bytes of engine files, how the reader refuses damaged or inconsistent
// ones (one line naming the file and the problem), and which GPUs a target runs on.
//
//===----------------------------------------------------------------------===//

#include "runtime/Engine.h"
#include "test/tools/make-test-engine/SampleEngine.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace kiln::engine;

namespace {

// Engine file offsets (docs/engine-format.md).
constexpr size_t kVersionAt = 8, kHeaderBytesAt = 12, kChecksummedFrom = 32;

uint32_t read32(const std::vector<uint8_t> &bytes, size_t at) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= uint32_t(bytes[at + i]) << (8 * i);
  return value;
}

void write32(std::vector<uint8_t> &bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[at + i] = uint8_t(value >> (8 * i));
}

void write64(std::vector<uint8_t> &bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[at + i] = uint8_t(value >> (8 * i));
}

/// Recomputes the checksum after a test edited the bytes on purpose, so the reader gets
/// past it to the damage under test.
void fixChecksum(std::vector<uint8_t> &bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = kChecksummedFrom; i < bytes.size(); ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  write64(bytes, 24, hash);
}

/// Where the payload's input count lies: after the model name and the two plan sizes.
size_t inputCountOffset(const std::vector<uint8_t> &bytes) {
  size_t payload = read32(bytes, kHeaderBytesAt);
  return payload + 4 + read32(bytes, payload) + 16;
}

std::string refusal(const std::vector<uint8_t> &bytes, size_t size) {
  Engine engine;
  return deserializeEngine(bytes.data(), size, "model.kiln", engine);
}

std::string refusal(const std::vector<uint8_t> &bytes) { return refusal(bytes, bytes.size()); }

/// Every refusal is one line naming the file.
void expectOneLine(const std::string &message) {
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind("'model.kiln': ", 0), 0u) << message;
}

/// The sample with every field set to something other than its default.
Engine richEngine() {
  Engine engine = kiln::test::sampleEngine("sm_90a", /*placeholderCubin=*/true);
  engine.modules[0].cubin = {0, 1, 2, 255};
  engine.kernels[1].measuredMicros = 12.25;
  engine.kernels[1].tuningSource = "measured";
  engine.kernels[1].programmaticLaunch = true;
  engine.steps[0].grid[0] = 3;
  engine.steps[0].grid[1] = 2;
  engine.steps[0].grid[2] = 5;
  engine.steps[0].block[1] = 2;
  engine.steps[0].block[2] = 3;
  engine.steps[0].sharedBytes = 4096;
  engine.steps[3].fillByte = 0xab;
  engine.functions.push_back({"Conv_1", 2.5e9, 3.25e6});
  engine.steps[0].function = 0;
  engine.outputs.push_back({"scalar", ElementType::BF16, {}});
  engine.inputs.push_back({"ids", ElementType::I64, {2, 0, 3}});
  engine.unplannedBytes = 123456789012ull;
  return engine;
}

void expectSameAddress(const Address &a, const Address &b) {
  EXPECT_EQ(a.region, b.region);
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.offset, b.offset);
}

void expectSameEngine(const Engine &a, const Engine &b) {
  EXPECT_EQ(a.compilerVersion, b.compilerVersion);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.modelName, b.modelName);
  EXPECT_EQ(a.arenaBytes, b.arenaBytes);
  EXPECT_EQ(a.unplannedBytes, b.unplannedBytes);
  EXPECT_EQ(a.weights, b.weights);
  for (auto [x, y] : {std::pair(&a.inputs, &b.inputs), std::pair(&a.outputs, &b.outputs)}) {
    ASSERT_EQ(x->size(), y->size());
    for (size_t i = 0; i < x->size(); ++i) {
      EXPECT_EQ((*x)[i].name, (*y)[i].name);
      EXPECT_EQ((*x)[i].type, (*y)[i].type);
      EXPECT_EQ((*x)[i].shape, (*y)[i].shape);
    }
  }
  ASSERT_EQ(a.modules.size(), b.modules.size());
  for (size_t i = 0; i < a.modules.size(); ++i) {
    EXPECT_EQ(a.modules[i].name, b.modules[i].name);
    EXPECT_EQ(a.modules[i].ptx, b.modules[i].ptx);
    EXPECT_EQ(a.modules[i].cubin, b.modules[i].cubin);
  }
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].module, b.kernels[i].module);
    EXPECT_EQ(a.kernels[i].templateKind, b.kernels[i].templateKind);
    EXPECT_EQ(a.kernels[i].sourceNodes, b.kernels[i].sourceNodes);
    EXPECT_EQ(a.kernels[i].config, b.kernels[i].config);
    EXPECT_EQ(a.kernels[i].measuredMicros, b.kernels[i].measuredMicros);
    EXPECT_EQ(a.kernels[i].tuningSource, b.kernels[i].tuningSource);
    EXPECT_EQ(a.kernels[i].programmaticLaunch, b.kernels[i].programmaticLaunch);
  }
  ASSERT_EQ(a.functions.size(), b.functions.size());
  for (size_t i = 0; i < a.functions.size(); ++i) {
    EXPECT_EQ(a.functions[i].name, b.functions[i].name);
    EXPECT_EQ(a.functions[i].flops, b.functions[i].flops);
    EXPECT_EQ(a.functions[i].bytes, b.functions[i].bytes);
  }
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const Step &x = a.steps[i], &y = b.steps[i];
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.kernel, y.kernel);
    EXPECT_EQ(x.function, y.function);
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(x.grid[d], y.grid[d]);
      EXPECT_EQ(x.block[d], y.block[d]);
    }
    EXPECT_EQ(x.sharedBytes, y.sharedBytes);
    ASSERT_EQ(x.arguments.size(), y.arguments.size());
    for (size_t j = 0; j < x.arguments.size(); ++j) {
      EXPECT_EQ(x.arguments[j].kind, y.arguments[j].kind);
      expectSameAddress(x.arguments[j].address, y.arguments[j].address);
      EXPECT_EQ(x.arguments[j].scalar, y.arguments[j].scalar);
      const TensorMap &p = x.arguments[j].tensorMap, &q = y.arguments[j].tensorMap;
      EXPECT_EQ(std::vector<uint8_t>(
                    {p.dataType, p.rank, p.interleave, p.swizzle, p.l2Promotion, p.oobFill}),
                std::vector<uint8_t>(
                    {q.dataType, q.rank, q.interleave, q.swizzle, q.l2Promotion, q.oobFill}));
      for (unsigned d = 0; d < TensorMap::kMaxRank; ++d) {
        EXPECT_EQ(p.dims[d], q.dims[d]);
        EXPECT_EQ(p.box[d], q.box[d]);
        EXPECT_EQ(p.elementStrides[d], q.elementStrides[d]);
        if (d + 1 < TensorMap::kMaxRank) {
          EXPECT_EQ(p.strides[d], q.strides[d]);
        }
      }
    }
    expectSameAddress(x.source, y.source);
    expectSameAddress(x.destination, y.destination);
    EXPECT_EQ(x.bytes, y.bytes);
    EXPECT_EQ(x.fillByte, y.fillByte);
    EXPECT_EQ(x.value, y.value);
  }
}

void expectSameShapes(const Engine &a, const Engine &b) {
  for (auto [x, y] : {std::pair(&a.inputs, &b.inputs), std::pair(&a.outputs, &b.outputs)}) {
    ASSERT_EQ(x->size(), y->size());
    for (size_t i = 0; i < x->size(); ++i) {
      EXPECT_EQ((*x)[i].maxShape, (*y)[i].maxShape);
      EXPECT_EQ((*x)[i].minShape, (*y)[i].minShape);
      EXPECT_EQ((*x)[i].optShape, (*y)[i].optShape);
      EXPECT_EQ((*x)[i].dimNames, (*y)[i].dimNames);
      EXPECT_EQ((*x)[i].dimValues, (*y)[i].dimValues);
    }
  }
  ASSERT_EQ(a.shapeProgram.size(), b.shapeProgram.size());
  for (size_t v = 0; v < a.shapeProgram.size(); ++v) {
    EXPECT_EQ(a.shapeProgram[v].op, b.shapeProgram[v].op);
    EXPECT_EQ(a.shapeProgram[v].a, b.shapeProgram[v].a);
    EXPECT_EQ(a.shapeProgram[v].b, b.shapeProgram[v].b);
    EXPECT_EQ(a.shapeProgram[v].constant, b.shapeProgram[v].constant);
  }
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t s = 0; s < a.steps.size(); ++s) {
    ASSERT_EQ(a.steps[s].runtimeFields.size(), b.steps[s].runtimeFields.size());
    for (size_t f = 0; f < a.steps[s].runtimeFields.size(); ++f) {
      EXPECT_EQ(a.steps[s].runtimeFields[f].kind, b.steps[s].runtimeFields[f].kind);
      EXPECT_EQ(a.steps[s].runtimeFields[f].index, b.steps[s].runtimeFields[f].index);
      EXPECT_EQ(a.steps[s].runtimeFields[f].value, b.steps[s].runtimeFields[f].value);
    }
  }
}

std::string temporaryPath(const std::string &name) {
  const char *dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/kiln-engine-test-" +
         std::to_string(::getpid()) + "-" + name;
}

//===----------------------------------------------------------------------===//

TEST(EngineFormat, RoundTripKeepsEveryField) {
  Engine original = richEngine();
  ASSERT_EQ(original.validate(), "");
  std::vector<uint8_t> bytes;
  serializeEngine(original, bytes);
  Engine copy;
  ASSERT_EQ(deserializeEngine(bytes.data(), bytes.size(), "model.kiln", copy), "");
  expectSameEngine(original, copy);

  // Writing again gives the same bytes: the format has no hidden state.
  std::vector<uint8_t> again;
  serializeEngine(copy, again);
  EXPECT_EQ(bytes, again);
}

/// A 2-D f16 tensor map over input 0 of the sample (2 x 8 f32 = 64 bytes, read as a 2 x 16
/// f16 matrix of 32-byte rows): boxes of 2 x 16, 64-byte swizzle.
TensorMap sampleTensorMap() {
  TensorMap map;
  map.dataType = 6; // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  map.rank = 2;
  map.dims[0] = 16;
  map.dims[1] = 2;
  map.strides[0] = 32;
  map.box[0] = 16;
  map.box[1] = 2;
  map.elementStrides[0] = map.elementStrides[1] = 1;
  map.swizzle = 2; // 64 bytes
  map.oobFill = 1;
  return map;
}

TEST(EngineFormat, TensorMapArgumentsRoundTrip) {
  Engine original = richEngine();
  LaunchArgument argument;
  argument.kind = LaunchArgument::Kind::TensorMap;
  argument.address = {Region::Input, 0, 0};
  argument.tensorMap = sampleTensorMap();
  original.steps[0].arguments.push_back(argument);
  ASSERT_EQ(original.validate(), "");
  std::vector<uint8_t> bytes;
  serializeEngine(original, bytes);
  Engine copy;
  ASSERT_EQ(deserializeEngine(bytes.data(), bytes.size(), "model.kiln", copy), "");
  expectSameEngine(original, copy);
  EXPECT_EQ(copy.steps[0].arguments.back().size(), 8u);
}

TEST(EngineFormat, TensorMapRulesAreChecked) {
  auto refusalOf = [](auto change) {
    Engine engine = kiln::test::sampleEngine();
    LaunchArgument argument;
    argument.kind = LaunchArgument::Kind::TensorMap;
    argument.address = {Region::Input, 0, 0};
    argument.tensorMap = sampleTensorMap();
    change(argument);
    engine.steps[0].arguments.push_back(argument);
    return engine.validate();
  };
  EXPECT_EQ(refusalOf([](LaunchArgument &) {}), "");
  auto expectProblem = [&](auto change, const std::string &expected) {
    std::string problem = refusalOf(change);
    EXPECT_NE(problem.find(expected), std::string::npos) << problem;
    EXPECT_NE(problem.find("step 0 (kernel 'add_f32') argument 4"), std::string::npos) << problem;
  };
  expectProblem([](LaunchArgument &a) { a.tensorMap.dataType = 40; }, "unknown data type 40");
  expectProblem([](LaunchArgument &a) { a.tensorMap.rank = 6; }, "rank 6");
  expectProblem([](LaunchArgument &a) { a.tensorMap.box[1] = 0; }, "box 0 of dimension 1");
  expectProblem([](LaunchArgument &a) { a.tensorMap.strides[0] = 24; }, "stride 24");
  expectProblem([](LaunchArgument &a) { a.tensorMap.box[0] = 4; }, "inner box of 8 bytes");
  expectProblem(
      [](LaunchArgument &a) {
        a.tensorMap.swizzle = 1; // 32 bytes: a 32-element (64-byte) inner box does not fit
        a.tensorMap.box[0] = 32;
      },
      "inner box of 64 bytes exceeds its 32-byte swizzle span");
  expectProblem([](LaunchArgument &a) { a.address.offset = 8; }, "16-byte aligned");
  // Three rows of 32 bytes do not fit in the 64-byte input.
  expectProblem([](LaunchArgument &a) { a.tensorMap.dims[1] = 3; }, "overrun");
}

TEST(EngineFormat, EmptyEngineRoundTrips) {
  Engine empty;
  std::vector<uint8_t> bytes;
  serializeEngine(empty, bytes);
  Engine copy;
  copy.target = "x";
  ASSERT_EQ(deserializeEngine(bytes.data(), bytes.size(), "model.kiln", copy), "");
  expectSameEngine(empty, copy);
}

TEST(EngineFormat, HeaderAndWeightsLayout) {
  Engine engine = richEngine();
  std::vector<uint8_t> bytes;
  serializeEngine(engine, bytes);
  EXPECT_EQ(std::memcmp(bytes.data(), "KILNENG\0", 8), 0);
  EXPECT_EQ(read32(bytes, kVersionAt), Engine::kFormatVersion);
  // The weights are the file's last bytes and start 256-byte aligned.
  size_t weightsAt = bytes.size() - engine.weights.size();
  EXPECT_EQ(weightsAt % 256, 0u);
  EXPECT_TRUE(std::equal(engine.weights.begin(), engine.weights.end(), bytes.begin() + weightsAt));
}

TEST(EngineFormat, FileRoundTripLeavesNoTemporaryFile) {
  std::string path = temporaryPath("roundtrip.kiln");
  Engine original = richEngine();
  ASSERT_EQ(writeEngineFile(original, path), "");
  Engine copy;
  ASSERT_EQ(readEngineFile(path, copy), "");
  expectSameEngine(original, copy);
  EXPECT_NE(access((path + ".tmp" + std::to_string(::getpid())).c_str(), F_OK), 0);
  std::remove(path.c_str());
}

TEST(EngineFormat, WriterRefusesInconsistentEnginesAndUnwritablePaths) {
  Engine engine = kiln::test::sampleEngine();
  engine.steps[0].kernel = 9;
  std::string path = temporaryPath("inconsistent.kiln");
  std::string message = writeEngineFile(engine, path);
  EXPECT_NE(message.find("inconsistent engine: step 0 launches kernel 9 of 2"), std::string::npos)
      << message;
  EXPECT_NE(access(path.c_str(), F_OK), 0);

  message = writeEngineFile(kiln::test::sampleEngine(), "/nonexistent-dir/model.kiln");
  EXPECT_NE(message.find("cannot write '/nonexistent-dir/model.kiln'"), std::string::npos)
      << message;
}

TEST(EngineFormat, MissingFile) {
  Engine engine;
  std::string message = readEngineFile("/nonexistent/model.kiln", engine);
  EXPECT_EQ(message, "'/nonexistent/model.kiln': cannot open the engine: No such file or "
                     "directory");
}

TEST(EngineFormat, TruncatedAtEveryCutPoint) {
  std::vector<uint8_t> bytes;
  serializeEngine(richEngine(), bytes);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::string message = refusal(bytes, cut);
    ASSERT_FALSE(message.empty()) << "accepted a file cut at " << cut;
    expectOneLine(message);
    if (cut < 8) {
      EXPECT_NE(message.find("bad magic"), std::string::npos) << message;
    } else {
      EXPECT_NE(message.find("truncated"), std::string::npos) << cut << ": " << message;
    }
  }
}

TEST(EngineFormat, TrailingBytes) {
  std::vector<uint8_t> bytes;
  serializeEngine(richEngine(), bytes);
  bytes.push_back(0);
  EXPECT_NE(refusal(bytes).find("1 bytes after the payload"), std::string::npos) << refusal(bytes);
}

TEST(EngineFormat, BadMagic) {
  std::vector<uint8_t> bytes;
  serializeEngine(richEngine(), bytes);
  bytes[3] = 'X';
  EXPECT_EQ(refusal(bytes), "'model.kiln': not a Kiln engine (bad magic)");
  std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  EXPECT_EQ(refusal(text), "'model.kiln': not a Kiln engine (bad magic)");
}

TEST(EngineFormat, OtherFormatVersion) {
  std::vector<uint8_t> bytes;
  serializeEngine(richEngine(), bytes);
  write32(bytes, kVersionAt, 6);
  EXPECT_EQ(refusal(bytes),
            "'model.kiln': format version 6, this runtime reads 7; recompile the model");
  write32(bytes, kVersionAt, 8);
  EXPECT_EQ(refusal(bytes),
            "'model.kiln': format version 8, this runtime reads 7; recompile the model");
}

TEST(EngineFormat, EveryFlippedByteIsRefused) {
  std::vector<uint8_t> bytes;
  serializeEngine(richEngine(), bytes);
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::vector<uint8_t> damaged = bytes;
    damaged[at] ^= 0x20;
    std::string message = refusal(damaged);
    ASSERT_FALSE(message.empty()) << "accepted a flipped byte at " << at;
    expectOneLine(message);
    if (at >= kChecksummedFrom) {
      EXPECT_NE(message.find("checksum mismatch"), std::string::npos) << at << ": " << message;
    }
  }
}

TEST(EngineFormat, HugeCorruptCountsAllocateNothing) {
  std::vector<uint8_t> bytes;
  serializeEngine(richEngine(), bytes);
  size_t inputs = inputCountOffset(bytes);

  std::vector<uint8_t> damaged = bytes;
  write32(damaged, inputs, 0xffffffffu);
  fixChecksum(damaged);
  EXPECT_NE(refusal(damaged).find("corrupt count: 4294967295 inputs in"), std::string::npos)
      << refusal(damaged);

  // The first input's name length, then its rank.
  damaged = bytes;
  write32(damaged, inputs + 4, 0xfffffff0u);
  fixChecksum(damaged);
  EXPECT_NE(refusal(damaged).find("truncated in a tensor name"), std::string::npos)
      << refusal(damaged);
  damaged = bytes;
  size_t rankAt = inputs + 4 + 4 + read32(bytes, inputs + 4) + 1;
  write32(damaged, rankAt, 0x40000000u);
  fixChecksum(damaged);
  EXPECT_NE(refusal(damaged).find("corrupt count: 1073741824 dimensions"), std::string::npos)
      << refusal(damaged);

  // A module's PTX size (u64) far beyond the file.
  Engine small;
  small.modules.push_back({"m", "ptx", {}});
  serializeEngine(small, bytes);
  // model name "", arena, unplanned, 0 inputs, 0 outputs, 1 module, name "m", then the size.
  size_t ptxSizeAt = read32(bytes, kHeaderBytesAt) + 4 + 16 + 4 + 4 + 4 + 4 + 1;
  write64(bytes, ptxSizeAt, 1ull << 60);
  fixChecksum(bytes);
  EXPECT_NE(refusal(bytes).find("truncated in a module's PTX"), std::string::npos)
      << refusal(bytes);
}

/// Serialises `engine` (which validate() must refuse) and expects the reader to refuse it
/// with `expected` in the message.
void expectInconsistent(const Engine &engine, const std::string &expected) {
  std::vector<uint8_t> bytes;
  serializeEngine(engine, bytes);
  std::string message = refusal(bytes);
  expectOneLine(message);
  EXPECT_NE(message.find("'model.kiln': inconsistent engine: "), std::string::npos) << message;
  EXPECT_NE(message.find(expected), std::string::npos) << message;
}

TEST(EngineFormat, InconsistentEnginesAreRefused) {
  using kiln::test::sampleEngine;
  Engine engine = sampleEngine();
  engine.steps[1].kernel = 2;
  expectInconsistent(engine, "step 1 launches kernel 2 of 2");

  engine = sampleEngine();
  engine.steps[1].function = 3;
  expectInconsistent(engine, "is of kernel function 3 of 0");

  engine = sampleEngine();
  engine.kernels[1].module = 5;
  expectInconsistent(engine, "kernel 1 'axpy_f32' names module 5 of 2");

  engine = sampleEngine();
  engine.steps[0].arguments[1].address.index = 2;
  expectInconsistent(engine, "step 0 (kernel 'add_f32') argument 1: input 2 does not exist "
                             "(the engine has 2)");

  engine = sampleEngine();
  engine.steps[1].arguments[2].address.index = 3;
  expectInconsistent(engine, "output 3 does not exist");

  engine = sampleEngine();
  engine.steps[1].arguments[0].address.offset = engine.arenaBytes + 1;
  expectInconsistent(engine, "step 1 (kernel 'axpy_f32') argument 0: 0 bytes at offset 321 of "
                             "the arena overrun its 320 bytes");

  engine = sampleEngine();
  engine.steps[2].bytes = 68;
  expectInconsistent(engine, "step 2 (copy) source: 68 bytes at offset 256 of the arena overrun "
                             "its 320 bytes");

  engine = sampleEngine();
  engine.steps[2].destination.offset = 8;
  expectInconsistent(engine, "step 2 (copy) destination: 64 bytes at offset 8 of the output 1 "
                             "overrun its 64 bytes");

  engine = sampleEngine();
  engine.steps[3].bytes = 5;
  expectInconsistent(engine, "step 3 (fill): 5 bytes at offset 0 of the output 2 overrun its "
                             "4 bytes");

  engine = sampleEngine();
  engine.steps[3].destination.offset = ~0ull; // offset + bytes wraps around
  expectInconsistent(engine, "step 3 (fill): 4 bytes at offset 18446744073709551615");

  engine = sampleEngine();
  engine.steps[1].arguments[1].address.index = 1;
  expectInconsistent(engine, "argument 1: the weights region has no index 1");

  engine = sampleEngine();
  engine.steps[0].arguments[0].address.region = static_cast<Region>(9);
  expectInconsistent(engine, "unknown region 9");

  engine = sampleEngine();
  engine.steps[0].arguments[3].kind = static_cast<LaunchArgument::Kind>(0);
  expectInconsistent(engine, "argument 3 has unknown kind 0");

  engine = sampleEngine();
  engine.steps[2].kind = static_cast<Step::Kind>(5);
  expectInconsistent(engine, "step 2 has unknown kind 5");

  engine = sampleEngine();
  engine.steps[0].block[0] = 2048;
  expectInconsistent(engine, "2048 threads per block, at most 1024");

  engine = sampleEngine();
  engine.steps[0].grid[1] = 0;
  expectInconsistent(engine, "empty grid or block");

  engine = sampleEngine();
  engine.inputs[1].type = static_cast<ElementType>(42);
  expectInconsistent(engine, "input 1 'y' has unknown element type 42");

  engine = sampleEngine();
  engine.inputs[0].shape = {2, -1};
  expectInconsistent(engine, "input 0 'x' has a negative extent -1");

  engine = sampleEngine();
  engine.outputs[1].name = "sum";
  expectInconsistent(engine, "output 1 'sum' appears twice");

  engine = sampleEngine();
  engine.modules[0].ptx.clear();
  expectInconsistent(engine, "module 0 'add_module' has neither PTX nor cubin");

  engine = sampleEngine();
  engine.inputs[0].shape = {1ll << 40, 1ll << 40};
  expectInconsistent(engine, "input 0 'x' is too large");
}

TEST(EngineFormat, NamesWithControlCharactersStayOnOneLine) {
  // Found by the fuzzer: names are arbitrary bytes, messages must stay one line.
  Engine engine = kiln::test::sampleEngine();
  engine.kernels[0].name = "aid.x;\n\t\x01";
  engine.kernels[0].module = 32;
  expectInconsistent(engine, "kernel 0 'aid.x;\\n\\t\\x01' names module 32 of 2");
  EXPECT_EQ(printable("a\nb\x7f"), "a\\nb\\x7f");
  EXPECT_EQ(quoted("caf\xc3\xa9"), "'caf\xc3\xa9'"); // UTF-8 stays as it is
  Engine read;
  std::string message = readEngineFile("/nonexistent/new\nline.kiln", read);
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(EngineFormat, ValidEngineValidates) {
  EXPECT_EQ(kiln::test::sampleEngine().validate(), "");
  EXPECT_EQ(richEngine().validate(), "");
}

TEST(EngineFormat, CheckTargetRuns) {
  struct Case {
    const char *target;
    int major, minor;
    bool runs;
  } cases[] = {
      {"sm_90a", 9, 0, true},   {"sm_90a", 9, 1, false}, {"sm_90a", 10, 0, false},
      {"sm_90a", 8, 0, false},  {"sm_90", 9, 0, true},   {"sm_90", 9, 2, true},
      {"sm_90", 8, 9, false},   {"sm_90", 10, 0, true},  {"sm_80", 8, 0, true},
      {"sm_80", 8, 6, true},    {"sm_80", 9, 0, true},   {"sm_80", 12, 0, true},
      {"sm_80", 7, 5, false},   {"sm_86", 8, 0, false},  {"sm_100a", 10, 0, true},
      {"sm_100a", 9, 0, false}, {"sm_120", 12, 0, true},
  };
  for (const Case &c : cases) {
    std::string message = checkTargetRuns(c.target, c.major, c.minor);
    EXPECT_EQ(message.empty(), c.runs)
        << c.target << " on " << c.major << "." << c.minor << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
  EXPECT_EQ(checkTargetRuns("sm_90a", 8, 0),
            "the engine was compiled for sm_90a, which runs only on compute capability 9.0; "
            "this GPU is sm_80 (8.0): recompile with --target sm_80");
  for (const char *unknown : {"", "cpu", "sm_", "sm_9", "sm_9x", "gfx90a", "sm_90b", "sm_1000"})
    EXPECT_EQ(checkTargetRuns(unknown, 9, 0), "unknown target '" + std::string(unknown) + "'")
        << unknown;
}

TEST(EngineModel, ElementTypesAndSizes) {
  EXPECT_EQ(elementSize(ElementType::F32), 4u);
  EXPECT_EQ(elementSize(ElementType::BF16), 2u);
  EXPECT_EQ(elementSize(ElementType::I64), 8u);
  EXPECT_EQ(elementSize(ElementType::Bool), 1u);
  EXPECT_EQ(elementSize(static_cast<ElementType>(0)), 0u);
  EXPECT_STREQ(elementTypeName(ElementType::F16), "f16");
  EXPECT_STREQ(elementTypeName(ElementType::U64), "u64");
  EXPECT_STREQ(elementTypeName(static_cast<ElementType>(99)), "?");
  for (int type = 1; type <= 13; ++type) {
    EXPECT_NE(elementSize(static_cast<ElementType>(type)), 0u) << type;
    EXPECT_STRNE(elementTypeName(static_cast<ElementType>(type)), "?") << type;
  }

  TensorSignature tensor{"t", ElementType::F16, {2, 3, 4}};
  EXPECT_EQ(tensor.numElements(), 24);
  EXPECT_EQ(tensor.sizeInBytes(), 48u);
  TensorSignature scalar{"s", ElementType::F64, {}};
  EXPECT_EQ(scalar.numElements(), 1);
  TensorSignature empty{"e", ElementType::F32, {3, 0}};
  EXPECT_EQ(empty.sizeInBytes(), 0u);

  LaunchArgument argument;
  EXPECT_EQ(argument.size(), 8u);
  argument.kind = LaunchArgument::Kind::I32;
  EXPECT_EQ(argument.size(), 4u);
  argument.kind = LaunchArgument::Kind::F32;
  EXPECT_EQ(argument.size(), 4u);
  argument.kind = LaunchArgument::Kind::I64;
  EXPECT_EQ(argument.size(), 8u);
  argument.kind = LaunchArgument::Kind::F64;
  EXPECT_EQ(argument.size(), 8u);
  argument.kind = LaunchArgument::Kind::TensorMap;
  EXPECT_EQ(argument.size(), 8u);

  EXPECT_EQ(TensorMap::elementBytes(6), 2u);  // float16
  EXPECT_EQ(TensorMap::elementBytes(9), 2u);  // bfloat16
  EXPECT_EQ(TensorMap::elementBytes(7), 4u);  // float32
  EXPECT_EQ(TensorMap::elementBytes(13), 0u); // unknown
}

} // namespace

//===----------------------------------------------------------------------===//
// Dynamic engines
//===----------------------------------------------------------------------===//

TEST(DynamicEngine, RoundTripKeepsProfilesAndTheShapeProgram) {
  Engine original = kiln::test::dynamicSampleEngine();
  ASSERT_EQ(original.validate(), "");
  EXPECT_TRUE(original.isDynamic());
  std::vector<uint8_t> bytes;
  serializeEngine(original, bytes);
  Engine copy;
  ASSERT_EQ(deserializeEngine(bytes.data(), bytes.size(), "model.kiln", copy), "");
  expectSameEngine(original, copy);
  expectSameShapes(original, copy);
  // Every cut of a dynamic engine is refused too.
  for (size_t cut = 0; cut < bytes.size(); cut += 7)
    expectOneLine(refusal(bytes, cut));
}

TEST(DynamicEngine, ShapeProgramSetsTheStepsAndOutputs) {
  Engine engine = kiln::test::dynamicSampleEngine();
  std::vector<int64_t> values;
  ASSERT_EQ(evaluateShapes(engine, {{3, 8}, {3, 8}}, values), "");
  EXPECT_EQ(values[2], 24);
  EXPECT_EQ(outputShape(engine, 0, values), (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(outputShape(engine, 2, values), (std::vector<int64_t>{4}));
  Step add = engine.steps[0], copy = engine.steps[2];
  // At the max shape (as written): 32 elements.
  EXPECT_EQ(add.arguments[3].scalar, 32u);
  applyRuntimeFields(values, add);
  applyRuntimeFields(values, copy);
  EXPECT_EQ(add.grid[0], 1u);
  EXPECT_EQ(add.arguments[3].scalar, 24u);
  EXPECT_EQ(copy.bytes, 24u * sizeof(float));
  // The input tensors' buffers are sized for the largest shape.
  EXPECT_EQ(engine.inputs[0].sizeInBytes(), 32u * sizeof(float));
}

TEST(DynamicEngine, TensorMapExtentsFollowTheShape) {
  // A map over a dense ?x768 f16 matrix (rows a shape value): the rows and the row stride
  // come from the shape; a field on a map dimension beyond its rank, or on a pointer, is
  // refused.
  Step step;
  step.kind = Step::Kind::Launch;
  LaunchArgument map;
  map.kind = LaunchArgument::Kind::TensorMap;
  map.tensorMap.dataType = 6; // float16
  map.tensorMap.rank = 3;
  map.tensorMap.dims[0] = 768;
  map.tensorMap.dims[1] = 1;
  map.tensorMap.dims[2] = 4;
  step.arguments = {LaunchArgument(), map};
  step.runtimeFields = {{RuntimeField::Kind::TensorMapDim, TensorMap::kMaxRank + 1, 0}};
  applyRuntimeFields({300}, step);
  const TensorMap &encoded = step.arguments[1].tensorMap;
  EXPECT_EQ(encoded.dims[1], 300u);
  EXPECT_EQ(encoded.strides[0], 768u * 2);
  EXPECT_EQ(encoded.strides[1], 768u * 2 * 300);
  applyRuntimeFields({0}, step); // an empty shape still encodes (its launch is skipped)
  EXPECT_EQ(encoded.dims[1], 1u);

  Engine engine = kiln::test::dynamicSampleEngine();
  engine.steps[0].runtimeFields.push_back({RuntimeField::Kind::TensorMapDim, 0, 2});
  std::string message = engine.validate();
  EXPECT_NE(message.find("step 0 has a run-time field (kind 4, index 0, value 2)"),
            std::string::npos)
      << message;
}

TEST(DynamicEngine, ShapesOutsideTheProfileAreRefused) {
  Engine engine = kiln::test::dynamicSampleEngine();
  std::vector<int64_t> values;
  EXPECT_EQ(evaluateShapes(engine, {{5, 8}, {5, 8}}, values),
            "input 'x' dimension 0 (rows) is 5; the profile allows 1 to 4");
  EXPECT_EQ(evaluateShapes(engine, {{0, 8}, {0, 8}}, values),
            "input 'x' dimension 0 (rows) is 0; the profile allows 1 to 4");
  EXPECT_EQ(evaluateShapes(engine, {{2, 8}, {2, 9}}, values),
            "input 'y' dimension 1 is 9; the engine takes only 8");
  EXPECT_EQ(evaluateShapes(engine, {{2, 8}, {2, 8, 1}}, values),
            "input 'y' has rank 2 (?x8); given 2x8x1");
  EXPECT_EQ(evaluateShapes(engine, {{2, 8}, {3, 8}}, values),
            "input 'y' dimension 0 (rows) is 3, but input 'x' dimension 0 (rows) is 2: the two "
            "must be equal");
  EXPECT_EQ(evaluateShapes(engine, {{2, 8}}, values), "the engine has 2 inputs; given 1 shapes");
}

TEST(DynamicEngine, InconsistentDynamicEnginesAreRefused) {
  auto expectRefused = [](Engine engine, const std::string &problem) {
    std::string message = engine.validate();
    EXPECT_NE(message.find(problem), std::string::npos) << message;
  };
  Engine engine = kiln::test::dynamicSampleEngine();
  engine.shapeProgram[2].a = 5;
  expectRefused(engine, "shape value 2 reads a value not computed before it");
  engine = kiln::test::dynamicSampleEngine();
  engine.shapeProgram[0].b = 2;
  expectRefused(engine, "shape value 0 reads dimension 2 of input 0, which does not exist");
  engine = kiln::test::dynamicSampleEngine();
  engine.shapeProgram[1].op = static_cast<ShapeInstruction::Op>(99);
  expectRefused(engine, "shape value 1 has unknown op 99");
  engine = kiln::test::dynamicSampleEngine();
  engine.steps[0].runtimeFields[1].index = 0; // a pointer argument
  expectRefused(engine, "step 0 has a run-time field (kind 2, index 0, value 2)");
  engine = kiln::test::dynamicSampleEngine();
  engine.steps[3].runtimeFields.push_back({RuntimeField::Kind::Grid, 0, 1}); // a fill
  expectRefused(engine, "step 3 has a run-time field");
  engine = kiln::test::dynamicSampleEngine();
  engine.inputs[0].minShape = {3, 8};
  expectRefused(engine, "input 0 'x' has an inconsistent profile in dimension 0");
  engine = kiln::test::dynamicSampleEngine();
  engine.inputs[0].maxShape = {4};
  expectRefused(engine, "input 0 'x' has 1 max extents for rank 2");
  engine = kiln::test::dynamicSampleEngine();
  engine.outputs[0].dimValues = {};
  expectRefused(engine, "output 0 'sum' has 0 shape values for 1 dynamic dimensions");
  engine = kiln::test::dynamicSampleEngine();
  engine.outputs[0].dimValues = {40};
  expectRefused(engine, "output 0 'sum' takes an extent from shape value 40 of 9");
  engine = kiln::test::dynamicSampleEngine();
  engine.inputs[1].maxShape.clear(); // -1 without a profile
  expectRefused(engine, "input 1 'y' has a negative extent -1");
}

TEST(DynamicEngine, ParsesTrtexecShapeLists) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  EXPECT_EQ(parseShapes("input_ids:8x128,mask:8x128,scale:", shapes), "");
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0].first, "input_ids");
  EXPECT_EQ(shapes[0].second, (std::vector<int64_t>{8, 128}));
  EXPECT_TRUE(shapes[2].second.empty());
  EXPECT_EQ(parseShapes("a:b:2x3", shapes), "");
  EXPECT_EQ(shapes[0].first, "a:b");
  EXPECT_EQ(parseShapes("x:2xfivex4", shapes), "'five' in 'x:2xfivex4' is not an extent");
  EXPECT_EQ(parseShapes("x", shapes), "expected name:AxBxC, got 'x'");
  EXPECT_EQ(parseShapes("x:2x", shapes), "'' in 'x:2x' is not an extent");
  EXPECT_EQ(parseShapes("", shapes), "");
  EXPECT_TRUE(shapes.empty());
  EXPECT_EQ(formatShape({-1, 768}), "?x768");
  EXPECT_EQ(formatShape({}), "scalar");
}

TEST(DynamicEngine, ShapeProgramArithmetic) {
  using Op = ShapeInstruction::Op;
  // ONNX's reshape rule as the lowering writes it: -1 replaced by what is left of 2 x 768
  // after 64, selected on a comparison.
  std::vector<ShapeInstruction> program = {
      {Op::InputDim, 0, 1, 0},  // 0: 768
      {Op::Constant, 0, 0, -1}, // 1
      {Op::Compare, 0, 1, 0},   // 2: 768 == -1 (eq): 0
      {Op::Constant, 0, 0, 64}, // 3
      {Op::DivU, 0, 3, 0},      // 4: 12
      {Op::Select, 4, 0, 2},    // 5: 2 ? 12 : 768 -> 768
      {Op::Compare, 1, 3, 2},   // 6: -1 < 64 (slt): 1
      {Op::Compare, 1, 3, 6},   // 7: -1 <u 64 (ult): 0
      {Op::Select, 4, 0, 6},    // 8: 12
      {Op::Xor, 6, 7, 0},       // 9: 1
      {Op::CeilDivU, 0, 3, 0},  // 10: 12
      {Op::RemS, 1, 3, 0},      // 11: -1
      {Op::DivU, 0, 11, 0},     // 12: 768 / 2^64-1: 0
  };
  std::vector<int64_t> values;
  evaluateProgram(program, {{2, 768}}, values);
  EXPECT_EQ(values, (std::vector<int64_t>{768, -1, 0, 64, 12, 768, 1, 0, 12, 1, 12, -1, 0}));
  Engine engine = kiln::test::dynamicSampleEngine();
  engine.shapeProgram.push_back({Op::Compare, 0, 1, 10});
  EXPECT_NE(engine.validate().find("shape value 9 compares with unknown predicate 10"),
            std::string::npos);
  engine.shapeProgram.back() = {Op::Select, 0, 1, 9};
  EXPECT_NE(engine.validate().find("shape value 9 selects on a value not computed before it"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Data-dependent shapes: read-back steps and device values (format 7)
//===----------------------------------------------------------------------===//

TEST(ReadBack, RoundTripKeepsTheStepAndItsDeviceValue) {
  Engine original = kiln::test::readBackSampleEngine();
  ASSERT_EQ(original.validate(), "");
  EXPECT_TRUE(original.hasReadBacks());
  EXPECT_TRUE(original.isDynamic()); // static inputs, but shapes resolved per run
  EXPECT_EQ(original.readBackCount(), 1u);
  EXPECT_FALSE(kiln::test::dynamicSampleEngine().hasReadBacks());
  std::vector<uint8_t> bytes;
  serializeEngine(original, bytes);
  Engine copy;
  ASSERT_EQ(deserializeEngine(bytes.data(), bytes.size(), "model.kiln", copy), "");
  expectSameEngine(original, copy);
  expectSameShapes(original, copy);
  EXPECT_EQ(copy.steps[1].kind, Step::Kind::ReadBack);
  EXPECT_EQ(copy.steps[1].value, 0u);
  EXPECT_EQ(copy.steps[1].bytes, 8u);
  EXPECT_EQ(copy.shapeProgram[0].op, ShapeInstruction::Op::DeviceValue);
  EXPECT_FALSE(copy.shapeProgram[0].readsValues());
  std::vector<uint8_t> again;
  serializeEngine(copy, again);
  EXPECT_EQ(bytes, again);
  for (size_t cut = 0; cut < bytes.size(); cut += 5)
    expectOneLine(refusal(bytes, cut));
}

TEST(ReadBack, PlannedAtTheBound) {
  // Unread, the device value is kUnreadDeviceValue: clamped by its bound, the copy and the
  // output are planned at 7 elements.
  Engine engine = kiln::test::readBackSampleEngine();
  EXPECT_EQ(engine.steps[2].bytes, 7u * sizeof(int64_t));
  EXPECT_EQ(engine.outputs[0].sizeInBytes(), 7u * sizeof(int64_t));
  std::vector<int64_t> values;
  ASSERT_EQ(evaluateShapes(engine, {{8}}, values), "");
  EXPECT_EQ(values[0], kUnreadDeviceValue);
  EXPECT_EQ(outputShape(engine, 0, values), (std::vector<int64_t>{7}));
  // Read: 3, then -2 (clamped to 0), then past the bound.
  for (auto [read, extent] : {std::pair<int64_t, int64_t>{3, 3}, {-2, 0}, {100, 7}}) {
    std::vector<int64_t> deviceValues = {read};
    ASSERT_EQ(evaluateShapes(engine, {{8}}, values, &deviceValues), "");
    EXPECT_EQ(values[0], read);
    EXPECT_EQ(outputShape(engine, 0, values), (std::vector<int64_t>{extent}));
    Step copy = engine.steps[2];
    applyRuntimeFields(values, copy);
    EXPECT_EQ(copy.bytes, uint64_t(extent) * sizeof(int64_t));
  }
}

TEST(ReadBack, BoundingTakesEitherSideOfADeviceChoice) {
  using Op = ShapeInstruction::Op;
  // select(read-back != 0, 0, min(input extent, 300)): an If whose condition a kernel
  // computes, its then branch empty. Unread, the condition reads as true (the empty
  // side); the bound is the larger side, and a select on a host condition stays one.
  std::vector<ShapeInstruction> program = {
      {Op::DeviceValue, 0, 0, 0}, // 0: the condition, read back
      {Op::Constant, 0, 0, 0},    // 1: 0
      {Op::Compare, 0, 1, 1},     // 2: condition != 0
      {Op::InputDim, 0, 0, 0},    // 3: 500
      {Op::Constant, 0, 0, 300},  // 4: 300
      {Op::MinS, 3, 4, 0},        // 5: 300
      {Op::Select, 1, 5, 2},      // 6: the If's extent
      {Op::Compare, 3, 4, 4},     // 7: 500 > 300, on the host
      {Op::Select, 1, 5, 7},      // 8: a host choice: 0
  };
  std::vector<int64_t> values;
  evaluateProgram(program, {{500}}, values);
  EXPECT_EQ(values[6], 0);
  evaluateProgram(boundingProgram(program), {{500}}, values);
  EXPECT_EQ(values[6], 300);
  EXPECT_EQ(values[8], 0);
  std::vector<int64_t> read = {0};
  evaluateProgram(program, {{500}}, values, &read);
  EXPECT_EQ(values[6], 300);
}

TEST(ReadBack, DeviceValuesInTheShapeProgram) {
  using Op = ShapeInstruction::Op;
  // min(DeviceValue, InputDim): the input's extent while unread, the device value once read.
  std::vector<ShapeInstruction> program = {
      {Op::InputDim, 0, 1, 0},    // 0: 300
      {Op::DeviceValue, 0, 0, 0}, // 1: read-back 0
      {Op::MinS, 1, 0, 0},        // 2
      {Op::DeviceValue, 1, 0, 0}, // 3: read-back 1
      {Op::Add, 2, 3, 0},         // 4
  };
  std::vector<int64_t> values;
  evaluateProgram(program, {{2, 300}}, values);
  EXPECT_EQ(values, (std::vector<int64_t>{300, kUnreadDeviceValue, 300, kUnreadDeviceValue,
                                          300 + kUnreadDeviceValue}));
  std::vector<int64_t> read = {42, 5};
  evaluateProgram(program, {{2, 300}}, values, &read);
  EXPECT_EQ(values, (std::vector<int64_t>{300, 42, 42, 5, 47}));
  // Only the first read so far: the second is unread.
  read = {512};
  evaluateProgram(program, {{2, 300}}, values, &read);
  EXPECT_EQ(values,
            (std::vector<int64_t>{300, 512, 300, kUnreadDeviceValue, 300 + kUnreadDeviceValue}));
  // kUnreadDeviceValue given explicitly reads as unread.
  read = {kUnreadDeviceValue, 7};
  evaluateProgram(program, {{2, 300}}, values, &read);
  EXPECT_EQ(values[2], 300);
  EXPECT_EQ(values[3], 7);
}

TEST(ReadBack, InconsistentReadBacksAreRefused) {
  using kiln::test::readBackSampleEngine;
  using Op = ShapeInstruction::Op;
  auto expectRefused = [](const Engine &engine, const std::string &problem) {
    std::string message = engine.validate();
    EXPECT_NE(message.find(problem), std::string::npos) << message;
    expectInconsistent(engine, problem);
  };
  Engine engine = readBackSampleEngine();
  engine.steps[1].bytes = 3;
  expectRefused(engine, "step 1 reads back 3 bytes (1, 2, 4 or 8)");
  engine.steps[1].bytes = 16;
  expectRefused(engine, "step 1 reads back 16 bytes (1, 2, 4 or 8)");
  for (uint64_t bytes : {1, 2, 4, 8}) {
    engine.steps[1].bytes = bytes;
    EXPECT_EQ(engine.validate(), "") << bytes;
  }

  engine = readBackSampleEngine();
  engine.steps[1].source.offset = 60; // 8 bytes at 60 of the 64-byte arena
  expectRefused(engine, "step 1 (read-back) source: 8 bytes at offset 60 of the arena overrun "
                        "its 64 bytes");
  engine = readBackSampleEngine();
  engine.steps[1].source = {Region::Input, 1, 0};
  expectRefused(engine, "step 1 (read-back) source: input 1 does not exist");

  engine = readBackSampleEngine();
  engine.steps[1].value = 7;
  expectRefused(engine, "step 1 (read-back 0) defines shape value 7, which is not a device value");
  engine.steps[1].value = 2; // a MinS
  expectRefused(engine, "step 1 (read-back 0) defines shape value 2, which is not a device value");

  // Two steps for one device value.
  engine = readBackSampleEngine();
  engine.steps.push_back(engine.steps[1]);
  expectRefused(engine, "step 3 (read-back 1) defines shape value 0, the device value of "
                        "read-back 0");
  // ... also when a second DeviceValue of ordinal 1 exists for the second step.
  engine.shapeProgram.push_back({Op::DeviceValue, 1, 0, 0}); // value 7
  expectRefused(engine, "step 3 (read-back 1) defines shape value 0, the device value of "
                        "read-back 0");
  engine.steps[3].value = 7;
  EXPECT_EQ(engine.validate(), "");

  // The k-th read-back defines the DeviceValue of ordinal k.
  engine = readBackSampleEngine();
  engine.shapeProgram[0].a = 1;
  expectRefused(engine, "step 1 (read-back 0) defines shape value 0, the device value of "
                        "read-back 1");

  // A DeviceValue that no step defines.
  engine = readBackSampleEngine();
  engine.shapeProgram.push_back({Op::DeviceValue, 1, 0, 0});
  expectRefused(engine, "shape value 7 is the device value of read-back 1, which no step defines");
  engine = readBackSampleEngine();
  engine.steps.erase(engine.steps.begin() + 1);
  expectRefused(engine, "step 1 has a run-time field from shape value 6, which depends on the "
                        "device value of a later read-back");

  // A DeviceValue's operands are 0 but its ordinal.
  engine = readBackSampleEngine();
  engine.shapeProgram[0].constant = 3;
  expectRefused(engine, "shape value 0 is a device value with operands other than its "
                        "read-back's ordinal");

  // A step before the read-back cannot take a field from its value.
  engine = readBackSampleEngine();
  std::swap(engine.steps[1], engine.steps[2]);
  expectRefused(engine, "step 1 has a run-time field from shape value 6, which depends on the "
                        "device value of a later read-back");

  // A read-back takes no run-time fields.
  engine = readBackSampleEngine();
  engine.steps[1].runtimeFields = {{RuntimeField::Kind::CopyBytes, 0, 5}};
  expectRefused(engine, "step 1 has a run-time field (kind 3, index 0, value 5)");
}
