//===- EngineBuilderTest.cpp - Engines from lowered host functions --------===//
//
// buildEngine on hand-written host functions: tensor maps that nvgpu.tma.create.descriptor
// makes on the host become tensor-map launch arguments with cuTensorMapEncodeTiled's
// arguments (innermost dimension first), and what cannot be encoded is an error on the op;
// a gpu.memset becomes a fill step where its value is one repeated byte.
//
//===----------------------------------------------------------------------===//

#include "lib/engine/EngineBuilder.h"
#include "lib/init/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace {

using namespace mlir;

/// `text` with every `{KEY}` replaced by its value.
std::string substitute(std::string text,
                       std::initializer_list<std::pair<std::string, std::string>> values) {
  for (const auto &[key, value] : values)
    for (size_t at = text.find("{" + key + "}"); at != std::string::npos;
         at = text.find("{" + key + "}", at + value.size()))
      text.replace(at, key.size() + 2, value);
  return text;
}

/// A host function with one input a[`shape`] of `elementType` and one output, launching a
/// kernel that takes a tensor map of `a` with boxes of `rows` x `columns` and the output;
/// the descriptor type's swizzle is `swizzle`.
std::string hostModule(const std::string &rows, const std::string &columns,
                       const std::string &swizzle, const std::string &shape = "256x512",
                       const std::string &elementType = "f16") {
  std::string descriptor = "!nvgpu.tensormap.descriptor<tensor = memref<{ROWS}x{COLUMNS}x{T}, "
                           "3>, swizzle = {SWIZZLE}, l2promo = l2promo_256b, oob = zero, "
                           "interleave = none>";
  std::string text = R"(
module attributes {gpu.container_module} {
  gpu.module @gemm {
    gpu.func @kernel(%map: {DESCRIPTOR}, %out: memref<{SHAPE}x{T}>) kernel {
      gpu.return
    }
  }
  func.func @main(%a: memref<{SHAPE}x{T}> {graph.name = "a", kernel.element_type = {T}},
                  %c: memref<{SHAPE}x{T}> {graph.name = "c", kernel.element_type = {T}})
      attributes {kernel.num_inputs = 1 : i64, kernel.arena_bytes = 0 : i64,
                  kernel.unplanned_bytes = 0 : i64} {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %rows = arith.constant {ROWS} : index
    %columns = arith.constant {COLUMNS} : index
    %unranked = memref.cast %a : memref<{SHAPE}x{T}> to memref<*x{T}>
    %map = nvgpu.tma.create.descriptor %unranked box[%rows, %columns]
        : memref<*x{T}> -> {DESCRIPTOR}
    gpu.launch_func @gemm::@kernel blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%map : {DESCRIPTOR}, %c : memref<{SHAPE}x{T}>)
    return
  }
}
)";
  text = substitute(text, {{"DESCRIPTOR", descriptor}});
  return substitute(text, {{"ROWS", rows},
                           {"COLUMNS", columns},
                           {"SWIZZLE", swizzle},
                           {"SHAPE", shape},
                           {"T", elementType}});
}

class EngineBuilder : public ::testing::Test {
protected:
  EngineBuilder() {
    DialectRegistry registry;
    kiln::registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Builds the engine of `source`; the diagnostics go to `errors`.
  LogicalResult build(const std::string &source, kiln::engine::Engine &engine,
                      std::string &errors) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
      errors += diagnostic.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return failure();
    auto host = *module->getOps<func::FuncOp>().begin();
    if (failed(kiln::readEngineSignature(host, engine)))
      return failure();
    return kiln::buildEngine(*module, {{"gemm", "// ptx", {}}}, engine);
  }

  MLIRContext context;
};

