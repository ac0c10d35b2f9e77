//===- NonMaxSuppression.cpp - NMS: parallel ranking, blockwise greedy ------===//
//
// The non_max_suppression family (#kernel.non_max_suppression): a `kernel.generic`
// holding one graph.non_max_suppression. The generic lowering runs the greedy selection
// in one thread, a scan of every box per box kept (SSDlite's batched NMS over up to
// 27,000 boxes did not finish in minutes); the family ranks the candidates of each batch
// and class on many CTAs, then one CTA selects them 64 at a time
// (templates/NonMaxSuppression.mlir, docs/codegen-non-max-suppression.md). It takes the
// kernel that writes the selection and the extent kernel that writes its length, which
// the engine reads back to size the selection.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/ExtentKernels.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// The text of passes/kernel/templates/NonMaxSuppression.mlir.
constexpr const char kNonMaxSuppressionTemplate[] =
#include "passes/kernel/templates/NonMaxSuppression.mlir.inc"
    ;

/// The most CTAs of the selection: all must be resident at once for its grid barriers
/// (one an SM is far within any GPU Kiln targets).
constexpr int64_t kMaxSelectCtas = 64;
/// The boxes a selection CTA takes (a few later boxes a thread and block).
constexpr int64_t kBoxesPerSelectCta = 8192;

/// A graph.non_max_suppression the family computes.
struct NmsProblem {
  /// The kernel's arguments: boxes [B, N, 4], scores [B, C, N] (f32), and the output
  /// (the selection [?, 3] i64, or its length [1] i64 in the extent kernel).
  unsigned boxes, scores, output;
  bool countOnly;
  bool centerPointBox;
  /// The constants: the most boxes a class keeps (0 without), the IoU threshold, and the
  /// score threshold where there is one.
  int64_t maxPerClass;
  double iouThreshold;
  std::optional<double> scoreThreshold;
  /// At the profile's largest shape: boxes a batch, pairs (batches times classes).
  int64_t maxN, maxPairs;

  /// The selection's CTAs: one for every kBoxesPerSelectCta boxes at the largest shape,
  /// at most kMaxSelectCtas.
  int64_t ctas() const {
    return std::clamp<int64_t>(llvm::divideCeil(maxN, kBoxesPerSelectCta), 1, kMaxSelectCtas);
  }
};

/// The value of a one-element constant `value` defined in the kernel's body.
template <typename T> std::optional<T> constantScalar(Value value) {
  auto constant = value.getDefiningOp<graph::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!elements || elements.getNumElements() != 1)
    return std::nullopt;
  if constexpr (std::is_same_v<T, int64_t>) {
    if (!isa<IntegerType>(elements.getElementType()))
      return std::nullopt;
    return (*elements.getValues<APInt>().begin()).getSExtValue();
  } else {
    if (!isa<FloatType>(elements.getElementType()))
      return std::nullopt;
    return (*elements.getValues<APFloat>().begin()).convertToDouble();
  }
}

