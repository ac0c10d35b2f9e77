//===- kiln.cpp - The user driver: compile, run, bench, inspect -----------===//
//
// The command deployment engineers use, shaped after trtexec: `kiln compile` turns an
// ONNX model into an engine, `kiln run` executes one (or an ONNX model directly),
// `kiln bench` times it and `kiln inspect` shows what is inside.
//
//===----------------------------------------------------------------------===//

#include "kiln/Version.h"
#include "lib/cpu/HostExecutable.h"
#include "lib/init/Registration.h"
#include "lib/pipeline/Compiler.h"
#include "lib/tuning/GpuKernelTimer.h"
#include "tools/kiln/EngineTools.h"
#include "tools/kiln/Run.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::SubCommand compileCommand("compile", "Compile an ONNX model into a Kiln engine");
cl::SubCommand runCommand("run", "Run an engine or ONNX model on inputs, optionally checking "
                                 "the outputs against expected ones");
cl::SubCommand benchCommand("bench", "Measure the latency and throughput of an engine");
cl::SubCommand inspectCommand("inspect", "Show the kernels, memory plan and IO of an engine");

cl::opt<std::string> compileModel(cl::Positional, cl::Required, cl::desc("<MODEL.onnx>"),
                                  cl::sub(compileCommand));
cl::opt<std::string> compileOutput("o", cl::desc("Output file (default: stdout for MLIR stages)"),
                                   cl::value_desc("MODEL.kiln"), cl::init("-"),
                                   cl::sub(compileCommand));
cl::opt<std::string> compileTo("compile-to",
                               cl::desc("Stop after this stage and write its MLIR: graph "
                                        "(after the graph passes), linalg or llvm (--target "
                                        "cpu), kernel or gpu (GPU targets), or engine "
                                        "(default)"),
                               cl::value_desc("stage"), cl::init("engine"),
                               cl::sub(compileCommand));
cl::opt<bool> compileBytecode("emit-bytecode",
                              cl::desc("Write MLIR stages as bytecode, weights as raw bytes"),
                              cl::sub(compileCommand));
cl::opt<std::string> compileTarget("target",
                                   cl::desc("What to compile for: sm_90a (default), sm_80, or cpu "
                                            "(the host; the engine is a native object file)"),
                                   cl::value_desc("sm_90a|sm_80|cpu"), cl::init("sm_90a"),
                                   cl::sub(compileCommand));
cl::opt<std::string> compileShapes("shapes",
                                   cl::desc("Static shapes for dynamic inputs, e.g. "
                                            "input_ids:1x128,attention_mask:1x128"),
                                   cl::value_desc("name:AxB,..."), cl::sub(compileCommand));
cl::opt<std::string> compileMinShapes(
    "min-shapes",
    cl::desc("An optimization profile's smallest shapes (trtexec's --minShapes; with "
             "--opt-shapes and --max-shapes). Where they differ from the max shapes the "
             "engine takes any extent in between (docs/dynamic-shapes.md)"),
    cl::value_desc("name:AxB,..."), cl::sub(compileCommand));
cl::opt<std::string> compileOptShapes("opt-shapes",
                                      cl::desc("The profile's shapes to tune for (trtexec's "
                                               "--optShapes)"),
                                      cl::value_desc("name:AxB,..."), cl::sub(compileCommand));
cl::opt<std::string> compileMaxShapes("max-shapes",
                                      cl::desc("The profile's largest shapes (trtexec's "
                                               "--maxShapes)"),
                                      cl::value_desc("name:AxB,..."), cl::sub(compileCommand));
cl::opt<bool> compileQuiet("quiet", cl::desc("No progress lines on stderr"),
                           cl::sub(compileCommand));
cl::opt<bool> compileReport("report",
                            cl::desc("Print the kernels and the bytes they move through device "
                                     "memory (an estimate) before and after the graph passes and "
                                     "fusion, on stderr"),
                            cl::sub(compileCommand));