TEST_F(EngineBuilder, TensorMapsBecomeLaunchArguments) {
  kiln::engine::Engine engine;
  std::string errors;
  ASSERT_TRUE(succeeded(build(hostModule("128", "64", "swizzle_128b"), engine, errors))) << errors;
  ASSERT_EQ(engine.steps.size(), 1u);
  const auto &arguments = engine.steps[0].arguments;
  ASSERT_EQ(arguments.size(), 2u);
  const kiln::engine::LaunchArgument &map = arguments[0];
  EXPECT_EQ(map.kind, kiln::engine::LaunchArgument::Kind::TensorMap);
  EXPECT_EQ(map.address.region, kiln::engine::Region::Input);
  EXPECT_EQ(map.tensorMap.dataType, 6); // float16
  EXPECT_EQ(map.tensorMap.rank, 2);
  EXPECT_EQ(map.tensorMap.dims[0], 512u); // innermost first
  EXPECT_EQ(map.tensorMap.dims[1], 256u);
  EXPECT_EQ(map.tensorMap.strides[0], 1024u); // a row of 512 f16
  EXPECT_EQ(map.tensorMap.box[0], 64u);
  EXPECT_EQ(map.tensorMap.box[1], 128u);
  EXPECT_EQ(map.tensorMap.elementStrides[0], 1u);
  EXPECT_EQ(map.tensorMap.swizzle, 3);     // 128 bytes
  EXPECT_EQ(map.tensorMap.l2Promotion, 3); // 256 bytes
  EXPECT_EQ(map.tensorMap.oobFill, 0);
  EXPECT_EQ(arguments[1].kind, kiln::engine::LaunchArgument::Kind::Pointer);
  EXPECT_EQ(engine.validate(), "");
}

TEST_F(EngineBuilder, TensorMapsTheCopyEngineCannotTakeAreErrors) {
  kiln::engine::Engine engine;
  std::string errors;
  // Rows of 100 f16 are 200 bytes apart: not a multiple of 16.
  EXPECT_TRUE(failed(build(hostModule("128", "64", "swizzle_128b", "256x100"), engine, errors)));
  EXPECT_NE(errors.find("makes an invalid tensor map stride 200 (a multiple of 16 bytes"),
            std::string::npos)
      << errors;
}

/// A host function launching a kernel on a tensor map of a strided view of its input
/// a[2, 8, 3, 4, 64] (a fused QKV projection's [B, S, 3, H, D]): `view` is the
/// memref.reinterpret_cast's offset, sizes and strides, `viewType` its result's type.
std::string viewModule(const std::string &view, const std::string &viewType) {
  std::string descriptor = "!nvgpu.tensormap.descriptor<tensor = memref<1x1x8x64xf16, 3>, "
                           "swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, "
                           "interleave = none>";
  std::string text = R"(
module attributes {gpu.container_module} {
  gpu.module @gemm {
    gpu.func @kernel(%map: {DESCRIPTOR}) kernel {
      gpu.return
    }
  }
  func.func @main(%a: memref<2x8x3x4x64xf16> {graph.name = "a", kernel.element_type = f16},
                  %c: memref<2x8x3x4x64xf16> {graph.name = "c", kernel.element_type = f16})
      attributes {kernel.num_inputs = 1 : i64, kernel.arena_bytes = 0 : i64,
                  kernel.unplanned_bytes = 0 : i64} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %view = memref.reinterpret_cast %a to {VIEW} : memref<2x8x3x4x64xf16> to {VIEW_TYPE}
    %unranked = memref.cast %view : {VIEW_TYPE} to memref<*xf16>
    %map = nvgpu.tma.create.descriptor %unranked box[%c1, %c1, %c8, %c64]
        : memref<*xf16> -> {DESCRIPTOR}
    gpu.launch_func @gemm::@kernel blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%map : {DESCRIPTOR})
    return
  }
}
)";
  return substitute(text, {{"DESCRIPTOR", descriptor}, {"VIEW", view}, {"VIEW_TYPE", viewType}});
}

TEST_F(EngineBuilder, TensorMapsOfStridedViews) {
  // K's heads of the fused projection: [B, H, S, D] = [2, 4, 8, 64] from element 256 (the
  // second of the three projections), rows 3 * 4 * 64 apart.
  kiln::engine::Engine engine;
  std::string errors;
  std::string source =
      viewModule("offset: [256], sizes: [2, 4, 8, 64], strides: [6144, 64, 768, 1]",
                 "memref<2x4x8x64xf16, strided<[6144, 64, 768, 1], offset: 256>>");
  ASSERT_TRUE(succeeded(build(source, engine, errors))) << errors;
  const kiln::engine::LaunchArgument &map = engine.steps.at(0).arguments.at(0);
  EXPECT_EQ(map.kind, kiln::engine::LaunchArgument::Kind::TensorMap);
  EXPECT_EQ(map.address.region, kiln::engine::Region::Input);
  EXPECT_EQ(map.address.offset, 512u); // the view's first element
  EXPECT_EQ(map.tensorMap.rank, 4);
  const uint64_t dims[] = {64, 8, 4, 2}, strides[] = {1536, 128, 12288};
  for (int d = 0; d < 4; ++d)
    EXPECT_EQ(map.tensorMap.dims[d], dims[d]) << d;
  for (int d = 0; d < 3; ++d)
    EXPECT_EQ(map.tensorMap.strides[d], strides[d]) << d;
  // It reaches the last element of V's neighbour, not past the buffer: what the engine
  // checks against the input's size.
  EXPECT_EQ(map.tensorMap.spanBytes(), 63u * 2 + 7 * 1536 + 3 * 128 + 12288 + 2);
  EXPECT_EQ(engine.validate(), "");
}