/// `function`'s NMS when its body is one graph.non_max_suppression of f32 boxes and
/// scores that are kernel arguments, with constant thresholds and limit, whose result is
/// the output (or whose length is, in an extent kernel); else nullopt.
std::optional<NmsProblem> matchNms(kernel::FuncOp function) {
  Block &entry = function.getBody().front();
  auto generic = dyn_cast<kernel::GenericOp>(&entry.front());
  if (!generic || !isa<kernel::ReturnOp>(generic->getNextNode()) ||
      generic.getOutputs().size() != 1)
    return std::nullopt;
  Block &body = generic.getBody().front();
  graph::NonMaxSuppressionOp nms;
  for (Operation &op : body.without_terminator()) {
    if (auto found = dyn_cast<graph::NonMaxSuppressionOp>(op)) {
      if (nms)
        return std::nullopt;
      nms = found;
    } else if (!isa<graph::ConstantOp, tensor::DimOp, arith::IndexCastOp, tensor::FromElementsOp,
                    arith::ConstantOp>(op)) {
      return std::nullopt;
    }
  }
  if (!nms)
    return std::nullopt;
  NmsProblem p;
  auto argumentOf = [&](Value value) {
    return kiln::entryArgumentOf(value, body, generic.getInputs(), entry);
  };
  std::optional<unsigned> boxes = argumentOf(nms.getBoxes());
  std::optional<unsigned> scores = argumentOf(nms.getScores());
  auto output = dyn_cast<BlockArgument>(generic.getOutputs()[0]);
  if (!boxes || !scores || !output || output.getOwner() != &entry)
    return std::nullopt;
  p.boxes = *boxes;
  p.scores = *scores;
  p.output = output.getArgNumber();
  // What the body yields: the selection, or its length (tensor.dim, index_cast,
  // from_elements).
  Value yielded = body.getTerminator()->getOperand(0);
  p.countOnly = yielded != nms.getResult();
  if (p.countOnly && !kiln::yieldsExtent(yielded, nms.getResult(), 0))
    return std::nullopt;
  if (!getElementTypeOrSelf(nms.getBoxes().getType()).isF32() ||
      !getElementTypeOrSelf(nms.getScores().getType()).isF32())
    return std::nullopt;
  p.centerPointBox = nms.getCenterPointBox() == 1;
  p.maxPerClass = 0;
  if (Value limit = nms.getMaxOutputBoxesPerClass()) {
    std::optional<int64_t> value = constantScalar<int64_t>(limit);
    if (!value)
      return std::nullopt;
    p.maxPerClass = std::max<int64_t>(*value, 0);
  }
  p.iouThreshold = 0;
  if (Value threshold = nms.getIouThreshold()) {
    std::optional<double> value = constantScalar<double>(threshold);
    if (!value)
      return std::nullopt;
    p.iouThreshold = *value;
  }
  if (Value threshold = nms.getScoreThreshold()) {
    p.scoreThreshold = constantScalar<double>(threshold);
    if (!p.scoreThreshold)
      return std::nullopt;
  }
  std::optional<kiln::ProfileArguments> atMax =
      kiln::getProfileArguments(function, kernel::kMaxShapeAttr);
  if (!atMax)
    return std::nullopt;
  MemRefType scoresType = atMax->types[p.scores], boxesType = atMax->types[p.boxes];
  if (!scoresType || !boxesType || scoresType.getRank() != 3 || boxesType.getRank() != 3)
    return std::nullopt;
  p.maxN = scoresType.getDimSize(2);
  p.maxPairs = scoresType.getDimSize(0) * scoresType.getDimSize(1);
  if (p.maxN < 1 || p.maxPairs > 65535 || scoresType.getNumElements() >= (int64_t(1) << 31) ||
      boxesType.getNumElements() >= (int64_t(1) << 31))
    return std::nullopt;
  return p;
}

/// The corners (y_min, x_min, y_max, x_max) `names` of box `box` (an i32 value) of batch
/// row `%boxRow`, as ONNX reads them: either corner first, or [x_center, y_center, width,
/// height] with center_point_box. `prefix` keeps the temporaries' names apart.
std::string corners(StringRef prefix, ArrayRef<std::string> names, bool centerPointBox) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("          %{0}row = arith.addi %boxRow, %box : i32\n"
                      "          %{0}first = arith.muli %{0}row, %c4 : i32\n",
                      prefix);
  for (int k = 0; k < 4; ++k)
    os << llvm::formatv(
        "          %{0}at{1} = arith.addi %{0}first, %c{1} : i32\n"
        "          %{0}atIndex{1} = arith.index_castui %{0}at{1} : i32 to index\n"
        "          %{0}raw{1} = memref.load %boxes[%{0}atIndex{1}] : memref<?xf32>\n",
        prefix, k == 0 ? "0" : std::to_string(k));
  if (centerPointBox) {
    os << llvm::formatv("          %{0}halfW = arith.mulf %{0}raw2, %half : f32\n"
                        "          %{0}halfH = arith.mulf %{0}raw3, %half : f32\n"
                        "          %{1} = arith.subf %{0}raw1, %{0}halfH : f32\n"
                        "          %{2} = arith.subf %{0}raw0, %{0}halfW : f32\n"
                        "          %{3} = arith.addf %{0}raw1, %{0}halfH : f32\n"
                        "          %{4} = arith.addf %{0}raw0, %{0}halfW : f32\n",
                        prefix, names[0], names[1], names[2], names[3]);
  } else {
    os << llvm::formatv("          %{1} = arith.minimumf %{0}raw0, %{0}raw2 : f32\n"
                        "          %{2} = arith.minimumf %{0}raw1, %{0}raw3 : f32\n"
                        "          %{3} = arith.maximumf %{0}raw0, %{0}raw2 : f32\n"
                        "          %{4} = arith.maximumf %{0}raw1, %{0}raw3 : f32\n",
                        prefix, names[0], names[1], names[2], names[3]);
  }
  return text;
}

