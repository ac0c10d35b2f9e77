//===- GpuMapLoops.cpp - Host loop nests and buffer code to gpu.launch ----===//
//
// Turns the compute at the top level of host functions (bufferized, loops on memrefs)
// into gpu.launch ops; what must stay on the host (allocations, globals, views, sizes)
// stays. See docs/gpu-backend.md for the contract with the engine builder.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/kernel/KernelDialect.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/analysis/ShapeProgram.h"
#include "passes/lowering/Passes.h"
#include "passes/lowering/RowMajorView.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_GPUMAPLOOPS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

// CUDA's grid limits: x up to 2^31 - 1 blocks, y and z up to 65535.
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxGridY = 65535;
constexpr int64_t kWarpSize = 32;

constexpr StringLiteral kDataDependentShape =
    "data-dependent shape: not supported on the GPU path yet";

bool isScalarType(Type type) { return isa<IntegerType, IndexType, FloatType>(type); }

/// Views compute a new memref descriptor of an existing buffer, without touching memory.
bool isView(Operation *op) {
  return isa<ViewLikeOpInterface>(op) && isa<memref::MemRefDialect>(op->getDialect()) &&
         op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// Ops that give the host a buffer: they stay on the host and their results are what
/// kernels receive as pointers.
bool isBufferSource(Operation *op) {
  return isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(op);
}

/// Ops a kernel can recompute from their operands wherever their results are needed.
bool isPureComputation(Operation *op) { return op->getNumRegions() == 0 && isMemoryEffectFree(op); }

/// Whether a top-level op's results are host values when its operands are: allocations,
/// views, tensor maps, scalar arithmetic, and read-backs.
bool makesHostValues(Operation &op) {
  bool scalarResults =
      llvm::all_of(op.getResultTypes(), [](Type t) { return !isa<BaseMemRefType>(t); });
  return isBufferSource(&op) || isView(&op) ||
         isa<nvgpu::TmaCreateDescriptorOp, kiln::kernel::ReadBackOp>(op) ||
         (isPureComputation(&op) && scalarResults);
}

/// What becomes of a top-level op of a host function.
enum class Placement {
  Host,     // stays on the host, may move before a launch (allocations, views, sizes)
  Barrier,  // stays on the host, in order: ends the run of compute before it (dealloc)
  Parallel, // an scf.parallel nest: a launch of its own, one thread per iteration (one
            // CTA per iteration of a nest of CTAs)
  Compute,  // anything else: runs in a single-thread launch with its neighbours
};

/// The trip counts of an scf.parallel with constant bounds and steps, or nothing.
std::optional<SmallVector<int64_t>> constantTripCounts(scf::ParallelOp loop) {
  SmallVector<int64_t> trips;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    trips.push_back(*u <= *l ? 0 : llvm::divideCeil(*u - *l, *s));
  }
  return trips;
}

/// The processor each dimension of `loop` is mapped to (upstream's `mapping` attribute,
/// which gpu-tile-transposes sets), or nothing where it has none.
std::optional<SmallVector<gpu::Processor>> mappedProcessors(scf::ParallelOp loop) {
  auto mapping = loop->getAttrOfType<ArrayAttr>(gpu::getMappingAttrName());
  if (!mapping || mapping.size() != loop.getNumLoops())
    return std::nullopt;
  SmallVector<gpu::Processor> processors;
  for (Attribute attr : mapping) {
    auto dim = dyn_cast<gpu::ParallelLoopDimMappingAttr>(attr);
    if (!dim)
      return std::nullopt;
    processors.push_back(dim.getProcessor());
  }
  return processors;
}

/// Whether `loop` is a nest of CTAs: one dimension mapped to block_x, each iteration the
/// code of one CTA, whose loops mapped to threads its threads run together.
bool isCtaNest(scf::ParallelOp loop) {
  std::optional<SmallVector<gpu::Processor>> processors = mappedProcessors(loop);
  return processors && *processors == ArrayRef<gpu::Processor>{gpu::Processor::BlockX};
}

/// How the threads of a launch made of `ops` compute, for the engine's kernel table and
/// `kiln compile --report` (which lists the kernels whose form starts with "scalar": the
/// generic lowering's fallback, one thread per element or output row with scalar
/// accesses): shared-memory tiles or block reductions (nests of CTAs), vectors of V lanes a thread
/// (gpu-vectorize-pointwise-loops), or scalars; loops inside the thread (a reduction, a
/// serialized dimension) or one iteration each; one thread for a sequential run.
std::string codegenForm(ArrayRef<Operation *> ops) {
  auto loop = ops.size() == 1 ? dyn_cast<scf::ParallelOp>(ops.front()) : scf::ParallelOp();
  if (!loop)
    return "scalar, one thread";
  if (isCtaNest(loop)) {
    // gpu-block-reductions' CTAs: a first phase of Y x X threads whose loop carries values.
    auto phases = loop.getBody()->getOps<scf::ParallelOp>();
    if (phases.empty())
      return "shared-memory tiles";
    scf::ParallelOp first = *phases.begin();
    bool carries =
        first.getBody()
            ->walk([](scf::ForOp inner) {
              return inner.getNumRegionIterArgs() ? WalkResult::interrupt() : WalkResult::advance();
            })
            .wasInterrupted();
    std::optional<SmallVector<int64_t>> trips = constantTripCounts(first);
    if (!carries || !trips || trips->size() != 2)
      return "shared-memory tiles";
    return "block reductions: " + std::to_string((*trips)[1]) + " outputs x " +
           std::to_string((*trips)[0]) + " threads a CTA";
  }
  int64_t lanes = 0;
  bool loops = false;
  loop.getBody()->walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto vector = dyn_cast<VectorType>(type))
        lanes = std::max<int64_t>(lanes, vector.getNumElements());
    loops |= isa<scf::ForOp, scf::WhileOp>(op);
  });
  // The lanes are the innermost loop's step (a strided read's wider vector aside).
  if (std::optional<int64_t> step = getConstantIntValue(loop.getStep().back());
      lanes && step && *step > 1)
    lanes = *step;
  std::string form = lanes ? "vectors of " + std::to_string(lanes) + " lanes" : "scalar";
  return form + (loops ? ", loops in each thread" : ", one iteration a thread");
}

/// Whether the host can size a launch for `loop`: constant lower bounds and positive
/// steps, and upper bounds that are host values (a dynamic shape's extents).
bool hasHostTripCounts(scf::ParallelOp loop, function_ref<bool(Value)> onHost) {
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> s = getConstantIntValue(step);
    if (!getConstantIntValue(lb) || !s || *s <= 0 || !onHost(ub))
      return false;
  }
  return true;
}