TEST_F(EngineBuilder, TensorMapsOfViewsWithoutContiguousRowsAreErrors) {
  kiln::engine::Engine engine;
  std::string errors;
  std::string source = viewModule("offset: [0], sizes: [2, 4, 8, 64], strides: [6144, 64, 768, 2]",
                                  "memref<2x4x8x64xf16, strided<[6144, 64, 768, 2]>>");
  EXPECT_TRUE(failed(build(source, engine, errors)));
  EXPECT_NE(errors.find("whose last dimension is not contiguous"), std::string::npos) << errors;
}

/// A host function that fills an arena buffer of 64 `type` elements with `value` (a
/// gpu.memset), then launches a kernel on it.
std::string fillModule(const std::string &type, const std::string &value) {
  return substitute(R"(
module attributes {gpu.container_module} {
  gpu.module @gemm {
    gpu.func @kernel(%counters: memref<64x{T}>) kernel {
      gpu.return
    }
  }
  func.func @main(%a: memref<4xf32> {graph.name = "a", kernel.element_type = f32},
                  %c: memref<4xf32> {graph.name = "c", kernel.element_type = f32})
      attributes {kernel.num_inputs = 1 : i64, kernel.arena_bytes = 1024 : i64,
                  kernel.unplanned_bytes = 1024 : i64} {
    %c1 = arith.constant 1 : index
    %value = arith.constant {VALUE} : {T}
    %counters = memref.alloc() {kernel.arena_offset = 512 : i64} : memref<64x{T}>
    gpu.memset %counters, %value : memref<64x{T}>, {T}
    gpu.launch_func @gemm::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%counters : memref<64x{T}>)
    return
  }
}
)",
                    {{"T", type}, {"VALUE", value}});
}

TEST_F(EngineBuilder, HostMemsetsBecomeFillSteps) {
  struct Case {
    std::string type, value;
    uint8_t byte;
    uint64_t bytes;
  } cases[] = {{"i32", "0", 0, 256},
               {"f32", "0.0", 0, 256},
               {"i32", "-1", 0xff, 256},
               {"i8", "7", 7, 64},
               {"i16", "514", 2, 128}};
  for (const Case &each : cases) {
    kiln::engine::Engine engine;
    std::string errors;
    ASSERT_TRUE(succeeded(build(fillModule(each.type, each.value), engine, errors)))
        << each.type << " " << each.value << ": " << errors;
    ASSERT_EQ(engine.steps.size(), 2u);
    const kiln::engine::Step &fill = engine.steps[0];
    EXPECT_EQ(fill.kind, kiln::engine::Step::Kind::Fill);
    EXPECT_EQ(fill.destination.region, kiln::engine::Region::Arena);
    EXPECT_EQ(fill.destination.offset, 512u);
    EXPECT_EQ(fill.fillByte, each.byte) << each.type << " " << each.value;
    EXPECT_EQ(fill.bytes, each.bytes) << each.type;
    EXPECT_EQ(engine.steps[1].kind, kiln::engine::Step::Kind::Launch);
    EXPECT_EQ(engine.validate(), "");
  }
}

TEST_F(EngineBuilder, FillsOfValuesThatAreNoRepeatedByteAreErrors) {
  for (const auto &[type, value] :
       {std::pair<std::string, std::string>{"i32", "1"}, {"f32", "1.0"}}) {
    kiln::engine::Engine engine;
    std::string errors;
    EXPECT_TRUE(failed(build(fillModule(type, value), engine, errors))) << type;
    EXPECT_NE(errors.find("whose bytes differ"), std::string::npos) << errors;
  }
}

} // namespace
