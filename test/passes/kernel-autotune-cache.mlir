// kernel-autotune and its timing cache. A first run leaves each kernel's signature in
// kernel.tuning; Inputs/timing-cache.py writes a cache for it, in which the generic
// lowering is faster than the sm90 template (the cost model says the opposite).
// RUN: kiln-opt --kernel-autotune %s -o %t.first.mlir
// RUN: /usr/bin/python3 %S/Inputs/timing-cache.py %t.first.mlir %t.generic.json \
// RUN:   '#kernel.generic=5' \
// RUN:   '#kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, consumers = 0>=50'
// RUN: kiln-opt --kernel-autotune="timing-cache=%t.generic.json" %s | FileCheck %s --check-prefix=CACHED
// CACHED: kernel.config = #kernel.generic
// CACHED-SAME: kernel.tuning = {micros = 5.000000e+00 : f64, signature = "{{[0-9a-f]+}}", source = "cache"}

// A compile without a GPU reads what any driver measured on the target's GPU (an H200
// for sm_90a); another GPU's times do not count: the cost model decides.
// RUN: /usr/bin/python3 %S/Inputs/timing-cache.py %t.first.mlir %t.driver.json --driver 12345 \
// RUN:   '#kernel.generic=5'
// RUN: kiln-opt --kernel-autotune="timing-cache=%t.driver.json" %s | FileCheck %s --check-prefix=CACHED
// RUN: /usr/bin/python3 %S/Inputs/timing-cache.py %t.first.mlir %t.a100.json \
// RUN:   --gpu 'sm_80 NVIDIA A100-SXM4-80GB' '#kernel.generic=5'
// RUN: kiln-opt --kernel-autotune="timing-cache=%t.a100.json" %s | FileCheck %s --check-prefix=MODEL
// MODEL: kernel.config = #kernel.sm90_gemm<{{.*}}consumers = 2
// MODEL-SAME: source = "cost-model"

// A corrupt file, or one of another version, is a warning naming it; then ignored.
// RUN: echo '{"format": "kiln-timing-cache", "version": 1, "entries": [' > %t.corrupt.json
// RUN: kiln-opt --kernel-autotune="timing-cache=%t.corrupt.json" %s 2>%t.corrupt.err | FileCheck %s --check-prefix=MODEL
// RUN: FileCheck %s --check-prefix=CORRUPT < %t.corrupt.err
// CORRUPT: warning: timing cache '{{.*}}corrupt.json': not valid JSON ({{.*}}); ignored
// RUN: echo '{"format": "kiln-timing-cache", "version": 99, "entries": []}' > %t.v99.json
// RUN: kiln-opt --kernel-autotune="timing-cache=%t.v99.json" %s 2>%t.v99.err | FileCheck %s --check-prefix=MODEL
// RUN: FileCheck %s --check-prefix=V99 < %t.v99.err
// V99: warning: timing cache '{{.*}}v99.json': version 99, this compiler reads version 1; ignored
// RUN: echo '[1, 2]' > %t.foreign.json
// RUN: kiln-opt --kernel-autotune="timing-cache=%t.foreign.json" %s 2>%t.foreign.err | FileCheck %s --check-prefix=MODEL
// RUN: FileCheck %s --check-prefix=FOREIGN < %t.foreign.err
// FOREIGN: warning: timing cache '{{.*}}foreign.json': not a Kiln timing cache (not a JSON object); ignored

// A cached configuration the kernel does not have (any more) is ignored with a warning;
// the legal ones still count.
// RUN: /usr/bin/python3 %S/Inputs/timing-cache.py %t.first.mlir %t.illegal.json \
// RUN:   '#kernel.sm90_gemm<tile_m = 128, tile_n = 512, tile_k = 64, stages = 3, consumers = 0>=1' \
// RUN:   '#kernel.generic=5'
// RUN: kiln-opt --kernel-autotune="timing-cache=%t.illegal.json" %s 2>%t.illegal.err | FileCheck %s --check-prefix=CACHED
// RUN: FileCheck %s --check-prefix=ILLEGAL < %t.illegal.err
// ILLEGAL: warning: timing cache '{{.*}}illegal.json': #kernel.sm90_gemm<{{.*}}tile_n = 512{{.*}}> is not a configuration of this kernel; ignored

// A missing file is an empty cache, silently; kiln-opt has no timer, so it writes nothing.
// RUN: rm -f %t.missing.json
// RUN: kiln-opt --kernel-autotune="timing-cache=%t.missing.json" %s 2>&1 | FileCheck %s --check-prefix=MODEL --implicit-check-not=warning
// RUN: not test -e %t.missing.json

kernel.func @gemm(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) {
  matmul ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf16>) {
  ^bb0(%x: tensor<1024x1024xf16>, %y: tensor<1024x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<1024x1024xf16>, tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
    kernel.yield %r : tensor<1024x1024xf16>
  }
  return
}