cl::opt<bool> compileChannelsLast(
    "channels-last",
    cl::desc("Make 2-D convolutions channels last (NHWC; graph-convert-layout), which the "
             "tensor-core convolutions read. Default: on with --fp16, --bf16, --int8 or "
             "--tf32, off for fp32 (its generic convolution loops are faster channels "
             "first); --channels-last=false keeps NCHW"),
    cl::sub(compileCommand));
cl::opt<bool> compileTf32(
    "tf32",
    cl::desc("TF32 for fp32 models: f32 matrix products and convolutions (channels "
             "last, the default with --tf32) run on the sm_90a tensor cores, their operands cut to "
             "tf32's 10-bit mantissa and accumulated in f32 (~1e-3 relative error, against "
             "~1e-6 in fp32). Off by default, unlike TensorRT: fp32 stays exact unless asked"),
    cl::sub(compileCommand));
cl::opt<bool> compileFp16(
    "fp16",
    cl::desc("Compute in f16 where accuracy allows (graph-reduce-precision): products, "
             "convolutions and the normalisations' statistics accumulate in f32, and ops "
             "whose values leave f16's range (exp, log, pow, sums) stay in f32. The model's "
             "inputs and outputs keep their types unless --reduced-io"),
    cl::sub(compileCommand));
cl::opt<bool> compileBf16("bf16", cl::desc("As --fp16, in bf16"), cl::sub(compileCommand));
cl::opt<bool> compileReducedIO(
    "reduced-io",
    cl::desc("With --fp16 or --bf16: the model's f32 inputs and outputs take that type too"),
    cl::sub(compileCommand));
cl::opt<bool> compilePrecisionReport(
    "precision-report",
    cl::desc("With --fp16 or --bf16: print every layer's precision (and why a layer stays "
             "in f32) on stderr"),
    cl::sub(compileCommand));
cl::opt<bool> compileInt8(
    "int8",
    cl::desc("INT8 post-training quantization of the convolutions and matrix products: "
             "activations per tensor from calibration (--calib DIR or --calib-cache FILE), "
             "weights per output channel; the rest stays as the model says (or --fp16)"),
    cl::sub(compileCommand));
cl::opt<std::string> compileCalib(
    "calib",
    cl::desc("With --int8: calibration data, <input name>.npy for each input (or any .npy "
             "for a one-input model), samples stacked along the first axis"),
    cl::value_desc("DIR"), cl::sub(compileCommand));
cl::opt<std::string>
    compileCalibMethod("calib-method",
                       cl::desc("With --int8: minmax (default), entropy or percentile"),
                       cl::value_desc("method"), cl::init("minmax"), cl::sub(compileCommand));
cl::opt<double> compileCalibPercentile(
    "calib-percentile", cl::desc("With --calib-method percentile: the percentile (default 99.99)"),
    cl::value_desc("P"), cl::init(99.99), cl::sub(compileCommand));
cl::opt<std::string> compileCalibCache(
    "calib-cache",
    cl::desc("With --int8: a calibration cache, read when it matches the model and method, "
             "else written after calibrating"),
    cl::value_desc("FILE"), cl::sub(compileCommand));
cl::opt<bool> compileInt8Sensitivity(
    "int8-sensitivity",
    cl::desc("With --int8 and --calib: print each layer's SQNR (dB) on stderr when it alone "
             "is quantized, measured on the calibration data"),
    cl::sub(compileCommand));
cl::opt<double> compileInt8MinSqnr(
    "int8-min-sqnr",
    cl::desc("With --int8 and --calib: layers whose SQNR alone falls below this many dB stay "
             "in floats (f16 under --fp16); 0, the default, keeps none"),
    cl::value_desc("dB"), cl::init(0), cl::sub(compileCommand));
cl::opt<std::string> compileGemmConfig(
    "sm90-gemm-config",
    cl::desc("For kernel developers: the configuration of the sm_90a GEMM template for every "
             "product and convolution where it is legal, by name (e.g. 128x256x64_s4_ws2; "
             "docs/codegen-sm90.md); no tuning then; a warning names each kernel it is not a "
             "configuration of (that kernel takes its default)"),
    cl::value_desc("name"), cl::Hidden, cl::sub(compileCommand));
