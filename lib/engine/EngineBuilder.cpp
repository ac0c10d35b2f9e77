//===- EngineBuilder.cpp - An engine from a lowered GPU module ------------===//

#include "lib/engine/EngineBuilder.h"
#include "dialects/kernel/KernelDialect.h"
#include "dialects/kernel/KernelOps.h"

#include "passes/analysis/ShapeProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using kiln::engine::Address;
using kiln::engine::ElementType;
using kiln::engine::LaunchArgument;
using MemoryRegion = kiln::engine::Region;
using kiln::engine::RuntimeField;
using kiln::engine::ShapeInstruction;
using kiln::engine::Step;
using kiln::engine::TensorMap;

namespace {

/// Weights start at multiples of this in the blob (the runtime uploads the blob to one
/// allocation, so this is their alignment in device memory).
constexpr size_t kWeightAlignment = 256;

std::optional<ElementType> toElementType(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isF64())
    return ElementType::F64;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 1:
    return ElementType::Bool;
  case 8:
    return isUnsigned ? ElementType::U8 : ElementType::I8;
  case 16:
    return isUnsigned ? ElementType::U16 : ElementType::I16;
  case 32:
    return isUnsigned ? ElementType::U32 : ElementType::I32;
  case 64:
    return isUnsigned ? ElementType::U64 : ElementType::I64;
  default:
    return std::nullopt;
  }
}

/// The host function: the one with `kernel.num_inputs`.
func::FuncOp findHost(ModuleOp module) {
  for (auto function : module.getOps<func::FuncOp>())
    if (function->hasAttr(kiln::kernel::kNumInputsAttr))
      return function;
  return nullptr;
}

/// Appends the bytes of `value` (little-endian, one byte per i1) to `bytes`.
LogicalResult appendBytes(ElementsAttr value, Location loc, std::vector<uint8_t> &bytes) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return emitError(loc, "weight '")
             << resource.getRawHandle().getKey() << "' has no data (an elided resource?)";
    ArrayRef<char> data = blob->getData();
    bytes.insert(bytes.end(), data.begin(), data.end());
    return success();
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return emitError(loc, "cannot store a weight of attribute kind ") << value;
  Type element = dense.getElementType();
  auto appendInteger = [&](const APInt &bits) {
    unsigned width = std::max(8u, bits.getBitWidth());
    APInt wide = bits.zextOrTrunc(width);
    for (unsigned byte = 0; byte < width / 8; ++byte)
      bytes.push_back(static_cast<uint8_t>(wide.extractBitsAsZExtValue(8, byte * 8)));
  };
  if (isa<FloatType>(element)) {
    for (APFloat number : dense.getValues<APFloat>())
      appendInteger(number.bitcastToAPInt());
    return success();
  }
  if (isa<IntegerType, IndexType>(element)) {
    for (APInt number : dense.getValues<APInt>())
      appendInteger(element.isIndex() ? number.sextOrTrunc(64) : number);
    return success();
  }
  return emitError(loc, "cannot store weights of element type ") << element;
}

/// The kernel.func a launch comes from (its location's "kernel" metadata), or "".
std::string kernelFunctionOf(Location loc) {
  std::string name;
  loc->walk([&](Location nested) {
    if (auto fused = dyn_cast<FusedLoc>(nested))
      if (auto tag = dyn_cast_or_null<DictionaryAttr>(fused.getMetadata()))
        if (auto kernel = tag.getAs<StringAttr>("kernel")) {
          name = kernel.str();
          return WalkResult::interrupt();
        }
    return WalkResult::advance();
  });
  return name;
}

