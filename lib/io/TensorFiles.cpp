//===- TensorFiles.cpp - Tensors in .npy and ONNX .pb files ---------------===//

#include "lib/io/TensorFiles.h"

#include "onnx/onnx_pb.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using llvm::StringRef;

namespace kiln::io {

static llvm::Error error(StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), path + ": " + message);
}

size_t byteWidth(ElementType type) {
  switch (type) {
  case ElementType::Bool:
  case ElementType::I8:
  case ElementType::U8:
    return 1;
  case ElementType::I16:
  case ElementType::U16:
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  case ElementType::I32:
  case ElementType::U32:
  case ElementType::F32:
    return 4;
  case ElementType::I64:
  case ElementType::U64:
  case ElementType::F64:
    return 8;
  }
  llvm_unreachable("unknown element type");
}

StringRef name(ElementType type) {
  switch (type) {
  case ElementType::Bool:
    return "bool";
  case ElementType::I8:
    return "i8";
  case ElementType::I16:
    return "i16";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  case ElementType::U8:
    return "u8";
  case ElementType::U16:
    return "u16";
  case ElementType::U32:
    return "u32";
  case ElementType::U64:
    return "u64";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  }
  llvm_unreachable("unknown element type");
}

int64_t HostTensor::numElements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return error(path, "cannot read: " + buffer.getError().message());
  return std::move(*buffer);
}

