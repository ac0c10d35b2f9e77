//===- Engine.h - A compiled model: what an engine file holds ---*- C++ -*-===//
//
// The in-memory form of a `.kiln` engine file, shared by the compiler (which fills it in,
// lib/engine) and the runtime (which reads and runs it). Plain C++ with no LLVM or MLIR,
// so programs that only run engines link nothing but the runtime. docs/engine-format.md
// describes the bytes on disk.
//
// Execution model: every tensor lives in device memory at a byte offset in one of four
// regions: the arena (intermediates, planned by liveness), the weights (uploaded once per
// engine), or one of the user's input or output buffers. The schedule is a list of steps
// (kernel launches, copies, fills) run in order on one stream.
//
// Shapes: a static engine has one shape per input. A dynamic engine (format 4) has
// dimensions of extent -1 with a profile (min, opt, max) each, and a shape program:
// integer arithmetic from the inputs' extents to the launch grids, scalar arguments,
// copy sizes and output extents that depend on them, evaluated once per input shape.
// Buffers are planned at the profile's max shape.
//
// Data-dependent shapes (format 7): a shape may also depend on a value computed on the GPU
// (NonZero's count, NonMaxSuppression's selections). A read-back step waits for the steps
// before it, reads a small integer from device memory to the host, and makes it the value
// of a DeviceValue instruction of the shape program; the steps after it and the outputs'
// shapes are then evaluated again. Such an engine syncs mid-run, so it is never captured
// into a CUDA graph.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_ENGINE_H
#define KILN_RUNTIME_ENGINE_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::engine {

/// Element types of engine inputs and outputs (ONNX's numeric types).
enum class ElementType : uint8_t {
  F32 = 1,
  F16 = 2,
  BF16 = 3,
  F64 = 4,
  I8 = 5,
  U8 = 6,
  I16 = 7,
  U16 = 8,
  I32 = 9,
  U32 = 10,
  I64 = 11,
  U64 = 12,
  Bool = 13,
};

/// Bytes per element; 0 for a value that is not an ElementType.
size_t elementSize(ElementType type);
/// "f32", "bf16", "i64", "bool", ...; "?" for a value that is not an ElementType.
const char *elementTypeName(ElementType type);

/// One input or output of the engine, in the order of the ONNX graph.
struct TensorSignature {
  std::string name;
  ElementType type = ElementType::F32;
  /// The extents; -1 for a dynamic dimension.
  std::vector<int64_t> shape;
  /// Dynamic tensors only (else empty): the largest extents (the profile's max shape; for
  /// an output, its extents at the inputs' max shapes), for which buffers are sized.
  std::vector<int64_t> maxShape = {};
  /// Dynamic inputs only: the profile's smallest and best extents, and each dimension's
  /// symbol ("batch", "sequence"; empty for a static dimension). Inputs that share a symbol
  /// must agree on its extent.
  std::vector<int64_t> minShape = {}, optShape = {};
  std::vector<std::string> dimNames = {};
  /// Dynamic outputs only: for each dimension of extent -1, in order, the shape program's
  /// value that is its extent.
  std::vector<uint32_t> dimValues = {};

  bool isDynamic() const { return !maxShape.empty(); }
  /// Elements and bytes at the largest shape (the static shape when static).
  int64_t numElements() const;
  uint64_t sizeInBytes() const { return numElements() * elementSize(type); }
};

/// One instruction of a dynamic engine's shape program. Instruction i computes value i,
/// an int64, from earlier values `a` and `b` (unsigned ops read them as uint64).
struct ShapeInstruction {
  enum class Op : uint8_t {
    Constant = 1, // `constant`
    InputDim = 2, // extent `b` of input `a`
    Add = 3,
    Sub = 4,
    Mul = 5,
    DivU = 6, // division by zero gives 0 (such a value sizes nothing that runs)
    RemU = 7,
    CeilDivU = 8,
    MinU = 9,
    MaxU = 10,
    DivS = 11,
    RemS = 12,
    MinS = 13,
    MaxS = 14,
    Select = 15,  // value `constant` (the condition) != 0 ? a : b
    Compare = 16, // a <predicate> b, 1 or 0; `constant` is the predicate, numbered as MLIR's
                  // arith.cmpi: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge
    And = 17,
    Or = 18,
    Xor = 19,
    // A value the schedule reads back from device memory during the run: that of the
    // read-back step of ordinal `a` (0, 1, ... in step order); kUnreadDeviceValue until
    // that step has run. `b` and `constant` are 0.
    DeviceValue = 20,
  };
  Op op = Op::Constant;
  uint32_t a = 0, b = 0;
  int64_t constant = 0;

