//===- GemmMatch.h - The GEMMs of matmul and convolution kernels -*- C++ -*-===//
//
// What the tensor-core GEMM templates of every target (sm90_gemm, sm80_gemm,
// sm90_conv, sm80_conv) take: a matmul kernel that is one 2-D product of half-precision
// row-major buffers, and a channels-last convolution kernel read as the implicit GEMM
// C[N*OH*OW, O] = A[N*OH*OW, KH*KW*C] x B[KH*KW*C, O], each with its fused elementwise
// epilogue (passes/kernel/Sm90Epilogue.h). Each target then decides which configurations
// of its template can compute them (passes/kernel/KernelConfig.h).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_GEMMMATCH_H
#define KILN_PASSES_KERNEL_GEMMMATCH_H

#include "passes/kernel/KernelConfig.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>

namespace kiln {

/// The GEMM `function` computes when it is a kernel.matmul holding one 2-D graph.matmul (or
/// graph.gemm: a bias added first, B maybe transposed, i.e. K-major) of f16/bf16 row-major
/// buffers, or with `allowTf32` f32 ones read as tf32 (B K-major: a constant B transposed
/// at compile time), followed by an epilogue the templates can fuse, whatever the sizes
/// (the targets' configurations say which they take).
/// A run-time M is evaluated at `rows.profile` (GemmRows).
/// Why it is none, in `why` when given.
std::optional<GemmProblem> matchGemmKernel(kernel::FuncOp function, bool allowTf32 = false,
                                           GemmRows rows = {}, std::string *why = nullptr);

/// Why no configuration of the GEMM templates computes `problem` (a product they match):
/// the 16-byte rows TMA and cp.async read ("N = 4 and K = 256 ..."). With `threadLoads`
/// (sm_90a, whose producer threads load half-precision operands of other rows), only a
/// K-major B's rows of K are such a reason.
std::string describeGemmShapeRefusal(const GemmProblem &problem, bool threadLoads = false);

/// A channels-last 2-D convolution as a GEMM (see the file comment).
struct ConvGemmProblem {
  /// A dynamic engine's batch (N) is known at run time only: `batch` is then its value at
  /// the opt shape (the configuration is chosen there), `maxBatch` the most it can be.
  bool dynamicBatch = false;
  int64_t maxBatch = 0;
  int64_t batch, height, width, channels;   // input NHWC (channels: of one group)
  int64_t outHeight, outWidth, outChannels; // output NHWC
  int64_t kernelHeight, kernelWidth;
  int64_t strideH, strideW;
  /// 3-D convolutions (NDHWC input, ODHWI weight): 3, and the input's, the output's and
  /// the filter's depths, the depth stride, dilation and leading padding; a 2-D one has
  /// 2 and a depth of 1 throughout.
  int64_t spatialRank = 2;
  int64_t depth = 1, outDepth = 1, kernelDepth = 1, strideD = 1, dilationD = 1, padFront = 0;
  /// Grouped convolutions: the groups the template computes, each `channels` (its input
  /// channels) x `groupOutChannels()` filters, and how many of the convolution's groups
  /// one of them packs (their filters block-diagonal, so that a tile's columns lie in
  /// one group). 1 and 1 for a dense convolution.
  int64_t group = 1, packedGroups = 1;
  int64_t groupOutChannels() const { return outChannels / group; }
  /// The input rows and columns between two taps of the filter.
  int64_t dilationH = 1, dilationW = 1;
  /// The padding before the first row and column (what lies past the last one follows
  /// from the output's extent: zero-filled as the rest of what falls outside the input).
  int64_t padTop, padLeft;
  mlir::Type operand, result;
  /// How the GEMM's A operand (the im2col matrix) is read.
  enum class A {
    /// From the NHWC input, one filter tap (and channel block) of a k-tile at a time.
    Implicit,
    /// From a scratch matrix that an im2col kernel writes (C % 8 != 0).
    Im2col,
    /// As it is: of a 1x1 convolution with stride 1 and no padding, the NHWC input is the
    /// row-major N*H*W x C matrix A, whose rows are C's rows.
    Input,
  } a = A::Implicit;
  /// The implicit A's columns of one filter tap: C rounded up to a multiple of this, or
  /// with 0 of a k-tile (the sm90 template's 128-byte k-tiles each lie in one tap; the sm80
  /// one indexes the taps per 8-channel chunk and needs no padding).
  int64_t tapAlignment = 0;
  /// The bias and the elementwise ops after the convolution (passes/kernel/Sm90Epilogue.h).
  Sm90Epilogue epilogue;