/// `%hit`: whether the IoU of the boxes of corners `a` and `c` is above %iouThreshold,
/// as ONNX Runtime computes it (a degenerate box or intersection overlaps nothing).
std::string overlap(StringRef prefix, ArrayRef<std::string> a, ArrayRef<std::string> c) {
  return llvm::formatv("            %{0}yMin = arith.maximumf %{1}, %{5} : f32\n"
                       "            %{0}xMin = arith.maximumf %{2}, %{6} : f32\n"
                       "            %{0}yMax = arith.minimumf %{3}, %{7} : f32\n"
                       "            %{0}xMax = arith.minimumf %{4}, %{8} : f32\n"
                       "            %{0}h = arith.subf %{0}yMax, %{0}yMin : f32\n"
                       "            %{0}w = arith.subf %{0}xMax, %{0}xMin : f32\n"
                       "            %{0}inter = arith.mulf %{0}h, %{0}w : f32\n"
                       "            %{0}ha = arith.subf %{3}, %{1} : f32\n"
                       "            %{0}wa = arith.subf %{4}, %{2} : f32\n"
                       "            %{0}areaA = arith.mulf %{0}ha, %{0}wa : f32\n"
                       "            %{0}hc = arith.subf %{7}, %{5} : f32\n"
                       "            %{0}wc = arith.subf %{8}, %{6} : f32\n"
                       "            %{0}areaC = arith.mulf %{0}hc, %{0}wc : f32\n"
                       "            %{0}sum = arith.addf %{0}areaA, %{0}areaC : f32\n"
                       "            %{0}union = arith.subf %{0}sum, %{0}inter : f32\n"
                       "            %{0}v0 = arith.cmpf ogt, %{0}yMax, %{0}yMin : f32\n"
                       "            %{0}v1 = arith.cmpf ogt, %{0}xMax, %{0}xMin : f32\n"
                       "            %{0}v2 = arith.cmpf ogt, %{0}inter, %zeroF : f32\n"
                       "            %{0}v3 = arith.cmpf ogt, %{0}areaA, %zeroF : f32\n"
                       "            %{0}v4 = arith.cmpf ogt, %{0}areaC, %zeroF : f32\n"
                       "            %{0}v5 = arith.cmpf ogt, %{0}union, %zeroF : f32\n"
                       "            %{0}iou = arith.divf %{0}inter, %{0}union : f32\n"
                       "            %{0}v6 = arith.cmpf ogt, %{0}iou, %iouThreshold : f32\n"
                       "            %{0}a01 = arith.andi %{0}v0, %{0}v1 : i1\n"
                       "            %{0}a23 = arith.andi %{0}v2, %{0}v3 : i1\n"
                       "            %{0}a45 = arith.andi %{0}v4, %{0}v5 : i1\n"
                       "            %{0}a03 = arith.andi %{0}a01, %{0}a23 : i1\n"
                       "            %{0}a05 = arith.andi %{0}a03, %{0}a45 : i1\n"
                       "            %hit = arith.andi %{0}a05, %{0}v6 : i1\n",
                       prefix, a[0], a[1], a[2], a[3], c[0], c[1], c[2], c[3])
      .str();
}

