//===- Inspect.cpp - `kiln inspect`: what an engine holds -----------------===//
//
// Reads an engine file (validated like the runtime does, but without a GPU) and prints its
// header, IO signature, memory plan, modules, kernels and schedule, as text or as one JSON
// object for scripts; optionally writes each module's PTX and cubin to a folder.
//
//===----------------------------------------------------------------------===//

#include "tools/kiln/EngineTools.h"
#include "tools/kiln/Run.h"

#include "runtime/Engine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kiln::tool {

namespace {

raw_ostream &error() { return WithColor::error(errs(), "kiln inspect"); }

/// "f32[?x128]"; a dynamic dimension shows its symbol: "i64[batch?xsequence?]" reads
/// badly, so symbols go after: "i64[?x?] (batch, sequence)".
std::string shapeText(const engine::TensorSignature &tensor) {
  std::string text = std::string(engine::elementTypeName(tensor.type)) + "[" +
                     engine::formatShape(tensor.shape) + "]";
  std::vector<std::string> names;
  for (const std::string &name : tensor.dimNames)
    if (!name.empty())
      names.push_back(name);
  if (!names.empty())
    text += " (" + join(names, ", ") + ")";
  return text;
}

/// "1x16 / 8x128 / 64x512" for a dynamic input's profile.
std::string profileText(const engine::TensorSignature &tensor) {
  return engine::formatShape(tensor.minShape) + " / " + engine::formatShape(tensor.optShape) +
         " / " + engine::formatShape(tensor.maxShape);
}

/// `name` safe as a file name; "module_<index>" when empty.
std::string fileStem(const std::string &name, size_t index) {
  if (name.empty())
    return "module_" + std::to_string(index);
  std::string safe = name;
  for (char &c : safe)
    if (!isAlnum(c) && c != '_' && c != '.' && c != '-')
      c = '_';
  return safe;
}

struct StepCounts {
  size_t launches = 0, copies = 0, fills = 0, readBacks = 0;
  std::vector<size_t> launchesPerKernel;
};

StepCounts countSteps(const engine::Engine &model) {
  StepCounts counts;
  counts.launchesPerKernel.assign(model.kernels.size(), 0);
  for (const engine::Step &step : model.steps) {
    switch (step.kind) {
    case engine::Step::Kind::Launch:
      ++counts.launches;
      ++counts.launchesPerKernel[step.kernel];
      break;
    case engine::Step::Kind::Copy:
      ++counts.copies;
      break;
    case engine::Step::Kind::Fill:
      ++counts.fills;
      break;
    case engine::Step::Kind::ReadBack:
      ++counts.readBacks;
      break;
    }
  }
  return counts;
}

std::string bytesText(uint64_t bytes) {
  if (bytes < 10 * 1024)
    return std::to_string(bytes) + " B";
  if (bytes < 10 * 1024 * 1024)
    return formatv("{0:f1} KiB", double(bytes) / 1024).str();
  return formatv("{0:f1} MiB", double(bytes) / (1024 * 1024)).str();
}

void printText(const std::string &path, const engine::Engine &model) {
  raw_ostream &os = outs();
  StepCounts counts = countSteps(model);
  os << "engine " << path << "\n";
  os << "  format version " << engine::Engine::kFormatVersion << ", compiled by Kiln "
     << model.compilerVersion << " for " << model.target << "\n";
  os << "  model " << (model.modelName.empty() ? "(unnamed)" : model.modelName) << "\n";
  auto printTensors = [&](const char *title, const std::vector<engine::TensorSignature> &list) {
    os << title << " (" << list.size() << ")\n";
    for (const engine::TensorSignature &tensor : list) {
      os << "  " << tensor.name << ": " << shapeText(tensor) << ", "
         << bytesText(tensor.sizeInBytes()) << (tensor.isDynamic() ? " at most" : "") << "\n";
      if (!tensor.minShape.empty())
        os << "    profile min / opt / max: " << profileText(tensor) << "\n";
    }
  };
  printTensors("inputs", model.inputs);
  printTensors("outputs", model.outputs);
  os << "memory\n";
  os << "  arena " << bytesText(model.arenaBytes) << " planned, " << bytesText(model.unplannedBytes)
     << " without reuse";
  if (model.unplannedBytes)
    os << formatv(" ({0:f1}%)", 100.0 * double(model.arenaBytes) / double(model.unplannedBytes));
  os << "\n  weights " << bytesText(model.weights.size()) << "\n";
  os << "modules (" << model.modules.size() << ")\n";
  for (const engine::Module &module : model.modules)
    os << "  " << module.name << ": PTX " << bytesText(module.ptx.size()) << ", cubin "
       << (module.cubin.empty() ? std::string("none") : bytesText(module.cubin.size())) << "\n";
  os << "kernels (" << model.kernels.size() << ")\n";
  for (size_t k = 0; k < model.kernels.size(); ++k) {
    const engine::Kernel &kernel = model.kernels[k];
    os << "  " << kernel.name << ": " << (kernel.templateKind.empty() ? "?" : kernel.templateKind)
       << ", module " << model.modules[kernel.module].name << ", " << counts.launchesPerKernel[k]
       << " launch" << (counts.launchesPerKernel[k] == 1 ? "" : "es");
    // Launched to overlap the kernel before it (programmatic dependent launch).
    if (kernel.programmaticLaunch)
      os << " (programmatic)";
    // The chosen configuration's time: measured (now or earlier, from the timing cache)
    // or the cost model's estimate.
    if (kernel.measuredMicros >= 0) {
      if (kernel.tuningSource == "cost-model")
        os << formatv(", {0:f2} us estimated (cost model)", kernel.measuredMicros);
      else if (kernel.tuningSource == "cache")
        os << formatv(", {0:f2} us measured (timing cache)", kernel.measuredMicros);
      else
        os << formatv(", {0:f2} us measured", kernel.measuredMicros);
    }
    os << "\n";
    if (!kernel.sourceNodes.empty())
      os << "    nodes: " << join(kernel.sourceNodes, ", ") << "\n";
    if (!kernel.config.empty())
      os << "    config: " << kernel.config << "\n";
  }
  // What the kernel functions must compute and move, and the time that takes at least.
  if (!model.functions.empty()) {
    double flops = 0, bytes = 0, floorSeconds = 0;
    for (const engine::KernelFunction &function : model.functions) {
      flops += function.flops;
      bytes += function.bytes;
      floorSeconds += std::max(function.flops / kRooflineFlops, function.bytes / kRooflineBytes);
    }
    os << formatv("work: {0} kernel functions, {1:f3} GFLOP, {2} moved at least; roofline "
                  "floor {3:f4} ms (each function's FLOPs at 790 TFLOP/s or bytes at 4.3 TB/s)\n",
                  model.functions.size(), flops * 1e-9, bytesText(uint64_t(bytes)),
                  floorSeconds * 1e3);
  }
  auto count = [](size_t n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  os << "steps " << model.steps.size() << " (" << count(counts.launches, "launch", "launches")
     << ", " << count(counts.copies, "copy", "copies") << ", "
     << count(counts.fills, "fill", "fills");
  if (counts.readBacks)
    os << ", " << count(counts.readBacks, "read-back", "read-backs");
  os << ")\n";
  if (model.isDynamic()) {
    size_t fields = 0;
    for (const engine::Step &step : model.steps)
      fields += step.runtimeFields.size();
    os << "shapes: dynamic, a shape program of " << model.shapeProgram.size() << " values sets "
       << fields << " run-time fields; arena and buffers planned at the max shape";
    // Data-dependent shapes: values read back from the GPU mid-run, bounded at planning.
    if (counts.readBacks)
      os << " and the device values' bounds; "
         << count(counts.readBacks, "device value", "device values")
         << " read back mid-run (data-dependent shapes), so no CUDA graph\n";
    else
      os << "; one CUDA graph per input shape\n";
  }
}

void printJson(const std::string &path, const engine::Engine &model) {
  StepCounts counts = countSteps(model);
  json::OStream out(outs(), 2);
  auto tensors = [&](const std::vector<engine::TensorSignature> &list) {
    out.array([&] {
      for (const engine::TensorSignature &tensor : list)
        out.object([&] {
          out.attribute("name", tensor.name);
          out.attribute("type", engine::elementTypeName(tensor.type));
          out.attributeArray("shape", [&] {
            for (int64_t extent : tensor.shape)
              out.value(extent);
          });
          auto extents = [&](const char *name, const std::vector<int64_t> &values) {
            if (values.empty())
              return;
            out.attributeArray(name, [&] {
              for (int64_t extent : values)
                out.value(extent);
            });
          };
          extents("min_shape", tensor.minShape);
          extents("opt_shape", tensor.optShape);
          extents("max_shape", tensor.maxShape);
          if (!tensor.dimNames.empty())
            out.attributeArray("dim_names", [&] {
              for (const std::string &name : tensor.dimNames)
                out.value(name);
            });
          out.attribute("bytes", static_cast<int64_t>(tensor.sizeInBytes()));
        });
    });
  };
  out.object([&] {
    out.attribute("file", path);
    out.attribute("format_version", static_cast<int64_t>(engine::Engine::kFormatVersion));
    out.attribute("compiler_version", model.compilerVersion);
    out.attribute("target", model.target);
    out.attribute("model", model.modelName);
    out.attributeObject("io", [&] {
      out.attributeBegin("inputs");
      tensors(model.inputs);
      out.attributeEnd();
      out.attributeBegin("outputs");
      tensors(model.outputs);
      out.attributeEnd();
    });
    out.attributeObject("memory", [&] {
      out.attribute("arena_bytes", static_cast<int64_t>(model.arenaBytes));
      out.attribute("unplanned_bytes", static_cast<int64_t>(model.unplannedBytes));
      out.attribute("weights_bytes", static_cast<int64_t>(model.weights.size()));
    });
    out.attributeArray("modules", [&] {
      for (const engine::Module &module : model.modules)
        out.object([&] {
          out.attribute("name", module.name);
          out.attribute("ptx_bytes", static_cast<int64_t>(module.ptx.size()));
          out.attribute("cubin_bytes", static_cast<int64_t>(module.cubin.size()));
        });
    });
    out.attributeArray("kernels", [&] {
      for (size_t k = 0; k < model.kernels.size(); ++k) {
        const engine::Kernel &kernel = model.kernels[k];
        out.object([&] {
          out.attribute("name", kernel.name);
          out.attribute("module", model.modules[kernel.module].name);
          out.attribute("template", kernel.templateKind);
          out.attributeArray("source_nodes", [&] {
            for (const std::string &node : kernel.sourceNodes)
              out.value(node);
          });
          out.attribute("config", kernel.config);
          bool estimated = kernel.tuningSource == "cost-model";
          if (kernel.measuredMicros >= 0 && !estimated)
            out.attribute("measured_us", kernel.measuredMicros);
          else
            out.attribute("measured_us", nullptr);
          if (kernel.measuredMicros >= 0 && estimated)
            out.attribute("estimated_us", kernel.measuredMicros);
          if (!kernel.tuningSource.empty())
            out.attribute("tuning_source", kernel.tuningSource);
          else
            out.attribute("tuning_source", nullptr);
          out.attribute("launches", static_cast<int64_t>(counts.launchesPerKernel[k]));
          out.attribute("programmatic_launch", kernel.programmaticLaunch);
        });
      }
    });
    out.attributeObject("steps", [&] {
      out.attribute("count", static_cast<int64_t>(model.steps.size()));
      out.attribute("launches", static_cast<int64_t>(counts.launches));
      out.attribute("copies", static_cast<int64_t>(counts.copies));
      out.attribute("fills", static_cast<int64_t>(counts.fills));
      out.attribute("read_backs", static_cast<int64_t>(counts.readBacks));
    });
  });
  outs() << "\n";
}

/// Writes each module's PTX and cubin to `dir`; false (with a message printed) on failure.
bool dumpKernels(const engine::Engine &model, const std::string &dir) {
  if (std::error_code ec = sys::fs::create_directories(dir)) {
    error() << "cannot create '" << dir << "': " << ec.message() << "\n";
    return false;
  }
  auto write = [&](const std::string &name, StringRef bytes) {
    SmallString<256> path(dir);
    sys::path::append(path, name);
    std::error_code ec;
    raw_fd_ostream file(path, ec, sys::fs::OF_None);
    if (!ec) {
      file << bytes;
      file.close();
      ec = file.error();
    }
    if (ec) {
      error() << "cannot write '" << path << "': " << ec.message() << "\n";
      return false;
    }
    return true;
  };
  size_t files = 0;
  for (size_t m = 0; m < model.modules.size(); ++m) {
    const engine::Module &module = model.modules[m];
    std::string stem = fileStem(module.name, m);
    if (!module.ptx.empty()) {
      if (!write(stem + ".ptx", module.ptx))
        return false;
      ++files;
    }
    if (!module.cubin.empty()) {
      if (!write(stem + ".cubin", StringRef(reinterpret_cast<const char *>(module.cubin.data()),
                                            module.cubin.size())))
        return false;
      ++files;
    }
  }
  errs() << "kiln inspect: wrote " << files << " file" << (files == 1 ? "" : "s") << " to " << dir
         << "\n";
  return true;
}

} // namespace

int inspectEngine(const InspectOptions &options) {
  engine::Engine model;
  if (std::string problem = engine::readEngineFile(options.engine, model); !problem.empty()) {
    error() << problem << "\n";
    return RunBadInput;
  }
  if (options.json)
    printJson(options.engine, model);
  else
    printText(options.engine, model);
  if (!options.dumpKernelsDir.empty() && !dumpKernels(model, options.dumpKernelsDir))
    return RunFailed;
  return RunSucceeded;
}

} // namespace kiln::tool
