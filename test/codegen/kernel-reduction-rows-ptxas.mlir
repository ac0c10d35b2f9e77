// The row kernels assemble for sm_80 and sm_90a without spills: a masked f16 softmax of
// 512 a row (a warp, two 8-wide vectors a lane and thread), a residual + LayerNorm of 768
// f32 (a warp, 24 elements a thread in registers), and GPT-2's 50257-wide softmax (a CTA
// of 1024 threads a row, the row in 201028 bytes of shared memory: sm_90 only, sm_80
// rereads it).
// REQUIRES: ptxas
// One PTX file holds the three gpu.modules; ptxas takes one module a file.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=rows" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t90.ptx
// RUN: awk '/^\/\/ gpu.module/ { n++ } { print > ("%t90." n ".ptx") }' %t90.ptx
// RUN: FileCheck --check-prefix=PTX %s < %t90.ptx
// RUN: %ptxas -arch=sm_90a -v %t90.1.ptx -o %t90.1.cubin > %t90.log 2>&1
// RUN: %ptxas -arch=sm_90a -v %t90.2.ptx -o %t90.2.cubin >> %t90.log 2>&1
// RUN: %ptxas -arch=sm_90a -v %t90.3.ptx -o %t90.3.cubin >> %t90.log 2>&1
// RUN: FileCheck %s < %t90.log
// RUN: FileCheck --check-prefix=SPILL %s < %t90.log
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=rows" --kernel-instantiate-templates=target=sm_80 --kiln-lower-gpu-device="chip=sm_80" %s \
// RUN:   | kiln-translate --emit-ptx -o %t80.ptx
// RUN: awk '/^\/\/ gpu.module/ { n++ } { print > ("%t80." n ".ptx") }' %t80.ptx
// RUN: %ptxas -arch=sm_80 -v %t80.1.ptx -o %t80.1.cubin > %t80.log 2>&1
// RUN: %ptxas -arch=sm_80 -v %t80.2.ptx -o %t80.2.cubin >> %t80.log 2>&1
// RUN: %ptxas -arch=sm_80 -v %t80.3.ptx -o %t80.3.cubin >> %t80.log 2>&1
// RUN: FileCheck %s < %t80.log
// RUN: FileCheck --check-prefix=SPILL %s < %t80.log
// CHECK-DAG: Compiling entry function 'rows_softmax_3072x512_{{[0-9a-f]+}}_t32r4v8'
// CHECK-DAG: Compiling entry function 'rows_layer_norm_1024x768_{{[0-9a-f]+}}_t32r4v4'
// CHECK-DAG: Compiling entry function 'rows_softmax_8x50257_{{[0-9a-f]+}}_t1024r1v1'
// The 50257-wide row sits in dynamic shared memory, which must start after the warps'
// partial results (static, 16-byte aligned: they are read four at a time).
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX: .entry rows_softmax_8x50257_
// PTX: .shared .align 16 .b8 __wg_rows_softmax_8x50257_{{.*}}[512];
// PTX: ld.shared.v4.b32 {{.*}}[__wg_rows_softmax_8x50257_
// SPILL-NOT: {{[1-9][0-9]*}} bytes spill
// SPILL-NOT: {{[1-9][0-9]*}} bytes stack frame
kernel.func @Softmax_0(%x: memref<2x12x128x512xf16>, %mask: memref<2x1x1x512xf16>, %y: memref<2x12x128x512xf16>) {
  reduction ins(%x, %mask : memref<2x12x128x512xf16>, memref<2x1x1x512xf16>) outs(%y : memref<2x12x128x512xf16>) {
  ^bb0(%a: tensor<2x12x128x512xf16>, %m: tensor<2x1x1x512xf16>):
    %scale = graph.constant dense<1.250000e-01> : tensor<f16>
    %s = graph.mul %a, %scale : (tensor<2x12x128x512xf16>, tensor<f16>) -> tensor<2x12x128x512xf16>
    %t = graph.add %s, %m : (tensor<2x12x128x512xf16>, tensor<2x1x1x512xf16>) -> tensor<2x12x128x512xf16>
    %r = graph.softmax %t {axis = -1 : i64} : (tensor<2x12x128x512xf16>) -> tensor<2x12x128x512xf16>
    kernel.yield %r : tensor<2x12x128x512xf16>
  }
  return
}
kernel.func @LayerNorm_0(%x: memref<1024x768xf32>, %r: memref<1024x768xf32>, %w: memref<768xf32>, %b: memref<768xf32>, %y: memref<1024x768xf32>) {
  reduction ins(%x, %r, %w, %b : memref<1024x768xf32>, memref<1024x768xf32>, memref<768xf32>, memref<768xf32>) outs(%y : memref<1024x768xf32>) {
  ^bb0(%a: tensor<1024x768xf32>, %c: tensor<1024x768xf32>, %s: tensor<768xf32>, %t: tensor<768xf32>):
    %sum = graph.add %a, %c : (tensor<1024x768xf32>, tensor<1024x768xf32>) -> tensor<1024x768xf32>
    %n, %mean, %inv = graph.layer_normalization %sum, %s, %t {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<1024x768xf32>, tensor<768xf32>, tensor<768xf32>) -> (tensor<1024x768xf32>, tensor<1024x1xf32>, tensor<1024x1xf32>)
    kernel.yield %n : tensor<1024x768xf32>
  }
  return
}
kernel.func @Softmax_1(%x: memref<8x50257xf32>, %y: memref<8x50257xf32>) {
  reduction ins(%x : memref<8x50257xf32>) outs(%y : memref<8x50257xf32>) {
  ^bb0(%a: tensor<8x50257xf32>):
    %r = graph.softmax %a {axis = 1 : i64} : (tensor<8x50257xf32>) -> tensor<8x50257xf32>
    kernel.yield %r : tensor<8x50257xf32>
  }
  return
}
func.func @main(%x: memref<2x12x128x512xf16>, %mask: memref<2x1x1x512xf16>, %y: memref<2x12x128x512xf16>, %a: memref<1024x768xf32>, %r: memref<1024x768xf32>, %w: memref<768xf32>, %b: memref<768xf32>, %n: memref<1024x768xf32>, %v: memref<8x50257xf32>, %p: memref<8x50257xf32>) attributes {kernel.num_inputs = 9 : i64} {
  kernel.launch @Softmax_0(%x, %mask, %y) : (memref<2x12x128x512xf16>, memref<2x1x1x512xf16>, memref<2x12x128x512xf16>) -> ()
  kernel.launch @LayerNorm_0(%a, %r, %w, %b, %n) : (memref<1024x768xf32>, memref<1024x768xf32>, memref<768xf32>, memref<768xf32>, memref<1024x768xf32>) -> ()
  kernel.launch @Softmax_1(%v, %p) : (memref<8x50257xf32>, memref<8x50257xf32>) -> ()
  return
}