/// A name for a kernel made of `ops`: the `kiln.source` attribute or the first name in
/// the location (the ONNX node) of the first op that has one, else `fallback`;
/// characters PTX does not allow in identifiers become '_'.
std::string kernelBaseName(ArrayRef<Operation *> ops, StringRef fallback) {
  std::string found;
  auto fromOp = [&](Operation *op) {
    if (auto source = op->getAttrOfType<StringAttr>("kiln.source")) {
      found = source.str();
      return true;
    }
    found = kiln::graph::getNodeName(op->getLoc());
    return !found.empty();
  };
  for (Operation *op : ops)
    if (fromOp(op))
      break;
  if (found.empty())
    for (Operation *op : ops)
      if (op->walk([&](Operation *nested) {
              return fromOp(nested) ? WalkResult::interrupt() : WalkResult::advance();
            }).wasInterrupted())
        break;
  if (found.empty())
    found = fallback.str();

  std::string name;
  for (char c : found) {
    bool ok = llvm::isAlnum(c) || c == '_';
    if (!ok && (name.empty() || name.back() == '_'))
      continue; // no leading or doubled separators
    name.push_back(ok ? c : '_');
  }
  while (!name.empty() && name.back() == '_')
    name.pop_back();
  if (name.size() > 48)
    name.resize(48);
  if (name.empty() || llvm::isDigit(name.front()))
    name.insert(0, "k");
  return name;
}

struct GpuMapLoopsPass : kiln::impl::GpuMapLoopsBase<GpuMapLoopsPass> {
  using GpuMapLoopsBase::GpuMapLoopsBase;

  void runOnOperation() override;

private:
  void prepare(Block &block, IRRewriter &rewriter);
  void forwardShapeBuffers(Block &block, IRRewriter &rewriter);
  LogicalResult mapBlock(Block &block, IRRewriter &rewriter);
  void readBackSizes(Block &block, IRRewriter &rewriter);
  gpu::LaunchOp createLaunch(OpBuilder &builder, Location loc, ArrayRef<Operation *> ops,
                             int64_t gridX, int64_t gridY, int64_t block);
  gpu::LaunchOp createLaunch(OpBuilder &builder, Location loc, ArrayRef<Operation *> ops,
                             Value gridX, Value gridY, Value block, Value one,
                             Value blockY = nullptr, TypeRange workgroup = {});
  LogicalResult mapCtaNest(scf::ParallelOp loop, IRRewriter &rewriter);
  LogicalResult mapParallel(scf::ParallelOp loop, ArrayRef<int64_t> trips, IRRewriter &rewriter);
  void mapDynamicParallel(scf::ParallelOp loop, IRRewriter &rewriter);
  static bool fitsIn31Bits(Value total, Operation *user);
  void mapRun(ArrayRef<Operation *> run, IRRewriter &rewriter);
  LogicalResult resolveCrossingValues(Block &block, IRRewriter &rewriter);

  /// Results of top-level pure ops that depend on what kernels compute.
  llvm::DenseSet<Value> deviceValues;
  void lowerInsideKernel(gpu::LaunchOp launch, IRRewriter &rewriter);
  void sinkIntoKernel(gpu::LaunchOp launch, IRRewriter &rewriter);

  StringAttr moduleName;
  std::string functionName;
  unsigned kernelIndex = 0;
  SmallVector<gpu::LaunchOp> launches;
};

void GpuMapLoopsPass::runOnOperation() {
  func::FuncOp function = getOperation();
  if (function.isExternal())
    return;
  if (threadsPerBlock < 1 || threadsPerBlock > 1024) {
    function.emitError("gpu-map-loops: threads-per-block must be in [1, 1024], got ")
        << threadsPerBlock;
    return signalPassFailure();
  }
  functionName = function.getName().str();
  moduleName = StringAttr::get(&getContext(), functionName + "_kernels");
  kernelIndex = 0;
  launches.clear();

  IRRewriter rewriter(&getContext());
  bool failed = false;
  for (Block &block : function.getBody()) {
    forwardShapeBuffers(block, rewriter);
    prepare(block, rewriter);
    if (mlir::failed(mapBlock(block, rewriter)))
      failed = true;
  }
  if (failed)
    return signalPassFailure();

  // Outlining would copy the callee, itself a host function with launches, into the
  // kernel module.
  for (gpu::LaunchOp launch : launches) {
    launch.walk([&](CallOpInterface call) {
      call->emitError("gpu-map-loops: a kernel cannot call a host function; inline it first");
      failed = true;
    });
    // It would be the device heap's malloc, once per iteration and run, never freed.
    launch.walk([&](memref::AllocOp alloc) {
      alloc.emitError("gpu-map-loops: a buffer allocated inside a kernel (gpu-hoist-"
                      "allocations could not move it to the host: its size is computed "
                      "there, or it is still in use when the next iteration allocates)");
      failed = true;
    });
  }
  if (failed)
    return signalPassFailure();

  for (gpu::LaunchOp launch : launches) {
    lowerInsideKernel(launch, rewriter);
    sinkIntoKernel(launch, rewriter);
  }

  // What only fed kernels (index arithmetic, views now recomputed inside) is dead.
  for (Block &block : function.getBody())
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (isOpTriviallyDead(&op))
        rewriter.eraseOp(&op);
}