static llvm::Error writeFile(StringRef path, StringRef bytes) {
  std::error_code code;
  llvm::raw_fd_ostream os(path, code, llvm::sys::fs::OF_None);
  if (code)
    return error(path, "cannot write: " + code.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return error(path, "cannot write: " + os.error().message());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

static constexpr StringRef kNpyMagic("\x93NUMPY", 6);

/// The NumPy dtype string of `type` ("<f4", "|b1", ...), or empty when NumPy has none.
static StringRef npyDescr(ElementType type) {
  switch (type) {
  case ElementType::Bool:
    return "|b1";
  case ElementType::I8:
    return "|i1";
  case ElementType::U8:
    return "|u1";
  case ElementType::I16:
    return "<i2";
  case ElementType::U16:
    return "<u2";
  case ElementType::I32:
    return "<i4";
  case ElementType::U32:
    return "<u4";
  case ElementType::I64:
    return "<i8";
  case ElementType::U64:
    return "<u8";
  case ElementType::F16:
    return "<f2";
  case ElementType::F32:
    return "<f4";
  case ElementType::F64:
    return "<f8";
  case ElementType::BF16:
    return "";
  }
  llvm_unreachable("unknown element type");
}

/// The value of `key` in the header dictionary: the text after "'key':" up to the next
/// top-level comma or the closing brace.
static std::optional<StringRef> headerValue(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  size_t end = rest.starts_with("(") ? rest.find(')') + 1 : rest.find_first_of(",}");
  if (end == StringRef::npos || end == 0)
    return std::nullopt;
  return rest.take_front(end).trim();
}

llvm::Expected<HostTensor> parseNpy(StringRef bytes, StringRef path) {
  if (!bytes.starts_with(kNpyMagic) || bytes.size() < 10)
    return error(path, "not a .npy file (no \\x93NUMPY magic)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return error(path, "truncated .npy header");
    headerLength = 0;
    for (int i = 3; i >= 0; --i)
      headerLength = headerLength << 8 | static_cast<unsigned char>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return error(path, llvm::formatv(".npy format version {0} is not supported", major));
  }
  if (bytes.size() < headerStart + headerLength)
    return error(path, "truncated .npy header");
  StringRef header = bytes.substr(headerStart, headerLength);

  auto descr = headerValue(header, "descr");
  auto fortran = headerValue(header, "fortran_order");
  auto shapeText = headerValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return error(path, "the .npy header lacks descr, fortran_order or shape");
  if (*fortran != "False")
    return error(path, "Fortran-ordered .npy arrays are not supported; save in C order");

  StringRef dtype = descr->trim("'\"");
  if (dtype.starts_with(">") && dtype.size() > 2 && dtype[2] != '1')
    return error(path, "big-endian dtype '" + dtype + "' is not supported");
  dtype = dtype.drop_front(dtype.starts_with("<") || dtype.starts_with("|") ||
                                   dtype.starts_with("=") || dtype.starts_with(">")
                               ? 1
                               : 0);
  HostTensor tensor;
  static const std::pair<StringRef, ElementType> kTypes[] = {
      {"b1", ElementType::Bool}, {"i1", ElementType::I8},  {"u1", ElementType::U8},
      {"i2", ElementType::I16},  {"u2", ElementType::U16}, {"i4", ElementType::I32},
      {"u4", ElementType::U32},  {"i8", ElementType::I64}, {"u8", ElementType::U64},
      {"f2", ElementType::F16},  {"f4", ElementType::F32}, {"f8", ElementType::F64}};
  auto found = llvm::find_if(kTypes, [&](const auto &entry) { return entry.first == dtype; });
  if (found == std::end(kTypes))
    return error(path, "unsupported dtype '" + *descr + "'");
  tensor.type = found->second;

  StringRef dims = shapeText->trim("()");
  llvm::SmallVector<StringRef> parts;
  dims.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t extent = 0;
    if (part.getAsInteger(10, extent) || extent < 0)
      return error(path, "bad extent '" + part + "' in shape " + *shapeText);
    tensor.shape.push_back(extent);
  }

  size_t expected = size_t(tensor.numElements()) * byteWidth(tensor.type);
  StringRef data = bytes.drop_front(headerStart + headerLength);
  if (data.size() != expected)
    return error(path,
                 llvm::formatv("holds {0} bytes of data for {1} elements of {2} ({3} bytes)",
                               data.size(), tensor.numElements(), name(tensor.type), expected));
  tensor.data.assign(data.begin(), data.end());
  return tensor;
}

llvm::Expected<HostTensor> readNpy(StringRef path) {
  auto buffer = readFile(path);
  if (!buffer)
    return buffer.takeError();
  return parseNpy((*buffer)->getBuffer(), path);
}

llvm::Error writeNpy(StringRef path, const HostTensor &tensor) {
  StringRef descr = npyDescr(tensor.type);
  if (descr.empty())
    return error(path, std::string(name(tensor.type)) +
                           " has no NumPy dtype; write it as an ONNX .pb file");
  std::string shape = "(";
  for (int64_t extent : tensor.shape)
    shape += std::to_string(extent) + ", ";
  if (tensor.shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (tensor.shape.size() == 1)
    shape.resize(shape.size() - 1); // "(5,)"
  shape += ")";
  std::string header =
      llvm::formatv("{{'descr': '{0}', 'fortran_order': False, 'shape': {1}, }", descr, shape);
  // Version 1.0: the magic, version and header length take 10 bytes; the header is padded
  // with spaces and ends in a newline so that the data starts 64-byte aligned.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string bytes(kNpyMagic);
  bytes += '\x01';
  bytes += '\x00';
  bytes += char(header.size() & 0xff);
  bytes += char(header.size() >> 8);
  bytes += header;
  bytes.append(tensor.data.begin(), tensor.data.end());
  return writeFile(path, bytes);
}

//===----------------------------------------------------------------------===//
// ONNX TensorProto
//===----------------------------------------------------------------------===//

using ::onnx::TensorProto;

static std::optional<ElementType> fromOnnx(int dataType) {
  switch (dataType) {
  case TensorProto::BOOL:
    return ElementType::Bool;
  case TensorProto::INT8:
    return ElementType::I8;
  case TensorProto::INT16:
    return ElementType::I16;
  case TensorProto::INT32:
    return ElementType::I32;
  case TensorProto::INT64:
    return ElementType::I64;
  case TensorProto::UINT8:
    return ElementType::U8;
  case TensorProto::UINT16:
    return ElementType::U16;
  case TensorProto::UINT32:
    return ElementType::U32;
  case TensorProto::UINT64:
    return ElementType::U64;
  case TensorProto::FLOAT16:
    return ElementType::F16;
  case TensorProto::BFLOAT16:
    return ElementType::BF16;
  case TensorProto::FLOAT:
    return ElementType::F32;
  case TensorProto::DOUBLE:
    return ElementType::F64;
  default:
    return std::nullopt;
  }
}

static int toOnnx(ElementType type) {
  for (int dataType = TensorProto::DataType_MIN; dataType <= TensorProto::DataType_MAX; ++dataType)
    if (fromOnnx(dataType) == type)
      return dataType;
  llvm_unreachable("every element type has an ONNX data type");
}

/// `count` values of a typed repeated field as `width`-byte little-endian elements.
template <typename Values> static std::vector<char> pack(const Values &values, size_t width) {
  std::vector<char> bytes(values.size() * width);
  for (int i = 0; i < values.size(); ++i) {
    auto value = values.Get(i);
    std::memcpy(&bytes[i * width], &value, width); // little-endian hosts only
  }
  return bytes;
}

llvm::Expected<HostTensor> readTensorProto(StringRef path) {
  auto buffer = readFile(path);
  if (!buffer)
    return buffer.takeError();
  TensorProto proto;
  StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() > size_t(INT_MAX) || !proto.ParseFromArray(bytes.data(), int(bytes.size())))
    return error(path, "not an ONNX TensorProto");
  if (proto.data_location() == TensorProto::EXTERNAL)
    return error(path, "tensors with external data are not supported here");
  auto type = fromOnnx(proto.data_type());
  if (!type)
    return error(path, "unsupported data type " + std::to_string(proto.data_type()));

  HostTensor tensor;
  tensor.name = proto.name();
  tensor.type = *type;
  for (int64_t extent : proto.dims()) {
    if (extent < 0)
      return error(path, "negative extent " + std::to_string(extent));
    tensor.shape.push_back(extent);
  }
  size_t width = byteWidth(tensor.type);
  if (proto.has_raw_data())
    tensor.data.assign(proto.raw_data().begin(), proto.raw_data().end());
  else if (proto.float_data_size())
    tensor.data = pack(proto.float_data(), 4);
  else if (proto.double_data_size())
    tensor.data = pack(proto.double_data(), 8);
  else if (proto.int64_data_size())
    tensor.data = pack(proto.int64_data(), 8);
  else if (proto.uint64_data_size())
    tensor.data = pack(proto.uint64_data(), width);
  else if (proto.int32_data_size()) // int8-32, uint8/16, bool, float16 and bfloat16 bits
    tensor.data = pack(proto.int32_data(), width);
  size_t expected = size_t(tensor.numElements()) * width;
  if (tensor.data.size() != expected)
    return error(path, llvm::formatv("holds {0} bytes of data for {1} elements of {2} ({3} bytes)",
                                     tensor.data.size(), tensor.numElements(), name(tensor.type),
                                     expected));
  return tensor;
}

llvm::Error writeTensorProto(StringRef path, const HostTensor &tensor) {
  TensorProto proto;
  proto.set_name(tensor.name);
  proto.set_data_type(toOnnx(tensor.type));
  for (int64_t extent : tensor.shape)
    proto.add_dims(extent);
  proto.set_raw_data(tensor.data.data(), tensor.data.size());
  std::string bytes;
  if (!proto.SerializeToString(&bytes))
    return error(path, "cannot serialise the tensor");
  return writeFile(path, bytes);
}

llvm::Expected<HostTensor> readTensorFile(StringRef path) {
  StringRef extension = llvm::sys::path::extension(path);
  if (extension == ".npy")
    return readNpy(path);
  if (extension == ".pb")
    return readTensorProto(path);
  return error(path, "unknown tensor file type '" + extension + "' (expected .npy or .pb)");
}

} // namespace kiln::io
