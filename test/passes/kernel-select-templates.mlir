// kernel-select-templates: every kernel without a kernel.config gets the default of the
// template family that takes it (the registry's priority order), #kernel.generic when
// none does; a kernel that has one keeps it.
// RUN: kiln-opt --kernel-select-templates %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates=target=sm_80 %s | FileCheck %s --check-prefix=SM80
// RUN: kiln-opt --kernel-select-templates="templates=rows" %s | FileCheck %s --check-prefix=ROWS
// RUN: kiln-opt --kernel-select-templates="gemm-config=128x128x64_s3" %s | FileCheck %s --check-prefix=NAMED
// A named configuration that is no candidate of a kernel: the kernel takes its default, and
// a warning says so (kernel benchmarks would otherwise time the default under that name).
// RUN: kiln-opt --kernel-select-templates="gemm-config=128x128x64_s4_ws2_k7" %s 2>&1 | FileCheck %s --check-prefix=UNNAMED

// A half-precision product: the sm_90a GEMM's default (sm_80: the mma.sync GEMM's).
// CHECK-LABEL: kernel.func @gemm
// CHECK-SAME: kernel.config = #kernel.sm90_gemm<tile_m = 128,
// SM80-LABEL: kernel.func @gemm
// SM80-SAME: kernel.config = #kernel.sm80_gemm<
// Only the rows family allowed: the product goes generic.
// ROWS-LABEL: kernel.func @gemm
// ROWS-SAME: kernel.config = #kernel.generic
// A kernel developer's named configuration, where it is legal.
// NAMED-LABEL: kernel.func @gemm
// NAMED-SAME: kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, consumers = 0>
// UNNAMED: warning: gemm-config 128x128x64_s4_ws2_k7 is not a configuration of kernel @gemm; it takes 128x128x64_s4_ws2 (its configurations: 128x128x64_s4_ws2, 128x256x64_s4_ws2, {{.*}})
// UNNAMED: kernel.func @gemm({{.*}}kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>}
kernel.func @gemm(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) {
  matmul ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf16>) {
  ^bb0(%x: tensor<1024x1024xf16>, %y: tensor<1024x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<1024x1024xf16>, tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
    kernel.yield %r : tensor<1024x1024xf16>
  }
  return
}

// A softmax over rows: the rows family, on every target.
// CHECK-LABEL: kernel.func @softmax
// CHECK-SAME: kernel.config = #kernel.rows<
// SM80-LABEL: kernel.func @softmax
// SM80-SAME: kernel.config = #kernel.rows<
// ROWS-LABEL: kernel.func @softmax
// ROWS-SAME: kernel.config = #kernel.rows<
kernel.func @softmax(%x: memref<64x768xf16>, %y: memref<64x768xf16>) {
  reduction ins(%x : memref<64x768xf16>) outs(%y : memref<64x768xf16>) {
  ^bb0(%a: tensor<64x768xf16>):
    %r = graph.softmax %a {axis = -1 : i64} : (tensor<64x768xf16>) -> tensor<64x768xf16>
    kernel.yield %r : tensor<64x768xf16>
  }
  return
}

// No family takes a pointwise kernel: the generic lowering.
// CHECK-LABEL: kernel.func @relu
// CHECK-SAME: kernel.config = #kernel.generic
kernel.func @relu(%x: memref<16xf32>, %y: memref<16xf32>) {
  pointwise ins(%x : memref<16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: tensor<16xf32>):
    %r = graph.relu %a : tensor<16xf32>
    kernel.yield %r : tensor<16xf32>
  }
  return
}

// A kernel with a configuration (kernel-autotune's) keeps it.
// CHECK-LABEL: kernel.func @tuned
// CHECK-SAME: kernel.config = #kernel.generic
// CHECK-NOT: sm90_gemm
kernel.func @tuned(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) attributes {kernel.config = #kernel.generic} {
  matmul ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf16>) {
  ^bb0(%x: tensor<1024x1024xf16>, %y: tensor<1024x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<1024x1024xf16>, tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
    kernel.yield %r : tensor<1024x1024xf16>
  }
  return
}