/// Shape buffers become the host values they hold. A dynamic reshape bufferizes to a
/// small buffer of index values stored at the top level (its target shape) and a
/// memref.reshape reading it; the stores would run in a kernel and the sizes be device
/// values. Where every store to such a buffer (of static shape, integer or index elements)
/// is at the top level with constant indices, and its other users are loads with constant
/// indices and reshapes of contiguous buffers, each load becomes the value stored last
/// before it, each reshape the `memref.reinterpret_cast` it is (row-major strides of the
/// stored extents), and the buffer goes away.
void GpuMapLoopsPass::forwardShapeBuffers(Block &block, IRRewriter &rewriter) {
  SmallVector<memref::AllocOp> buffers;
  for (Operation &op : block)
    if (auto alloc = dyn_cast<memref::AllocOp>(op); alloc && alloc.getType().hasStaticShape() &&
                                                    alloc.getType().getRank() == 1 &&
                                                    alloc.getType().getElementType().isIntOrIndex())
      buffers.push_back(alloc);
  auto constantIndex = [](ValueRange indices) -> std::optional<int64_t> {
    return indices.size() == 1 ? getConstantIntValue(indices[0]) : std::nullopt;
  };
  for (memref::AllocOp alloc : buffers) {
    bool forwardable = llvm::all_of(alloc->getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (auto store = dyn_cast<memref::StoreOp>(user))
        return store.getMemRef() == alloc && store->getBlock() == &block &&
               constantIndex(store.getIndices());
      if (auto load = dyn_cast<memref::LoadOp>(user))
        return static_cast<bool>(constantIndex(load.getIndices()));
      if (auto reshape = dyn_cast<memref::ReshapeOp>(user))
        return reshape.getShape() == alloc &&
               cast<MemRefType>(reshape.getSource().getType()).getLayout().isIdentity() &&
               reshape.getType().getLayout().isIdentity();
      return false;
    });
    if (!forwardable)
      continue;
    // The value stored last before each top-level op, by index.
    llvm::DenseMap<int64_t, Value> stored;
    llvm::DenseMap<Operation *, llvm::DenseMap<int64_t, Value>> before;
    SmallVector<Operation *> readers;
    for (Operation &op : block) {
      bool reads = false;
      op.walk([&](Operation *nested) {
        reads |= isa<memref::LoadOp, memref::ReshapeOp>(nested) &&
                 llvm::is_contained(nested->getOperands(), alloc.getResult());
      });
      if (reads)
        before[&op] = stored;
      if (auto store = dyn_cast<memref::StoreOp>(op); store && store.getMemRef() == alloc)
        stored[*constantIndex(store.getIndices())] = store.getValueToStore();
    }
    auto valueAt = [&](Operation *user, int64_t index) -> Value {
      Operation *top = block.findAncestorOpInBlock(*user);
      auto found = before.find(top);
      return found == before.end() ? Value() : found->second.lookup(index);
    };
    // Every read must find its values.
    bool complete = llvm::all_of(alloc->getUsers(), [&](Operation *user) {
      if (auto load = dyn_cast<memref::LoadOp>(user))
        return static_cast<bool>(valueAt(user, *constantIndex(load.getIndices())));
      if (auto reshape = dyn_cast<memref::ReshapeOp>(user))
        return llvm::all_of(llvm::seq<int64_t>(0, reshape.getType().getRank()),
                            [&](int64_t dim) { return static_cast<bool>(valueAt(user, dim)); });
      return true;
    });
    if (!complete)
      continue;
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers())) {
      rewriter.setInsertionPoint(user);
      Location loc = user->getLoc();
      auto asIndex = [&](Value value) -> Value {
        return value.getType().isIndex()
                   ? value
                   : arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), value)
                         .getResult();
      };
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        Value value = valueAt(user, *constantIndex(load.getIndices()));
        if (value.getType() != load.getType())
          value = arith::IndexCastOp::create(rewriter, loc, load.getType(), value);
        rewriter.replaceOp(load, value);
      } else if (auto reshape = dyn_cast<memref::ReshapeOp>(user)) {
        SmallVector<OpFoldResult> sizes;
        for (int64_t dim = 0; dim < reshape.getType().getRank(); ++dim)
          sizes.push_back(reshape.getType().isDynamicDim(dim)
                              ? OpFoldResult(asIndex(valueAt(user, dim)))
                              : rewriter.getIndexAttr(reshape.getType().getDimSize(dim)));
        rewriter.replaceOp(reshape, kiln::createRowMajorView(rewriter, loc, reshape.getType(),
                                                             reshape.getSource(), sizes));
      }
    }
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      rewriter.eraseOp(user); // the stores
    rewriter.eraseOp(alloc);
  }
}

/// Normalises the top level of `block` so that the rest sees loops and buffers only:
/// allocas become allocs (their buffers live on the device, across launches), linalg
/// ops and copies become scf.parallel nests (one thread per element), and get_global
/// ops nested in compute move to the top level (weights stay host-side buffers instead
/// of being copied into the kernel module).
void GpuMapLoopsPass::prepare(Block &block, IRRewriter &rewriter) {
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      rewriter.setInsertionPoint(alloca);
      rewriter.replaceOpWithNewOp<memref::AllocOp>(
          alloca, alloca.getType(), alloca.getDynamicSizes(), alloca.getSymbolOperands(),
          alloca.getAlignmentAttr());
      continue;
    }
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        linalgOp && linalgOp.hasPureBufferSemantics()) {
      rewriter.setInsertionPoint(linalgOp);
      if (succeeded(linalg::linalgOpToParallelLoops(rewriter, linalgOp)))
        rewriter.eraseOp(linalgOp);
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      auto type = cast<MemRefType>(copy.getSource().getType());
      if (type.getRank() == 0)
        continue; // runs as a load and a store in a single thread
      rewriter.setInsertionPoint(copy);
      Location loc = copy.getLoc();
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      Value source = copy.getSource(), target = copy.getTarget();
      SmallVector<Value> lbs(type.getRank(), zero), steps(type.getRank(), one), ubs;
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        ubs.push_back(
            type.isDynamicDim(dim)
                ? Value(memref::DimOp::create(rewriter, loc, source, dim))
                : Value(arith::ConstantIndexOp::create(rewriter, loc, type.getDimSize(dim))));
      scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps,
                              [&](OpBuilder &b, Location nestedLoc, ValueRange ivs) {
                                Value v = memref::LoadOp::create(b, nestedLoc, source, ivs);
                                memref::StoreOp::create(b, nestedLoc, v, target, ivs);
                              });
      rewriter.eraseOp(copy);
      continue;
    }
  }

  for (Operation &op : block.without_terminator()) {
    if (op.getNumRegions() == 0)
      continue;
    SmallVector<Operation *> hoisted;
    op.walk([&](Operation *nested) {
      if (isa<memref::GetGlobalOp>(nested))
        hoisted.push_back(nested);
    });
    for (Operation *nested : hoisted)
      nested->moveBefore(&op);
  }
}

