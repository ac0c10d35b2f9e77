//===- SampleEngine.h - A small engine built by hand, for tests -*- C++ -*-===//
//
// An engine that exercises every part of the format and of the runtime: two modules
// (hand-written PTX; optionally a placeholder cubin), kernels
// with pointer, i32, i64 and f32 parameters, launches, a device-to-device copy, a fill,
// the arena and the weights. It computes, for inputs x and y (f32[2x8]):
//
//   xy    = x + y                   (add_f32 into the arena, then copied to output "xy")
//   sum   = 2 * xy + w              (axpy_f32; w = weights, w[i] = i / 4)
//   flags = 1 (u8[4])               (a fill)
//
// readBackSampleEngine is a kernel-free engine with a data-dependent output (format 7's
// read-back step and device values).
//
// Used by the unit tests (test/unit) and by make-test-engine (lit tests, device checks).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TEST_TOOLS_MAKETESTENGINE_SAMPLEENGINE_H
#define KILN_TEST_TOOLS_MAKETESTENGINE_SAMPLEENGINE_H

#include "runtime/Engine.h"

#include <algorithm>
#include <cstring>

namespace kiln::test {

/// out[i] = a[i] + b[i] for i < n: bare-pointer parameters (u64, u64, u64, u32).
inline const char *addKernelPtx() {
  return R"(//
// add_f32(a, b, out, n): out[i] = a[i] + b[i]
.version 7.0
.target sm_80
.address_size 64

.visible .entry add_f32(
  .param .u64 add_f32_a,
  .param .u64 add_f32_b,
  .param .u64 add_f32_out,
  .param .u32 add_f32_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<11>;

  ld.param.u64 %rd1, [add_f32_a];
  ld.param.u64 %rd2, [add_f32_b];
  ld.param.u64 %rd3, [add_f32_out];
  ld.param.u32 %r1, [add_f32_n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd8, %rd4, %rd7;
  add.s64 %rd9, %rd5, %rd7;
  add.s64 %rd10, %rd6, %rd7;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd9];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd10], %f3;
DONE:
  ret;
}
)";
}

/// out[i] = alpha * x[i] + y[i] for i < n: parameters (u64, u64, u64, f32, u64).
inline const char *axpyKernelPtx() {
  return R"(//
// axpy_f32(x, y, out, alpha, n): out[i] = alpha * x[i] + y[i]
.version 7.0
.target sm_80
.address_size 64

.visible .entry axpy_f32(
  .param .u64 axpy_f32_x,
  .param .u64 axpy_f32_y,
  .param .u64 axpy_f32_out,
  .param .f32 axpy_f32_alpha,
  .param .u64 axpy_f32_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<13>;

  ld.param.u64 %rd1, [axpy_f32_x];
  ld.param.u64 %rd2, [axpy_f32_y];
  ld.param.u64 %rd3, [axpy_f32_out];
  ld.param.f32 %f1, [axpy_f32_alpha];
  ld.param.u64 %rd4, [axpy_f32_n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  cvt.u64.u32 %rd5, %r4;
  setp.ge.u64 %p1, %rd5, %rd4;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd6, %rd1;
  cvta.to.global.u64 %rd7, %rd2;
  cvta.to.global.u64 %rd8, %rd3;
  shl.b64 %rd9, %rd5, 2;
  add.s64 %rd10, %rd6, %rd9;
  add.s64 %rd11, %rd7, %rd9;
  add.s64 %rd12, %rd8, %rd9;
  ld.global.f32 %f2, [%rd10];
  ld.global.f32 %f3, [%rd11];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd12], %f4;
DONE:
  ret;
}
)";
}

constexpr int kSampleRows = 2, kSampleColumns = 8, kSampleElements = kSampleRows * kSampleColumns;
constexpr float kSampleAlpha = 2.0f;

inline uint64_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline engine::LaunchArgument pointerArgument(engine::Region region, uint32_t index,
                                              uint64_t offset) {
  engine::LaunchArgument argument;
  argument.kind = engine::LaunchArgument::Kind::Pointer;
  argument.address = {region, index, offset};
  return argument;
}

