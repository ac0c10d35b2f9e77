//===- DepthwiseConfig.h - Configurations of the depthwise convolutions -*- C++ -*-===//
//
// The depthwise family (#kernel.depthwise: passes/kernel/ConvDepthwise.cpp,
// docs/codegen-depthwise.md): the problem a depthwise kernel poses and the configurations
// that compute it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_DEPTHWISECONFIG_H
#define KILN_PASSES_KERNEL_DEPTHWISECONFIG_H

#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/Sm90Epilogue.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kiln {

/// A 2-D convolution with as many groups as input channels: output channel m reads input
/// channel m / multiplier alone, through its own KH x KW filter.
struct DepthwiseProblem {
  /// NHWC input and output, weight [M, KH, KW, 1]; else NCHW, weight [M, 1, KH, KW].
  bool channelsLast = false;
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  /// Output channels per input channel (M = channels * multiplier).
  int64_t multiplier = 1;
  int64_t outHeight = 0, outWidth = 0;
  int64_t kernelHeight = 0, kernelWidth = 0;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  int64_t padTop = 0, padLeft = 0;
  /// The input's and weight's element type (f32, f16, bf16) and the output's.
  mlir::Type operand, result;
  /// graph.conv's bias and the elementwise ops after it, per output channel along the
  /// channel axis (passes/kernel/Sm90Epilogue.h).
  Sm90Epilogue epilogue;

  int64_t outChannels() const { return channels * multiplier; }
  /// Channels a thread of the channels-last kernel computes with one 16-byte vector (8
  /// f16/bf16, 4 f32; fewer when M is no multiple; 1 with a multiplier).
  int64_t vectorWidth() const;
};

/// One way a depthwise convolution is computed (#kernel.depthwise as values to compute
/// with):
///  - channels last: #kernel.depthwise<pixels, threads>: each thread computes
///    `pixels` consecutive output columns of vectorWidth() channels; `threads` a block;
///  - channels first: #kernel.depthwise<pixels, tile_h, tile_w, planes>: a block
///    computes a tile_h x tile_w tile of `planes` output planes, each thread `pixels`
///    consecutive outputs of a row; tile_w is a multiple of pixels.
struct DepthwiseConfig {
  int64_t pixels = 4;
  int64_t threads = 256;        // channels last
  int64_t tileH = 0, tileW = 0; // channels first (0: channels last)
  int64_t planes = 0;           // channels first

  bool channelsFirst() const { return tileH > 0; }
  /// Threads a block: `threads`, or planes * tile_h * tile_w / pixels.
  int64_t blockThreads() const {
    return channelsFirst() ? planes * tileH * (tileW / pixels) : threads;
  }

  kernel::DepthwiseConfigAttr toAttr(mlir::MLIRContext *context) const {
    return kernel::DepthwiseConfigAttr::get(context, pixels, threads, tileH, tileW, planes);
  }
  static DepthwiseConfig fromAttr(kernel::DepthwiseConfigAttr attr) {
    return {attr.getPixels(), attr.getThreads(), attr.getTileH(), attr.getTileW(),
            attr.getPlanes()};
  }
  /// "depthwise 4 pixels a thread, 256 threads" / "depthwise tile 16x56, 4 pixels a
  /// thread, 1 plane": for reports and engines.
  std::string describe() const;
  /// "p4_t256" / "p4_16x56x1": the kernel's name suffix.
  std::string name() const;
  bool operator==(const DepthwiseConfig &other) const {
    return pixels == other.pixels && threads == other.threads && tileH == other.tileH &&
           tileW == other.tileW && planes == other.planes;
  }
};

/// The depthwise convolution `function` computes, when it is a kernel.conv holding one 2-D
/// graph.conv with group == input channels > 1 of f32/f16/bf16 buffers (either layout, any
/// filter size, stride, padding, dilation and channel multiplier), followed by an
/// elementwise epilogue the templates can fuse (matchSm90Epilogue), every launch of which
/// passes a constant weight.
std::optional<DepthwiseProblem> matchDepthwiseConv(kernel::FuncOp function);

/// The legal configurations of `problem`, the default (the heuristic's choice) first.
llvm::SmallVector<DepthwiseConfig> depthwiseConfigs(const DepthwiseProblem &problem);

/// Whether `config` is legal for `problem` (its layout's kind, the sizes the template
/// takes, shared memory).
bool isLegalDepthwiseConfig(const DepthwiseProblem &problem, const DepthwiseConfig &config);

/// The cost model's estimate (microseconds) for ranking where nothing was measured: a
/// launch plus the bytes moved at `bytesPerSecond`, the channels-first input counted once
/// per tile with its halo.
double estimateDepthwiseMicros(const DepthwiseProblem &problem, const DepthwiseConfig &config,
                               double bytesPerSecond, double launchMicros);

/// "depthwise 32x112x112x32 k3x3 s1 f16 NHWC": the problem, for progress lines.
std::string describeDepthwise(const DepthwiseProblem &problem);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_DEPTHWISECONFIG_H