/// Gives the host the sizes that kernels compute (NonZero's count, the selections of
/// NonMaxSuppression, a trip count read from a tensor): for each allocation whose size is
/// not a host value, the integer arithmetic that leads to it is recomputed on the host from
/// what it starts from, and each value it starts from that kernels compute is stored into
/// a 0-d buffer by its kernel and read back (kernel.read_back: the engine waits for the
/// launches before it). Later uses of such a value take the host's copy, so the loops it
/// bounds are sized on the host too. What the arithmetic cannot follow (a float, a value
/// defined in a nested region) stays an error in mapBlock.
void GpuMapLoopsPass::readBackSizes(Block &block, IRRewriter &rewriter) {
  llvm::DenseSet<Value> onHost(block.getArguments().begin(), block.getArguments().end());
  llvm::DenseMap<Value, Value> hostCopies;
  auto isInteger = [](Value v) { return isa<IntegerType, IndexType>(v.getType()); };
  std::function<Value(Value, Operation *)> hostValueOf = [&](Value v, Operation *anchor) -> Value {
    if (onHost.contains(v))
      return v;
    if (Value copy = hostCopies.lookup(v))
      return copy;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &block || !isInteger(v))
      return Value();
    Value host;
    if (isPureComputation(def) && def->getNumResults() == 1 &&
        llvm::all_of(def->getOperands(), [&](Value operand) {
          return onHost.contains(operand) || isInteger(operand);
        })) {
      // Integer arithmetic: recomputed on the host from host copies of its operands.
      IRMapping mapping;
      for (Value operand : def->getOperands()) {
        Value copy = hostValueOf(operand, anchor);
        if (!copy)
          return Value();
        mapping.map(operand, copy);
      }
      rewriter.setInsertionPoint(anchor);
      host = rewriter.clone(*def, mapping)->getResult(0);
    } else {
      // Computed by a kernel (a loop's result, a load): stored where it is computed, read
      // back after.
      Location loc = def->getLoc();
      rewriter.setInsertionPoint(def);
      Value buffer = memref::AllocOp::create(rewriter, loc, MemRefType::get({}, v.getType()));
      rewriter.setInsertionPointAfter(def);
      memref::StoreOp::create(rewriter, loc, v, buffer);
      host = kiln::kernel::ReadBackOp::create(rewriter, loc, v.getType(), buffer);
    }
    onHost.insert(host);
    hostCopies[v] = host;
    // Uses after the copy read it instead.
    Operation *hostDef = host.getDefiningOp();
    v.replaceUsesWithIf(host, [&](OpOperand &use) {
      Operation *ancestor = block.findAncestorOpInBlock(*use.getOwner());
      return ancestor && ancestor != hostDef && hostDef->isBeforeInBlock(ancestor);
    });
    return host;
  };

  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (isBufferSource(&op)) {
      for (OpOperand &operand : op.getOpOperands())
        if (Value host = hostValueOf(operand.get(), &op))
          operand.set(host);
    }
    if (makesHostValues(op) &&
        llvm::all_of(op.getOperands(), [&](Value v) { return onHost.contains(v); }))
      onHost.insert(op.result_begin(), op.result_end());
  }
}

LogicalResult GpuMapLoopsPass::mapBlock(Block &block, IRRewriter &rewriter) {
  readBackSizes(block, rewriter);
  llvm::DenseSet<Value> onHost(block.getArguments().begin(), block.getArguments().end());
  auto operandsOnHost = [&](Operation &op) {
    return llvm::all_of(op.getOperands(), [&](Value v) { return onHost.contains(v); });
  };

  struct Segment {
    Placement placement;
    SmallVector<Operation *> ops;
  };
  SmallVector<Segment> segments;
  SmallVector<Operation *> run;
  auto flush = [&] {
    // A run of pure ops only (views or index arithmetic on values kernels computed)
    // needs no launch of its own: the kernels that use its values recompute them.
    // A buffer the host needs (a returned select of buffers) is copied out of a launch.
    auto neededOnHost = [&](Operation *op) {
      return llvm::any_of(op->getUses(), [&](OpOperand &use) {
        return isa<BaseMemRefType>(use.get().getType()) && !llvm::is_contained(run, use.getOwner());
      });
    };
    if (llvm::any_of(run,
                     [&](Operation *op) { return !isPureComputation(op) || neededOnHost(op); }))
      segments.push_back({Placement::Compute, std::move(run)});
    run.clear();
  };

  bool failed = false;
  for (Operation &op : block.without_terminator()) {
    if (isBufferSource(&op)) {
      // The host allocates: sizes must not depend on what kernels compute.
      if (!operandsOnHost(op)) {
        InFlightDiagnostic diagnostic = op.emitError(kDataDependentShape);
        // Where the size stops being a host value.
        Value culprit =
            *llvm::find_if(op.getOperands(), [&](Value v) { return !onHost.contains(v); });
        while (Operation *def = culprit.getDefiningOp()) {
          auto next =
              llvm::find_if(def->getOperands(), [&](Value v) { return !onHost.contains(v); });
          if (!isPureComputation(def) || next == def->operand_end())
            break;
          culprit = *next;
        }
        if (Operation *def = culprit.getDefiningOp())
          diagnostic.attachNote(def->getLoc())
              << "its size comes from " << def->getName() << ", which the host cannot compute";
        failed = true;
      }
      onHost.insert(op.result_begin(), op.result_end());
      continue;
    }
    // Tensor maps are made on the host, as views are (the engine encodes them).
    if ((isView(&op) || isa<nvgpu::TmaCreateDescriptorOp>(op)) && operandsOnHost(op)) {
      onHost.insert(op.result_begin(), op.result_end());
      continue;
    }
    // A read-back waits for the launches before it; its value is the host's.
    if (isa<kiln::kernel::ReadBackOp>(op)) {
      flush();
      onHost.insert(op.getResult(0));
      continue;
    }
    // Deallocations keep their place; launches already made (a second run of the
    // pass) are left alone; calls of other host functions stay on the host (their compute
    // becomes launches in the callee); a host fill (gpu.memset) is the engine's fill step.
    if (isa<memref::DeallocOp, gpu::LaunchOp, gpu::LaunchFuncOp, gpu::MemsetOp, CallOpInterface>(
            op)) {
      flush();
      continue;
    }
    bool scalarResults =
        llvm::all_of(op.getResultTypes(), [](Type t) { return !isa<BaseMemRefType>(t); });
    // Division included: the shape program defines it for a zero divisor.
    if (op.getNumRegions() == 0 && isMemoryEffectFree(&op) && scalarResults && operandsOnHost(op)) {
      onHost.insert(op.result_begin(), op.result_end());
      continue;
    }
    if (auto loop = dyn_cast<scf::ParallelOp>(op);
        loop && loop.getNumResults() == 0 &&
        hasHostTripCounts(loop, [&](Value v) { return onHost.contains(v); })) {
      flush();
      segments.push_back({Placement::Parallel, {&op}});
      continue;
    }
    run.push_back(&op);
  }
  flush();
  if (failed)
    return failure();

  for (Segment &segment : segments) {
    if (segment.placement == Placement::Parallel) {
      auto loop = cast<scf::ParallelOp>(segment.ops.front());
      if (isCtaNest(loop)) {
        if (mlir::failed(mapCtaNest(loop, rewriter)))
          failed = true;
      } else if (std::optional<SmallVector<int64_t>> trips = constantTripCounts(loop)) {
        if (mlir::failed(mapParallel(loop, *trips, rewriter)))
          failed = true;
      } else {
        mapDynamicParallel(loop, rewriter);
      }
    } else {
      mapRun(segment.ops, rewriter);
    }
  }
  if (failed)
    return failure();
  // Pure ops left at the top level with operands kernels compute: recomputed where
  // needed (resolveCrossingValues), then dead.
  deviceValues.clear();
  for (Operation &op : block)
    if (!isa<gpu::LaunchOp>(op) && isPureComputation(&op) && !op.getResults().empty() &&
        llvm::any_of(op.getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return (def && isa<gpu::LaunchOp>(def->getParentOp())) || deviceValues.contains(v);
        }))
      deviceValues.insert(op.result_begin(), op.result_end());
  return resolveCrossingValues(block, rewriter);
}