inline engine::LaunchArgument scalarArgument(engine::LaunchArgument::Kind kind, uint64_t bits) {
  engine::LaunchArgument argument;
  argument.kind = kind;
  argument.scalar = bits;
  return argument;
}

/// The weights: w[i] = i / 4 as f32.
inline std::vector<float> sampleWeights() {
  std::vector<float> weights(kSampleElements);
  for (int i = 0; i < kSampleElements; ++i)
    weights[i] = float(i) / 4;
  return weights;
}

/// The sample engine, for `target` ("sm_80" runs on every GPU since Ampere, through the
/// PTX). With `placeholderCubin`, module "axpy_module" also carries a cubin that is not
/// one: loading it on a GPU the target names must fail, naming the module.
inline engine::Engine sampleEngine(const std::string &target = "sm_80",
                                   bool placeholderCubin = false) {
  using engine::Region;
  using Kind = engine::LaunchArgument::Kind;
  engine::Engine model;
  model.compilerVersion = "0.1.0-test";
  model.target = target;
  model.modelName = "sample.onnx";
  model.inputs = {{"x", engine::ElementType::F32, {kSampleRows, kSampleColumns}},
                  {"y", engine::ElementType::F32, {kSampleRows, kSampleColumns}}};
  model.outputs = {{"sum", engine::ElementType::F32, {kSampleRows, kSampleColumns}},
                   {"xy", engine::ElementType::F32, {kSampleRows, kSampleColumns}},
                   {"flags", engine::ElementType::U8, {4}}};

  engine::Module add;
  add.name = "add_module";
  add.ptx = addKernelPtx();
  engine::Module axpy;
  axpy.name = "axpy_module";
  axpy.ptx = axpyKernelPtx();
  if (placeholderCubin) // bytes that no driver loads, marked so nobody mistakes them
    axpy.cubin = {'N', 'O', 'T', '-', 'A', '-', 'C', 'U', 'B', 'I', 'N'};
  model.modules = {add, axpy};

  engine::Kernel addKernel;
  addKernel.name = "add_f32";
  addKernel.module = 0;
  addKernel.templateKind = "pointwise";
  addKernel.sourceNodes = {"Add_0"};
  addKernel.config = "block=128";
  addKernel.measuredMicros = 1.5;
  engine::Kernel axpyKernel;
  axpyKernel.name = "axpy_f32";
  axpyKernel.module = 1;
  axpyKernel.templateKind = "pointwise";
  axpyKernel.sourceNodes = {"Mul_1", "Add_2"};
  axpyKernel.config = "block=64";
  model.kernels = {addKernel, axpyKernel};

  const uint64_t bytes = kSampleElements * sizeof(float);
  engine::Step first; // arena[0] = x + y
  first.kind = engine::Step::Kind::Launch;
  first.kernel = 0;
  first.block[0] = 128;
  first.arguments = {pointerArgument(Region::Input, 0, 0), pointerArgument(Region::Input, 1, 0),
                     pointerArgument(Region::Arena, 0, 256),
                     scalarArgument(Kind::I32, kSampleElements)};
  engine::Step second; // sum = 2 * arena[0] + w
  second.kind = engine::Step::Kind::Launch;
  second.kernel = 1;
  second.block[0] = 64;
  second.arguments = {pointerArgument(Region::Arena, 0, 256),
                      pointerArgument(Region::Weights, 0, 0), pointerArgument(Region::Output, 0, 0),
                      scalarArgument(Kind::F32, floatBits(kSampleAlpha)),
                      scalarArgument(Kind::I64, kSampleElements)};
  engine::Step copy; // xy = arena[0]
  copy.kind = engine::Step::Kind::Copy;
  copy.source = {Region::Arena, 0, 256};
  copy.destination = {Region::Output, 1, 0};
  copy.bytes = bytes;
  engine::Step fill; // flags = 1
  fill.kind = engine::Step::Kind::Fill;
  fill.destination = {Region::Output, 2, 0};
  fill.bytes = 4;
  fill.fillByte = 1;
  model.steps = {first, second, copy, fill};

  model.arenaBytes = 256 + bytes;
  model.unplannedBytes = 512; // what the intermediates would take without reuse
  std::vector<float> weights = sampleWeights();
  model.weights.resize(weights.size() * sizeof(float));
  std::memcpy(model.weights.data(), weights.data(), model.weights.size());
  return model;
}