  /// Whether the op reads `a` and `b` as values.
  bool readsValues() const {
    return op != Op::Constant && op != Op::InputDim && op != Op::DeviceValue;
  }
};

/// What a DeviceValue evaluates to while it has not been read: at compile time (the buffer
/// plan at the profile's max shape) and at run time before its read-back step has run. The
/// compiler clamps each device value by its upper bound (min(value, bound)), so sizes
/// planned with it come out as the bound; a planned size at or above this means no bound.
inline constexpr int64_t kUnreadDeviceValue = int64_t(1) << 40;

/// A field of a step that a shape-program value sets per input shape.
struct RuntimeField {
  enum class Kind : uint8_t {
    Grid = 1,      // grid[index]; a launch with an empty grid is skipped
    Scalar = 2,    // arguments[index].scalar (an integer argument)
    CopyBytes = 3, // bytes, of a copy or a fill
    // arguments[index / TensorMap::kMaxRank].tensorMap.dims[index % TensorMap::kMaxRank]
    // (at least 1); a map with such a field spans a dense row-major buffer, so its strides
    // follow from its extents.
    TensorMapDim = 4,
  };
  Kind kind = Kind::Grid;
  uint32_t index = 0;
  uint32_t value = 0; // the shape program's value
};

/// Where a pointer points: a byte offset in one of the device memory regions.
enum class Region : uint8_t {
  Arena = 1,   // intermediates; offsets from the buffer plan
  Weights = 2, // the weights blob, uploaded once per engine
  Input = 3,   // the user's buffer for input `index`
  Output = 4,  // the user's buffer for output `index`
};

struct Address {
  Region region = Region::Arena;
  uint32_t index = 0; // input or output number; 0 for the arena and the weights
  uint64_t offset = 0;
};

/// A TMA tensor map (CUtensorMap) over a buffer, for the bulk tensor copies of Hopper
/// kernels: the arguments of cuTensorMapEncodeTiled but the address. The runtime encodes
/// it once the buffer's address is known and passes the kernel the device address of a
/// 64-byte-aligned copy (the form MLIR's nvgpu lowering reads: a pointer to the map).
struct TensorMap {
  static constexpr unsigned kMaxRank = 5;
  static constexpr size_t kBytes = 128; // sizeof(CUtensorMap)

  uint8_t dataType = 0;                   // CUtensorMapDataType
  uint8_t rank = 0;                       // 1 to kMaxRank
  uint64_t dims[kMaxRank] = {};           // globalDim, innermost first
  uint64_t strides[kMaxRank - 1] = {};    // globalStrides: bytes between steps of dims 1...
  uint32_t box[kMaxRank] = {};            // boxDim: the tile one copy moves
  uint32_t elementStrides[kMaxRank] = {}; // elementStrides (1 for dense tiles)
  uint8_t interleave = 0;                 // CUtensorMapInterleave
  uint8_t swizzle = 0;                    // CUtensorMapSwizzle: none, 32, 64, 128 bytes
  uint8_t l2Promotion = 0;                // CUtensorMapL2promotion
  uint8_t oobFill = 0;                    // CUtensorMapFloatOOBfill

  /// Bytes per element of `dataType`, or 0 for an unknown type.
  static size_t elementBytes(uint8_t dataType);

  /// Checks the encoding's rules (ranks, extents, 16-byte strides and inner box, swizzle
  /// span); empty when valid, else one line.
  std::string validate() const;

  /// The bytes the map spans from its address: to the end of its last element (a
  /// strided view's map need not cover the bytes between its rows).
  uint64_t spanBytes() const;
};

/// One argument of a kernel launch, as the kernel's parameter list declares it.
struct LaunchArgument {
  enum class Kind : uint8_t {
    Pointer = 1, // a device pointer (.u64 parameter)
    I32 = 2,
    I64 = 3,
    F32 = 4,
    F64 = 5,
    TensorMap = 6, // a device pointer to `tensorMap` encoded over `address` (.u64)
  };
  Kind kind = Kind::Pointer;
  Address address;     // for Pointer and TensorMap
  uint64_t scalar = 0; // the scalar's bits, zero-extended, for the other kinds
  TensorMap tensorMap; // for TensorMap