/// Generates the kernels whose `kernel.config` is #kernel.non_max_suppression.
struct NmsGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  StringRef pass;

  FailureOr<std::pair<gpu::GPUFuncOp, gpu::GPUFuncOp>> getOrCreateKernels(const NmsProblem &p) {
    std::string entry =
        llvm::formatv("non_max_suppression_g{0}{1}{2}{3}", p.ctas(),
                      p.centerPointBox ? "_center" : "", p.scoreThreshold ? "_scored" : "",
                      p.countOnly ? "_count" : "")
            .str();
    std::string rankEntry = entry + "_rank", selectEntry = entry + "_select";
    std::string moduleName = "kiln_" + entry;
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return std::pair(existing.lookupSymbol<gpu::GPUFuncOp>(rankEntry),
                       existing.lookupSymbol<gpu::GPUFuncOp>(selectEntry));
    // A candidate's score passes the threshold; without one, every score does but NaN
    // (which no order ranks).
    auto scoreTest = [&](StringRef result, StringRef score, StringRef indent) {
      return p.scoreThreshold
                 ? llvm::formatv("{0}%{1} = arith.cmpf ogt, %{2}, %scoreThreshold : f32\n", indent,
                                 result, score)
                       .str()
                 : llvm::formatv("{0}%{1} = arith.cmpf ord, %{2}, %{2} : f32\n", indent, result,
                                 score)
                       .str();
    };
    std::vector<std::string> block = {"y0", "x0", "y1", "x1"};
    std::vector<std::string> later = {"b0", "b1", "b2", "b3"};
    std::vector<std::string> kept = {"a0", "a1", "a2", "a3"};
    // The pair's two block boxes, read from shared memory.
    std::string pairLoads;
    std::vector<std::string> qi, qj;
    for (auto [which, names] : {std::pair("qi", &qi), std::pair("qj", &qj)})
      for (int k = 0; k < 4; ++k) {
        std::string name = llvm::formatv("{0}c{1}", which, k).str();
        pairLoads += llvm::formatv("            %{0}slot{1} = arith.muli %{0}, %c4 : i32\n"
                                   "            %{0}s{1} = arith.addi %{0}slot{1}, %c{2} : i32\n"
                                   "            %{0}si{1} = arith.index_castui %{0}s{1} : i32 to "
                                   "index\n"
                                   "            %{3} = memref.load %blockBoxes[%{0}si{1}] : "
                                   "memref<256xf32, #gpu.address_space<workgroup>>\n",
                                   which, k, k == 0 ? "0" : std::to_string(k), name)
                         .str();
        names->push_back(name);
      }
    std::string outputView, writeRow, writeCount;
    if (p.countOnly) {
      outputView = "    %out = memref.reinterpret_cast %outPointer to offset: [0], sizes: [1], "
                   "strides: [1]\n        : memref<i64> to memref<1xi64>\n";
      writeCount = "    %countWriter = arith.andi %first, %leader : i1\n"
                   "    scf.if %countWriter {\n"
                   "      %total64 = arith.extui %total : i32 to i64\n"
                   "      memref.store %total64, %out[%i0] : memref<1xi64>\n"
                   "    }\n";
    } else {
      // The selection's rows: at most one a candidate of every pair.
      outputView = "    %outRows = arith.muli %elements, %c3 : i32\n"
                   "    %outSize = arith.index_castui %outRows : i32 to index\n"
                   "    %out = memref.reinterpret_cast %outPointer to offset: [0], sizes: "
                   "[%outSize], strides: [1]\n        : memref<i64> to memref<?xi64>\n";
      writeRow = "              %rowFirst = arith.muli %row, %c3 : i32\n"
                 "              %rowSecond = arith.addi %rowFirst, %c1 : i32\n"
                 "              %rowThird = arith.addi %rowFirst, %c2 : i32\n"
                 "              %r0 = arith.index_castui %rowFirst : i32 to index\n"
                 "              %r1 = arith.index_castui %rowSecond : i32 to index\n"
                 "              %r2 = arith.index_castui %rowThird : i32 to index\n"
                 "              %b64 = arith.extui %b : i32 to i64\n"
                 "              %c64v = arith.extui %c : i32 to i64\n"
                 "              %box64 = arith.extui %boxIndex : i32 to i64\n"
                 "              memref.store %b64, %out[%r0] : memref<?xi64>\n"
                 "              memref.store %c64v, %out[%r1] : memref<?xi64>\n"
                 "              memref.store %box64, %out[%r2] : memref<?xi64>\n";
    }
    std::string constants = llvm::formatv("    %half = arith.constant 0.5 : f32\n"
                                          "    %zeroF = arith.constant 0.0 : f32\n")
                                .str();
    std::string text = kiln::substitutePlaceholders(
        kNonMaxSuppressionTemplate,
        {{"SCORE_TEST_SELF", scoreTest("candidate", "score", "    ")},
         {"SCORE_TEST_OTHER", scoreTest("otherPasses", "other", "      ")},
         {"SCORE_TEST_COUNT", scoreTest("counted", "pairScore", "        ")},
         {"CORNERS_BLOCK", corners("cb", block, p.centerPointBox)},
         {"CORNERS_LATER", corners("cl", later, p.centerPointBox)},
         {"OVERLAP_PAIR", pairLoads + overlap("op", qi, qj)},
         {"OVERLAP_SWEEP", overlap("os", kept, later)},
         {"OUTPUT_VIEW", constants + outputView},
         {"WRITE_ROW", writeRow},
         {"WRITE_COUNT", writeCount},
         {"MODULE", moduleName},
         {"RANK_ENTRY", rankEntry},
         {"SELECT_ENTRY", selectEntry}});
    FailureOr<gpu::GPUFuncOp> select =
        kiln::insertTemplateModule(module, symbols, pass, selectEntry, text);
    if (failed(select))
      return failure();
    auto gpuModule = (*select)->getParentOfType<gpu::GPUModuleOp>();
    return std::pair(gpuModule.lookupSymbol<gpu::GPUFuncOp>(rankEntry), *select);
  }

  void replaceLaunch(kernel::LaunchOp launch, gpu::GPUFuncOp rank, gpu::GPUFuncOp select,
                     const NmsProblem &p) {
    OpBuilder b(launch);
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("non_max_suppression"));
    metadata.set("config", b.getStringAttr(p.countOnly ? "ranked, blocks of 64, the count"
                                                       : "ranked, blocks of 64"));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    Value boxes = launch.getOperands()[p.boxes], scores = launch.getOperands()[p.scores];
    Value output = launch.getOperands()[p.output];
    Value n = kiln::hostExtentProduct(b, loc, scores, 2, 3);
    Value classes = kiln::hostExtentProduct(b, loc, scores, 1, 2);
    Value pairs = kiln::hostExtentProduct(b, loc, scores, 0, 2);
    Value orderSize = arith::MulIOp::create(b, loc, pairs, n);
    // Each pair's candidates in order, the alive bitmap (a bit a box) and the selection's
    // grid-barrier counter: buffers of the host's, planned with the others.
    auto i32Buffer = MemRefType::get({ShapedType::kDynamic}, b.getI32Type());
    Value order = memref::AllocOp::create(b, loc, i32Buffer, ValueRange{orderSize});
    Value words = arith::CeilDivUIOp::create(b, loc, n, arith::ConstantIndexOp::create(b, loc, 32));
    Value alive = memref::AllocOp::create(b, loc, i32Buffer, ValueRange{words});
    Value sync = memref::AllocOp::create(b, loc, MemRefType::get({1}, b.getI32Type()));
    auto asI32 = [&](Value index) {
      return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index).getResult();
    };
    Value scoreThreshold = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(static_cast<float>(p.scoreThreshold.value_or(0))));
    Value iouThreshold =
        arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(p.iouThreshold)));
    Value maxPerClass = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(p.maxPerClass));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value rankBlock = arith::ConstantIndexOp::create(b, loc, 256);
    Value rankBlocks = arith::CeilDivUIOp::create(b, loc, n, rankBlock);
    Value scoresPointer = kiln::barePointer(b, loc, scores);
    Value orderPointer = kiln::barePointer(b, loc, order);
    Value syncPointer = kiln::barePointer(b, loc, sync);
    gpu::LaunchFuncOp::create(b, loc, rank, gpu::KernelDim3{rankBlocks, pairs, one},
                              gpu::KernelDim3{rankBlock, one, one}, Value(),
                              ValueRange{scoresPointer, orderPointer, syncPointer, asI32(n),
                                         asI32(pairs), scoreThreshold});
    Value selectBlock = arith::ConstantIndexOp::create(b, loc, 1024);
    // Every CTA the module was made for, however few boxes this run has: SSDlite's
    // 27,000 boxes took 17.8 ms on 4 CTAs, 7.0 on 36 (the sweep's dependent loads of the
    // later boxes spread over more threads; docs/notebook/2026-12-01-09-non-zero.md).
    Value selectCtas = arith::ConstantIndexOp::create(b, loc, p.ctas());
    gpu::LaunchFuncOp::create(b, loc, select, gpu::KernelDim3{selectCtas, one, one},
                              gpu::KernelDim3{selectBlock, one, one}, Value(),
                              ValueRange{kiln::barePointer(b, loc, boxes), scoresPointer,
                                         orderPointer, kiln::barePointer(b, loc, output),
                                         kiln::barePointer(b, loc, alive), syncPointer, asI32(n),
                                         asI32(classes), asI32(pairs), maxPerClass, iouThreshold,
                                         scoreThreshold});
    launch.erase();
  }
};