cl::opt<std::string> compileAttentionConfig(
    "attention-config",
    cl::desc("For kernel developers: the flash-attention configuration of every attention where "
             "it is legal, BQxBKVxSTAGESxWARPS[xwgmma] (e.g. 64x128x2x4xwgmma); attention is "
             "then not tuned"),
    cl::value_desc("name"), cl::Hidden, cl::sub(compileCommand));
cl::opt<bool> compileAttentionF32Exp(
    "attention-f32-exp",
    cl::desc("For kernel developers: the wgmma attention kernels keep exp2 in f32"), cl::Hidden,
    cl::sub(compileCommand));
cl::opt<bool> compileFoldLayerNorms(
    "fold-layer-norms",
    cl::desc("For kernel developers: graph-fold-layer-norm-into-products on or off (default: "
             "on for GPU targets, off for the CPU)"),
    cl::Hidden, cl::sub(compileCommand));
cl::opt<int64_t> compileAttentionMinCtas(
    "attention-min-ctas",
    cl::desc("For kernel developers: the CTAs an SM the wgmma attention kernels ask ptxas to "
             "fit (1-16; 0: the template's choice)"),
    cl::value_desc("N"), cl::init(0), cl::Hidden, cl::sub(compileCommand));
cl::opt<double> compileTuneBudget(
    "tune-budget",
    cl::desc("Seconds of kernel tuning on the GPU at most (default 300; 0: never measure, the "
             "timing cache then the cost model decide)"),
    cl::value_desc("SECONDS"), cl::init(300), cl::sub(compileCommand));
cl::opt<std::string> compileTimingCache(
    "timing-cache",
    cl::desc("The timing cache file (default $KILN_CACHE_DIR/timing-cache.json, else "
             "$XDG_CACHE_HOME/kiln/..., else ~/.cache/kiln/...)"),
    cl::value_desc("FILE"), cl::sub(compileCommand));
cl::opt<bool> compileNoTimingCache("no-timing-cache",
                                   cl::desc("Neither read nor write a timing cache"),
                                   cl::sub(compileCommand));
cl::opt<std::string> runModelPath(cl::Positional, cl::Required, cl::desc("<MODEL.kiln|MODEL.onnx>"),
                                  cl::sub(runCommand));
cl::list<std::string> runInputs("input",
                                cl::desc("An input: NAME=FILE (.npy or ONNX TensorProto .pb), or "
                                         "FILE for the next input in order"),
                                cl::value_desc("NAME=FILE"), cl::sub(runCommand));
cl::list<std::string> runInputsDir("inputs-dir",
                                   cl::desc("Folder of inputs: input_K.pb (an ONNX test case) "
                                            "or NAME.npy. Several: one run each, of one "
                                            "compilation for a profile (--min-shapes ...) or "
                                            "of a dynamic engine; outputs in --output-dir/<N>"),
                                   cl::value_desc("DIR"), cl::sub(runCommand));
cl::list<std::string> runExpects("expect",
                                 cl::desc("An expected output: NAME=FILE, or FILE for the next "
                                          "output in order"),
                                 cl::value_desc("NAME=FILE"), cl::sub(runCommand));
cl::opt<std::string> runExpectDir("expect-dir",
                                  cl::desc("Folder of expected outputs: output_K.pb or "
                                           "NAME.npy; outputs are compared, exit 1 on mismatch"),
                                  cl::value_desc("DIR"), cl::sub(runCommand));
cl::opt<double> runRtol("rtol", cl::desc("Relative tolerance of the comparison"), cl::init(1e-4),
                        cl::sub(runCommand));
cl::opt<double> runAtol("atol", cl::desc("Absolute tolerance of the comparison"), cl::init(1e-5),
                        cl::sub(runCommand));
cl::opt<std::string> runOutputDir("output-dir",
                                  cl::desc("Write each output as <output name>.npy there"),
                                  cl::value_desc("DIR"), cl::sub(runCommand));