  /// The parameter's size in bytes (8 for pointers, I64 and F64; 4 for I32 and F32).
  size_t size() const;
};

/// A compiled GPU module: PTX text, and a cubin for `Engine::target` when ptxas was
/// available at compile time (otherwise the driver compiles the PTX at load).
struct Module {
  std::string name;
  std::string ptx;
  std::vector<uint8_t> cubin;
};

/// One kernel: an entry point of a module, with what the compiler knows of it.
struct Kernel {
  std::string name;                     // the PTX entry
  uint32_t module = 0;                  // index into Engine::modules
  std::string templateKind;             // pointwise, reduction, matmul, conv, ...
  std::vector<std::string> sourceNodes; // the ONNX nodes fused into it
  std::string config;                   // the tuning choices, as the compiler prints them
  double measuredMicros = -1;           // the chosen config's time (see tuningSource), or -1
  std::string tuningSource;             // measured, cache, cost-model (an estimate); or empty
  /// It begins with griddepcontrol.wait (gpu-programmatic-launch): the runtime may launch
  /// it with programmatic stream serialization, to be scheduled while the kernel before
  /// it finishes.
  bool programmaticLaunch = false;
};

/// A kernel.func of the compiled model (a fused group of ONNX nodes), whose launches may
/// be several steps (a generic kernel's loop nests) and whose template kernel may serve
/// others: what it must compute and move at the compiled (a dynamic engine's opt)
/// shapes, for `kiln bench --profile`'s achieved rates.
struct KernelFunction {
  std::string name;
  double flops = 0; // operations: 2 M N K a product, one an element elsewhere
  double bytes = 0; // device memory its buffers take, each read or written once
};

/// One step of the schedule.
struct Step {
  /// `function` of a step that is no kernel.func's launch (a copy, a fill).
  static constexpr uint32_t kNoFunction = 0xffffffffu;
  enum class Kind : uint8_t {
    Launch = 1, // kernel `kernel` on grid x block with `sharedBytes` dynamic shared memory
    Copy = 2,   // `bytes` bytes from `source` to `destination`
    Fill = 3,   // `bytes` bytes at `destination` set to the byte `fillByte`
    // Waits for the steps before it, then reads `bytes` (1, 2, 4 or 8) bytes at `source`
    // as a little-endian signed integer (sign-extended) into the shape program's value
    // `value`, a DeviceValue instruction. Since format 7.
    ReadBack = 4,
  };
  Kind kind = Kind::Launch;
  uint32_t kernel = 0;
  /// The kernel.func it launches (index into Engine::functions), or kNoFunction.
  uint32_t function = kNoFunction;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0;
  std::vector<LaunchArgument> arguments;
  Address source;
  Address destination;
  uint64_t bytes = 0;
  uint8_t fillByte = 0;
  /// ReadBack only: the index of the DeviceValue instruction it defines.
  uint32_t value = 0;
  /// Dynamic engines: the fields the shape program sets (the values above are those at
  /// the max shape).
  std::vector<RuntimeField> runtimeFields;
};

/// Everything an engine file holds.
struct Engine {
  // 2: tensor-map launch arguments; 3: each kernel's tuning source; 4: dynamic shapes
  // (profiles, the shape program, steps' run-time fields); 5: the kernel functions (their
  // FLOPs and bytes) and each launch's; 6: each kernel's programmatic-launch flag; 7:
  // read-back steps and device values (data-dependent shapes).
  static constexpr uint32_t kFormatVersion = 7;

  std::string compilerVersion; // the Kiln version that wrote it
  std::string target;          // the GPU architecture it was compiled for, e.g. "sm_90a"
  std::string modelName;       // the ONNX file it came from (for messages)

  std::vector<TensorSignature> inputs;
  std::vector<TensorSignature> outputs;
  std::vector<Module> modules;
  std::vector<Kernel> kernels;
  std::vector<KernelFunction> functions;
  std::vector<Step> steps;
  /// Dynamic engines: the shape program (empty for a static engine).
  std::vector<ShapeInstruction> shapeProgram;

  /// Whether shapes are resolved per run: a dynamic input, or a shape program with
  /// device values (hasReadBacks).
  bool isDynamic() const;
  /// Whether the schedule reads values back from the GPU mid-run (the shape program has
  /// DeviceValue instructions): such an engine is never captured into a CUDA graph.
  bool hasReadBacks() const;
  /// The number of ReadBack steps.
  size_t readBackCount() const;

