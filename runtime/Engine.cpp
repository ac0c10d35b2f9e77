//===- Engine.cpp - Engine files: writing, reading, validating ------------===//
//
// The byte layout is documented in docs/engine-format.md; keep the two in step. Reading
// trusts nothing: every read is bounds-checked, and every count is checked against the
// bytes that remain before anything is allocated, so a corrupt file costs at most its own
// size in memory.
//
//===----------------------------------------------------------------------===//

#include "runtime/Engine.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <unistd.h>

namespace kiln::engine {

namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'E', 'N', 'G', '\0'};
/// magic, format version, header size, payload size, checksum.
constexpr size_t kFixedHeaderBytes = 8 + 4 + 4 + 8 + 8;
/// Where the checksummed bytes start: right after the checksum field.
constexpr size_t kChecksummedFrom = kFixedHeaderBytes;
constexpr size_t kWeightsAlignment = 256;
/// Longest header string (compiler version, target) a reader accepts.
constexpr uint32_t kMaxHeaderString = 4096;

uint64_t fnv1a64(const uint8_t *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

class Writer {
public:
  explicit Writer(std::vector<uint8_t> &bytes) : bytes(bytes) {}

  void u8(uint8_t value) { bytes.push_back(value); }
  void u32(uint32_t value) { little(value, 4); }
  void u64(uint64_t value) { little(value, 8); }
  void i64(int64_t value) { little(static_cast<uint64_t>(value), 8); }
  void f64(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    u64(bits);
  }
  void raw(const void *data, size_t size) {
    const uint8_t *begin = static_cast<const uint8_t *>(data);
    bytes.insert(bytes.end(), begin, begin + size);
  }
  void string(const std::string &text) {
    u32(static_cast<uint32_t>(text.size()));
    raw(text.data(), text.size());
  }
  void padTo(size_t alignment) {
    while (bytes.size() % alignment)
      bytes.push_back(0);
  }
  void patch32(size_t at, uint32_t value) { patch(at, value, 4); }
  void patch64(size_t at, uint64_t value) { patch(at, value, 8); }
  size_t position() const { return bytes.size(); }

  void address(const Address &address) {
    u8(static_cast<uint8_t>(address.region));
    u32(address.index);
    u64(address.offset);
  }
  void extents(const std::vector<int64_t> &values) {
    u32(static_cast<uint32_t>(values.size()));
    for (int64_t extent : values)
      i64(extent);
  }
  void signature(const TensorSignature &tensor) {
    string(tensor.name);
    u8(static_cast<uint8_t>(tensor.type));
    extents(tensor.shape);
    extents(tensor.maxShape);
    extents(tensor.minShape);
    extents(tensor.optShape);
    u32(static_cast<uint32_t>(tensor.dimNames.size()));
    for (const std::string &name : tensor.dimNames)
      string(name);
    u32(static_cast<uint32_t>(tensor.dimValues.size()));
    for (uint32_t value : tensor.dimValues)
      u32(value);
  }

private:
  void little(uint64_t value, int size) {
    for (int i = 0; i < size; ++i)
      bytes.push_back(static_cast<uint8_t>(value >> (8 * i)));
  }
  void patch(size_t at, uint64_t value, int size) {
    for (int i = 0; i < size; ++i)
      bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
  }

  std::vector<uint8_t> &bytes;
};

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Reads little-endian values from a byte range; the first failure sticks and later reads
/// return zeros, so callers check `failed()` once per record rather than after each field.
class Reader {
public:
  Reader(const uint8_t *data, size_t size, size_t position)
      : data(data), size(size), position(position) {}

  bool failed() const { return !problem.empty(); }
  const std::string &error() const { return problem; }
  size_t remaining() const { return failed() ? 0 : size - position; }
  size_t offset() const { return position; }

  void fail(const std::string &message) {
    if (problem.empty())
      problem = message;
  }

  uint8_t u8() { return static_cast<uint8_t>(little(1)); }
  uint32_t u32() { return static_cast<uint32_t>(little(4)); }
  uint64_t u64() { return little(8); }
  int64_t i64() { return static_cast<int64_t>(little(8)); }
  double f64() {
    uint64_t bits = u64();
    double value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }

  /// A string of at most `limit` bytes.
  std::string string(const char *what, uint64_t limit = std::numeric_limits<uint64_t>::max()) {
    uint32_t length = u32();
    if (length > limit) {
      fail(std::string(what) + " is " + std::to_string(length) + " bytes long, at most " +
           std::to_string(limit) + " allowed");
      return {};
    }
    if (!need(length, what))
      return {};
    std::string text(reinterpret_cast<const char *>(data + position), length);
    position += length;
    return text;
  }

  /// A byte blob whose length is a u64.
  void blob(std::vector<uint8_t> &out, const char *what) {
    uint64_t length = u64();
    if (!need(length, what))
      return;
    out.assign(data + position, data + position + length);
    position += length;
  }

  /// A count of records that each take at least `minimumBytes`: refuses counts the
  /// remaining bytes cannot hold, so a corrupt count never allocates.
  uint32_t count(const char *what, size_t minimumBytes) {
    uint32_t value = u32();
    if (failed())
      return 0;
    if (minimumBytes && value > remaining() / minimumBytes) {
      fail(std::string("corrupt count: ") + std::to_string(value) + " " + what + " in " +
           std::to_string(remaining()) + " remaining bytes");
      return 0;
    }
    return value;
  }

  void skipTo(size_t target, const char *what) {
    if (failed())
      return;
    if (target < position || target > size) {
      fail(std::string("truncated in ") + what);
      return;
    }
    position = target;
  }

  bool need(uint64_t bytes, const char *what) {
    if (failed())
      return false;
    if (bytes > size - position) {
      fail(std::string("truncated in ") + what + " (needs " + std::to_string(bytes) +
           " bytes at offset " + std::to_string(position) + ", " + std::to_string(size - position) +
           " remain)");
      return false;
    }
    return true;
  }

  /// What is being read; named in "truncated" messages.
  const char *context = "the payload";

  Address address() {
    Address address;
    address.region = static_cast<Region>(u8());
    address.index = u32();
    address.offset = u64();
    return address;
  }

  std::vector<int64_t> extents() {
    std::vector<int64_t> values;
    uint32_t rank = count("dimensions", 8);
    values.reserve(rank);
    for (uint32_t i = 0; i < rank && !failed(); ++i)
      values.push_back(i64());
    return values;
  }

  TensorSignature signature() {
    TensorSignature tensor;
    tensor.name = string("a tensor name");
    tensor.type = static_cast<ElementType>(u8());
    tensor.shape = extents();
    tensor.maxShape = extents();
    tensor.minShape = extents();
    tensor.optShape = extents();
    uint32_t names = count("dimension names", 4);
    for (uint32_t i = 0; i < names && !failed(); ++i)
      tensor.dimNames.push_back(string("a dimension name"));
    uint32_t values = count("dimension values", 4);
    for (uint32_t i = 0; i < values && !failed(); ++i)
      tensor.dimValues.push_back(u32());
    return tensor;
  }

private:
  uint64_t little(int bytes) {
    if (!need(bytes, context))
      return 0;
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
      value |= static_cast<uint64_t>(data[position + i]) << (8 * i);
    position += bytes;
    return value;
  }

  const uint8_t *data;
  size_t size;
  size_t position;
  std::string problem;
};

// Smallest encodings, for the count checks.
constexpr size_t kMinSignatureBytes = 4 + 1 + 6 * 4;
constexpr size_t kShapeInstructionBytes = 1 + 4 + 4 + 8;
constexpr size_t kRuntimeFieldBytes = 1 + 4 + 4;
constexpr size_t kMinModuleBytes = 4 + 8 + 8;
constexpr size_t kMinKernelBytes = 4 + 4 + 4 + 4 + 4 + 8 + 4 + 1;
constexpr size_t kAddressBytes = 1 + 4 + 8;
constexpr size_t kArgumentBytes = 1 + kAddressBytes + 8;
constexpr size_t kMinStepBytes = 1 + 4 + 4 + 12 + 12 + 4 + 4 + 2 * kAddressBytes + 8 + 1 + 4 + 4;
constexpr size_t kMinFunctionBytes = 4 + 8 + 8;

/// Whether `offset + bytes <= limit`, without overflow.
bool fits(uint64_t offset, uint64_t bytes, uint64_t limit) {
  return offset <= limit && bytes <= limit - offset;
}

const char *regionName(Region region) {
  switch (region) {
  case Region::Arena:
    return "arena";
  case Region::Weights:
    return "weights";
  case Region::Input:
    return "input";
  case Region::Output:
    return "output";
  }
  return "?";
}

} // namespace

