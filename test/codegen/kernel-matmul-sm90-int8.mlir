// sm90_gemm on int8 products (graph-fold-quantized-products's form: i8 operands,
// i32 sums, an epilogue that rescales them to floats): the warp-specialised template with
// i8 operands, 128-byte k-tiles (128 i8), 4 wgmma m64nNk32.s32.s8.s8 a k-tile. int8 wgmma
// reads B K-major only: a constant row-major [K, N] weight becomes a transposed constant
// global (N x K, `_nxk`) made at compile time. kernel-matmul-sm90-int8-unmatched.mlir:
// what stays generic.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// BERT's ffn1 in int8: the weight transposed into @w_nxk (3072 x 768), A's boxes 128 rows
// x 128 bytes, B's 64 rows x 128 bytes; the rescale by the per-column scale, the bias,
// ReLU and the f16 result in the epilogue. 8 x 24 tiles of 128x128.
// CHECK-LABEL: memref.global "private" constant @w_nxk : memref<3072x768xi8>
// CHECK-LABEL: func.func @main
// CHECK: memref.get_global @w_nxk : memref<3072x768xi8>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c128{{.*}}] : memref<*xi8> -> <tensor = memref<128x128xi8, 3>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64, %c128{{.*}}] : memref<*xi8> -> <tensor = memref<64x128xi8, 3>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_i8_f16_bt_128x128x128_s4_ws2_i8_cast_mul_add_relu_cast_{{[0-9a-f]+}}::{{.*}} blocks in (%c192, %c1, %c1) threads in (%c384, %c1, %c1)
// PTX-LABEL: .visible .entry gemm_i8_f16_bt_128x128x128_s4_ws2_i8_cast_mul_add_relu_cast_{{[0-9a-f]+}}(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8
// PTX: wgmma.commit_group.sync.aligned;
memref.global "private" constant @w : memref<768x3072xi8> = dense<3>
memref.global "private" constant @scale : memref<3072xf32> = dense<0.002>
memref.global "private" constant @bias : memref<3072xf32> = dense<0.5>
kernel.func @ffn1(%a: memref<1024x768xi8>, %b: memref<768x3072xi8>, %s: memref<3072xf32>, %bias: memref<3072xf32>, %c: memref<1024x3072xf16>) {
  matmul ins(%a, %b, %s, %bias : memref<1024x768xi8>, memref<768x3072xi8>, memref<3072xf32>, memref<3072xf32>) outs(%c : memref<1024x3072xf16>) {
  ^bb0(%x: tensor<1024x768xi8>, %y: tensor<768x3072xi8>, %sc: tensor<3072xf32>, %z: tensor<3072xf32>):
    %p = graph.matmul %x, %y : (tensor<1024x768xi8>, tensor<768x3072xi8>) -> tensor<1024x3072xi32>
    %f = graph.cast %p {to = f32} : (tensor<1024x3072xi32>) -> tensor<1024x3072xf32>
    %m = graph.mul %f, %sc : (tensor<1024x3072xf32>, tensor<3072xf32>) -> tensor<1024x3072xf32>
    %t = graph.add %m, %z : (tensor<1024x3072xf32>, tensor<3072xf32>) -> tensor<1024x3072xf32>
    %r = graph.relu %t : tensor<1024x3072xf32>
    %h = graph.cast %r {to = f16} : (tensor<1024x3072xf32>) -> tensor<1024x3072xf16>
    kernel.yield %h : tensor<1024x3072xf16>
  }
  return
}
func.func @main(%a: memref<1024x768xi8>, %c: memref<1024x3072xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<768x3072xi8>
  %s = memref.get_global @scale : memref<3072xf32>
  %bias = memref.get_global @bias : memref<3072xf32>
  kernel.launch @ffn1(%a, %w, %s, %bias, %c) : (memref<1024x768xi8>, memref<768x3072xi8>, memref<3072xf32>, memref<3072xf32>, memref<1024x3072xf16>) -> ()
  return
}

// -----

// A classifier (ResNet-50's fc after graph-fold-quantized-products: the Gemm's weight
// already transposed to [K, N] = 2048 x 1000) read from a Flatten of the pooled i8
// features, its f32 logits rescaled per column with the bias added.
// CHECK-LABEL: memref.global "private" constant @fc_nxk : memref<1000x2048xi8>
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_i8_f32_bt_{{.*}}_i8_cast_mul_add_{{[0-9a-f]+}}
// PTX-LABEL: .visible .entry gemm_i8_f32_bt_{{.*}}_i8_cast_mul_add_{{[0-9a-f]+}}_nt(
// PTX: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.s32.s8.s8
memref.global "private" constant @fc : memref<2048x1000xi8> = dense<-2>
memref.global "private" constant @fc_scale : memref<1000xf32> = dense<0.001>
memref.global "private" constant @fc_bias : memref<1000xf32> = dense<0.25>
kernel.func @classifier(%a: memref<256x2048x1x1xi8>, %b: memref<2048x1000xi8>, %s: memref<1000xf32>, %bias: memref<1000xf32>, %c: memref<256x1000xf32>) {
  matmul ins(%a, %b, %s, %bias : memref<256x2048x1x1xi8>, memref<2048x1000xi8>, memref<1000xf32>, memref<1000xf32>) outs(%c : memref<256x1000xf32>) {
  ^bb0(%x: tensor<256x2048x1x1xi8>, %y: tensor<2048x1000xi8>, %sc: tensor<1000xf32>, %z: tensor<1000xf32>):
    %flat = graph.flatten %x {axis = 1 : i64} : (tensor<256x2048x1x1xi8>) -> tensor<256x2048xi8>
    %p = graph.matmul %flat, %y : (tensor<256x2048xi8>, tensor<2048x1000xi8>) -> tensor<256x1000xi32>
    %f = graph.cast %p {to = f32} : (tensor<256x1000xi32>) -> tensor<256x1000xf32>
    %m = graph.mul %f, %sc : (tensor<256x1000xf32>, tensor<1000xf32>) -> tensor<256x1000xf32>
    %t = graph.add %m, %z : (tensor<256x1000xf32>, tensor<1000xf32>) -> tensor<256x1000xf32>
    kernel.yield %t : tensor<256x1000xf32>
  }
  return
}
func.func @main(%a: memref<256x2048x1x1xi8>, %c: memref<256x1000xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @fc : memref<2048x1000xi8>
  %s = memref.get_global @fc_scale : memref<1000xf32>
  %bias = memref.get_global @fc_bias : memref<1000xf32>
  kernel.launch @classifier(%a, %w, %s, %bias, %c) : (memref<256x2048x1x1xi8>, memref<2048x1000xi8>, memref<1000xf32>, memref<1000xf32>, memref<256x1000xf32>) -> ()
  return
}