  uint64_t arenaBytes = 0;     // the planned arena (at the max shape)
  uint64_t unplannedBytes = 0; // the sum of every intermediate, without reuse
  std::vector<uint8_t> weights;

  /// Checks the cross references (kernel, module, input and output indices) and that
  /// every address plus what is accessed there stays inside its region where the size is
  /// known. Returns an empty string when consistent, else one line saying what is wrong.
  std::string validate() const;
};

/// Checks `shape` for input `index` of `engine`: its rank, its static extents, and the
/// profile's min to max in its dynamic ones. Returns an empty string when it fits, else
/// one line naming the input, the dimension (and its symbol) and what it allows.
std::string checkInputShape(const Engine &engine, size_t index, const std::vector<int64_t> &shape);

/// Checks input shapes `shapes` (one per input) against `engine`'s signature (each as
/// checkInputShape does, and equal extents for a shared symbol) and
/// evaluates the shape program on them into `values`. Returns an empty string when the
/// shapes fit, else one line naming the input, the dimension and what it allows.
/// `deviceValues` as for evaluateProgram.
std::string evaluateShapes(const Engine &engine, const std::vector<std::vector<int64_t>> &shapes,
                           std::vector<int64_t> &values,
                           const std::vector<int64_t> *deviceValues = nullptr);

/// `program` for upper bounds, as the memory plan and the outputs' largest shapes need:
/// a select whose condition depends on a value read back from the device (which branch
/// of an If runs) may take either side at run time, so it becomes the larger of the two.
std::vector<ShapeInstruction> boundingProgram(const std::vector<ShapeInstruction> &program);

/// Evaluates `program` on input shapes `shapes` (unchecked: evaluateShapes checks them
/// against a signature first) into `values`, one per instruction. A DeviceValue of
/// ordinal a is (*deviceValues)[a] where there is such an entry, else kUnreadDeviceValue.
void evaluateProgram(const std::vector<ShapeInstruction> &program,
                     const std::vector<std::vector<int64_t>> &shapes, std::vector<int64_t> &values,
                     const std::vector<int64_t> *deviceValues = nullptr);

/// Output `index`'s extents for the shape program's `values`.
std::vector<int64_t> outputShape(const Engine &engine, size_t index,
                                 const std::vector<int64_t> &values);

/// Sets `step`'s run-time fields from the shape program's `values`.
void applyRuntimeFields(const std::vector<int64_t> &values, Step &step);

/// "1x?x768" (dynamic extents as '?'), "scalar" for rank 0.
std::string formatShape(const std::vector<int64_t> &shape);

/// Parses trtexec's shape list `name:AxBxC,name2:D` (an empty list is valid; `name:` is a
/// scalar; names may contain ':', the shape follows the last one) into `shapes`. Returns
/// an empty string on success, else one line saying what is wrong.
std::string parseShapes(const std::string &list,
                        std::vector<std::pair<std::string, std::vector<int64_t>>> &shapes);

/// Writes `engine` to `path` (through a temporary file renamed into place, so a failure
/// leaves no half-written engine). Returns an empty string on success, else one line.
std::string writeEngineFile(const Engine &engine, const std::string &path);

/// Serialises `engine` into `bytes`.
void serializeEngine(const Engine &engine, std::vector<uint8_t> &bytes);

/// Reads an engine file. Refuses, with one line naming the file and the problem, a file
/// that is missing, truncated, not an engine, of another format version, corrupt
/// (checksum), or inconsistent (see Engine::validate). Returns an empty string on success.
std::string readEngineFile(const std::string &path, Engine &engine);

/// The same for bytes already in memory; `what` names them in messages.
std::string deserializeEngine(const uint8_t *data, size_t size, const std::string &what,
                              Engine &engine);

/// `text` fit for a one-line message: control characters (newlines, tabs, ...) written as
/// \n, \t or \xNN. Names in engine files are arbitrary bytes; messages stay one line.
std::string printable(const std::string &text);
/// printable(text) in single quotes.
std::string quoted(const std::string &text);

/// Whether an engine compiled for `target` (e.g. "sm_90a") runs on a GPU of compute
/// capability major.minor; "sm_90a" runs only on 9.0, "sm_80" on 8.x and later (through
/// PTX). Returns an empty string when it does, else one line saying why not.
std::string checkTargetRuns(const std::string &target, int major, int minor);

} // namespace kiln::engine

#endif // KILN_RUNTIME_ENGINE_H