//===----------------------------------------------------------------------===//
// The data model
//===----------------------------------------------------------------------===//

std::string printable(const std::string &text) {
  std::string result;
  result.reserve(text.size());
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      result += "\\n";
    } else if (c == '\t') {
      result += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", byte);
      result += escaped;
    } else {
      result += c;
    }
  }
  return result;
}

std::string quoted(const std::string &text) { return "'" + printable(text) + "'"; }

size_t elementSize(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::I32:
  case ElementType::U32:
    return 4;
  case ElementType::F16:
  case ElementType::BF16:
  case ElementType::I16:
  case ElementType::U16:
    return 2;
  case ElementType::F64:
  case ElementType::I64:
  case ElementType::U64:
    return 8;
  case ElementType::I8:
  case ElementType::U8:
  case ElementType::Bool:
    return 1;
  }
  return 0;
}

const char *elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F64:
    return "f64";
  case ElementType::I8:
    return "i8";
  case ElementType::U8:
    return "u8";
  case ElementType::I16:
    return "i16";
  case ElementType::U16:
    return "u16";
  case ElementType::I32:
    return "i32";
  case ElementType::U32:
    return "u32";
  case ElementType::I64:
    return "i64";
  case ElementType::U64:
    return "u64";
  case ElementType::Bool:
    return "bool";
  }
  return "?";
}

int64_t TensorSignature::numElements() const {
  int64_t count = 1;
  for (int64_t extent : isDynamic() ? maxShape : shape)
    count *= extent;
  return count;
}

bool Engine::isDynamic() const {
  for (const TensorSignature &input : inputs)
    if (input.isDynamic())
      return true;
  return hasReadBacks();
}

bool Engine::hasReadBacks() const {
  return std::any_of(shapeProgram.begin(), shapeProgram.end(), [](const ShapeInstruction &i) {
    return i.op == ShapeInstruction::Op::DeviceValue;
  });
}

size_t Engine::readBackCount() const {
  return std::count_if(steps.begin(), steps.end(),
                       [](const Step &step) { return step.kind == Step::Kind::ReadBack; });
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text;
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? "x" : "") + (shape[d] < 0 ? std::string("?") : std::to_string(shape[d]));
  return text.empty() ? "scalar" : text;
}

/// "input 'x' dimension 1 (sequence)".
static std::string describeDim(const TensorSignature &input, size_t dim) {
  std::string text = "input " + quoted(input.name) + " dimension " + std::to_string(dim);
  if (dim < input.dimNames.size() && !input.dimNames[dim].empty())
    text += " (" + printable(input.dimNames[dim]) + ")";
  return text;
}

std::string checkInputShape(const Engine &engine, size_t index, const std::vector<int64_t> &shape) {
  const TensorSignature &input = engine.inputs[index];
  if (shape.size() != input.shape.size())
    return "input " + quoted(input.name) + " has rank " + std::to_string(input.shape.size()) +
           " (" + formatShape(input.shape) + "); given " + formatShape(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (input.shape[d] >= 0 && shape[d] != input.shape[d])
      return describeDim(input, d) + " is " + std::to_string(shape[d]) +
             "; the engine takes only " + std::to_string(input.shape[d]);
    if (input.shape[d] < 0 && (shape[d] < input.minShape[d] || shape[d] > input.maxShape[d]))
      return describeDim(input, d) + " is " + std::to_string(shape[d]) + "; the profile allows " +
             std::to_string(input.minShape[d]) + " to " + std::to_string(input.maxShape[d]);
  }
  return {};
}

std::string parseShapes(const std::string &list,
                        std::vector<std::pair<std::string, std::vector<int64_t>>> &shapes) {
  shapes.clear();
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string entry =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? list.size() + 1 : comma + 1;
    if (entry.empty())
      continue;
    size_t colon = entry.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return "expected name:AxBxC, got '" + entry + "'";
    std::string extents = entry.substr(colon + 1);
    std::vector<int64_t> shape;
    size_t from = 0;
    while (!extents.empty() && from <= extents.size()) {
      size_t x = extents.find('x', from);
      std::string extent =
          extents.substr(from, x == std::string::npos ? std::string::npos : x - from);
      from = x == std::string::npos ? extents.size() + 1 : x + 1;
      bool digits = !extent.empty() && extent.size() <= 18 &&
                    extent.find_first_not_of("0123456789") == std::string::npos;
      if (!digits)
        return "'" + extent + "' in '" + entry + "' is not an extent";
      shape.push_back(std::stoll(extent));
    }
    shapes.emplace_back(entry.substr(0, colon), shape);
  }
  return {};
}

