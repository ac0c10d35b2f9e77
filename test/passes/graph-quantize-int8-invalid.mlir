// RUN: not kiln-opt %s --pass-pipeline='builtin.module(func.func(graph-quantize-int8{calibration-cache=%t.does-not-exist.json}))' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(func.func(graph-quantize-int8{calibration-cache=%s}))' 2>&1 | FileCheck %s --check-prefix=NOT-JSON

// A cache that is missing, or not a calibration cache, is an error naming the file.
// MISSING: error: graph-quantize-int8: {{.*}}does-not-exist.json: cannot read the calibration cache
// NOT-JSON: error: graph-quantize-int8: {{.*}}graph-quantize-int8-invalid.mlir: not a calibration cache: invalid JSON
func.func @no_cache(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