/// Kernel and template of a launch, and the ONNX nodes it computes, from its location
/// (KernelToLinalg tags every op of a kernel with a FusedLoc whose metadata names them).
void describeKernel(Location loc, kiln::engine::Kernel &kernel,
                    const llvm::StringMap<kiln::KernelTuning> *tuning) {
  llvm::SmallVector<std::string> nodes;
  std::string kernelFunc;
  // A helper launch of a kernel function (a convolution's explicit im2col): the
  // function's tuned time is its main launch's.
  bool helper = false;
  // How gpu-map-loops' threads compute (a kernel of the generic lowering).
  std::string codegen;
  loc->walk([&](Location nested) {
    if (auto fused = dyn_cast<FusedLoc>(nested)) {
      if (auto tag = dyn_cast_or_null<DictionaryAttr>(fused.getMetadata())) {
        if (auto name = tag.getAs<StringAttr>("kernel"); name && kernelFunc.empty())
          kernelFunc = name.str();
        helper |= tag.contains("helper");
        if (auto form = tag.getAs<StringAttr>("codegen"); form && codegen.empty())
          codegen = form.str();
        if (auto name = tag.getAs<StringAttr>("template"); name && kernel.templateKind.empty())
          kernel.templateKind = name.str();
        if (Attribute config = tag.get("config"); config && kernel.config.empty()) {
          if (auto text = dyn_cast<StringAttr>(config)) {
            kernel.config = text.str(); // a description already ("sm90 wgmma+TMA ...")
          } else {
            llvm::raw_string_ostream os(kernel.config);
            config.print(os);
          }
        }
      }
    }
    if (auto named = dyn_cast<NameLoc>(nested)) {
      std::string node = named.getName().str();
      if (!llvm::is_contained(nodes, node))
        nodes.push_back(node);
    }
    return WalkResult::advance();
  });
  kernel.sourceNodes.assign(nodes.begin(), nodes.end());
  // What kernel-autotune chose for the kernel.func this launch comes from.
  if (tuning && !kernelFunc.empty() && !helper) {
    auto found = tuning->find(kernelFunc);
    if (found != tuning->end()) {
      if (kernel.config.empty())
        kernel.config = found->second.config;
      kernel.tuningSource = found->second.source;
      kernel.measuredMicros = found->second.micros;
    }
  }
  if (kernel.config.empty())
    kernel.config = codegen;
  if (kernel.templateKind.empty())
    kernel.templateKind = "generic";
}

class ScheduleBuilder {
public:
  ScheduleBuilder(ModuleOp module, func::FuncOp host, kiln::engine::Engine &engine,
                  const llvm::StringMap<kiln::KernelTuning> *tuning)
      : module(module), host(host), engine(engine), tuning(tuning) {}

  LogicalResult build(ArrayRef<kiln::CompiledGpuModule> compiled) {
    for (const kiln::CompiledGpuModule &gpuModule : compiled) {
      moduleIndex[gpuModule.name] = engine.modules.size();
      engine.modules.push_back({gpuModule.name, gpuModule.ptx, gpuModule.cubin});
    }
    auto arena = host->getAttrOfType<IntegerAttr>(kiln::kernel::kArenaBytesAttr);
    auto unplanned = host->getAttrOfType<IntegerAttr>(kiln::kernel::kUnplannedBytesAttr);
    if (!arena || !unplanned)
      return host.emitError("has no memory plan; run kernel-plan-buffers first");
    engine.arenaBytes = arena.getInt();
    engine.unplannedBytes = unplanned.getInt();

    for (Operation &op : host.getBody().front()) {
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        if (failed(addLaunch(launch)))
          return failure();
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        if (failed(addCopy(copy)))
          return failure();
      } else if (auto fill = dyn_cast<gpu::MemsetOp>(op)) {
        if (failed(addFill(fill)))
          return failure();
      } else if (auto readBack = dyn_cast<kiln::kernel::ReadBackOp>(op)) {
        if (failed(addReadBack(readBack)))
          return failure();
      } else if (auto returned = dyn_cast<func::ReturnOp>(op)) {
        if (failed(addOutputExtents(returned)))
          return failure();
      } else if (failed(checkHostOp(op))) {
        return failure();
      }
    }
    return finishShapes();
  }