/// The sample as a dynamic engine: x and y are `rows` x 8 for rows 1 to 4 (opt 2), and
/// the shape program sets the element counts the kernels take, their grids and the copy's
/// bytes; the arena and the weights (w[i] = i / 4, 32 of them) are sized for 4 rows.
inline engine::Engine dynamicSampleEngine(const std::string &target = "sm_80") {
  using engine::RuntimeField;
  using Op = engine::ShapeInstruction::Op;
  constexpr int kMaxRows = 4;
  engine::Engine model = sampleEngine(target);
  for (engine::TensorSignature &input : model.inputs) {
    input.shape = {-1, kSampleColumns};
    input.minShape = {1, kSampleColumns};
    input.optShape = {kSampleRows, kSampleColumns};
    input.maxShape = {kMaxRows, kSampleColumns};
    input.dimNames = {"rows", ""};
  }
  for (int o = 0; o < 2; ++o) {
    model.outputs[o].shape = {-1, kSampleColumns};
    model.outputs[o].maxShape = {kMaxRows, kSampleColumns};
    model.outputs[o].dimValues = {0};
  }
  model.shapeProgram = {
      {Op::InputDim, 0, 0, 0}, // 0: rows
      {Op::Constant, 0, 0, kSampleColumns},
      {Op::Mul, 0, 1, 0}, // 2: elements
      {Op::Constant, 0, 0, 128},
      {Op::CeilDivU, 2, 3, 0}, // 4: blocks of the add
      {Op::Constant, 0, 0, 64},
      {Op::CeilDivU, 2, 5, 0}, // 6: blocks of the axpy
      {Op::Constant, 0, 0, sizeof(float)},
      {Op::Mul, 2, 7, 0}, // 8: bytes
  };
  model.steps[0].runtimeFields = {{RuntimeField::Kind::Grid, 0, 4},
                                  {RuntimeField::Kind::Scalar, 3, 2}};
  model.steps[1].runtimeFields = {{RuntimeField::Kind::Grid, 0, 6},
                                  {RuntimeField::Kind::Scalar, 4, 2}};
  model.steps[2].runtimeFields = {{RuntimeField::Kind::CopyBytes, 0, 8}};
  // The fields' values at the max shape, as the compiler writes them.
  std::vector<int64_t> values;
  engine::evaluateShapes(model, {{kMaxRows, kSampleColumns}, {kMaxRows, kSampleColumns}}, values);
  for (engine::Step &step : model.steps)
    engine::applyRuntimeFields(values, step);
  const uint64_t maxBytes = kMaxRows * kSampleColumns * sizeof(float);
  model.arenaBytes = 256 + maxBytes;
  model.weights.resize(maxBytes);
  for (int i = 0; i < kMaxRows * kSampleColumns; ++i) {
    float weight = float(i) / 4;
    std::memcpy(model.weights.data() + i * sizeof(float), &weight, sizeof(float));
  }
  return model;
}

/// The read-back sample's input and largest output: x is i64[8], head i64[?] (at most 7).
constexpr int kReadBackInputs = 8, kReadBackMaxHead = 7;

