//===- GpuBinary.cpp - PTX and cubin of every gpu.module ------------------===//

#include "lib/target/GpuBinary.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

std::optional<std::string> kiln::findPtxas() {
  if (const char *path = std::getenv("KILN_PTXAS")) {
    if (*path && llvm::sys::fs::can_execute(path))
      return std::string(path);
    return std::nullopt;
  }
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

namespace {

/// A temporary file removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;

  LogicalResult create(StringRef prefix, StringRef suffix) {
    if (llvm::sys::fs::createTemporaryFile(prefix, suffix, path))
      return failure();
    remover.emplace(path);
    return success();
  }
};

/// Runs ptxas on `ptx`; the cubin on success, else an error message with its output.
FailureOr<std::vector<uint8_t>> assemble(StringRef ptxas, StringRef chip, StringRef moduleName,
                                         StringRef ptx, std::string &log, std::string &error) {
  std::string prefix = ("kiln-" + moduleName).str();
  TempFile ptxFile, cubinFile, logFile;
  if (failed(ptxFile.create(prefix, "ptx")) || failed(cubinFile.create(prefix, "cubin")) ||
      failed(logFile.create(prefix, "log"))) {
    error = "cannot create temporary files for ptxas";
    return failure();
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxFile.path, ec);
    if (ec) {
      error = "cannot write " + ptxFile.path.str().str() + ": " + ec.message();
      return failure();
    }
    os << ptx;
  }

  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas, arch, ptxFile.path, "-o", cubinFile.path};
  std::optional<StringRef> redirects[] = {std::nullopt, logFile.path.str(), logFile.path.str()};
  std::string execError;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, /*Env=*/std::nullopt, redirects,
                                         /*SecondsToWait=*/0, /*MemoryLimit=*/0, &execError);
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(logFile.path))
    output = (*buffer)->getBuffer().str();
  log += output;
  if (status != 0) {
    error = "ptxas " + arch + " failed";
    if (!execError.empty())
      error += " (" + execError + ")";
    if (!output.empty())
      error += ":\n" + StringRef(output).rtrim().str();
    return failure();
  }

  auto cubin = llvm::MemoryBuffer::getFile(cubinFile.path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!cubin) {
    error = "cannot read ptxas's output: " + cubin.getError().message();
    return failure();
  }
  StringRef bytes = (*cubin)->getBuffer();
  return std::vector<uint8_t>(bytes.bytes_begin(), bytes.bytes_end());
}

} // namespace

FailureOr<std::vector<kiln::GpuBinary>> kiln::compileGpuModules(ModuleOp module, bool wantCubin,
                                                                std::string &ptxasLog) {
  std::optional<std::string> ptxas = wantCubin ? findPtxas() : std::nullopt;
  std::vector<GpuBinary> binaries;
  for (auto gpuModule : module.getBody()->getOps<gpu::GPUModuleOp>()) {
    NVVM::NVVMTargetAttr target;
    if (ArrayAttr targets = gpuModule.getTargetsAttr())
      for (Attribute attr : targets)
        if ((target = dyn_cast<NVVM::NVVMTargetAttr>(attr)))
          break;
    if (!target)
      return gpuModule.emitError("gpu.module @")
             << gpuModule.getName() << " has no #nvvm.target; run nvvm-attach-target first";

    // The NVPTX backend only: ptxas runs below, where its output can be kept.
    gpu::TargetOptions options(/*toolkitPath=*/{}, /*librariesToLink=*/{}, /*cmdOptions=*/{},
                               /*elfSection=*/{}, gpu::CompilationTarget::Assembly);
    std::optional<SmallVector<char, 0>> ptx =
        cast<gpu::TargetAttrInterface>(target).serializeToObject(gpuModule, options);
    if (!ptx)
      return gpuModule.emitError("could not produce PTX for gpu.module @") << gpuModule.getName();

    GpuBinary binary;
    binary.moduleName = gpuModule.getName().str();
    binary.chip = target.getChip().str();
    binary.ptx.assign(ptx->begin(), ptx->end());
    // The NVPTX backend ends the PTX with a NUL for the driver's benefit.
    while (!binary.ptx.empty() && binary.ptx.back() == '\0')
      binary.ptx.pop_back();
    if (ptxas) {
      std::string error;
      FailureOr<std::vector<uint8_t>> cubin =
          assemble(*ptxas, binary.chip, binary.moduleName, binary.ptx, ptxasLog, error);
      if (failed(cubin))
        return gpuModule.emitError("gpu.module @") << gpuModule.getName() << ": " << error;
      binary.cubin = std::move(*cubin);
    }
    binaries.push_back(std::move(binary));
  }
  return binaries;
}