private:
  /// Ops the schedule needs nothing from: they define buffers, views and constants that
  /// launches use, and the run-time sizes the shape program computes.
  LogicalResult checkHostOp(Operation &op) {
    if (isa<memref::AllocOp, memref::GetGlobalOp, memref::DeallocOp, ViewLikeOpInterface,
            memref::CastOp, nvgpu::TmaCreateDescriptorOp, memref::DimOp>(op) ||
        op.hasTrait<OpTrait::ConstantLike>() ||
        (isa<arith::ArithDialect>(op.getDialect()) && isMemoryEffectFree(&op)))
      return success();
    return op.emitError("cannot be part of an engine's schedule: the host runs only kernel "
                        "launches and copies (is it left over from a GPU lowering?)");
  }

  /// The dynamic extents of the outputs: what the host function returns, output by output.
  LogicalResult addOutputExtents(func::ReturnOp returned) {
    unsigned next = 0;
    for (kiln::engine::TensorSignature &output : engine.outputs)
      for (int64_t extent : output.shape) {
        if (extent >= 0)
          continue;
        if (next >= returned.getNumOperands())
          return returned.emitError("returns fewer extents than the outputs have dynamic "
                                    "dimensions");
        FailureOr<uint32_t> value = program.getValue(returned.getOperand(next++), returned);
        if (failed(value))
          return failure();
        output.dimValues.push_back(*value);
      }
    if (next != returned.getNumOperands())
      return returned.emitError("returns more extents than the outputs have dynamic dimensions");
    return success();
  }

  /// Gives the run-time fields and the outputs' largest extents their values at the
  /// profile's max shape (what the arena was planned for).
  /// A static engine whose host computed sizes with arithmetic it left unfolded (a dynamic
  /// kernel launched on static buffers, as the kernel timer does) gets the values as
  /// constants, and no shape program.
  LogicalResult finishShapes() {
    if (engine.shapeProgram.empty())
      return success();
    std::vector<std::vector<int64_t>> maxShapes;
    for (const kiln::engine::TensorSignature &input : engine.inputs)
      maxShapes.push_back(input.isDynamic() ? input.maxShape : input.shape);
    std::vector<int64_t> values;
    if (std::string problem = kiln::engine::evaluateShapes(engine, maxShapes, values);
        !problem.empty())
      return host.emitError("the profile's max shape: ") << problem;
    bool dynamic = engine.isDynamic();
    for (Step &step : engine.steps) {
      kiln::engine::applyRuntimeFields(values, step);
      for (const kiln::engine::LaunchArgument &argument : step.arguments)
        if (argument.kind == kiln::engine::LaunchArgument::Kind::TensorMap)
          if (std::string problem = argument.tensorMap.validate(); !problem.empty())
            return host.emitError("a launch at the profile's max shape makes an invalid ")
                   << problem;
      if (!dynamic)
        step.runtimeFields.clear();
    }
    if (!dynamic) {
      engine.shapeProgram.clear();
      return success();
    }
    // The outputs' largest extents: either side of a choice the device makes (an If's).
    std::vector<int64_t> bounds;
    kiln::engine::evaluateProgram(kiln::engine::boundingProgram(engine.shapeProgram), maxShapes,
                                  bounds);
    for (size_t index = 0; index < engine.outputs.size(); ++index)
      if (!engine.outputs[index].dimValues.empty())
        engine.outputs[index].maxShape = kiln::engine::outputShape(engine, index, bounds);
    return success();
  }

  /// Where the buffer `value` lives.
  FailureOr<Address> getAddress(Value value, Operation *user) {
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      if (argument.getOwner() != &host.getBody().front())
        return user->emitError("uses a buffer that is not an argument of the host function");
      unsigned index = argument.getArgNumber();
      unsigned numInputs = engine.inputs.size();
      if (index < numInputs)
        return Address{MemoryRegion::Input, index, 0};
      return Address{MemoryRegion::Output, index - numInputs, 0};
    }
    Operation *definition = value.getDefiningOp();
    if (auto alloc = dyn_cast<memref::AllocOp>(definition)) {
      auto offset = alloc->getAttrOfType<IntegerAttr>(kiln::kernel::kArenaOffsetAttr);
      if (!offset)
        return alloc.emitError("has no arena offset; run kernel-plan-buffers first");
      return Address{MemoryRegion::Arena, 0, static_cast<uint64_t>(offset.getInt())};
    }
    if (auto getGlobal = dyn_cast<memref::GetGlobalOp>(definition))
      return getWeight(getGlobal);
    // A view passes its buffer's base pointer; its offset is in its type, and the kernel
    // (bare-pointer convention) applies it.
    if (auto view = dyn_cast<ViewLikeOpInterface>(definition))
      return getAddress(view.getViewSource(), user);
    if (auto cast = dyn_cast<memref::CastOp>(definition))
      return getAddress(cast.getSource(), user);
    return definition->emitError("defines a buffer the engine cannot place (")
           << definition->getName() << ")";
  }

  FailureOr<Address> getWeight(memref::GetGlobalOp getGlobal) {
    auto found = weightOffset.find(getGlobal.getName());
    if (found != weightOffset.end())
      return Address{MemoryRegion::Weights, 0, found->second};
    auto global =
        SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(getGlobal, getGlobal.getNameAttr());
    if (!global || !global.getInitialValue())
      return getGlobal.emitError("reads a global without an initial value");
    auto value = dyn_cast<ElementsAttr>(*global.getInitialValue());
    if (!value)
      return global.emitError("has no constant value");
    std::vector<uint8_t> &blob = engine.weights;
    blob.resize((blob.size() + kWeightAlignment - 1) / kWeightAlignment * kWeightAlignment);
    uint64_t offset = blob.size();
    if (failed(appendBytes(value, global.getLoc(), blob)))
      return failure();
    weightOffset[getGlobal.getName()] = offset;
    return Address{MemoryRegion::Weights, 0, offset};
  }

  FailureOr<uint32_t> getConstantSize(Value value, Operation *op, StringRef what) {
    APInt constant;
    if (!matchPattern(value, m_ConstantInt(&constant)))
      return op->emitError("has a ") << what << " that is not a compile-time constant";
    return static_cast<uint32_t>(constant.getZExtValue());
  }

  LogicalResult addLaunch(gpu::LaunchFuncOp launch) {
    Step step;
    step.kind = Step::Kind::Launch;
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value sizes[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
    for (int i = 0; i < 6; ++i) {
      // A grid of run-time size (a dynamic shape's loop nest).
      if (i < 3 && !matchPattern(sizes[i], m_Constant())) {
        FailureOr<uint32_t> value = program.getValue(sizes[i], launch);
        if (failed(value))
          return failure();
        step.runtimeFields.push_back({RuntimeField::Kind::Grid, static_cast<uint32_t>(i), *value});
        continue;
      }
      FailureOr<uint32_t> size =
          getConstantSize(sizes[i], launch, i < 3 ? "grid size" : "block size");
      if (failed(size))
        return failure();
      (i < 3 ? step.grid[i] : step.block[i - 3]) = *size;
    }
    if (Value shared = launch.getDynamicSharedMemorySize()) {
      FailureOr<uint32_t> size = getConstantSize(shared, launch, "shared memory size");
      if (failed(size))
        return failure();
      step.sharedBytes = *size;
    }

    for (Value operand : launch.getKernelOperands()) {
      LaunchArgument argument;
      if (isa<MemRefType>(operand.getType())) {
        FailureOr<Address> address = getAddress(operand, launch);
        if (failed(address))
          return failure();
        argument.kind = LaunchArgument::Kind::Pointer;
        argument.address = *address;
      } else if (isa<nvgpu::TensorMapDescriptorType>(operand.getType())) {
        if (failed(getTensorMap(operand, launch, argument, step)))
          return failure();
      } else if (!matchPattern(operand, m_Constant()) && operand.getType().isIntOrIndex()) {
        // An extent or other size known at run time.
        unsigned width =
            operand.getType().isIndex() ? 64 : operand.getType().getIntOrFloatBitWidth();
        if (width != 32 && width != 64)
          return launch.emitError("passes a run-time integer of ") << width << " bits";
        FailureOr<uint32_t> value = program.getValue(operand, launch);
        if (failed(value))
          return failure();
        argument.kind = width == 32 ? LaunchArgument::Kind::I32 : LaunchArgument::Kind::I64;
        step.runtimeFields.push_back(
            {RuntimeField::Kind::Scalar, static_cast<uint32_t>(step.arguments.size()), *value});
      } else if (failed(getScalar(operand, launch, argument))) {
        return failure();
      }
      step.arguments.push_back(argument);
    }

    // One engine kernel per distinct entry point.
    std::string moduleName = launch.getKernelModuleName().str();
    std::string entry = launch.getKernelName().str();
    auto module = moduleIndex.find(moduleName);
    if (module == moduleIndex.end())
      return launch.emitError("launches a kernel of gpu.module @")
             << moduleName << ", which was not compiled";
    std::string key = moduleName + "::" + entry;
    auto found = kernelIndex.find(key);
    if (found == kernelIndex.end()) {
      kiln::engine::Kernel kernel;
      kernel.name = entry;
      kernel.module = module->second;
      describeKernel(launch.getLoc(), kernel, tuning);
      auto gpuModule = this->module.lookupSymbol<gpu::GPUModuleOp>(moduleName);
      kernel.programmaticLaunch =
          gpuModule && gpuModule->hasAttr(kiln::kernel::kProgrammaticLaunchAttr);
      found = kernelIndex.insert({key, engine.kernels.size()}).first;
      engine.kernels.push_back(std::move(kernel));
    }
    step.kernel = found->second;
    // The kernel.func it launches, with what that computes and moves.
    if (std::string function = kernelFunctionOf(launch.getLoc()); !function.empty()) {
      auto [at, added] = functionIndex.try_emplace(function, engine.functions.size());
      if (added) {
        kiln::engine::KernelFunction entry;
        entry.name = function;
        if (tuning)
          if (auto known = tuning->find(function); known != tuning->end())
            entry.flops = known->second.flops, entry.bytes = known->second.bytes;
        engine.functions.push_back(std::move(entry));
      }
      step.function = static_cast<uint32_t>(at->second);
    }
    engine.steps.push_back(std::move(step));
    return success();
  }

  /// A tensor map that `nvgpu.tma.create.descriptor` makes on the host over a buffer of
  /// identity layout, or over a strided view of one (`memref.reinterpret_cast` to static
  /// extents, strides and offset): cuTensorMapEncodeTiled's arguments, innermost
  /// dimension first, from the buffer's or the view's type, the box and the descriptor
  /// type's modes. The extents of a dynamic buffer are shape-program values, run-time
  /// fields of `step` (argument `argument` is to be its next one); its strides follow
  /// from them at run time.
  LogicalResult getTensorMap(Value operand, Operation *launch, LaunchArgument &argument,
                             Step &step) {
    auto create = operand.getDefiningOp<nvgpu::TmaCreateDescriptorOp>();
    if (!create)
      return launch->emitError("passes a tensor map that nvgpu.tma.create.descriptor did not "
                               "make on the host");
    // The descriptor's operand is an unranked view of a ranked buffer.
    Value buffer = create.getTensor();
    if (auto cast = buffer.getDefiningOp<memref::CastOp>())
      buffer = cast.getSource();
    auto bufferType = dyn_cast<MemRefType>(buffer.getType());
    // A strided view: its strides and offset (elements) instead of the dense ones.
    SmallVector<int64_t> viewStrides;
    int64_t viewOffset = 0;
    if (auto view = buffer.getDefiningOp<memref::ReinterpretCastOp>();
        view && bufferType && !isDenseRowMajor(bufferType)) {
      if (!bufferType.hasStaticShape() ||
          failed(bufferType.getStridesAndOffset(viewStrides, viewOffset)) ||
          ShapedType::isDynamic(viewOffset) ||
          llvm::any_of(viewStrides, [](int64_t stride) { return ShapedType::isDynamic(stride); }) ||
          viewStrides.back() != 1)
        return create.emitError("describes a view with run-time extents, strides or offset, or "
                                "whose last dimension is not contiguous");
    } else if (!bufferType || !isDenseRowMajor(bufferType)) {
      return create.emitError("describes a buffer that is not dense and row-major");
    }
    int64_t rank = bufferType.getRank();
    auto boxes = create.getBoxDimensions();
    if (rank < 1 || rank > int64_t(TensorMap::kMaxRank) || int64_t(boxes.size()) != rank)
      return create.emitError("describes a buffer of rank ")
             << rank << " with " << boxes.size() << " box extents (rank 1 to 5, one each)";
    Type elementType = bufferType.getElementType();
    std::optional<uint8_t> dataType;
    if (elementType.isF16())
      dataType = 6;
    else if (elementType.isBF16())
      dataType = 9;
    else if (elementType.isF32())
      dataType = 7;
    else if (elementType.isF64())
      dataType = 8;
    else if (elementType.isInteger(8))
      dataType = 0;
    else if (elementType.isInteger(32))
      dataType = 3;
    else if (elementType.isInteger(64))
      dataType = 5;
    if (!dataType)
      return create.emitError("describes elements of type ")
             << elementType << ", which tensor maps do not hold";
    TensorMap &map = argument.tensorMap;
    map.dataType = *dataType;
    map.rank = static_cast<uint8_t>(rank);
    uint64_t stride = TensorMap::elementBytes(*dataType);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t dim = rank - 1 - d; // the buffer's dimension that is the map's dimension d
      FailureOr<uint32_t> box = getConstantSize(boxes[dim], create, "box extent");
      if (failed(box))
        return failure();
      if (bufferType.isDynamicDim(dim)) {
        FailureOr<uint32_t> extent = program.getExtent(buffer, dim, create);
        if (failed(extent))
          return failure();
        uint32_t field = static_cast<uint32_t>(step.arguments.size() * TensorMap::kMaxRank + d);
        step.runtimeFields.push_back({RuntimeField::Kind::TensorMapDim, field, *extent});
        map.dims[d] = 1; // until finishShapes sets the extent at the max shape
      } else {
        map.dims[d] = static_cast<uint64_t>(bufferType.getDimSize(dim));
      }
      map.box[d] = *box;
      map.elementStrides[d] = 1;
      if (auto strides = create->getAttrOfType<DenseI64ArrayAttr>("kiln.tma_element_strides")) {
        if (int64_t(strides.size()) != rank || strides[dim] < 1 || strides[dim] > 8)
          return create.emitError("has kiln.tma_element_strides that are not one stride of 1 "
                                  "to 8 per dimension");
        map.elementStrides[d] = static_cast<uint32_t>(strides[dim]);
      }
      if (d > 0)
        map.strides[d - 1] = viewStrides.empty() ? stride
                                                 : static_cast<uint64_t>(viewStrides[dim]) *
                                                       TensorMap::elementBytes(*dataType);
      stride *= map.dims[d];
    }
    auto descriptor = cast<nvgpu::TensorMapDescriptorType>(operand.getType());
    map.swizzle = static_cast<uint8_t>(descriptor.getSwizzle());
    map.l2Promotion = static_cast<uint8_t>(descriptor.getL2promo());
    map.oobFill = static_cast<uint8_t>(descriptor.getOob());
    map.interleave = static_cast<uint8_t>(descriptor.getInterleave());
    FailureOr<Address> address = getAddress(buffer, create);
    if (failed(address))
      return failure();
    // (getAddress gives a view's buffer: the map starts at the view's first element.)
    address->offset += static_cast<uint64_t>(viewOffset) * TensorMap::elementBytes(*dataType);
    argument.kind = LaunchArgument::Kind::TensorMap;
    argument.address = *address;
    // A map of run-time extents is checked at the max shape (finishShapes).
    bool runtimeExtents = llvm::any_of(step.runtimeFields, [&](const RuntimeField &field) {
      return field.kind == RuntimeField::Kind::TensorMapDim &&
             field.index / TensorMap::kMaxRank == step.arguments.size();
    });
    if (std::string problem = map.validate(); !runtimeExtents && !problem.empty())
      return create.emitError("makes an invalid ") << problem;
    return success();
  }

  /// Whether `type` lays its elements out densely, row-major, from its start: an identity
  /// layout, or strides that say so (a view folded to static extents keeps them).
  static bool isDenseRowMajor(MemRefType type) {
    if (type.getLayout().isIdentity())
      return true;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) || offset != 0)
      return false;
    int64_t expected = 1;
    for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
      if (strides[dim] != expected)
        return false;
      if (dim > 0 && type.isDynamicDim(dim))
        return false; // a run-time stride outside it
      expected *= type.getDimSize(dim);
    }
    return true;
  }

  LogicalResult getScalar(Value operand, Operation *launch, LaunchArgument &argument) {
    Type type = operand.getType();
    Attribute value;
    if (!matchPattern(operand, m_Constant(&value)))
      return launch->emitError("passes a scalar that is not a compile-time constant (")
             << type << ")";
    if (auto integer = dyn_cast<IntegerAttr>(value)) {
      unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
      if (width != 32 && width != 64)
        return launch->emitError("passes an integer scalar of ") << width << " bits";
      argument.kind = width == 32 ? LaunchArgument::Kind::I32 : LaunchArgument::Kind::I64;
      argument.scalar = integer.getValue().zextOrTrunc(64).getZExtValue();
      return success();
    }
    if (auto number = dyn_cast<FloatAttr>(value)) {
      if (!type.isF32() && !type.isF64())
        return launch->emitError("passes a float scalar of type ") << type;
      argument.kind = type.isF32() ? LaunchArgument::Kind::F32 : LaunchArgument::Kind::F64;
      argument.scalar = number.getValue().bitcastToAPInt().getZExtValue();
      return success();
    }
    return launch->emitError("passes a scalar of type ") << type;
  }

  LogicalResult addCopy(memref::CopyOp copy) {
    auto type = cast<MemRefType>(copy.getSource().getType());
    if (!type.getLayout().isIdentity() ||
        !cast<MemRefType>(copy.getTarget().getType()).getLayout().isIdentity())
      return copy.emitError("copies a strided buffer on the host; copies must be contiguous");
    FailureOr<Address> source = getAddress(copy.getSource(), copy);
    FailureOr<Address> destination = getAddress(copy.getTarget(), copy);
    if (failed(source) || failed(destination))
      return failure();
    Type element = type.getElementType();
    uint64_t elementBytes = element.isIndex() ? 8 : (element.getIntOrFloatBitWidth() + 7) / 8;
    Step step;
    step.kind = Step::Kind::Copy;
    step.source = *source;
    step.destination = *destination;
    if (failed(setStepBytes(step, copy.getSource(), elementBytes, copy)))
      return failure();
    engine.steps.push_back(std::move(step));
    return success();
  }

  /// A read-back step: the value kernels stored in a 0-d buffer becomes the shape
  /// program's DeviceValue for the kernel.read_back, in the order of the steps.
  LogicalResult addReadBack(kiln::kernel::ReadBackOp readBack) {
    FailureOr<Address> source = getAddress(readBack.getBuffer(), readBack);
    FailureOr<uint32_t> value = program.getValue(readBack.getValue(), readBack);
    if (failed(source) || failed(value))
      return failure();
    Type element = readBack.getValue().getType();
    Step step;
    step.kind = Step::Kind::ReadBack;
    step.source = *source;
    step.bytes = element.isIndex() ? 8 : (element.getIntOrFloatBitWidth() + 7) / 8;
    step.value = *value;
    engine.steps.push_back(std::move(step));
    return success();
  }

  /// A copy's or fill's bytes: the size of `buffer`, of `elementBytes` elements; for a
  /// dynamic shape, the shape program's product of its extents at run time.
  LogicalResult setStepBytes(Step &step, Value buffer, uint64_t elementBytes, Operation *op) {
    auto type = cast<MemRefType>(buffer.getType());
    if (type.hasStaticShape()) {
      step.bytes = type.getNumElements() * elementBytes;
      return success();
    }
    uint32_t bytes = program.emit(ShapeInstruction::Op::Constant, 0, 0, elementBytes);
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      FailureOr<uint32_t> extent = program.getExtent(buffer, dim, op);
      if (failed(extent))
        return failure();
      bytes = program.emit(ShapeInstruction::Op::Mul, bytes, *extent);
    }
    step.runtimeFields.push_back({RuntimeField::Kind::CopyBytes, 0, bytes});
    return success();
  }

  /// A host gpu.memset: a fill step (cuMemsetD8), which takes a value whose bytes are all
  /// one byte (0 of any type, an i8, -1 of an integer type, ...) over a contiguous buffer.
  LogicalResult addFill(gpu::MemsetOp fill) {
    if (!fill.getAsyncDependencies().empty() || fill.getAsyncToken())
      return fill.emitError("is asynchronous; the engine's steps are ordered on one stream");
    auto type = cast<MemRefType>(fill.getDst().getType());
    if (!type.getLayout().isIdentity())
      return fill.emitError("fills a strided buffer on the host; fills must be contiguous");
    Type element = type.getElementType();
    if (!element.isIntOrFloat())
      return fill.emitError("fills ") << element << " elements; the engine fills bytes";
    APInt bits;
    if (auto integer = fill.getValue().getDefiningOp<arith::ConstantIntOp>())
      bits = cast<IntegerAttr>(integer.getValue()).getValue();
    else if (auto number = fill.getValue().getDefiningOp<arith::ConstantFloatOp>())
      bits = cast<FloatAttr>(number.getValue()).getValue().bitcastToAPInt();
    else
      return fill.emitError("fills with a value that is not a constant");
    unsigned width = bits.getBitWidth();
    if (width % 8 != 0 || bits != APInt::getSplat(width, bits.trunc(8)))
      return fill.emitError("fills with a value whose bytes differ; the engine fills one byte");
    FailureOr<Address> destination = getAddress(fill.getDst(), fill);
    if (failed(destination))
      return failure();
    Step step;
    step.kind = Step::Kind::Fill;
    step.destination = *destination;
    step.fillByte = static_cast<uint8_t>(bits.trunc(8).getZExtValue());
    if (failed(setStepBytes(step, fill.getDst(), width / 8, fill)))
      return failure();
    engine.steps.push_back(std::move(step));
    return success();
  }

  ModuleOp module;
  func::FuncOp host;
  kiln::engine::Engine &engine;
  const llvm::StringMap<kiln::KernelTuning> *tuning;
  llvm::StringMap<uint32_t> moduleIndex;
  llvm::StringMap<uint32_t> kernelIndex;
  llvm::StringMap<size_t> functionIndex; // kernel.func name -> engine.functions
  llvm::StringMap<uint64_t> weightOffset;
  kiln::ShapeProgramBuilder program{host, engine.shapeProgram};
};

} // namespace