gpu::LaunchOp GpuMapLoopsPass::createLaunch(OpBuilder &builder, Location loc,
                                            ArrayRef<Operation *> ops, int64_t gridX, int64_t gridY,
                                            int64_t block) {
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto constant = [&](int64_t v) -> Value {
    return v == 1 ? one : arith::ConstantIndexOp::create(builder, loc, v);
  };
  return createLaunch(builder, loc, ops, constant(gridX), constant(gridY), constant(block), one);
}

gpu::LaunchOp GpuMapLoopsPass::createLaunch(OpBuilder &builder, Location loc,
                                            ArrayRef<Operation *> ops, Value gridX, Value gridY,
                                            Value block, Value one, Value blockY,
                                            TypeRange workgroup) {
  std::string name = kernelBaseName(ops, functionName) + "_k" + std::to_string(kernelIndex++);
  // The engine builder reads the form from the launch's location (describeKernel).
  MLIRContext *context = builder.getContext();
  loc = FusedLoc::get(
      context, {loc},
      DictionaryAttr::get(context, {NamedAttribute(StringAttr::get(context, "codegen"),
                                                   StringAttr::get(context, codegenForm(ops)))}));
  auto launch = gpu::LaunchOp::create(
      builder, loc, gridX, gridY, one, block, blockY ? blockY : one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, /*workgroupAttributions=*/workgroup,
      /*privateAttributions=*/{}, /*clusterSizeX=*/nullptr, /*clusterSizeY=*/nullptr,
      /*clusterSizeZ=*/nullptr, FlatSymbolRefAttr::get(moduleName),
      FlatSymbolRefAttr::get(builder.getContext(), name));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(builder, loc);
  launches.push_back(launch);
  return launch;
}

/// The index of the running block on a grid of x by y blocks, row-major: y times the
/// grid's x extent plus x (at the rewriter's insertion point, in `launch`).
Value linearBlockIndex(gpu::LaunchOp launch, IRRewriter &rewriter) {
  Location loc = launch.getLoc();
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  return arith::AddIOp::create(
      rewriter, loc, arith::MulIOp::create(rewriter, loc, blockIds.y, launch.getGridSize().x),
      blockIds.x);
}

/// Replaces `loop` by its body at the rewriter's insertion point (inside a launch's
/// guard), its induction variables delinearised from the thread's `linear` index over
/// `trips` (innermost fastest) and mapped through the lower bounds and steps. With
/// `narrow` (the iteration space has fewer than 2^31 points) the divisions are 32-bit:
/// NVPTX expands a 64-bit division by a run-time value into a long sequence, a 32-bit
/// one into a few instructions.
void inlineLoopBody(scf::ParallelOp loop, Value linear, ArrayRef<Value> trips, IRRewriter &rewriter,
                    bool narrow = false) {
  Location loc = loop.getLoc();
  SmallVector<Value> ivs(trips.size());
  Type i32 = rewriter.getI32Type();
  auto toIndex = [&](Value value) -> Value {
    return narrow ? arith::IndexCastUIOp::create(rewriter, loc, rewriter.getIndexType(), value)
                  : value;
  };
  Value rest =
      narrow ? arith::IndexCastUIOp::create(rewriter, loc, i32, linear).getResult() : linear;
  for (int64_t d = static_cast<int64_t>(trips.size()) - 1; d >= 0; --d) {
    Value index = rest;
    if (d > 0) {
      Value trip = narrow ? arith::IndexCastUIOp::create(rewriter, loc, i32, trips[d]).getResult()
                          : trips[d];
      index = arith::RemUIOp::create(rewriter, loc, rest, trip);
      rest = arith::DivUIOp::create(rewriter, loc, rest, trip);
    }
    index = toIndex(index);
    int64_t lb = *getConstantIntValue(loop.getLowerBound()[d]);
    int64_t step = *getConstantIntValue(loop.getStep()[d]);
    if (step != 1)
      index = arith::MulIOp::create(rewriter, loc, index,
                                    arith::ConstantIndexOp::create(rewriter, loc, step));
    if (lb != 0)
      index = arith::AddIOp::create(rewriter, loc, index,
                                    arith::ConstantIndexOp::create(rewriter, loc, lb));
    ivs[d] = index;
  }
  Block *loopBody = loop.getBody();
  rewriter.eraseOp(loopBody->getTerminator());
  Operation *insertBefore = rewriter.getInsertionBlock()->getTerminator();
  rewriter.inlineBlockBefore(loopBody, insertBefore, ivs);
  rewriter.eraseOp(loop);
}