/// A kernel-free engine whose output's shape depends on a value in device memory, as a
/// NonZero or Compress lowers to: input x (i64[8]) is copied into the arena, its first
/// element n read back (8 bytes), and output `head` is x[1 .. 1 + min(max(n, 0), 7)], a
/// copy whose bytes the device value sets. The shape program clamps n by its bound (7), so
/// the output is planned at 7 elements.
inline engine::Engine readBackSampleEngine(const std::string &target = "sm_80") {
  using engine::Region;
  using engine::RuntimeField;
  using Op = engine::ShapeInstruction::Op;
  engine::Engine model;
  model.compilerVersion = "0.1.0-test";
  model.target = target;
  model.modelName = "read_back.onnx";
  model.inputs = {{"x", engine::ElementType::I64, {kReadBackInputs}}};
  engine::TensorSignature head{"head", engine::ElementType::I64, {-1}};
  head.maxShape = {kReadBackMaxHead};
  head.dimValues = {4};
  model.outputs = {head};
  model.shapeProgram = {
      {Op::DeviceValue, 0, 0, 0}, // 0: n, read by read-back 0
      {Op::Constant, 0, 0, kReadBackMaxHead},
      {Op::MinS, 0, 1, 0}, // 2: bounded
      {Op::Constant, 0, 0, 0},
      {Op::MaxS, 2, 3, 0}, // 4: head's extent
      {Op::Constant, 0, 0, sizeof(int64_t)},
      {Op::Mul, 4, 5, 0}, // 6: head's bytes
  };
  const uint64_t inputBytes = kReadBackInputs * sizeof(int64_t);
  engine::Step stage; // arena = x
  stage.kind = engine::Step::Kind::Copy;
  stage.source = {Region::Input, 0, 0};
  stage.destination = {Region::Arena, 0, 0};
  stage.bytes = inputBytes;
  engine::Step read; // n = arena[0]
  read.kind = engine::Step::Kind::ReadBack;
  read.source = {Region::Arena, 0, 0};
  read.bytes = sizeof(int64_t);
  read.value = 0;
  engine::Step copy; // head = arena[1 .. 1 + n]
  copy.kind = engine::Step::Kind::Copy;
  copy.source = {Region::Arena, 0, sizeof(int64_t)};
  copy.destination = {Region::Output, 0, 0};
  copy.runtimeFields = {{RuntimeField::Kind::CopyBytes, 0, 6}};
  model.steps = {stage, read, copy};
  model.arenaBytes = inputBytes;
  model.unplannedBytes = inputBytes;
  // The copy's bytes at the bound, as the compiler writes them (device values unread).
  std::vector<int64_t> values;
  engine::evaluateShapes(model, {{kReadBackInputs}}, values);
  for (engine::Step &step : model.steps)
    engine::applyRuntimeFields(values, step);
  return model;
}

/// What the read-back sample computes for `x`.
inline std::vector<int64_t> readBackSampleOutput(const std::vector<int64_t> &x) {
  int64_t count = std::min<int64_t>(std::max<int64_t>(x[0], 0), kReadBackMaxHead);
  return std::vector<int64_t>(x.begin() + 1, x.begin() + 1 + count);
}

/// Deterministic inputs: x[i] = i * 0.5 - 3, y[i] = 1 - i * 0.25 (`elements` of each).
inline void sampleInputs(std::vector<float> &x, std::vector<float> &y,
                         int elements = kSampleElements) {
  x.resize(elements);
  y.resize(elements);
  for (int i = 0; i < elements; ++i) {
    x[i] = float(i) * 0.5f - 3;
    y[i] = 1 - float(i) * 0.25f;
  }
}

/// What the engine computes for `x` and `y` (the GPU's fma rounds once, so this uses fma
/// too; tests still compare with a tolerance).
inline void sampleOutputs(const std::vector<float> &x, const std::vector<float> &y,
                          std::vector<float> &sum, std::vector<float> &xy,
                          std::vector<uint8_t> &flags) {
  sum.resize(x.size());
  xy.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    xy[i] = x[i] + y[i];
    sum[i] = kSampleAlpha * xy[i] + float(i) / 4; // the weights
  }
  flags.assign(4, 1);
}

} // namespace kiln::test

#endif // KILN_TEST_TOOLS_MAKETESTENGINE_SAMPLEENGINE_H