  int64_t outPositions() const { return outDepth * outHeight * outWidth; }
  int64_t gemmM() const { return batch * outPositions(); }
  /// The most rows of C a launch has (gemmM() at the max batch).
  int64_t maxGemmM() const { return (dynamicBatch ? maxBatch : batch) * outPositions(); }
  /// The input's elements at the max batch.
  int64_t maxInputElements() const {
    return (dynamicBatch ? maxBatch : batch) * depth * height * width * channels * group;
  }
  int64_t taps() const { return kernelDepth * kernelHeight * kernelWidth; }
  /// f32 operands, read as tf32 (allow-tf32): B is then stored K-major, O x K.
  bool tf32() const { return operand.isF32(); }
  /// i8 operands (a graph.conv of integers, accumulated in i32 and rescaled to floats by
  /// its epilogue): wgmma reads 8-bit B K-major only, so B is stored O x K too.
  bool int8() const { return operand.isInteger(8); }
  /// Whether B is stored K-major, O x K (tf32 and int8: the forms wgmma takes for them).
  bool kMajorB() const { return tf32() || int8(); }
  /// The bytes of an sm90 k-tile: 128, or 64 for i8 channels that would leave half of a
  /// 128-byte k-tile empty (the configuration chooses).
  int64_t kTileBytes = 128;
  /// The elements of an sm90 k-tile: one 128-byte row (128 i8, 64 16-bit or 32 f32
  /// channels), or 64 i8.
  int64_t tileK() const { return kTileBytes / (operand.getIntOrFloatBitWidth() / 8); }
  /// The channels a row of the input must be a multiple of for 16-byte copies.
  int64_t channelAlignment() const { return 16 / (operand.getIntOrFloatBitWidth() / 8); }
  /// The rows of B (columns of A) one filter tap has: implicitly, the channels rounded up
  /// to `tapAlignment`; otherwise, the channels.
  int64_t rowsPerTap() const {
    return a == A::Implicit ? llvm::alignTo(channels, tapAlignment ? tapAlignment : tileK())
                            : channels;
  }
  /// K of the GEMM: implicitly, whole rows per tap; through im2col, KH*KW*C rounded up
  /// to a multiple of 8 and of 16 bytes (16-byte row strides of the scratch matrix, whose
  /// im2col kernel writes 8 columns a thread, 16 of i8); C for the input.
  int64_t gemmK() const {
    return a == A::Im2col
               ? llvm::alignTo(taps() * channels, std::max<int64_t>(8, channelAlignment()))
               : taps() * rowsPerTap();
  }
  /// Whether A is a row-major matrix (the GEMM templates' plain A operand).
  bool rowMajorA() const { return a != A::Implicit; }
};

/// The strides, dilations and leading padding of `p` in a kernel's name: "s2p3x3", and
/// "s1x2d2x2p2x0" where the strides differ or a dilation is not 1.
std::string convWindowName(const ConvGemmProblem &p);

/// The convolution `function` computes, when it is a kernel.conv holding one channels-last
/// 2-D graph.conv of f16/bf16 buffers, or with `allowTf32` f32 ones, or of i8 buffers
/// (an i32 product that its epilogue converts to floats: the fused rescale) (any groups
/// but depthwise ones, any dilation, strides up to 8, O % 8 == 0; C a multiple of 16 bytes, or
/// KH*KW*C <= 512 through an explicit im2col) and a fusable epilogue. `tapAlignment` is
/// ConvGemmProblem::tapAlignment. With `runTimeBatch`, the batch may be known at run time
/// only (a dynamic engine's; every other extent static: getBatchBuffers), evaluated at
/// `rows.profile`; `rows.maxRows` (when given) bounds C's rows, and so the batch. Why it
/// is none, in `why` when given.
std::optional<ConvGemmProblem> matchConvKernel(kernel::FuncOp function, bool allowTf32,
                                               int64_t tapAlignment, bool runTimeBatch = false,
                                               GemmRows rows = {}, std::string *why = nullptr);

/// The constant weight `weight` (a launch operand, OHWI) permuted into the GEMM's B, the
/// K x O matrix whose row tap * rowsPerTap + c is channel c of filter tap `tap` (zero rows
/// where A's columns are padding), or for tf32 and int8 its K-major transpose O x K: a new constant
/// global `<weight>_kxo` (`_oxk`), shared by the launches that pass the same weight. Fails
/// when the weight is no constant global.
mlir::FailureOr<mlir::memref::GlobalOp>
permutedConvWeight(mlir::SymbolTable &symbols, mlir::Value weight, const ConvGemmProblem &problem);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_GEMMMATCH_H
