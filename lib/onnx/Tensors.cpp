//===- Tensors.cpp - ONNX types and tensors as MLIR types and attributes --===//

#include "lib/onnx/Tensors.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using ::onnx::TensorProto;

namespace kiln::onnx {

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string dataTypeName(int dataType) {
  if (!TensorProto::DataType_IsValid(dataType))
    return "data type " + std::to_string(dataType);
  return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(dataType));
}

llvm::Expected<Type> elementType(MLIRContext &context, int dataType) {
  Builder b(&context);
  switch (dataType) {
  case TensorProto::FLOAT:
    return b.getF32Type();
  case TensorProto::DOUBLE:
    return b.getF64Type();
  case TensorProto::FLOAT16:
    return b.getF16Type();
  case TensorProto::BFLOAT16:
    return b.getBF16Type();
  case TensorProto::BOOL:
    return b.getI1Type();
  case TensorProto::INT8:
    return b.getIntegerType(8);
  case TensorProto::INT16:
    return b.getIntegerType(16);
  case TensorProto::INT32:
    return b.getIntegerType(32);
  case TensorProto::INT64:
    return b.getIntegerType(64);
  case TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  default:
    return error("unsupported element type " + dataTypeName(dataType));
  }
}

llvm::Expected<ImportedType> tensorType(MLIRContext &context, const ::onnx::TypeProto &type) {
  if (!type.has_tensor_type()) {
    const char *kind = type.has_sequence_type()   ? "a sequence"
                       : type.has_optional_type() ? "an optional"
                       : type.has_map_type()      ? "a map"
                                                  : "not a tensor";
    return error(llvm::formatv("values of {0} type are not supported", kind));
  }
  const auto &tensor = type.tensor_type();
  auto element = elementType(context, tensor.elem_type());
  if (!element)
    return element.takeError();
  ImportedType result;
  if (!tensor.has_shape()) {
    result.type = UnrankedTensorType::get(*element);
    return result;
  }
  SmallVector<int64_t> shape;
  for (const auto &dim : tensor.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      result.dimNames.emplace_back();
    } else if (dim.has_dim_value()) {
      return error(llvm::formatv("negative dimension {0}", dim.dim_value()));
    } else {
      shape.push_back(ShapedType::kDynamic);
      result.dimNames.push_back(dim.has_dim_param() ? dim.dim_param() : "");
    }
  }
  result.type = RankedTensorType::get(shape, *element);
  return result;
}

/// Bytes per element in ONNX's little-endian raw layout (bool: one byte).
static size_t elementByteWidth(Type type) {
  return type.isInteger(1) ? 1 : type.getIntOrFloatBitWidth() / 8;
}

/// Copies a typed repeated field into little-endian bytes of `width` bytes per value.
template <typename Values> static std::string packValues(const Values &values, size_t width) {
  std::string bytes(values.size() * width, '\0');
  for (int i = 0; i < values.size(); ++i) {
    auto value = values.Get(i);
    std::memcpy(&bytes[i * width], &value, width); // little-endian hosts only
  }
  return bytes;
}

/// The tensor's data as raw little-endian bytes, taken out of the tensor.
static llvm::Expected<std::unique_ptr<std::string>> takeTypedData(TensorProto &tensor, Type element,
                                                                  int64_t count) {
  size_t width = elementByteWidth(element);
  switch (tensor.data_type()) {
  case TensorProto::FLOAT:
    if (tensor.float_data_size())
      return std::make_unique<std::string>(packValues(tensor.float_data(), 4));
    break;
  case TensorProto::DOUBLE:
    if (tensor.double_data_size())
      return std::make_unique<std::string>(packValues(tensor.double_data(), 8));
    break;
  case TensorProto::INT64:
    if (tensor.int64_data_size())
      return std::make_unique<std::string>(packValues(tensor.int64_data(), 8));
    break;
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    if (tensor.uint64_data_size())
      return std::make_unique<std::string>(packValues(tensor.uint64_data(), width));
    break;
  default:
    // INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16 and BFLOAT16 all use int32_data,
    // one value (or bit pattern) per entry.
    if (tensor.int32_data_size())
      return std::make_unique<std::string>(packValues(tensor.int32_data(), width));
    break;
  }
  if (count == 0)
    return std::make_unique<std::string>();
  return nullptr;
}

