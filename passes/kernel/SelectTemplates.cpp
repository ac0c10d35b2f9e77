//===- SelectTemplates.cpp - Every kernel's template family ---------------===//
//
// kernel-select-templates: every kernel.func without a `kernel.config` gets the default
// configuration of the template family that takes it (passes/kernel/KernelTemplate.h),
// `#kernel.generic` when none does.
//
//===----------------------------------------------------------------------===//

#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Passes.h"

namespace kiln {
#define GEN_PASS_DEF_KERNELSELECTTEMPLATES
#include "passes/kernel/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace kernel = kiln::kernel;

namespace {

struct KernelSelectTemplatesPass
    : kiln::impl::KernelSelectTemplatesBase<KernelSelectTemplatesPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<kiln::TemplateOptions> checked =
        kiln::checkTemplateOptions(KILN_PASS_TEMPLATE_OPTIONS(), getOperation(), getArgument());
    if (failed(checked))
      return signalPassFailure();
    const kiln::TemplateOptions &options = *checked;
    auto configHelper = kernel::configAttrHelper(&getContext());
    for (auto function : getOperation().getOps<kernel::FuncOp>()) {
      if (function->hasAttr(configHelper.getName()))
        continue;
      const kiln::KernelTemplate &family = kiln::selectKernelTemplate(function, options);
      Attribute config = family.defaultConfig(function, options);
      auto typed = dyn_cast_or_null<kernel::TemplateConfigAttrInterface>(config);
      if (!typed) {
        function.emitError(getArgument())
            << ": the " << family.name() << " family took the kernel but gave no configuration";
        return signalPassFailure();
      }
      configHelper.setAttr(function, typed);
    }
  }
};

} // namespace