cl::opt<std::string> runDevice("device",
                               cl::desc("Where to run: cpu (the host; the default for ONNX "
                                        "models) or cuda (the GPU; the default for engines)"),
                               cl::value_desc("cpu|cuda"), cl::sub(runCommand));
cl::opt<bool> runQuiet("quiet", cl::desc("No progress lines on stderr"), cl::sub(runCommand));
cl::opt<bool> runChannelsLast("channels-last",
                              cl::desc("ONNX models: make 2-D convolutions channels last "
                                       "(graph-convert-layout), as kiln compile --channels-last "
                                       "(the same default on cuda; off on cpu)"),
                              cl::sub(runCommand));
cl::opt<bool> runTf32("tf32",
                      cl::desc("ONNX models on cuda: TF32 for f32 products and convolutions, as "
                               "kiln compile --tf32 (~1e-3 relative error; off by default)"),
                      cl::sub(runCommand));
cl::opt<bool> runFp16("fp16",
                      cl::desc("ONNX models: compute in f16 where accuracy allows, as kiln "
                               "compile --fp16"),
                      cl::sub(runCommand));
cl::opt<bool> runFoldLayerNorms(
    "fold-layer-norms",
    cl::desc("For kernel developers: graph-fold-layer-norm-into-products on or off (default: "
             "on for --device cuda, off for the CPU)"),
    cl::Hidden, cl::sub(runCommand));
cl::opt<bool> runBf16("bf16", cl::desc("ONNX models: as --fp16, in bf16"), cl::sub(runCommand));
cl::opt<bool> runInt8("int8",
                      cl::desc("ONNX models: INT8 post-training quantization, as kiln compile "
                               "--int8"),
                      cl::sub(runCommand));
cl::opt<std::string> runCalib("calib", cl::desc("With --int8: calibration data, as kiln compile"),
                              cl::value_desc("DIR"), cl::sub(runCommand));
cl::opt<std::string> runCalibMethod("calib-method",
                                    cl::desc("With --int8: minmax (default), entropy or "
                                             "percentile"),
                                    cl::value_desc("method"), cl::init("minmax"),
                                    cl::sub(runCommand));
cl::opt<double> runCalibPercentile("calib-percentile",
                                   cl::desc("With --calib-method percentile (default 99.99)"),
                                   cl::value_desc("P"), cl::init(99.99), cl::sub(runCommand));
cl::opt<std::string> runCalibCache("calib-cache",
                                   cl::desc("With --int8: a calibration cache, as kiln compile"),
                                   cl::value_desc("FILE"), cl::sub(runCommand));
cl::opt<bool> runInt8Sensitivity("int8-sensitivity",
                                 cl::desc("With --int8: each layer's SQNR alone, as kiln compile"),
                                 cl::sub(runCommand));
cl::opt<std::string> runMinShapes("min-shapes",
                                  cl::desc("An ONNX model: compile for this profile's range "
                                           "(with --opt-shapes and --max-shapes, as kiln "
                                           "compile) instead of for the inputs' shapes"),
                                  cl::value_desc("name:AxB,..."), cl::sub(runCommand));
cl::opt<std::string> runOptShapes("opt-shapes", cl::desc("The profile's shapes to tune for"),
                                  cl::value_desc("name:AxB,..."), cl::sub(runCommand));
cl::opt<std::string> runMaxShapes("max-shapes", cl::desc("The profile's largest shapes"),
                                  cl::value_desc("name:AxB,..."), cl::sub(runCommand));
cl::opt<double> runInt8MinSqnr("int8-min-sqnr",
                               cl::desc("With --int8: layers below this many dB stay in floats, "
                                        "as kiln compile"),
                               cl::value_desc("dB"), cl::init(0), cl::sub(runCommand));
cl::opt<std::string> benchModel(cl::Positional, cl::Required, cl::desc("<MODEL.kiln>"),
                                cl::sub(benchCommand));
cl::opt<int> benchWarmup("warmup", cl::desc("Untimed runs before timing (default 10)"),
                         cl::value_desc("N"), cl::init(10), cl::sub(benchCommand));
