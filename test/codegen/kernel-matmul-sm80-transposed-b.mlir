// sm80_gemm with a K-major B (a graph.gemm with trans_b, a classifier's weight): the
// mma.sync template reads a row-major B, so the constant weight is transposed at compile
// time into a new constant global (`<name>_kxn`, K x N) that the launch reads. B[n, k] =
// 8 n + k here; the copy holds B[n, k] at row k, column n (f16 bytes, little-endian).
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=sm80_gemm" --kernel-instantiate-templates=target=sm_80 %s | FileCheck %s
// CHECK: memref.global "private" constant @w_kxn : memref<8x8xf16> = dense_resource<w_kxn>
// CHECK-LABEL: func.func @main
// CHECK: %[[T:.*]] = memref.get_global @w_kxn : memref<8x8xf16>
// CHECK: %[[TB:.*]] = memref.reinterpret_cast %[[T]]
// CHECK: gpu.launch_func {{.*}}@gemm_f16_f16_{{.*}} args(%{{.*}} : memref<f16>, %[[TB]] : memref<f16>
// CHECK: w_kxn: "0x{{0[0-9]}}00000000000048004C004E0050005100520053003C8048404C404E205020512052205300400049804C804E405040514052405300428049C04CC04E60506051605260530044004A004D004F80508051805280530045804A404D404FA050A051A052A0530046004B804D804FC050C051C052C0530047804BC04DC04FE050E051E052E053"
memref.global "private" constant @w : memref<8x8xf16> = dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0], [32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0], [40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0], [48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0], [56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]]>
kernel.func @Gemm_0(%a: memref<256x8xf16>, %b: memref<8x8xf16>, %c: memref<256x8xf16>) {
  matmul ins(%a, %b : memref<256x8xf16>, memref<8x8xf16>) outs(%c : memref<256x8xf16>) {
  ^bb0(%x: tensor<256x8xf16>, %y: tensor<8x8xf16>):
    %r = graph.gemm %x, %y {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<256x8xf16>, tensor<8x8xf16>) -> tensor<256x8xf16>
    kernel.yield %r : tensor<256x8xf16>
  }
  return
}
func.func @main(%a: memref<256x8xf16>, %c: memref<256x8xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<8x8xf16>
  kernel.launch @Gemm_0(%a, %w, %c) : (memref<256x8xf16>, memref<8x8xf16>, memref<256x8xf16>) -> ()
  return
}
