//===- TensorFiles.h - Tensors in .npy and ONNX .pb files -------*- C++ -*-===//
//
// The host-side tensors `kiln run` reads as inputs and writes as outputs: NumPy `.npy`
// files and ONNX `TensorProto` files (`.pb`, as in the ONNX test-case folders
// `test_data_set_N/input_N.pb`). Data is little-endian, row-major.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_IO_TENSORFILES_H
#define KILN_LIB_IO_TENSORFILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::io {

/// Element types a tensor file may hold.
enum class ElementType { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64 };

/// Bytes per element (bool: one byte).
size_t byteWidth(ElementType type);
/// "f32", "i64", "bool", ... for messages.
llvm::StringRef name(ElementType type);

/// A tensor in host memory.
struct HostTensor {
  /// The name a `.pb` file gives it (empty for `.npy`).
  std::string name;
  ElementType type = ElementType::F32;
  llvm::SmallVector<int64_t> shape;
  /// numElements() * byteWidth(type) bytes, little-endian, row-major.
  std::vector<char> data;

  int64_t numElements() const;
};

/// Reads a NumPy `.npy` file (format versions 1 to 3, little-endian or byte-sized
/// elements, C order).
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);
/// Parses the bytes of an `.npy` file; `path` names it in errors.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes, llvm::StringRef path);
/// Writes `tensor` as an `.npy` file (format version 1.0).
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

/// Reads an ONNX `TensorProto` file (raw or typed data fields).
llvm::Expected<HostTensor> readTensorProto(llvm::StringRef path);
/// Writes `tensor` as an ONNX `TensorProto` file with raw data.
llvm::Error writeTensorProto(llvm::StringRef path, const HostTensor &tensor);

/// Reads `.npy` or `.pb` by the file's extension.
llvm::Expected<HostTensor> readTensorFile(llvm::StringRef path);

} // namespace kiln::io

#endif // KILN_LIB_IO_TENSORFILES_H
