// RUN: kiln-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(gpu-expand-arith))' | FileCheck %s
// RUN: kiln-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(gpu-expand-arith))' \
// RUN:   | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-lower-gpu-device \
// RUN:   | kiln-translate --split-input-file --emit-ptx | FileCheck --check-prefix=PTX %s

// Division rounding up or down and bf16 conversions have no NVPTX lowering: they become
// integer arithmetic. Float min and max stay as they are, each one PTX instruction
// (the NaN-propagating ones max.NaN / min.NaN), where a compare and a select would take
// two or three.
// CHECK-LABEL: gpu.func @epilogue
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.floordivsi
// CHECK: arith.divsi
// CHECK: %[[RELU:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: %[[LOW:.*]] = arith.maxnumf %[[RELU]], %{{.*}} : f32
// CHECK: %[[HIGH:.*]] = arith.minnumf %[[LOW]], %{{.*}} : f32
// CHECK: arith.minimumf %[[HIGH]], %{{.*}} : f32
// CHECK-NOT: arith.extf {{.*}} : bf16 to f32
// CHECK: arith.bitcast {{.*}} : f32 to i32
// (maxnumf and minnumf go through libdevice's fmaxf and fminf, max.f32 and min.f32 once
// it is linked.)
// PTX-LABEL: .visible .entry epilogue(
// PTX-NOT: setp.{{[a-z]+}}.f32
// PTX: max.NaN.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f00000000;
// PTX-NOT: setp.{{[a-z]+}}.f32
// PTX: min.NaN.f32
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  gpu.func @epilogue(%x: f32, %low: f32, %high: f32, %cap: f32, %a: i32, %b: i32, %h: bf16,
                     %out: memref<4xf32>, %indices: memref<2xi32>, %halves: memref<1xbf16>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %up = arith.ceildivsi %a, %b : i32
    %down = arith.floordivsi %a, %b : i32
    %relu = arith.maximumf %x, %zero : f32
    %raised = arith.maxnumf %relu, %low : f32
    %clamped = arith.minnumf %raised, %high : f32
    %capped = arith.minimumf %clamped, %cap : f32
    %wide = arith.extf %h : bf16 to f32
    %sum = arith.addf %capped, %wide : f32
    %narrow = arith.truncf %sum : f32 to bf16
    memref.store %sum, %out[%c0] : memref<4xf32>
    memref.store %up, %indices[%c0] : memref<2xi32>
    memref.store %down, %indices[%c1] : memref<2xi32>
    memref.store %narrow, %halves[%c0] : memref<1xbf16>
    gpu.return
  }
}