std::string evaluateShapes(const Engine &engine, const std::vector<std::vector<int64_t>> &shapes,
                           std::vector<int64_t> &values, const std::vector<int64_t> *deviceValues) {
  if (shapes.size() != engine.inputs.size())
    return "the engine has " + std::to_string(engine.inputs.size()) + " inputs; given " +
           std::to_string(shapes.size()) + " shapes";
  // Every input within its profile, and one extent per symbol.
  std::vector<std::pair<std::string, std::pair<int64_t, std::string>>> symbols;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (std::string problem = checkInputShape(engine, i, shapes[i]); !problem.empty())
      return problem;
    const TensorSignature &input = engine.inputs[i];
    for (size_t d = 0; d < input.dimNames.size(); ++d) {
      const std::string &name = input.dimNames[d];
      if (name.empty())
        continue;
      auto seen = std::find_if(symbols.begin(), symbols.end(),
                               [&](const auto &entry) { return entry.first == name; });
      if (seen == symbols.end())
        symbols.push_back({name, {shapes[i][d], describeDim(input, d)}});
      else if (seen->second.first != shapes[i][d])
        return describeDim(input, d) + " is " + std::to_string(shapes[i][d]) + ", but " +
               seen->second.second + " is " + std::to_string(seen->second.first) +
               ": the two must be equal";
    }
  }
  evaluateProgram(engine.shapeProgram, shapes, values, deviceValues);
  return {};
}

std::vector<ShapeInstruction> boundingProgram(const std::vector<ShapeInstruction> &program) {
  std::vector<ShapeInstruction> bounding = program;
  std::vector<bool> fromDevice(bounding.size(), false);
  for (size_t at = 0; at < bounding.size(); ++at) {
    ShapeInstruction &instruction = bounding[at];
    if (instruction.op == ShapeInstruction::Op::DeviceValue) {
      fromDevice[at] = true;
      continue;
    }
    if (!instruction.readsValues() || instruction.a >= at || instruction.b >= at)
      continue;
    fromDevice[at] = fromDevice[instruction.a] || fromDevice[instruction.b];
    if (instruction.op == ShapeInstruction::Op::Select && instruction.constant >= 0 &&
        static_cast<size_t>(instruction.constant) < at && fromDevice[instruction.constant]) {
      instruction.op = ShapeInstruction::Op::MaxS;
      instruction.constant = 0;
      fromDevice[at] = true;
    }
  }
  return bounding;
}

void evaluateProgram(const std::vector<ShapeInstruction> &program,
                     const std::vector<std::vector<int64_t>> &shapes, std::vector<int64_t> &values,
                     const std::vector<int64_t> *deviceValues) {
  values.assign(program.size(), 0);
  for (size_t v = 0; v < program.size(); ++v) {
    const ShapeInstruction &instruction = program[v];
    int64_t a = 0, b = 0;
    if (instruction.readsValues()) {
      a = values[instruction.a];
      b = values[instruction.b];
    }
    uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    int64_t result = 0;
    switch (instruction.op) {
    case ShapeInstruction::Op::Constant:
      result = instruction.constant;
      break;
    case ShapeInstruction::Op::InputDim:
      result = shapes[instruction.a][instruction.b];
      break;
    case ShapeInstruction::Op::Add:
      result = static_cast<int64_t>(ua + ub);
      break;
    case ShapeInstruction::Op::Sub:
      result = static_cast<int64_t>(ua - ub);
      break;
    case ShapeInstruction::Op::Mul:
      result = static_cast<int64_t>(ua * ub);
      break;
    case ShapeInstruction::Op::DivU:
      result = ub ? static_cast<int64_t>(ua / ub) : 0;
      break;
    case ShapeInstruction::Op::RemU:
      result = ub ? static_cast<int64_t>(ua % ub) : 0;
      break;
    case ShapeInstruction::Op::CeilDivU:
      result = ub ? static_cast<int64_t>(ua / ub + (ua % ub != 0)) : 0;
      break;
    case ShapeInstruction::Op::MinU:
      result = static_cast<int64_t>(std::min(ua, ub));
      break;
    case ShapeInstruction::Op::MaxU:
      result = static_cast<int64_t>(std::max(ua, ub));
      break;
    case ShapeInstruction::Op::DivS:
      result = b && !(a == std::numeric_limits<int64_t>::min() && b == -1) ? a / b : 0;
      break;
    case ShapeInstruction::Op::RemS:
      result = b && !(a == std::numeric_limits<int64_t>::min() && b == -1) ? a % b : 0;
      break;
    case ShapeInstruction::Op::MinS:
      result = std::min(a, b);
      break;
    case ShapeInstruction::Op::MaxS:
      result = std::max(a, b);
      break;
    case ShapeInstruction::Op::Select:
      result = values[static_cast<size_t>(instruction.constant)] != 0 ? a : b;
      break;
    case ShapeInstruction::Op::Compare: {
      bool holds = false;
      switch (instruction.constant) {
      case 0:
        holds = a == b;
        break;
      case 1:
        holds = a != b;
        break;
      case 2:
        holds = a < b;
        break;
      case 3:
        holds = a <= b;
        break;
      case 4:
        holds = a > b;
        break;
      case 5:
        holds = a >= b;
        break;
      case 6:
        holds = ua < ub;
        break;
      case 7:
        holds = ua <= ub;
        break;
      case 8:
        holds = ua > ub;
        break;
      default:
        holds = ua >= ub;
        break;
      }
      result = holds;
      break;
    }
    case ShapeInstruction::Op::And:
      result = a & b;
      break;
    case ShapeInstruction::Op::Or:
      result = a | b;
      break;
    case ShapeInstruction::Op::Xor:
      result = a ^ b;
      break;
    case ShapeInstruction::Op::DeviceValue:
      result = deviceValues && instruction.a < deviceValues->size() ? (*deviceValues)[instruction.a]
                                                                    : kUnreadDeviceValue;
      break;
    }
    values[v] = result;
  }
}

std::vector<int64_t> outputShape(const Engine &engine, size_t index,
                                 const std::vector<int64_t> &values) {
  const TensorSignature &output = engine.outputs[index];
  std::vector<int64_t> shape = output.shape;
  size_t next = 0;
  for (int64_t &extent : shape)
    if (extent < 0)
      extent = values[output.dimValues[next++]];
  return shape;
}

void applyRuntimeFields(const std::vector<int64_t> &values, Step &step) {
  for (const RuntimeField &field : step.runtimeFields) {
    int64_t value = values[field.value];
    switch (field.kind) {
    case RuntimeField::Kind::Grid:
      step.grid[field.index] = static_cast<uint32_t>(std::max<int64_t>(value, 0));
      break;
    case RuntimeField::Kind::Scalar:
      step.arguments[field.index].scalar =
          step.arguments[field.index].kind == LaunchArgument::Kind::I32
              ? static_cast<uint32_t>(value)
              : static_cast<uint64_t>(value);
      break;
    case RuntimeField::Kind::CopyBytes:
      step.bytes = static_cast<uint64_t>(std::max<int64_t>(value, 0));
      break;
    case RuntimeField::Kind::TensorMapDim: {
      TensorMap &map = step.arguments[field.index / TensorMap::kMaxRank].tensorMap;
      map.dims[field.index % TensorMap::kMaxRank] =
          static_cast<uint64_t>(std::max<int64_t>(value, 1));
      // Dense and row-major: each stride is the bytes of the dimensions inside it.
      uint64_t stride = TensorMap::elementBytes(map.dataType);
      for (unsigned d = 0; d + 1 < map.rank; ++d)
        map.strides[d] = stride *= map.dims[d];
      break;
    }
    }
  }
}