LogicalResult kiln::readEngineSignature(func::FuncOp host, engine::Engine &engine) {
  auto numInputs = host->getAttrOfType<IntegerAttr>(kiln::kernel::kNumInputsAttr);
  if (!numInputs)
    return host.emitError("is not a host function of graph-to-kernel (no kernel.num_inputs)");
  engine.inputs.clear();
  engine.outputs.clear();
  for (auto [index, type] : llvm::enumerate(host.getArgumentTypes())) {
    auto buffer = cast<MemRefType>(type);
    engine::TensorSignature signature;
    if (auto name = host.getArgAttrOfType<StringAttr>(index, "graph.name"))
      signature.name = name.str();
    else
      signature.name = "arg" + std::to_string(index);
    Type element = buffer.getElementType();
    if (auto declared = host.getArgAttrOfType<TypeAttr>(index, "kernel.element_type"))
      element = declared.getValue();
    std::optional<engine::ElementType> elementType = toElementType(element);
    if (!elementType)
      return host.emitError("input or output '") << signature.name << "' has element type "
                                                 << element << ", which engines do not support";
    signature.type = *elementType;
    for (int64_t extent : buffer.getShape())
      signature.shape.push_back(ShapedType::isDynamic(extent) ? -1 : extent);
    bool isInput = static_cast<int64_t>(index) < numInputs.getInt();
    if (isInput && !buffer.hasStaticShape()) {
      // A dynamic input: its profile, and the names of its dimensions.
      auto profile = [&](StringRef name) -> std::vector<int64_t> {
        auto attr = host.getArgAttrOfType<DenseI64ArrayAttr>(index, name);
        if (!attr || attr.size() != buffer.getRank())
          return {};
        return {attr.asArrayRef().begin(), attr.asArrayRef().end()};
      };
      signature.minShape = profile(kiln::kernel::kMinShapeAttr);
      signature.optShape = profile(kiln::kernel::kOptShapeAttr);
      signature.maxShape = profile(kiln::kernel::kMaxShapeAttr);
      if (signature.minShape.empty() || signature.optShape.empty() || signature.maxShape.empty())
        return host.emitError("input '")
               << signature.name
               << "' has dynamic extents but no profile (kernel.min_shape, kernel.opt_shape, "
                  "kernel.max_shape): compile with --min-shapes/--opt-shapes/--max-shapes";
      auto names = host.getArgAttrOfType<ArrayAttr>(index, "graph.dims");
      for (int64_t dim = 0; dim < buffer.getRank(); ++dim) {
        StringAttr name = names && dim < static_cast<int64_t>(names.size())
                              ? dyn_cast<StringAttr>(names[dim])
                              : StringAttr();
        std::string symbol = name ? name.str() : "";
        // An unnamed dynamic dimension is a symbol of its own (as the analysis names it).
        if (symbol.empty() && buffer.isDynamicDim(dim))
          symbol = signature.name + "." + std::to_string(dim);
        signature.dimNames.push_back(buffer.isDynamicDim(dim) ? symbol : "");
      }
    } else if (!isInput && !buffer.hasStaticShape()) {
      signature.maxShape = signature.shape; // the extents at the max shape, set by the builder
    }
    (static_cast<int64_t>(index) < numInputs.getInt() ? engine.inputs : engine.outputs)
        .push_back(std::move(signature));
  }
  return success();
}

LogicalResult kiln::buildEngine(ModuleOp module, ArrayRef<CompiledGpuModule> compiled,
                                engine::Engine &engine,
                                const llvm::StringMap<KernelTuning> *tuning) {
  func::FuncOp host = findHost(module);
  if (!host)
    return module.emitError("has no host function (graph-to-kernel marks it)");
  return ScheduleBuilder(module, host, engine, tuning).build(compiled);
}