/// One thread per iteration of `loop`: the iteration space is linearised (row-major,
/// so consecutive threads take consecutive innermost indices, which are usually
/// contiguous in memory), cut into blocks of `threadsPerBlock`, and each thread
/// delinearises its index back into the loop's induction variables.
LogicalResult GpuMapLoopsPass::mapParallel(scf::ParallelOp loop, ArrayRef<int64_t> trips,
                                           IRRewriter &rewriter) {
  int64_t total = 1;
  for (int64_t trip : trips)
    if (llvm::MulOverflow(total, trip, total))
      return loop.emitError("gpu-map-loops: iteration space overflows 64 bits");
  if (total == 0) {
    rewriter.eraseOp(loop);
    return success();
  }

  int64_t block = std::min<int64_t>(threadsPerBlock, total);
  // Few iterations in blocks of threadsPerBlock would leave SMs idle: in blocks of 256,
  // ResNet-50's final pool at batch 32 (8192 threads, 49 loads each) was 32 blocks on
  // the H200's 132 SMs.
  while (block > kWarpSize && llvm::divideCeil(total, block) < minBlocks)
    block = std::max(kWarpSize, block / 2);
  int64_t blocks = llvm::divideCeil(total, block);
  int64_t gridX = std::min(blocks, kMaxGridX);
  int64_t gridY = llvm::divideCeil(blocks, gridX);
  if (gridY > kMaxGridY)
    return loop.emitError("gpu-map-loops: ") << total << " iterations need more than " << kMaxGridX
                                             << " x " << kMaxGridY << " blocks";

  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  gpu::LaunchOp launch = createLaunch(rewriter, loc, {loop}, gridX, gridY, block);

  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  Value blockIndex = blockIds.x;
  if (gridY > 1)
    blockIndex = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, blockIds.y, constant(gridX)),
        blockIds.x);
  Value linear = launch.getThreadIds().x;
  if (blocks > 1)
    linear = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, blockIndex, constant(block)), linear);

  // The last block may be partly outside the iteration space.
  if (gridX * gridY * block != total) {
    Value inside =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, linear, constant(total));
    auto guard = scf::IfOp::create(rewriter, loc, inside, /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(guard.thenBlock());
  }

  SmallVector<Value> tripValues;
  for (int64_t trip : trips)
    tripValues.push_back(constant(trip));
  inlineLoopBody(loop, linear, tripValues, rewriter);
  return success();
}

/// A nest of CTAs (gpu-tile-transposes' tiled transposes): a launch with one CTA per
/// iteration, on grid y too past 2^31-1, its shape the extents of the loops in its body
/// mapped to thread_x/y/z (all alike: the phases between the body's barriers), its
/// workgroup allocas the launch's shared memory.
LogicalResult GpuMapLoopsPass::mapCtaNest(scf::ParallelOp loop, IRRewriter &rewriter) {
  Location loc = loop.getLoc();
  Block *cta = loop.getBody();
  SmallVector<scf::ParallelOp> phases(cta->getOps<scf::ParallelOp>());
  int64_t threads[3] = {1, 1, 1};
  for (auto [n, phase] : llvm::enumerate(phases)) {
    std::optional<SmallVector<gpu::Processor>> processors = mappedProcessors(phase);
    std::optional<SmallVector<int64_t>> trips = constantTripCounts(phase);
    int64_t shape[3] = {1, 1, 1};
    bool mapped = processors && trips;
    for (unsigned d = 0; mapped && d < phase.getNumLoops(); ++d) {
      unsigned axis =
          static_cast<unsigned>((*processors)[d]) - static_cast<unsigned>(gpu::Processor::ThreadX);
      mapped = axis < 3 && matchPattern(phase.getLowerBound()[d], m_Zero()) &&
               matchPattern(phase.getStep()[d], m_One());
      if (mapped)
        shape[axis] = (*trips)[d];
    }
    if (!mapped)
      return phase.emitError("gpu-map-loops: a loop in a CTA must be mapped to threads, with "
                             "constant extents from 0 in steps of 1");
    if (n == 0)
      llvm::copy(shape, threads);
    else if (!llvm::equal(shape, threads))
      return phase.emitError("gpu-map-loops: the thread loops of a CTA differ in shape");
  }
  if (phases.empty() || threads[0] * threads[1] * threads[2] > 1024)
    return loop.emitError("gpu-map-loops: a nest of CTAs needs loops mapped to at most 1024 "
                          "threads in its body");
  SmallVector<memref::AllocaOp> shared;
  for (auto alloca : cta->getOps<memref::AllocaOp>())
    if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(alloca.getType()) &&
        alloca.getType().hasStaticShape())
      shared.push_back(alloca);

  rewriter.setInsertionPoint(loop);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value trip = loop.getUpperBound()[0], gridX, gridY;
  std::optional<int64_t> staticTrip = getConstantIntValue(trip);
  if (staticTrip) {
    int64_t x = std::max<int64_t>(1, std::min(*staticTrip, kMaxGridX));
    int64_t y = llvm::divideCeil(*staticTrip, x);
    if (y > kMaxGridY)
      return loop.emitError("gpu-map-loops: ") << *staticTrip << " CTAs exceed the grid";
    gridX = constant(x);
    gridY = constant(y);
  } else {
    gridX = arith::MinUIOp::create(rewriter, loc, trip, constant(kMaxGridX));
    gridY = arith::CeilDivUIOp::create(rewriter, loc, trip,
                                       arith::MaxUIOp::create(rewriter, loc, gridX, constant(1)));
  }
  SmallVector<Type> sharedTypes =
      llvm::map_to_vector(shared, [](memref::AllocaOp a) -> Type { return a.getType(); });
  gpu::LaunchOp launch = createLaunch(rewriter, loc, {loop}, gridX, gridY, constant(threads[0]),
                                      constant(1), constant(threads[1]), sharedTypes);
  if (threads[2] != 1)
    launch.getBlockSizeZMutable().assign(constant(threads[2]));
  for (auto [alloca, attribution] : llvm::zip(shared, launch.getWorkgroupAttributions()))
    rewriter.replaceOp(alloca, attribution);

  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  Value ctaIndex = linearBlockIndex(launch, rewriter);
  if (!staticTrip || *staticTrip != *getConstantIntValue(gridX) * *getConstantIntValue(gridY)) {
    // Whole CTAs outside: the barriers inside stay uniform.
    Value inside = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, ctaIndex, trip);
    auto guard = scf::IfOp::create(rewriter, loc, inside, /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(guard.thenBlock());
  }
  inlineLoopBody(loop, ctaIndex, {trip}, rewriter);

  gpu::KernelDim3 threadIds = launch.getThreadIds();
  Value ids[3] = {threadIds.x, threadIds.y, threadIds.z};
  for (scf::ParallelOp phase : phases) {
    SmallVector<Value> ivs = llvm::map_to_vector(*mappedProcessors(phase), [&](gpu::Processor p) {
      return ids[static_cast<unsigned>(p) - static_cast<unsigned>(gpu::Processor::ThreadX)];
    });
    rewriter.eraseOp(phase.getBody()->getTerminator());
    rewriter.inlineBlockBefore(phase.getBody(), phase, ivs);
    rewriter.eraseOp(phase);
  }
  return success();
}

