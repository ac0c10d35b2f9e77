//===- Registration.h - Dialects and passes the Kiln tools know -*- C++ -*-===//
//
// One place that says which dialects, interfaces and passes every Kiln tool registers:
// Kiln's own and the upstream ones the pipeline lowers through (to NVVM and PTX, and
// to LLVM on the CPU).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_INIT_REGISTRATION_H
#define KILN_LIB_INIT_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {

/// Adds Kiln's dialects and the upstream dialects, interfaces and LLVM IR translations
/// of the pipeline to `registry`.
void registerDialects(mlir::DialectRegistry &registry);

/// Registers Kiln's passes and the upstream passes and pipelines the pipeline uses, so
/// that kiln-opt can name them.
void registerPasses();

} // namespace kiln

#endif // KILN_LIB_INIT_REGISTRATION_H