size_t LaunchArgument::size() const {
  switch (kind) {
  case Kind::I32:
  case Kind::F32:
    return 4;
  case Kind::Pointer:
  case Kind::I64:
  case Kind::F64:
  case Kind::TensorMap:
    return 8;
  }
  return 0;
}

size_t TensorMap::elementBytes(uint8_t dataType) {
  // CUtensorMapDataType: uint8, uint16, uint32, int32, uint64, int64, float16, float32,
  // float64, bfloat16, float32_ftz, tfloat32, tfloat32_ftz.
  static constexpr uint8_t kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return dataType < sizeof(kBytes) ? kBytes[dataType] : 0;
}

uint64_t TensorMap::spanBytes() const {
  if (rank == 0 || std::find(dims, dims + rank, 0) != dims + rank)
    return 0;
  // The last element's end: a strided view's (a dense map's is its size).
  uint64_t last = (dims[0] - 1) * elementBytes(dataType);
  for (unsigned d = 1; d < rank; ++d)
    last += (dims[d] - 1) * strides[d - 1];
  return last + elementBytes(dataType);
}

std::string TensorMap::validate() const {
  size_t bytes = elementBytes(dataType);
  if (bytes == 0)
    return "tensor map of unknown data type " + std::to_string(dataType);
  if (rank < 1 || rank > kMaxRank)
    return "tensor map of rank " + std::to_string(rank) + " (1 to 5)";
  for (unsigned d = 0; d < rank; ++d) {
    if (dims[d] == 0 || dims[d] > (uint64_t(1) << 32))
      return "tensor map extent " + std::to_string(dims[d]) + " of dimension " + std::to_string(d) +
             " (1 to 2^32)";
    if (box[d] == 0 || box[d] > 256)
      return "tensor map box " + std::to_string(box[d]) + " of dimension " + std::to_string(d) +
             " (1 to 256)";
    if (elementStrides[d] == 0 || elementStrides[d] > 8)
      return "tensor map element stride " + std::to_string(elementStrides[d]) + " (1 to 8)";
  }
  for (unsigned d = 0; d + 1 < rank; ++d)
    if (strides[d] % 16 != 0 || strides[d] >= (uint64_t(1) << 40))
      return "tensor map stride " + std::to_string(strides[d]) +
             " (a multiple of 16 bytes below 2^40)";
  uint64_t innerBytes = uint64_t(box[0]) * bytes;
  if (innerBytes % 16 != 0)
    return "tensor map inner box of " + std::to_string(innerBytes) + " bytes (a multiple of 16)";
  if (swizzle > 3 || interleave > 2 || l2Promotion > 3 || oobFill > 1)
    return "tensor map with an unknown swizzle, interleave, L2 promotion or fill";
  if (swizzle != 0 && interleave == 0 && innerBytes > (uint64_t(16) << swizzle))
    return "tensor map inner box of " + std::to_string(innerBytes) + " bytes exceeds its " +
           std::to_string(16 << swizzle) + "-byte swizzle span";
  return {};
}

