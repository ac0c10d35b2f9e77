//===- Tensors.h - ONNX types and tensors as MLIR types and attributes -*- C++ -*-===//

#ifndef KILN_LIB_ONNX_TENSORS_H
#define KILN_LIB_ONNX_TENSORS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Error.h"

namespace onnx {
class TensorProto;
class TypeProto;
} // namespace onnx

namespace kiln::onnx {

/// The MLIR element type of an ONNX `TensorProto.DataType`: signless integers for the
/// signed ONNX types, unsigned integers (ui8, ...) for the unsigned ones, i1 for bool.
/// Fails for strings, complex numbers and unknown codes.
llvm::Expected<mlir::Type> elementType(mlir::MLIRContext &context, int dataType);

/// The ONNX name of a data type code, for messages ("FLOAT16", "STRING", ...).
std::string dataTypeName(int dataType);

/// A tensor type with the dimension names (dim_param) of its symbolic dimensions; names
/// are empty for static or anonymous dimensions. `rank` unknown gives an unranked type.
struct ImportedType {
  mlir::TensorType type;
  llvm::SmallVector<std::string> dimNames;
};
llvm::Expected<ImportedType> tensorType(mlir::MLIRContext &context, const ::onnx::TypeProto &type);

/// Reads external data from files relative to `baseDirectory`.
struct ExternalDataReader {
  std::string baseDirectory;
};

/// Converts `tensor` into an elements attribute, moving its raw bytes into a
/// `dense_resource` blob named `blobName` (zero-copy) when `asResource`, else into a dense
/// attribute. External data is read through `external`. The tensor's data is consumed.
llvm::Expected<mlir::ElementsAttr> convertTensor(mlir::MLIRContext &context,
                                                 ::onnx::TensorProto &tensor,
                                                 llvm::StringRef blobName, bool asResource,
                                                 const ExternalDataReader &external);

} // namespace kiln::onnx

#endif // KILN_LIB_ONNX_TENSORS_H