cl::opt<int> benchIterations("iterations", cl::desc("Timed runs (default 100)"),
                             cl::value_desc("N"), cl::init(100), cl::sub(benchCommand));
cl::opt<double> benchDuration("duration",
                              cl::desc("After --iterations, keep timing until the timed runs "
                                       "add up to this many seconds (default 0)"),
                              cl::value_desc("seconds"), cl::init(0), cl::sub(benchCommand));
cl::opt<std::string> benchJson("json", cl::desc("Also write the results as JSON to FILE"),
                               cl::value_desc("FILE"), cl::sub(benchCommand));
cl::opt<bool> benchNoGraph("no-graph",
                           cl::desc("Launch the schedule step by step instead of replaying a "
                                    "CUDA graph"),
                           cl::sub(benchCommand));
cl::opt<bool> benchProfile("profile",
                           cl::desc("Also time each step (kernel, copy) over --iterations runs "
                                    "of stream launches and list them, slowest first"),
                           cl::sub(benchCommand));
cl::opt<std::string> benchShapes("shapes",
                                 cl::desc("Input shapes of a dynamic engine, in its profile "
                                          "(trtexec's --shapes; others run at the opt shape)"),
                                 cl::value_desc("name:AxB,..."), cl::sub(benchCommand));
cl::list<std::string> benchInputs("input",
                                  cl::desc("An input from a file (.npy or ONNX TensorProto "
                                           ".pb) instead of random values; a dynamic input "
                                           "not in --shapes runs at the file's shape"),
                                  cl::value_desc("NAME=FILE"), cl::sub(benchCommand));
cl::opt<uint64_t> benchSeed("seed", cl::desc("Seed of the random inputs (default 1)"), cl::init(1),
                            cl::sub(benchCommand));
cl::opt<std::string> inspectEngineFile(cl::Positional, cl::Required, cl::desc("<MODEL.kiln>"),
                                       cl::sub(inspectCommand));
cl::opt<bool> inspectJson("json", cl::desc("Print one JSON object (for scripts)"),
                          cl::sub(inspectCommand));
cl::opt<std::string> inspectDumpKernels("dump-kernels",
                                        cl::desc("Write each module's .ptx and .cubin to DIR"),
                                        cl::value_desc("DIR"), cl::sub(inspectCommand));

} // namespace

