//===- Importer.cpp - ONNX models into the graph dialect ------------------===//

#include "lib/onnx/Importer.h"
#include "lib/onnx/ModelImporter.h"

#include "lib/pipeline/Registration.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cctype>
#include <climits>

using namespace mlir;

namespace kiln::onnx {

namespace {
/// Collects the text-format parser's complaints as MLIR errors with line and column.
class TextErrorCollector : public google::protobuf::io::ErrorCollector {
public:
  TextErrorCollector(MLIRContext &context, llvm::StringRef path)
      : context(context), path(path) {}
  void AddError(int line, int column, const std::string &message) override {
    emitError(FileLineColLoc::get(&context, path, line + 1, column + 1))
        << "not a valid ONNX model in protobuf text format: " << message;
  }

private:
  MLIRContext &context;
  llvm::StringRef path;
};
} // namespace

/// Protobuf text format starts with printable characters; binary ModelProtos start with a
/// field tag such as 0x08 (ir_version).
static bool looksLikeText(llvm::StringRef bytes) {
  llvm::StringRef head = bytes.take_front(256);
  return !head.empty() && llvm::all_of(head, [](char c) {
    return std::isprint(static_cast<unsigned char>(c)) || std::isspace(static_cast<unsigned char>(c));
  });
}

static OwningOpRef<ModuleOp> importParsed(MLIRContext &context, ::onnx::ModelProto &model,
                                          llvm::StringRef path, const ImportOptions &options) {
  DialectRegistry registry;
  kiln::registerDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  return ModelImporter(context, path, options).import(model);
}

OwningOpRef<ModuleOp> importModel(MLIRContext &context, llvm::StringRef bytes,
                                  llvm::StringRef path, const ImportOptions &options) {
  Location fileLoc = FileLineColLoc::get(&context, path, 0, 0);
  ::onnx::ModelProto model;
  if (looksLikeText(bytes)) {
    TextErrorCollector errors(context, path);
    google::protobuf::TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(std::string(bytes), &model))
      return nullptr;
  } else {
    if (bytes.size() > size_t(INT_MAX))
      return emitError(fileLoc, "models over 2 GB must keep their weights as external data"),
             nullptr;
    if (!model.ParseFromArray(bytes.data(), int(bytes.size())))
      return emitError(fileLoc, llvm::formatv("not a valid ONNX model: the {0} bytes do not parse "
                                              "as an ONNX ModelProto (truncated or not ONNX?)",
                                              bytes.size())),
             nullptr;
  }
  return importParsed(context, model, path, options);
}

OwningOpRef<ModuleOp> importModelFile(MLIRContext &context, llvm::StringRef path,
                                      const ImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(UnknownLoc::get(&context))
               << "cannot open '" << path << "': " << buffer.getError().message(),
           nullptr;
  return importModel(context, (*buffer)->getBuffer(), path, options);
}

void registerImportONNXTranslation() {
  TranslateToMLIRRegistration registration(
      "import-onnx", "Import an ONNX model (binary or protobuf text format) into the graph dialect",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        OwningOpRef<ModuleOp> module =
            importModel(*context, buffer->getBuffer(), buffer->getBufferIdentifier());
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) { kiln::registerDialects(registry); });
}

} // namespace kiln::onnx
