// gpu-approximate-erf: the kernels' erf as x P(x^2) / Q(x^2) on x clamped to [-3.9, 3.9]
// (P and Q of degree 5), the quotient clamped to [-1, 1]: no branch, no libdevice call.
// RUN: kiln-opt --gpu-approximate-erf %s -split-input-file | FileCheck %s
// The values, folded in f32 (the division exact here, approximate on the GPU): within
// 3e-8 of erf's (NumPy, float64: 0.0112834156, -0.5204998778, 0.8427007929,
// 0.9953222650, -0.9999779095, 0.9999999652, 1), and NaN stays NaN.
// RUN: kiln-opt --gpu-approximate-erf --canonicalize %s -split-input-file | FileCheck %s --check-prefix=VALUES

// CHECK-LABEL: func.func @scalar
// CHECK-NOT: math.erf
// CHECK: arith.maximumf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.minimumf
// CHECK: %[[SQUARE:.*]] = arith.mulf %[[X:.*]], %[[X]] : f32
// CHECK-COUNT-5: math.fma {{.*}} : f32
// CHECK: %[[NUMERATOR:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK-COUNT-5: math.fma {{.*}} : f32
// CHECK: arith.divf %[[NUMERATOR]], %{{.*}} fastmath<afn> : f32
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK-NOT: math.erf
gpu.module @kernels {
  func.func @scalar(%x: f32) -> f32 {
    %e = math.erf %x : f32
    return %e : f32
  }
}

// -----

// f16 (and bf16) on f32, rounded once; f64 is left to libdevice.
// CHECK-LABEL: func.func @half_vector
// CHECK: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: arith.divf {{.*}} : vector<8xf32>
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
// CHECK-LABEL: func.func @double
// CHECK: math.erf %{{.*}} : f64
gpu.module @kernels {
  func.func @half_vector(%x: vector<8xf16>) -> vector<8xf16> {
    %e = math.erf %x : vector<8xf16>
    return %e : vector<8xf16>
  }
  func.func @double(%x: f64) -> f64 {
    %e = math.erf %x : f64
    return %e : f64
  }
}

// -----

// VALUES-LABEL: func.func @values
// VALUES: arith.constant dense<[0.000000e+00, 0.0112834154, -0.520499885, 0.842700779, 0.995322287, -0.999977886, 0.99999994, 1.000000e+00, 0x7FC00000]> : vector<9xf32>
gpu.module @kernels {
  func.func @values() -> vector<9xf32> {
    %x = arith.constant dense<[0.0, 0.01, -0.5, 1.0, 2.0, -3.0, 3.9, 10.0, 0x7FC00000]> : vector<9xf32>
    %e = math.erf %x : vector<9xf32>
    return %e : vector<9xf32>
  }
}
