// flash_attention leaves to the generic lowering the attention kernels its template
// does not cover: f32 operands, head dim 40 (not a multiple of 16), operands read through transposes other than
// the heads' split (the last two axes swapped: D would not be contiguous), a boolean mask
// that is not a compile-time constant.
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=flash_attention" --kernel-instantiate-templates=target=sm_80 %s | FileCheck %s

// CHECK-LABEL: kernel.func @f32_operands
// CHECK-LABEL: kernel.func @head_dim_40
// CHECK-LABEL: kernel.func @transposed_operands
// CHECK-LABEL: kernel.func @runtime_boolean_mask
// CHECK-NOT: gpu.module
// CHECK-COUNT-4: kernel.launch
kernel.func @f32_operands(%q: memref<2x3x128x64xf32>, %k: memref<2x3x128x64xf32>, %v: memref<2x3x128x64xf32>, %o: memref<2x3x128x64xf32>) {
  attention ins(%q, %k, %v : memref<2x3x128x64xf32>, memref<2x3x128x64xf32>, memref<2x3x128x64xf32>) outs(%o : memref<2x3x128x64xf32>) {
  ^bb0(%a: tensor<2x3x128x64xf32>, %b: tensor<2x3x128x64xf32>, %c: tensor<2x3x128x64xf32>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xf32>, tensor<2x3x128x64xf32>, tensor<2x3x128x64xf32>) -> tensor<2x3x128x64xf32>
    kernel.yield %r : tensor<2x3x128x64xf32>
  }
  return
}
kernel.func @head_dim_40(%q: memref<2x3x128x40xf16>, %k: memref<2x3x128x40xf16>, %v: memref<2x3x128x40xf16>, %o: memref<2x3x128x40xf16>) {
  attention ins(%q, %k, %v : memref<2x3x128x40xf16>, memref<2x3x128x40xf16>, memref<2x3x128x40xf16>) outs(%o : memref<2x3x128x40xf16>) {
  ^bb0(%a: tensor<2x3x128x40xf16>, %b: tensor<2x3x128x40xf16>, %c: tensor<2x3x128x40xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x40xf16>, tensor<2x3x128x40xf16>, tensor<2x3x128x40xf16>) -> tensor<2x3x128x40xf16>
    kernel.yield %r : tensor<2x3x128x40xf16>
  }
  return
}
kernel.func @transposed_operands(%q: memref<2x3x64x128xf16>, %k: memref<2x3x64x128xf16>, %v: memref<2x3x64x128xf16>, %o: memref<2x3x128x64xf16>) {
  attention ins(%q, %k, %v : memref<2x3x64x128xf16>, memref<2x3x64x128xf16>, memref<2x3x64x128xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%a: tensor<2x3x64x128xf16>, %b: tensor<2x3x64x128xf16>, %c: tensor<2x3x64x128xf16>):
    %ta = graph.transpose %a {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x3x64x128xf16>) -> tensor<2x3x128x64xf16>
    %tb = graph.transpose %b {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x3x64x128xf16>) -> tensor<2x3x128x64xf16>
    %tc = graph.transpose %c {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x3x64x128xf16>) -> tensor<2x3x128x64xf16>
    %r = graph.attention %ta, %tb, %tc {scale = 0.125 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
kernel.func @runtime_boolean_mask(%m: memref<1x1x128x128xi1>, %q: memref<2x3x128x64xf16>, %k: memref<2x3x128x64xf16>, %v: memref<2x3x128x64xf16>, %o: memref<2x3x128x64xf16>) {
  attention ins(%m, %q, %k, %v : memref<1x1x128x128xi1>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) outs(%o : memref<2x3x128x64xf16>) {
  ^bb0(%cm: tensor<1x1x128x128xi1>, %a: tensor<2x3x128x64xf16>, %b: tensor<2x3x128x64xf16>, %c: tensor<2x3x128x64xf16>):
    %zero = graph.constant dense<0.000000e+00> : tensor<f16>
    %ninf = graph.constant dense<0xFC00> : tensor<f16>
    %mask = graph.where %cm, %zero, %ninf : (tensor<1x1x128x128xi1>, tensor<f16>, tensor<f16>) -> tensor<1x1x128x128xf16>
    %r = graph.attention %a, %b, %c, %mask {scale = 1.250000e-01 : f32} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<1x1x128x128xf16>) -> tensor<2x3x128x64xf16>
    kernel.yield %r : tensor<2x3x128x64xf16>
  }
  return
}
func.func @main(%q32: memref<2x3x128x64xf32>, %q16: memref<2x3x128x40xf16>, %qt: memref<2x3x64x128xf16>, %m: memref<1x1x128x128xi1>, %q: memref<2x3x128x64xf16>, %o32: memref<2x3x128x64xf32>, %o16: memref<2x3x128x40xf16>, %o: memref<2x3x128x64xf16>) {
  kernel.launch @f32_operands(%q32, %q32, %q32, %o32) : (memref<2x3x128x64xf32>, memref<2x3x128x64xf32>, memref<2x3x128x64xf32>, memref<2x3x128x64xf32>) -> ()
  kernel.launch @head_dim_40(%q16, %q16, %q16, %o16) : (memref<2x3x128x40xf16>, memref<2x3x128x40xf16>, memref<2x3x128x40xf16>, memref<2x3x128x40xf16>) -> ()
  kernel.launch @transposed_operands(%qt, %qt, %qt, %o) : (memref<2x3x64x128xf16>, memref<2x3x64x128xf16>, memref<2x3x64x128xf16>, memref<2x3x128x64xf16>) -> ()
  kernel.launch @runtime_boolean_mask(%m, %q, %q, %q, %o) : (memref<1x1x128x128xi1>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>, memref<2x3x128x64xf16>) -> ()
  return
}
