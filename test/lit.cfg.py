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