/// `mapParallel` for a loop whose upper bounds are known only at run time: the same
/// linearised mapping, with the trip counts, the grid and the guard computed on the host
/// from the bounds (the engine evaluates them per input shape). An empty iteration space
/// gives an empty grid, which the runtime skips.
void GpuMapLoopsPass::mapDynamicParallel(scf::ParallelOp loop, IRRewriter &rewriter) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // Trip counts: max(ub - lb, 0) / step, rounded up.
  SmallVector<Value> trips;
  Value total;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    int64_t l = *getConstantIntValue(lb), s = *getConstantIntValue(step);
    Value trip = ub;
    if (l != 0)
      trip = arith::MaxSIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, ub, constant(l)), constant(0));
    if (s != 1)
      trip = arith::CeilDivUIOp::create(rewriter, loc, trip, constant(s));
    trips.push_back(trip);
    total = total ? Value(arith::MulIOp::create(rewriter, loc, total, trip)) : trip;
  }
  Value block = constant(threadsPerBlock);
  Value blocks = arith::CeilDivUIOp::create(rewriter, loc, total, block);
  Value gridX = arith::MinUIOp::create(rewriter, loc, blocks, constant(kMaxGridX));
  Value gridY = arith::CeilDivUIOp::create(
      rewriter, loc, blocks, arith::MaxUIOp::create(rewriter, loc, gridX, constant(1)));
  gpu::LaunchOp launch = createLaunch(rewriter, loc, {loop}, gridX, gridY, block, constant(1));

  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  Value blockIndex = linearBlockIndex(launch, rewriter);
  Value linear =
      arith::AddIOp::create(rewriter, loc, arith::MulIOp::create(rewriter, loc, blockIndex, block),
                            launch.getThreadIds().x);
  Value inside = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, linear, total);
  auto guard = scf::IfOp::create(rewriter, loc, inside, /*withElseRegion=*/false);
  rewriter.setInsertionPointToStart(guard.thenBlock());

  inlineLoopBody(loop, linear, trips, rewriter, fitsIn31Bits(total, launch));
}

/// Whether the host index `total` is below 2^31 at every shape of the profile: at its
/// max shape, where the extents are largest (the buffer planner sizes the arena there
/// too). False where the engine has no profile or the value cannot be evaluated.
bool GpuMapLoopsPass::fitsIn31Bits(Value total, Operation *user) {
  auto host = user->getParentOfType<func::FuncOp>();
  if (!host)
    return false;
  // A query: what the evaluator cannot evaluate just keeps the 64-bit arithmetic.
  ScopedDiagnosticHandler quiet(host.getContext(), [](Diagnostic &) { return success(); });
  kiln::ProfileShapeEvaluator evaluator(host, kiln::kernel::kMaxShapeAttr);
  FailureOr<int64_t> largest = evaluator.evaluate(total, user);
  return succeeded(largest) && *largest >= 0 && *largest < (int64_t(1) << 31);
}

/// A run of compute that is not one parallel nest runs in order in a single thread.
void GpuMapLoopsPass::mapRun(ArrayRef<Operation *> run, IRRewriter &rewriter) {
  rewriter.setInsertionPointAfter(run.back());
  gpu::LaunchOp launch = createLaunch(rewriter, run.front()->getLoc(), run, 1, 1, 1);
  Operation *terminator = launch.getBody().front().getTerminator();
  for (Operation *op : run)
    op->moveBefore(terminator);
}

/// Gives the kernels of `block` the values they use that other kernels compute, and
/// the host the buffers it uses that kernels choose:
/// - pure ops (views, index arithmetic) are recomputed in the kernel that needs them;
/// - other scalars go through a 0-d buffer the host allocates: stored where they are
///   computed, loaded at the start of each kernel that uses them (launches run in order);
/// - a buffer a kernel chooses (an scf.if or scf.index_switch yielding one of several
///   buffers) is copied into a buffer the host allocates, which replaces it everywhere.
/// A scalar the host itself needs (a size, a returned value) is an error.
LogicalResult GpuMapLoopsPass::resolveCrossingValues(Block &block, IRRewriter &rewriter) {
  bool failed = false;
  // Where each value computed by a kernel, or by a top-level op no kernel holds, lives.
  auto producer = [&](Value v) -> gpu::LaunchOp {
    Operation *def = v.getDefiningOp();
    return def ? def->getParentOfType<gpu::LaunchOp>() : gpu::LaunchOp();
  };
  auto isHostValue = [&](Value v) {
    if (isa<BlockArgument>(v))
      return cast<BlockArgument>(v).getOwner() == &block;
    Operation *def = v.getDefiningOp();
    return def->getBlock() == &block && !isa<gpu::LaunchOp>(def) && !deviceValues.contains(v);
  };

  // Buffers chosen by kernels: copied out right after they are computed.
  for (Operation &op : block) {
    auto launch = dyn_cast<gpu::LaunchOp>(op);
    if (!launch)
      continue;
    for (Operation &inner : launch.getBody().front()) {
      for (Value result : inner.getResults()) {
        auto type = dyn_cast<MemRefType>(result.getType());
        if (!type)
          continue;
        SmallVector<OpOperand *> outside;
        for (OpOperand &use : result.getUses())
          if (!launch->isProperAncestor(use.getOwner()))
            outside.push_back(&use);
        // Views and selects that only kernels use are recomputed in those kernels.
        bool onlyKernels = llvm::all_of(outside, [](OpOperand *use) {
          return use->getOwner()->getParentOfType<gpu::LaunchOp>() != nullptr;
        });
        if (outside.empty() || (isPureComputation(&inner) && onlyKernels))
          continue;
        if (!type.hasStaticShape()) {
          outside.front()->getOwner()->emitError(kDataDependentShape)
              << " (a buffer of dynamic shape chosen on the GPU)";
          failed = true;
          continue;
        }
        Location loc = inner.getLoc();
        rewriter.setInsertionPoint(launch);
        Value copy = memref::AllocOp::create(
            rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()));
        Value replacement = copy;
        if (copy.getType() != type)
          replacement = memref::CastOp::create(rewriter, loc, type, copy);
        rewriter.setInsertionPointAfter(&inner);
        memref::CopyOp::create(rewriter, loc, result, copy);
        for (OpOperand *use : outside)
          use->set(replacement);
      }
    }
  }

  // Scalars and views: spilled or recomputed in each kernel that uses them.
  DenseMap<Value, Value> spills;
  for (Operation &op : block) {
    auto consumer = dyn_cast<gpu::LaunchOp>(op);
    if (!consumer)
      continue;
    Block &body = consumer.getBody().front();
    Operation *start = &body.front();
    IRMapping mapping;
    std::function<FailureOr<Value>(Value, Operation *)> materialize =
        [&](Value v, Operation *user) -> FailureOr<Value> {
      if (isHostValue(v) || producer(v) == consumer)
        return v;
      if (Value mapped = mapping.lookupOrNull(v))
        return mapped;
      Operation *def = v.getDefiningOp();
      if (def && isPureComputation(def)) {
        SmallVector<Value> operands;
        for (Value operand : def->getOperands()) {
          FailureOr<Value> m = materialize(operand, user);
          if (mlir::failed(m))
            return failure();
          operands.push_back(*m);
        }
        rewriter.setInsertionPoint(start);
        Operation *clone = rewriter.clone(*def);
        clone->setOperands(operands);
        for (auto [from, to] : llvm::zip(def->getResults(), clone->getResults()))
          mapping.map(from, to);
        return mapping.lookup(v);
      }
      gpu::LaunchOp from = producer(v);
      if (!def || !from || !isScalarType(v.getType())) {
        user->emitError(kDataDependentShape) << " (uses a value computed on the GPU)";
        return failure();
      }
      Value &buffer = spills[v];
      if (!buffer) {
        Location loc = def->getLoc();
        rewriter.setInsertionPoint(from);
        buffer = memref::AllocOp::create(rewriter, loc, MemRefType::get({}, v.getType()));
        rewriter.setInsertionPointAfter(def);
        memref::StoreOp::create(rewriter, loc, v, buffer);
      }
      rewriter.setInsertionPoint(start);
      Value loaded = memref::LoadOp::create(rewriter, def->getLoc(), buffer);
      mapping.map(v, loaded);
      return loaded;
    };
    consumer.walk([&](Operation *user) {
      for (OpOperand &use : user->getOpOperands()) {
        Value v = use.get();
        if (consumer->isAncestor(v.getParentRegion()->getParentOp()))
          continue; // defined inside
        FailureOr<Value> m = materialize(v, user);
        if (mlir::failed(m))
          failed = true;
        else if (*m != v)
          use.set(*m);
      }
    });
  }

  // Values kernels compute that the host uses.
  for (Operation &op : block) {
    if (isa<gpu::LaunchOp>(op) ||
        (isPureComputation(&op) && deviceValues.contains(op.getResult(0))))
      continue;
    for (Value operand : op.getOperands())
      if (!isHostValue(operand)) {
        op.emitError(kDataDependentShape) << " (uses a value computed on the GPU)";
        failed = true;
        break;
      }
  }
  return failure(failed);
}

