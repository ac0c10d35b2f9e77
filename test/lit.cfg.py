# lit configuration for Kiln's regression tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "Kiln"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".onnxtxt"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "unit", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")

llvm_config.use_default_substitutions()
# Kiln's tools first, then FileCheck, not and count from LLVM.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.kiln_tools_dir, append_path=True)
config.substitutions.append(("%kiln_src_root", config.kiln_src_root))
# kiln compile reads and writes a timing cache (docs/tuning.md); the tests get their own
# rather than the user's ~/.cache/kiln.
config.environment["KILN_CACHE_DIR"] = os.path.join(config.test_exec_root, "kiln-cache")
# The ONNX backend test data (Debian's libonnx-testdata, installed by scripts/setup.sh).
config.substitutions.append(("%onnx_node_tests", "/usr/share/libonnx-testdata/data/node"))

# A CUDA driver on this machine: tests of kiln run/bench on engines that need a GPU say
# `REQUIRES: cuda-driver`; their no-GPU counterparts say `UNSUPPORTED: cuda-driver`.
try:
    import ctypes

    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass

# ptxas from the CUDA toolkit assembles PTX to cubin; tests that need it say
# `REQUIRES: ptxas` and are reported unsupported where it is missing.
ptxas = os.environ.get("KILN_PTXAS") or shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# mlir-runner (Debian's mlir-22-tools) runs MLIR on the CPU: tests of a loop transformation
# compare a function's results with and without it (`REQUIRES: mlir-runner`; %mlir_run is
# the runner with its support libraries, on a module that %mlir_lower_cpu lowered to the
# LLVM dialect: scf, vector, math, memref, arith, func).
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
runner = os.path.join(config.llvm_tools_dir, "mlir-runner")
runner_libs = [os.path.join(llvm_lib_dir, name)
               for name in ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so")]
if os.access(runner, os.X_OK) and all(os.path.exists(lib) for lib in runner_libs):
    config.available_features.add("mlir-runner")
    config.substitutions.append(
        ("%mlir_run", f"{runner} -e main -entry-point-result=void -shared-libs={','.join(runner_libs)}"))
    config.substitutions.append(
        ("%mlir_lower_cpu", "mlir-opt --convert-scf-to-cf --convert-vector-to-llvm "
         "--convert-math-to-llvm --expand-strided-metadata --finalize-memref-to-llvm "
         "--convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm "
         "--reconcile-unrealized-casts"))