/// The family: #kernel.non_max_suppression on every GPU target; nothing to tune.
class NonMaxSuppressionTemplate final
    : public kiln::KernelTemplateOf<kernel::NonMaxSuppressionConfigAttr> {
  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &) const override {
    if (!matchNms(function))
      return {};
    return {kernel::NonMaxSuppressionConfigAttr::get(function.getContext())};
  }

  bool isTuned(const kiln::TemplateOptions &) const override { return false; }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::optional<NmsProblem> p = matchNms(function);
    if (!p)
      return std::nullopt;
    return llvm::formatv("NMS of up to {0} boxes, {1} batch-class pairs{2}", p->maxN, p->maxPairs,
                         p->countOnly ? ", the count" : "")
        .str();
  }

  std::string describe(kernel::NonMaxSuppressionConfigAttr) const override {
    return "NMS ranked, blocks of 64";
  }

  /// The ranking (N^2 comparisons a pair over the SMs) and the selection (a block's
  /// bit matrix and walk, then the later boxes: about N^2 / 2 IoUs at worst, on one SM).
  double estimateMicros(kernel::FuncOp function, kernel::NonMaxSuppressionConfigAttr,
                        const kiln::DeviceModel &device) const override {
    std::optional<NmsProblem> p = matchNms(function);
    if (!p)
      return device.launchMicros;
    double clock = 1.7e3, n = p->maxN, pairs = p->maxPairs;
    double ranking = pairs * n * n / (device.multiprocessors * 128.0) / clock;
    double selection = pairs * (n / 64 * 2 + n * n / 2 / 1024 * 20 / 64) / clock;
    return 2 * device.launchMicros + ranking + selection;
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::NonMaxSuppressionConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    std::optional<NmsProblem> problem = matchNms(function);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr
             << " is for one graph.non_max_suppression of f32 boxes and scores with constant "
                "thresholds, which this kernel is not";
    NmsGenerator generator{context.module, context.symbols, context.pass};
    FailureOr<std::pair<gpu::GPUFuncOp, gpu::GPUFuncOp>> kernels =
        generator.getOrCreateKernels(*problem);
    if (failed(kernels))
      return failure();
    kiln::replaceLaunches(function, context.module, context.symbols, [&](kernel::LaunchOp launch) {
      generator.replaceLaunch(launch, kernels->first, kernels->second, *problem);
      return success();
    });
    return success();
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &nonMaxSuppressionTemplate() {
  static const NonMaxSuppressionTemplate family;
  return family;
}
} // namespace kiln