/// Whether `op` is a view that only states its buffer's extents (offset 0, identity
/// layout: kernel formation's view of a dynamic output): the kernel takes it as the
/// buffer, and its extents stay host values (gpu-pass-buffer-extents passes them).
bool statesExtents(Operation *op) {
  auto view = dyn_cast<memref::ReinterpretCastOp>(op);
  return view && view.getType().getLayout().isIdentity() && view.getStaticOffsets().size() == 1 &&
         view.getStaticOffsets()[0] == 0;
}

/// Kernels receive buffers (function arguments, allocations, globals) and the
/// function's scalar arguments only: constants, index arithmetic and views are
/// recomputed inside, so that the host passes base pointers of buffers (the engine's
/// arena offsets) and every memref parameter has an identity layout, which the
/// bare-pointer calling convention needs.
void GpuMapLoopsPass::sinkIntoKernel(gpu::LaunchOp launch, IRRewriter &rewriter) {
  Block &body = launch.getBody().front();
  Operation *start = &body.front();
  IRMapping mapping;
  std::function<Value(Value)> sink = [&](Value v) -> Value {
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    Operation *def = v.getDefiningOp();
    if (!def || !isPureComputation(def) || isa<memref::GetGlobalOp>(def) || statesExtents(def))
      return v;
    SmallVector<Value> operands = llvm::map_to_vector(def->getOperands(), sink);
    rewriter.setInsertionPoint(start);
    Operation *clone = rewriter.clone(*def);
    clone->setOperands(operands);
    for (auto [from, to] : llvm::zip(def->getResults(), clone->getResults()))
      mapping.map(from, to);
    return mapping.lookup(v);
  };
  launch.getBody().walk([&](Operation *user) {
    for (OpOperand &use : user->getOpOperands())
      if (!launch->isAncestor(use.get().getParentRegion()->getParentOp()))
        use.set(sink(use.get()));
  });
}

/// Inside a kernel everything is sequential code: linalg ops become loops, copies
/// become loops of loads and stores (memref-to-llvm would call a host runtime function
/// for strided ones), and nested scf.parallel become scf.for.
void GpuMapLoopsPass::lowerInsideKernel(gpu::LaunchOp launch, IRRewriter &rewriter) {
  SmallVector<linalg::LinalgOp> linalgOps;
  launch.walk([&](linalg::LinalgOp op) {
    if (op.hasPureBufferSemantics())
      linalgOps.push_back(op);
  });
  for (linalg::LinalgOp op : linalgOps) {
    rewriter.setInsertionPoint(op);
    if (succeeded(linalg::linalgOpToLoops(rewriter, op)))
      rewriter.eraseOp(op);
  }

  SmallVector<memref::CopyOp> copies;
  launch.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    Location loc = copy.getLoc();
    rewriter.setInsertionPoint(copy);
    Value source = copy.getSource(), target = copy.getTarget();
    auto type = cast<MemRefType>(source.getType());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs(type.getRank(), zero), steps(type.getRank(), one), ubs;
    for (int64_t d = 0; d < type.getRank(); ++d)
      ubs.push_back(type.isDynamicDim(d)
                        ? Value(memref::DimOp::create(rewriter, loc, source, d))
                        : Value(arith::ConstantIndexOp::create(rewriter, loc, type.getDimSize(d))));
    scf::buildLoopNest(rewriter, loc, lbs, ubs, steps,
                       [&](OpBuilder &b, Location nestedLoc, ValueRange ivs) {
                         Value v = memref::LoadOp::create(b, nestedLoc, source, ivs);
                         memref::StoreOp::create(b, nestedLoc, v, target, ivs);
                       });
    rewriter.eraseOp(copy);
  }

  SmallVector<scf::ParallelOp> loops;
  launch.walk([&](scf::ParallelOp loop) {
    if (loop.getNumResults() == 0)
      loops.push_back(loop);
  });
  // Post-order: inner loops first, so that erasing an outer loop never frees one
  // still in the list.
  for (scf::ParallelOp loop : loops)
    (void)scf::parallelForToNestedFors(rewriter, loop);
}

} // namespace
