// Two CTAs an SM for a bottleneck's last 1x1 convolution (ResNet-50's layer1: K = 64,
// N = 256, an i8 skip connection added before the requantization): the 128x64 persistent
// configuration with 64-byte k-tiles brings the residual tile through shared memory.
// An i8 product's epilogue stages only its i8 results (128 rows of 64 + 16 bytes), not
// the f32 staging of C, so the CTA's 73728-byte ring (6 stages of 128 + 64 rows of 64
// bytes), 10240 bytes of staging, two residual slots of 128 x 80 bytes and 2048 bytes of
// alignment slack (106496 bytes) fit half of an SM's shared memory.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv gemm-config=128x64x64_s6_ws2_p_c2_i8" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv gemm-config=128x64x64_s6_ws2_p_c2_i8" --kernel-instantiate-templates=target=sm_90a \
// RUN:   --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// CHECK-LABEL: func.func @main
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c64{{.*}}] : memref<*xi8> -> <tensor = memref<128x64xi8, 3>, swizzle = swizzle_64b
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_i8_i8_bt_128x64x64_s6_ws2_p_c2_i8_cast_mul_cast_mul_add_relu_div_round_clip_cast_{{[0-9a-f]+}}_r_sb::
// CHECK-SAME: blocks in (%c264, {{.*}} threads in (%c288, {{.*}} dynamic_shared_memory_size %c106496_i32
// CHECK-SAME: !nvgpu.tensormap.descriptor<tensor = memref<128x80xi8, 3>, swizzle = none
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

memref.global "private" constant @w1 : memref<256x1x1x64xi8> = dense<5>
memref.global "private" constant @scale1 : memref<256xf32> = dense<0.003>
kernel.func @Conv_2(%x: memref<64x56x56x64xi8>, %w: memref<256x1x1x64xi8>, %s: memref<256xf32>, %skip: memref<64x56x56x256xi8>, %y: memref<64x56x56x256xi8>) {
  conv ins(%x, %w, %s, %skip : memref<64x56x56x64xi8>, memref<256x1x1x64xi8>, memref<256xf32>, memref<64x56x56x256xi8>) outs(%y : memref<64x56x56x256xi8>) {
  ^bb0(%a: tensor<64x56x56x64xi8>, %k: tensor<256x1x1x64xi8>, %sc: tensor<256xf32>, %sk: tensor<64x56x56x256xi8>):
    %skipScale = graph.constant dense<0.04> : tensor<f32>
    %step = graph.constant dense<0.05> : tensor<f32>
    %lo = graph.constant dense<-128.0> : tensor<f32>
    %hi = graph.constant dense<127.0> : tensor<f32>
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<64x56x56x64xi8>, tensor<256x1x1x64xi8>) -> tensor<64x56x56x256xi32>
    %f = graph.cast %acc {to = f32} : (tensor<64x56x56x256xi32>) -> tensor<64x56x56x256xf32>
    %m = graph.mul %f, %sc : (tensor<64x56x56x256xf32>, tensor<256xf32>) -> tensor<64x56x56x256xf32>
    %sf = graph.cast %sk {to = f32} : (tensor<64x56x56x256xi8>) -> tensor<64x56x56x256xf32>
    %sd = graph.mul %sf, %skipScale : (tensor<64x56x56x256xf32>, tensor<f32>) -> tensor<64x56x56x256xf32>
    %p = graph.add %m, %sd : (tensor<64x56x56x256xf32>, tensor<64x56x56x256xf32>) -> tensor<64x56x56x256xf32>
    %r = graph.relu %p : tensor<64x56x56x256xf32>
    %d = graph.div %r, %step : (tensor<64x56x56x256xf32>, tensor<f32>) -> tensor<64x56x56x256xf32>
    %n = graph.round %d : tensor<64x56x56x256xf32>
    %c = graph.clip %n min %lo max %hi : (tensor<64x56x56x256xf32>, tensor<f32>, tensor<f32>) -> tensor<64x56x56x256xf32>
    %q = graph.cast %c {to = i8} : (tensor<64x56x56x256xf32>) -> tensor<64x56x56x256xi8>
    kernel.yield %q : tensor<64x56x56x256xi8>
  }
  return
}
func.func @main(%x: memref<64x56x56x64xi8>, %skip: memref<64x56x56x256xi8>, %y: memref<64x56x56x256xi8>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @w1 : memref<256x1x1x64xi8>
  %s = memref.get_global @scale1 : memref<256xf32>
  kernel.launch @Conv_2(%x, %w, %s, %skip, %y) : (memref<64x56x56x64xi8>, memref<256x1x1x64xi8>, memref<256xf32>, memref<64x56x56x256xi8>, memref<64x56x56x256xi8>) -> ()
  return
}