std::string Engine::validate() const {
  // Tensor signatures: known types, non-negative extents, sizes that fit in 63 bits, and
  // distinct names (inputs and outputs are bound by name).
  auto checkSignatures = [&](const std::vector<TensorSignature> &tensors,
                             const char *role) -> std::string {
    std::set<std::string> names;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const TensorSignature &tensor = tensors[i];
      std::string which = std::string(role) + " " + std::to_string(i) + " " + quoted(tensor.name);
      if (tensor.name.empty())
        return std::string(role) + " " + std::to_string(i) + " has no name";
      if (!names.insert(tensor.name).second)
        return which + " appears twice";
      if (elementSize(tensor.type) == 0)
        return which + " has unknown element type " +
               std::to_string(static_cast<unsigned>(tensor.type));
      size_t rank = tensor.shape.size();
      bool input = std::string(role) == "input";
      if (tensor.isDynamic() && tensor.maxShape.size() != rank)
        return which + " has " + std::to_string(tensor.maxShape.size()) + " max extents for rank " +
               std::to_string(rank);
      size_t dynamicDims = 0;
      for (size_t d = 0; d < rank; ++d) {
        int64_t extent = tensor.shape[d];
        if (extent < -1 || (extent == -1 && !tensor.isDynamic()))
          return which + " has a negative extent " + std::to_string(extent);
        if (tensor.isDynamic() &&
            (tensor.maxShape[d] < 0 || (extent >= 0 && tensor.maxShape[d] != extent)))
          return which + " has max extent " + std::to_string(tensor.maxShape[d]) +
                 " for dimension " + std::to_string(d) + " of extent " + std::to_string(extent);
        dynamicDims += extent == -1;
      }
      if (input && tensor.isDynamic()) {
        if (tensor.minShape.size() != rank || tensor.optShape.size() != rank ||
            (!tensor.dimNames.empty() && tensor.dimNames.size() != rank))
          return which + " has a profile of another rank";
        for (size_t d = 0; d < rank; ++d) {
          int64_t low = tensor.minShape[d], best = tensor.optShape[d], high = tensor.maxShape[d];
          if (low < 0 || low > best || best > high ||
              (tensor.shape[d] >= 0 && (low != high || low != tensor.shape[d])))
            return which + " has an inconsistent profile in dimension " + std::to_string(d);
        }
      }
      if (!input && tensor.dimValues.size() != (tensor.isDynamic() ? dynamicDims : 0))
        return which + " has " + std::to_string(tensor.dimValues.size()) + " shape values for " +
               std::to_string(dynamicDims) + " dynamic dimensions";
      for (uint32_t value : tensor.dimValues)
        if (value >= shapeProgram.size())
          return which + " takes an extent from shape value " + std::to_string(value) + " of " +
                 std::to_string(shapeProgram.size());
      if (input &&
          (!tensor.dimValues.empty() ||
           (!tensor.isDynamic() && (!tensor.minShape.empty() || !tensor.optShape.empty()))))
        return which + " has output shape values or a profile without dynamic dimensions";
      uint64_t bytes = elementSize(tensor.type);
      for (int64_t extent : tensor.isDynamic() ? tensor.maxShape : tensor.shape) {
        if (extent && bytes > (uint64_t(1) << 62) / uint64_t(extent))
          return which + " is too large";
        bytes *= uint64_t(extent);
      }
    }
    return {};
  };
  if (std::string problem = checkSignatures(inputs, "input"); !problem.empty())
    return problem;
  if (std::string problem = checkSignatures(outputs, "output"); !problem.empty())
    return problem;

  // The shape program reads inputs that exist and values computed before.
  for (size_t v = 0; v < shapeProgram.size(); ++v) {
    const ShapeInstruction &instruction = shapeProgram[v];
    std::string which = "shape value " + std::to_string(v);
    if (instruction.op < ShapeInstruction::Op::Constant ||
        instruction.op > ShapeInstruction::Op::DeviceValue)
      return which + " has unknown op " + std::to_string(static_cast<unsigned>(instruction.op));
    if (instruction.op == ShapeInstruction::Op::InputDim &&
        (instruction.a >= inputs.size() || instruction.b >= inputs[instruction.a].shape.size()))
      return which + " reads dimension " + std::to_string(instruction.b) + " of input " +
             std::to_string(instruction.a) + ", which does not exist";
    if (instruction.readsValues() && (instruction.a >= v || instruction.b >= v))
      return which + " reads a value not computed before it";
    if (instruction.op == ShapeInstruction::Op::Select &&
        (instruction.constant < 0 || static_cast<uint64_t>(instruction.constant) >= v))
      return which + " selects on a value not computed before it";
    if (instruction.op == ShapeInstruction::Op::Compare &&
        (instruction.constant < 0 || instruction.constant > 9))
      return which + " compares with unknown predicate " + std::to_string(instruction.constant);
    if (instruction.op == ShapeInstruction::Op::DeviceValue &&
        (instruction.b != 0 || instruction.constant != 0))
      return which + " is a device value with operands other than its read-back's ordinal";
  }

  // Device values: the k-th read-back step defines the DeviceValue of ordinal k (so no
  // two steps define one), and every DeviceValue is defined by a step. `readsBefore[v]` is how many
  // read-backs value v needs to have run (1 + the highest ordinal it depends on, or 0), so that no
  // step takes a run-time field from a device value read after it.
  std::vector<size_t> readsBefore(shapeProgram.size(), 0);
  for (size_t v = 0; v < shapeProgram.size(); ++v) {
    const ShapeInstruction &instruction = shapeProgram[v];
    if (instruction.op == ShapeInstruction::Op::DeviceValue)
      readsBefore[v] = size_t(instruction.a) + 1;
    else if (instruction.readsValues())
      readsBefore[v] = std::max(readsBefore[instruction.a], readsBefore[instruction.b]);
    if (instruction.op == ShapeInstruction::Op::Select)
      readsBefore[v] = std::max(readsBefore[v], readsBefore[size_t(instruction.constant)]);
  }
  std::vector<bool> defined(shapeProgram.size(), false);
  size_t readBacks = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step &step = steps[i];
    std::string which = "step " + std::to_string(i);
    for (const RuntimeField &field : step.runtimeFields)
      if (field.value < shapeProgram.size() && readsBefore[field.value] > readBacks)
        return which + " has a run-time field from shape value " + std::to_string(field.value) +
               ", which depends on the device value of a later read-back";
    if (step.kind != Step::Kind::ReadBack)
      continue;
    which += " (read-back " + std::to_string(readBacks) + ")";
    if (step.value >= shapeProgram.size() ||
        shapeProgram[step.value].op != ShapeInstruction::Op::DeviceValue)
      return which + " defines shape value " + std::to_string(step.value) +
             ", which is not a device value";
    if (shapeProgram[step.value].a != readBacks)
      return which + " defines shape value " + std::to_string(step.value) +
             ", the device value of read-back " + std::to_string(shapeProgram[step.value].a);
    defined[step.value] = true;
    ++readBacks;
  }
  for (size_t v = 0; v < shapeProgram.size(); ++v)
    if (shapeProgram[v].op == ShapeInstruction::Op::DeviceValue && !defined[v])
      return "shape value " + std::to_string(v) + " is the device value of read-back " +
             std::to_string(shapeProgram[v].a) + ", which no step defines";

  for (size_t i = 0; i < modules.size(); ++i)
    if (modules[i].ptx.empty() && modules[i].cubin.empty())
      return "module " + std::to_string(i) + " " + quoted(modules[i].name) +
             " has neither PTX nor cubin";
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Kernel &kernel = kernels[i];
    if (kernel.name.empty())
      return "kernel " + std::to_string(i) + " has no name";
    if (kernel.module >= modules.size())
      return "kernel " + std::to_string(i) + " " + quoted(kernel.name) + " names module " +
             std::to_string(kernel.module) + " of " + std::to_string(modules.size());
  }

  // The size of each region, to check addresses against.
  auto regionBytes = [&](const Address &address, uint64_t &bytes) -> std::string {
    switch (address.region) {
    case Region::Arena:
    case Region::Weights:
      if (address.index != 0)
        return std::string("the ") + regionName(address.region) + " region has no index " +
               std::to_string(address.index);
      bytes = address.region == Region::Arena ? arenaBytes : weights.size();
      return {};
    case Region::Input:
    case Region::Output: {
      const auto &tensors = address.region == Region::Input ? inputs : outputs;
      if (address.index >= tensors.size())
        return std::string(regionName(address.region)) + " " + std::to_string(address.index) +
               " does not exist (the engine has " + std::to_string(tensors.size()) + ")";
      bytes = tensors[address.index].sizeInBytes();
      return {};
    }
    }
    return "unknown region " + std::to_string(static_cast<unsigned>(address.region));
  };
  // `bytes` accessed at `address` stay inside the region.
  auto checkAccess = [&](const Address &address, uint64_t bytes) -> std::string {
    uint64_t size = 0;
    if (std::string problem = regionBytes(address, size); !problem.empty())
      return problem;
    if (!fits(address.offset, bytes, size))
      return std::to_string(bytes) + " bytes at offset " + std::to_string(address.offset) +
             " of the " + regionName(address.region) +
             (address.region == Region::Input || address.region == Region::Output
                  ? " " + std::to_string(address.index)
                  : std::string()) +
             " overrun its " + std::to_string(size) + " bytes";
    return {};
  };

  for (size_t i = 0; i < steps.size(); ++i) {
    const Step &step = steps[i];
    std::string which = "step " + std::to_string(i);
    for (const RuntimeField &field : step.runtimeFields) {
      bool fits = field.value < shapeProgram.size();
      switch (field.kind) {
      case RuntimeField::Kind::Grid:
        fits &= step.kind == Step::Kind::Launch && field.index < 3;
        break;
      case RuntimeField::Kind::Scalar:
        fits &= step.kind == Step::Kind::Launch && field.index < step.arguments.size() &&
                (step.arguments[field.index].kind == LaunchArgument::Kind::I32 ||
                 step.arguments[field.index].kind == LaunchArgument::Kind::I64);
        break;
      case RuntimeField::Kind::CopyBytes:
        fits &= step.kind == Step::Kind::Copy || step.kind == Step::Kind::Fill;
        break;
      case RuntimeField::Kind::TensorMapDim: {
        size_t argument = field.index / TensorMap::kMaxRank;
        fits &= step.kind == Step::Kind::Launch && argument < step.arguments.size() &&
                step.arguments[argument].kind == LaunchArgument::Kind::TensorMap &&
                field.index % TensorMap::kMaxRank < step.arguments[argument].tensorMap.rank;
        break;
      }
      default:
        fits = false;
      }
      if (!fits)
        return which + " has a run-time field (kind " +
               std::to_string(static_cast<unsigned>(field.kind)) + ", index " +
               std::to_string(field.index) + ", value " + std::to_string(field.value) +
               ") that does not fit it";
    }
    switch (step.kind) {
    case Step::Kind::Launch: {
      if (step.kernel >= kernels.size())
        return which + " launches kernel " + std::to_string(step.kernel) + " of " +
               std::to_string(kernels.size());
      which += " (kernel " + quoted(kernels[step.kernel].name) + ")";
      if (step.function != Step::kNoFunction && step.function >= functions.size())
        return which + " is of kernel function " + std::to_string(step.function) + " of " +
               std::to_string(functions.size());
      uint64_t threads = 1;
      for (int d = 0; d < 3; ++d) {
        // A grid the shape program sets may be empty at some shapes (a variant for other
        // rows, a loop nest with nothing to do): the launch is skipped there.
        bool setPerShape = std::any_of(
            step.runtimeFields.begin(), step.runtimeFields.end(), [&](const RuntimeField &field) {
              return field.kind == RuntimeField::Kind::Grid && field.index == uint32_t(d);
            });
        if ((step.grid[d] == 0 && !setPerShape) || step.block[d] == 0)
          return which + " has an empty grid or block";
        threads *= step.block[d];
      }
      if (threads > 1024)
        return which + " has " + std::to_string(threads) + " threads per block, at most 1024";
      for (size_t a = 0; a < step.arguments.size(); ++a) {
        const LaunchArgument &argument = step.arguments[a];
        if (argument.size() == 0)
          return which + " argument " + std::to_string(a) + " has unknown kind " +
                 std::to_string(static_cast<unsigned>(argument.kind));
        if (argument.kind == LaunchArgument::Kind::TensorMap) {
          if (std::string problem = argument.tensorMap.validate(); !problem.empty())
            return which + " argument " + std::to_string(a) + ": " + problem;
          if (argument.address.offset % 16 != 0)
            return which + " argument " + std::to_string(a) +
                   ": a tensor map's address must be 16-byte aligned";
          if (std::string problem = checkAccess(argument.address, argument.tensorMap.spanBytes());
              !problem.empty())
            return which + " argument " + std::to_string(a) + " (tensor map): " + problem;
          continue;
        }
        if (argument.kind != LaunchArgument::Kind::Pointer)
          continue;
        // A kernel's extent of access is not recorded; the pointer itself must be inside
        // (or one past) its region.
        if (std::string problem = checkAccess(argument.address, 0); !problem.empty())
          return which + " argument " + std::to_string(a) + ": " + problem;
      }
      break;
    }
    case Step::Kind::Copy:
      if (std::string problem = checkAccess(step.source, step.bytes); !problem.empty())
        return which + " (copy) source: " + problem;
      if (std::string problem = checkAccess(step.destination, step.bytes); !problem.empty())
        return which + " (copy) destination: " + problem;
      break;
    case Step::Kind::Fill:
      if (std::string problem = checkAccess(step.destination, step.bytes); !problem.empty())
        return which + " (fill): " + problem;
      break;
    case Step::Kind::ReadBack:
      if (step.bytes != 1 && step.bytes != 2 && step.bytes != 4 && step.bytes != 8)
        return which + " reads back " + std::to_string(step.bytes) + " bytes (1, 2, 4 or 8)";
      if (std::string problem = checkAccess(step.source, step.bytes); !problem.empty())
        return which + " (read-back) source: " + problem;
      break;
    default:
      return which + " has unknown kind " + std::to_string(static_cast<unsigned>(step.kind));
    }
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Serialisation
//===----------------------------------------------------------------------===//

void serializeEngine(const Engine &engine, std::vector<uint8_t> &bytes) {
  bytes.clear();
  Writer out(bytes);
  out.raw(kMagic, sizeof(kMagic));
  out.u32(Engine::kFormatVersion);
  size_t headerBytesAt = out.position();
  out.u32(0); // header size, patched below
  size_t payloadBytesAt = out.position();
  out.u64(0); // payload size, patched below
  size_t checksumAt = out.position();
  out.u64(0); // checksum, patched below
  out.string(engine.compilerVersion);
  out.string(engine.target);
  out.padTo(8);
  size_t payloadStart = out.position();
  out.patch32(headerBytesAt, static_cast<uint32_t>(payloadStart));

  out.string(engine.modelName);
  out.u64(engine.arenaBytes);
  out.u64(engine.unplannedBytes);
  for (const auto *tensors : {&engine.inputs, &engine.outputs}) {
    out.u32(static_cast<uint32_t>(tensors->size()));
    for (const TensorSignature &tensor : *tensors)
      out.signature(tensor);
  }
  out.u32(static_cast<uint32_t>(engine.shapeProgram.size()));
  for (const ShapeInstruction &instruction : engine.shapeProgram) {
    out.u8(static_cast<uint8_t>(instruction.op));
    out.u32(instruction.a);
    out.u32(instruction.b);
    out.i64(instruction.constant);
  }
  out.u32(static_cast<uint32_t>(engine.modules.size()));
  for (const Module &module : engine.modules) {
    out.string(module.name);
    out.u64(module.ptx.size());
    out.raw(module.ptx.data(), module.ptx.size());
    out.u64(module.cubin.size());
    out.raw(module.cubin.data(), module.cubin.size());
  }
  out.u32(static_cast<uint32_t>(engine.kernels.size()));
  for (const Kernel &kernel : engine.kernels) {
    out.string(kernel.name);
    out.u32(kernel.module);
    out.string(kernel.templateKind);
    out.u32(static_cast<uint32_t>(kernel.sourceNodes.size()));
    for (const std::string &node : kernel.sourceNodes)
      out.string(node);
    out.string(kernel.config);
    out.f64(kernel.measuredMicros);
    out.string(kernel.tuningSource);
    out.u8(kernel.programmaticLaunch ? 1 : 0);
  }
  out.u32(static_cast<uint32_t>(engine.functions.size()));
  for (const KernelFunction &function : engine.functions) {
    out.string(function.name);
    out.f64(function.flops);
    out.f64(function.bytes);
  }
  out.u32(static_cast<uint32_t>(engine.steps.size()));
  for (const Step &step : engine.steps) {
    // Every field of every step, whatever its kind: a few bytes more per step, and one
    // record shape to read and fuzz.
    out.u8(static_cast<uint8_t>(step.kind));
    out.u32(step.kernel);
    out.u32(step.function);
    for (uint32_t extent : step.grid)
      out.u32(extent);
    for (uint32_t extent : step.block)
      out.u32(extent);
    out.u32(step.sharedBytes);
    out.u32(static_cast<uint32_t>(step.arguments.size()));
    for (const LaunchArgument &argument : step.arguments) {
      out.u8(static_cast<uint8_t>(argument.kind));
      out.address(argument.address);
      out.u64(argument.scalar);
      if (argument.kind == LaunchArgument::Kind::TensorMap) {
        const TensorMap &map = argument.tensorMap;
        for (uint8_t field :
             {map.dataType, map.rank, map.interleave, map.swizzle, map.l2Promotion, map.oobFill})
          out.u8(field);
        for (uint64_t extent : map.dims)
          out.u64(extent);
        for (uint64_t stride : map.strides)
          out.u64(stride);
        for (uint32_t extent : map.box)
          out.u32(extent);
        for (uint32_t stride : map.elementStrides)
          out.u32(stride);
      }
    }
    out.address(step.source);
    out.address(step.destination);
    out.u64(step.bytes);
    out.u8(step.fillByte);
    out.u32(step.value);
    out.u32(static_cast<uint32_t>(step.runtimeFields.size()));
    for (const RuntimeField &field : step.runtimeFields) {
      out.u8(static_cast<uint8_t>(field.kind));
      out.u32(field.index);
      out.u32(field.value);
    }
  }
  // The weights last, aligned in the file so a reader may map them.
  out.u64(engine.weights.size());
  out.padTo(kWeightsAlignment);
  out.raw(engine.weights.data(), engine.weights.size());

  out.patch64(payloadBytesAt, bytes.size() - payloadStart);
  out.patch64(checksumAt,
              fnv1a64(bytes.data() + kChecksummedFrom, bytes.size() - kChecksummedFrom));
}

std::string writeEngineFile(const Engine &engine, const std::string &path) {
  // Every reader would refuse an inconsistent engine: refuse to write one.
  if (std::string problem = engine.validate(); !problem.empty())
    return "cannot write " + quoted(path) + ": inconsistent engine: " + problem;
  std::vector<uint8_t> bytes;
  serializeEngine(engine, bytes);
  std::string temporary = path + ".tmp" + std::to_string(::getpid());
  FILE *file = std::fopen(temporary.c_str(), "wb");
  if (!file)
    return "cannot write " + quoted(path) + ": " + std::strerror(errno);
  bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  int writeErrno = errno;
  if (std::fclose(file) != 0 && written) {
    written = false;
    writeErrno = errno;
  }
  if (!written) {
    std::remove(temporary.c_str());
    return "cannot write " + quoted(path) + ": " + std::strerror(writeErrno);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    int renameErrno = errno;
    std::remove(temporary.c_str());
    return "cannot write " + quoted(path) + ": " + std::strerror(renameErrno);
  }
  return {};
}

std::string deserializeEngine(const uint8_t *data, size_t size, const std::string &what,
                              Engine &result) {
  auto refuse = [&](const std::string &problem) { return quoted(what) + ": " + problem; };
  if (size < sizeof(kMagic) || std::memcmp(data, kMagic, sizeof(kMagic)) != 0)
    return refuse("not a Kiln engine (bad magic)");
  Reader header(data, size, sizeof(kMagic));
  uint32_t version = header.u32();
  if (header.failed())
    return refuse("truncated header (" + std::to_string(size) + " bytes)");
  if (version != Engine::kFormatVersion)
    return refuse("format version " + std::to_string(version) + ", this runtime reads " +
                  std::to_string(Engine::kFormatVersion) + "; recompile the model");
  uint32_t headerBytes = header.u32();
  uint64_t payloadBytes = header.u64();
  uint64_t checksum = header.u64();
  if (header.failed())
    return refuse("truncated header (" + std::to_string(size) + " bytes)");
  if (headerBytes < kFixedHeaderBytes || headerBytes > size)
    return refuse("truncated or corrupt header (header size " + std::to_string(headerBytes) +
                  ", file size " + std::to_string(size) + ")");
  if (payloadBytes != size - headerBytes)
    return refuse(payloadBytes > size - headerBytes
                      ? "truncated: the payload is " + std::to_string(payloadBytes) +
                            " bytes, the file holds " + std::to_string(size - headerBytes)
                      : std::to_string(size - headerBytes - payloadBytes) +
                            " bytes after the payload");
  uint64_t actual = fnv1a64(data + kChecksummedFrom, size - kChecksummedFrom);
  if (actual != checksum)
    return refuse("checksum mismatch (stored " + hex(checksum) + ", computed " + hex(actual) +
                  "): the file is corrupt");

  Engine engine;
  header.context = "the header";
  engine.compilerVersion = header.string("the compiler version", kMaxHeaderString);
  engine.target = header.string("the target", kMaxHeaderString);
  if (header.failed())
    return refuse(header.error());
  if (header.offset() > headerBytes)
    return refuse("corrupt header: its strings overrun its " + std::to_string(headerBytes) +
                  " bytes");

  Reader in(data, size, headerBytes);
  in.context = "the model name";
  engine.modelName = in.string("the model name");
  in.context = "the memory plan";
  engine.arenaBytes = in.u64();
  engine.unplannedBytes = in.u64();
  in.context = "the IO signature";
  for (auto *tensors : {&engine.inputs, &engine.outputs}) {
    uint32_t count = in.count(tensors == &engine.inputs ? "inputs" : "outputs", kMinSignatureBytes);
    tensors->reserve(count);
    for (uint32_t i = 0; i < count && !in.failed(); ++i)
      tensors->push_back(in.signature());
  }
  in.context = "the shape program";
  uint32_t instructionCount = in.count("shape instructions", kShapeInstructionBytes);
  engine.shapeProgram.reserve(instructionCount);
  for (uint32_t i = 0; i < instructionCount && !in.failed(); ++i) {
    ShapeInstruction instruction;
    instruction.op = static_cast<ShapeInstruction::Op>(in.u8());
    instruction.a = in.u32();
    instruction.b = in.u32();
    instruction.constant = in.i64();
    engine.shapeProgram.push_back(instruction);
  }
  in.context = "the modules";
  uint32_t moduleCount = in.count("modules", kMinModuleBytes);
  engine.modules.reserve(moduleCount);
  for (uint32_t i = 0; i < moduleCount && !in.failed(); ++i) {
    Module module;
    module.name = in.string("a module name");
    uint64_t ptxBytes = in.u64();
    if (in.need(ptxBytes, "a module's PTX")) {
      module.ptx.assign(reinterpret_cast<const char *>(data + in.offset()), ptxBytes);
      in.skipTo(in.offset() + ptxBytes, "a module's PTX");
    }
    in.blob(module.cubin, "a module's cubin");
    engine.modules.push_back(std::move(module));
  }
  in.context = "the kernels";
  uint32_t kernelCount = in.count("kernels", kMinKernelBytes);
  engine.kernels.reserve(kernelCount);
  for (uint32_t i = 0; i < kernelCount && !in.failed(); ++i) {
    Kernel kernel;
    kernel.name = in.string("a kernel name");
    kernel.module = in.u32();
    kernel.templateKind = in.string("a kernel template");
    uint32_t nodeCount = in.count("source nodes", 4);
    kernel.sourceNodes.reserve(nodeCount);
    for (uint32_t n = 0; n < nodeCount && !in.failed(); ++n)
      kernel.sourceNodes.push_back(in.string("a source node name"));
    kernel.config = in.string("a kernel config");
    kernel.measuredMicros = in.f64();
    kernel.tuningSource = in.string("a kernel's tuning source");
    kernel.programmaticLaunch = in.u8() != 0;
    engine.kernels.push_back(std::move(kernel));
  }
  in.context = "the kernel functions";
  uint32_t functionCount = in.count("kernel functions", kMinFunctionBytes);
  engine.functions.reserve(functionCount);
  for (uint32_t i = 0; i < functionCount && !in.failed(); ++i) {
    KernelFunction function;
    function.name = in.string("a kernel function name");
    function.flops = in.f64();
    function.bytes = in.f64();
    engine.functions.push_back(std::move(function));
  }
  in.context = "the schedule";
  uint32_t stepCount = in.count("steps", kMinStepBytes);
  engine.steps.reserve(stepCount);
  for (uint32_t i = 0; i < stepCount && !in.failed(); ++i) {
    Step step;
    step.kind = static_cast<Step::Kind>(in.u8());
    step.kernel = in.u32();
    step.function = in.u32();
    for (uint32_t &extent : step.grid)
      extent = in.u32();
    for (uint32_t &extent : step.block)
      extent = in.u32();
    step.sharedBytes = in.u32();
    uint32_t argumentCount = in.count("launch arguments", kArgumentBytes);
    step.arguments.reserve(argumentCount);
    for (uint32_t a = 0; a < argumentCount && !in.failed(); ++a) {
      LaunchArgument argument;
      argument.kind = static_cast<LaunchArgument::Kind>(in.u8());
      argument.address = in.address();
      argument.scalar = in.u64();
      if (argument.kind == LaunchArgument::Kind::TensorMap) {
        TensorMap &map = argument.tensorMap;
        for (uint8_t *field : {&map.dataType, &map.rank, &map.interleave, &map.swizzle,
                               &map.l2Promotion, &map.oobFill})
          *field = in.u8();
        for (uint64_t &extent : map.dims)
          extent = in.u64();
        for (uint64_t &stride : map.strides)
          stride = in.u64();
        for (uint32_t &extent : map.box)
          extent = in.u32();
        for (uint32_t &stride : map.elementStrides)
          stride = in.u32();
      }
      step.arguments.push_back(argument);
    }
    step.source = in.address();
    step.destination = in.address();
    step.bytes = in.u64();
    step.fillByte = in.u8();
    step.value = in.u32();
    uint32_t fieldCount = in.count("run-time fields", kRuntimeFieldBytes);
    step.runtimeFields.reserve(fieldCount);
    for (uint32_t f = 0; f < fieldCount && !in.failed(); ++f) {
      RuntimeField field;
      field.kind = static_cast<RuntimeField::Kind>(in.u8());
      field.index = in.u32();
      field.value = in.u32();
      step.runtimeFields.push_back(field);
    }
    engine.steps.push_back(std::move(step));
  }
  in.context = "the weights";
  uint64_t weightsBytes = in.u64();
  size_t aligned = (in.offset() + kWeightsAlignment - 1) / kWeightsAlignment * kWeightsAlignment;
  in.skipTo(aligned, "the weights' alignment padding");
  if (in.need(weightsBytes, "the weights")) {
    engine.weights.assign(data + in.offset(), data + in.offset() + weightsBytes);
    in.skipTo(in.offset() + weightsBytes, "the weights");
  }
  if (in.failed())
    return refuse(in.error());
  if (in.remaining() != 0)
    return refuse("corrupt: " + std::to_string(in.remaining()) + " unread bytes after the weights");

  if (std::string problem = engine.validate(); !problem.empty())
    return refuse("inconsistent engine: " + problem);
  result = std::move(engine);
  return {};
}

std::string readEngineFile(const std::string &path, Engine &engine) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return quoted(path) + ": cannot open the engine: " + std::strerror(errno);
  file.seekg(0, std::ios::end);
  std::streamoff size = file.tellg();
  if (size < 0)
    return quoted(path) + ": cannot read the engine (not a regular file?)";
  file.seekg(0, std::ios::beg);
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (size && !file.read(reinterpret_cast<char *>(bytes.data()), size))
    return quoted(path) + ": cannot read the engine: " + std::strerror(errno);
  return deserializeEngine(bytes.data(), bytes.size(), path, engine);
}

