//===- Importer.cpp - ONNX models into the graph dialect ------------------===//

#include "lib/onnx/Importer.h"
#include "lib/onnx/ModelImporter.h"

#include "lib/init/Registration.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/text_format.h>

#include <cctype>
#include <climits>
#include <unistd.h>

using namespace mlir;

namespace kiln::onnx {

namespace {
/// Collects the text-format parser's complaints as MLIR errors with line and column.
class TextErrorCollector : public google::protobuf::io::ErrorCollector {
public:
  TextErrorCollector(MLIRContext &context, llvm::StringRef path) : context(context), path(path) {}
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
    return std::isprint(static_cast<unsigned char>(c)) ||
           std::isspace(static_cast<unsigned char>(c));
  });
}

static std::string notAModel(uint64_t size) {
  return llvm::formatv("not a valid ONNX model: the {0} bytes do not parse as an ONNX "
                       "ModelProto (truncated or not ONNX?)",
                       size);
}

static OwningOpRef<ModuleOp> importParsed(MLIRContext &context, ::onnx::ModelProto &model,
                                          llvm::StringRef path, const ImportOptions &options) {
  DialectRegistry registry;
  kiln::registerDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  return ModelImporter(context, path, options).import(model);
}

OwningOpRef<ModuleOp> importModel(MLIRContext &context, llvm::StringRef bytes, llvm::StringRef path,
                                  const ImportOptions &options) {
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
      return emitError(fileLoc, notAModel(bytes.size())), nullptr;
  }
  return importParsed(context, model, path, options);
}

OwningOpRef<ModuleOp> importModelFile(MLIRContext &context, llvm::StringRef path,
                                      const ImportOptions &options) {
  Location fileLoc = FileLineColLoc::get(&context, path, 0, 0);
  int fd = -1;
  if (std::error_code error = llvm::sys::fs::openFileForRead(path, fd))
    return emitError(fileLoc) << "cannot open the model: " << error.message(), nullptr;
  llvm::scope_exit closeFile([&] { llvm::sys::Process::SafelyCloseFileDescriptor(fd); });

  // Peek at the start to tell text from binary; a text model is small and read whole.
  char head[256];
  ssize_t headSize = ::read(fd, head, sizeof(head));
  if (headSize < 0)
    return emitError(fileLoc, "cannot read the model"), nullptr;
  if (looksLikeText(llvm::StringRef(head, headSize))) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buffer)
      return emitError(fileLoc) << "cannot read the model: " << buffer.getError().message(),
             nullptr;
    return importModel(context, (*buffer)->getBuffer(), path, options);
  }

  // Binary models are parsed straight from the file, so the file's bytes and the parsed
  // message are never in memory at once; weights then move from the message into blobs.
  if (::lseek(fd, 0, SEEK_SET) != 0)
    return emitError(fileLoc, "cannot read the model"), nullptr;
  ::onnx::ModelProto model;
  google::protobuf::io::FileInputStream stream(fd);
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    uint64_t size = 0;
    (void)llvm::sys::fs::file_size(path, size);
    return emitError(fileLoc, notAModel(size)), nullptr;
  }
  return importParsed(context, model, path, options);
}

void registerImportONNXTranslation() {
  TranslateToMLIRRegistration registration(
      "import-onnx", "Import an ONNX model (binary or protobuf text format) into the graph dialect",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        llvm::StringRef path = buffer->getBufferIdentifier();
        // When the input is a whole file, parse it from the file: the translator's copy
        // is mapped but untouched, so memory holds the model once, not twice.
        uint64_t size = 0;
        bool wholeFile = !llvm::sys::fs::file_size(path, size) && size == buffer->getBufferSize();
        OwningOpRef<ModuleOp> module = wholeFile ? importModelFile(*context, path)
                                                 : importModel(*context, buffer->getBuffer(), path);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) { kiln::registerDialects(registry); });
}

} // namespace kiln::onnx