namespace {
/// Bytes that an attribute's blob can own: a string taken from the protobuf, or a slice
/// of an external data file.
struct OwnedBytes {
  std::unique_ptr<std::string> string;
  std::unique_ptr<llvm::MemoryBuffer> file;
  ArrayRef<char> bytes() const {
    if (string)
      return ArrayRef<char>(string->data(), string->size());
    return ArrayRef<char>(file->getBufferStart(), file->getBufferSize());
  }
};
} // namespace

static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readExternal(const TensorProto &tensor, const ExternalDataReader &external) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" || entry.key() == "length") {
      int64_t value = 0;
      if (llvm::StringRef(entry.value()).getAsInteger(10, value) || value < 0)
        return error(llvm::formatv("external data {0} '{1}' is not a non-negative integer",
                                   entry.key(), entry.value()));
      (entry.key() == "offset" ? offset : length) = value;
    }
  }
  if (location.empty())
    return error("external data has no location");
  if (llvm::sys::path::is_absolute(location) ||
      llvm::is_contained(
          llvm::make_range(llvm::sys::path::begin(location), llvm::sys::path::end(location)), ".."))
    return error("external data location '" + location +
                 "' must be relative to the model's folder and stay inside it");
  llvm::SmallString<256> path(external.baseDirectory);
  llvm::sys::path::append(path, location);
  auto size = [&]() -> int64_t {
    uint64_t fileSize = 0;
    if (llvm::sys::fs::file_size(path, fileSize))
      return -1;
    return int64_t(fileSize);
  }();
  if (size < 0)
    return error("cannot open external data file '" + std::string(path) + "'");
  if (length < 0)
    length = size - offset;
  if (offset + length > size)
    return error(llvm::formatv("external data [{0}, {1}) lies beyond the end of '{2}' ({3} bytes)",
                               offset, offset + length, path, size));
  auto buffer = llvm::MemoryBuffer::getFileSlice(path, length, offset);
  if (!buffer)
    return error("cannot read external data file '" + std::string(path) +
                 "': " + buffer.getError().message());
  return std::move(*buffer);
}

llvm::Expected<ElementsAttr> convertTensor(MLIRContext &context, TensorProto &tensor,
                                           llvm::StringRef blobName, bool asResource,
                                           const ExternalDataReader &external) {
  auto element = elementType(context, tensor.data_type());
  if (!element)
    return element.takeError();
  int64_t count = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0)
      return error(llvm::formatv("negative dimension {0}", dim));
    count *= dim;
  }
  auto type = RankedTensorType::get(llvm::to_vector(tensor.dims()), *element);
  size_t width = elementByteWidth(*element);

  OwnedBytes data;
  if (tensor.data_location() == TensorProto::EXTERNAL) {
    auto file = readExternal(tensor, external);
    if (!file)
      return file.takeError();
    data.file = std::move(*file);
  } else if (tensor.has_raw_data()) {
    data.string = std::make_unique<std::string>(std::move(*tensor.mutable_raw_data()));
    tensor.clear_raw_data();
  } else {
    auto typed = takeTypedData(tensor, *element, count);
    if (!typed)
      return typed.takeError();
    data.string = std::move(*typed);
  }
  if (!data.string && !data.file)
    return error(llvm::formatv("has no data for its {0} elements", count));
  ArrayRef<char> bytes = data.bytes();
  if (bytes.size() != size_t(count) * width)
    return error(llvm::formatv("holds {0} bytes of data for {1} elements of {2} ({3} bytes)",
                               bytes.size(), count, dataTypeName(tensor.data_type()),
                               size_t(count) * width));

  if (element->isInteger(1)) {
    // i1 attributes are bit-packed in MLIR; ONNX stores a byte per value.
    SmallVector<bool> values(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i)
      values[i] = bytes[i] != 0;
    return cast<ElementsAttr>(DenseElementsAttr::get(type, values));
  }
  if (!asResource)
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, bytes));

  // The blob takes the bytes over; misaligned file slices are copied to aligned memory.
  size_t alignment = std::max<size_t>(width, 1);
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignment != 0) {
    data.string = std::make_unique<std::string>(bytes.begin(), bytes.end());
    data.file.reset();
    bytes = data.bytes();
  }
  auto owner = std::make_shared<OwnedBytes>(std::move(data));
  AsmResourceBlob blob(
      bytes, alignment, [owner](void *, size_t, size_t) mutable { owner.reset(); },
      /*dataIsMutable=*/false);
  return cast<ElementsAttr>(DenseResourceElementsAttr::get(type, blobName, std::move(blob)));
}

} // namespace kiln::onnx