/// Prints diagnostics as "FILE: error: message", one line each: the file comes from the
/// location, and ONNX node names are already part of the importer's messages.
void kiln::tool::printDiagnostic(mlir::Diagnostic &diagnostic) {
  std::string file;
  diagnostic.getLocation()->walk([&](mlir::Location loc) {
    if (auto fileLoc = llvm::dyn_cast<mlir::FileLineColLoc>(loc)) {
      file = fileLoc.getFilename().str();
      if (fileLoc.getLine() > 0)
        file += llvm::formatv(":{0}:{1}", fileLoc.getLine(), fileLoc.getColumn()).str();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  raw_ostream &os = errs();
  os << (file.empty() ? "kiln" : file) << ": ";
  switch (diagnostic.getSeverity()) {
  case mlir::DiagnosticSeverity::Error:
    WithColor(os, HighlightColor::Error) << "error: ";
    break;
  case mlir::DiagnosticSeverity::Warning:
    WithColor(os, HighlightColor::Warning) << "warning: ";
    break;
  default:
    WithColor(os, HighlightColor::Note) << "note: ";
    break;
  }
  os << diagnostic.str() << "\n";
  for (mlir::Diagnostic &note : diagnostic.getNotes())
    printDiagnostic(note);
}

namespace {

using kiln::tool::printDiagnostic;

/// The --calib* options (kiln compile and kiln run share them); nullopt, with the error
/// printed, for an unknown method.
std::optional<kiln::CalibrationOptions>
makeCalibrationOptions(StringRef dataDir, StringRef method, double percentile, StringRef cachePath,
                       bool sensitivityReport, double minLayerSqnr) {
  std::optional<kiln::quant::CalibrationMethod> parsed =
      kiln::quant::parseCalibrationMethod(method);
  if (!parsed) {
    WithColor::error(errs(), "kiln") << "--calib-method must be minmax, entropy or percentile\n";
    return std::nullopt;
  }
  kiln::CalibrationOptions options;
  options.dataDir = dataDir.str();
  options.method = *parsed;
  options.percentile = percentile;
  options.cachePath = cachePath.str();
  if (minLayerSqnr < 0) {
    WithColor::error(errs(), "kiln") << "--int8-min-sqnr must be 0 or more dB\n";
    return std::nullopt;
  }
  if ((sensitivityReport || minLayerSqnr > 0) && dataDir.empty()) {
    WithColor::error(errs(), "kiln")
        << "--int8-sensitivity and --int8-min-sqnr measure on calibration data: give --calib\n";
    return std::nullopt;
  }
  options.sensitivityReport = sensitivityReport;
  options.minLayerSqnr = minLayerSqnr;
  return options;
}

/// Whether graph-convert-layout makes convolutions channels last: as `flag` says where it
/// is given, else on a GPU wherever the tensor-core convolutions take them (they read
/// NHWC: f16/bf16, int8 or tf32 operands); fp32's generic convolution loops are faster
/// channels first, and so is the CPU path.
static bool channelsLastFor(const cl::opt<bool> &flag, bool gpu, StringRef precision, bool int8,
                            bool tf32) {
  if (flag.getNumOccurrences())
    return flag;
  return gpu && (precision != "fp32" || int8 || tf32);
}

int runCompile() {
  std::optional<kiln::Stage> stage = kiln::parseStage(compileTo);
  if (!stage) {
    WithColor::error(errs(), "kiln")
        << "unknown stage '" << compileTo
        << "' for --compile-to; one of graph, linalg, llvm, kernel, gpu, engine\n";
    return 1;
  }
  mlir::DialectRegistry registry;
  kiln::registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler handler(&context, [](mlir::Diagnostic &diagnostic) {
    printDiagnostic(diagnostic);
    return mlir::success();
  });
  kiln::CompileOptions options;
  options.modelPath = compileModel;
  options.outputPath = compileOutput;
  options.compileTo = *stage;
  options.target = compileTarget;
  options.shapes = compileShapes;
  options.minShapes = compileMinShapes;
  options.optShapes = compileOptShapes;
  options.maxShapes = compileMaxShapes;
  options.emitBytecode = compileBytecode;
  options.quiet = compileQuiet;
  options.report = compileReport;
  options.gemmConfig = compileGemmConfig;
  options.attentionConfig = compileAttentionConfig;
  options.attentionF32Exp = compileAttentionF32Exp;
  if (compileFoldLayerNorms.getNumOccurrences())
    options.foldLayerNorms = compileFoldLayerNorms;
  if (compileAttentionMinCtas < 0 || compileAttentionMinCtas > 16) {
    WithColor::error(errs(), "kiln") << "--attention-min-ctas must be 0 to 16\n";
    return 1;
  }
  options.attentionMinCtas = compileAttentionMinCtas;
  options.allowTf32 = compileTf32;
  if (compileFp16 && compileBf16) {
    WithColor::error(errs(), "kiln") << "--fp16 and --bf16 exclude each other\n";
    return 1;
  }
  options.precision = compileFp16 ? "fp16" : compileBf16 ? "bf16" : "fp32";
  if ((compileReducedIO || compilePrecisionReport) && options.precision == "fp32") {
    WithColor::error(errs(), "kiln") << (compileReducedIO ? "--reduced-io" : "--precision-report")
                                     << " needs --fp16 or --bf16\n";
    return 1;
  }
  options.reducedIO = compileReducedIO;
  options.int8 = compileInt8;
  options.channelsLast = channelsLastFor(compileChannelsLast, /*gpu=*/true, options.precision,
                                         options.int8, options.allowTf32);
  std::optional<kiln::CalibrationOptions> calibration =
      makeCalibrationOptions(compileCalib, compileCalibMethod, compileCalibPercentile,
                             compileCalibCache, compileInt8Sensitivity, compileInt8MinSqnr);
  if (!calibration)
    return 1;
  options.calibration = *calibration;
  options.precisionReport = compilePrecisionReport;
  if (compileTuneBudget < 0) {
    WithColor::error(errs(), "kiln") << "--tune-budget must be 0 or more seconds\n";
    return 1;
  }
  if (compileNoTimingCache && !compileTimingCache.empty()) {
    WithColor::error(errs(), "kiln") << "--timing-cache and --no-timing-cache conflict\n";
    return 1;
  }
  options.tuneBudget = compileTuneBudget;
  options.timingCache = compileTimingCache;
  options.noTimingCache = compileNoTimingCache;
  options.makeTimer = [](const kiln::TemplateOptions &templates, std::string &why) {
    return kiln::GpuKernelTimer::create(templates, why);
  };
  options.configurePassManager = kiln::tool::configurePassManager;
  return mlir::failed(kiln::compile(context, options)) ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  kiln::cpu::registerHostConstantEvaluator();
  kiln::tool::registerPassManagerOptions({&compileCommand, &runCommand});
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "kiln (Kiln " KILN_VERSION_STRING ", LLVM/MLIR " KILN_LLVM_VERSION_STRING ")\n";
  });
  if (!cl::ParseCommandLineOptions(argc, argv, "Kiln: compile ONNX models for NVIDIA GPUs\n",
                                   &errs()))
    return 1;

  if (compileCommand)
    return runCompile();
  if (runCommand) {
    kiln::tool::RunOptions options;
    options.model = runModelPath;
    options.inputs = runInputs;
    options.inputsDirs = runInputsDir;
    options.inputsDir = runInputsDir.empty() ? std::string() : runInputsDir.front();
    options.expects = runExpects;
    options.expectDir = runExpectDir;
    options.outputDir = runOutputDir;
    options.device = runDevice.getNumOccurrences() ? runDevice : std::string();
    options.rtol = runRtol;
    options.atol = runAtol;
    options.quiet = runQuiet;
    options.allowTf32 = runTf32;
    if (runFoldLayerNorms.getNumOccurrences())
      options.foldLayerNorms = runFoldLayerNorms;
    if (runFp16 && runBf16) {
      WithColor::error(errs(), "kiln") << "--fp16 and --bf16 exclude each other\n";
      return 2;
    }
    options.precision = runFp16 ? "fp16" : runBf16 ? "bf16" : "fp32";
    options.int8 = runInt8;
    // ONNX models run on the CPU unless --device cuda says otherwise.
    options.channelsLast = channelsLastFor(runChannelsLast, /*gpu=*/runDevice == "cuda",
                                           options.precision, options.int8, options.allowTf32);
    options.minShapes = runMinShapes;
    options.optShapes = runOptShapes;
    options.maxShapes = runMaxShapes;
    std::optional<kiln::CalibrationOptions> calibration =
        makeCalibrationOptions(runCalib, runCalibMethod, runCalibPercentile, runCalibCache,
                               runInt8Sensitivity, runInt8MinSqnr);
    if (!calibration)
      return 2;
    options.calibration = *calibration;
    return kiln::tool::runModel(options);
  }
  if (benchCommand) {
    kiln::tool::BenchOptions options;
    options.model = benchModel;
    options.warmup = benchWarmup;
    options.iterations = benchIterations;
    options.durationSeconds = benchDuration;
    options.jsonFile = benchJson;
    options.useGraph = !benchNoGraph;
    options.seed = benchSeed;
    options.profile = benchProfile;
    options.shapes = benchShapes;
    options.inputs = benchInputs;
    return kiln::tool::benchEngine(options);
  }
  if (inspectCommand) {
    kiln::tool::InspectOptions options;
    options.engine = inspectEngineFile;
    options.json = inspectJson;
    options.dumpKernelsDir = inspectDumpKernels;
    return kiln::tool::inspectEngine(options);
  }

  WithColor::error(errs(), "kiln") << "no command given; one of compile, run, bench, inspect "
                                      "(see kiln --help)\n";
  return 1;
}