std::string checkTargetRuns(const std::string &target, int major, int minor) {
  // "sm_<major><minor>[a]"; the suffix 'a' marks architecture-specific features
  // (wgmma, TMA on sm_90a) that exist on exactly that architecture.
  std::string gpu = "sm_" + std::to_string(major) + std::to_string(minor);
  if (target.size() < 5 || target.compare(0, 3, "sm_") != 0)
    return "unknown target " + quoted(target);
  std::string digits = target.substr(3);
  bool specific = !digits.empty() && digits.back() == 'a';
  if (specific)
    digits.pop_back();
  if (digits.size() < 2 || digits.size() > 3 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return "unknown target " + quoted(target);
  int targetMajor = std::stoi(digits.substr(0, digits.size() - 1));
  int targetMinor = digits.back() - '0';
  if (specific) {
    if (major == targetMajor && minor == targetMinor)
      return {};
    return "the engine was compiled for " + target + ", which runs only on compute capability " +
           std::to_string(targetMajor) + "." + std::to_string(targetMinor) + "; this GPU is " +
           gpu + " (" + std::to_string(major) + "." + std::to_string(minor) +
           "): recompile with --target " + gpu;
  }
  if (major > targetMajor || (major == targetMajor && minor >= targetMinor))
    return {};
  return "the engine was compiled for " + target + " (compute capability " +
         std::to_string(targetMajor) + "." + std::to_string(targetMinor) +
         " and later); this GPU is " + gpu + " (" + std::to_string(major) + "." +
         std::to_string(minor) + "): recompile with --target " + gpu;
}

} // namespace kiln::engine
