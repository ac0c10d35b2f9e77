// gpu-approximate-erf: the kernels' erf as x P(x^2) / Q(x^2) on x clamped to [-3.3, 3.3]
// (P and Q of degree 3, P0 = 2 / sqrt(pi)): no branch, no libdevice call, no clamp of the
// quotient (it stays below 1). Its values against std::erf: test/unit/ApproximateErfTest.cpp.
// RUN: kiln-opt --gpu-approximate-erf %s -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @scalar
// CHECK-NOT: math.erf
// CHECK: arith.maximumf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.minimumf
// CHECK: %[[SQUARE:.*]] = arith.mulf %[[X:.*]], %[[X]] : f32
// CHECK-COUNT-3: math.fma {{.*}} : f32
// CHECK: %[[NUMERATOR:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK-COUNT-3: math.fma {{.*}} : f32
// CHECK: %[[Q:.*]] = arith.divf %[[NUMERATOR]], %{{.*}} fastmath<afn> : f32
// CHECK-NEXT: return %[[Q]]
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

// GELU as graph-to-linalg writes it, 0.5 x (1 + erf(x * 0.7071...)): the scale is in the
// coefficients (P0 = 2 / sqrt(pi) / sqrt(2) = 0.797884583, the clamp at 3.3 * sqrt(2)),
// and h (1 + erf) is fma(h, erf, h). An erf of a constant is approximated too, not folded.
// CHECK-LABEL: func.func @gelu
// CHECK-DAG: %[[P0:.*]] = arith.constant 0.797884583 : f32
// CHECK-DAG: %[[CLAMP:.*]] = arith.constant 4.66690493 : f32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[H:.*]] = arith.mulf %arg0, %[[HALF]] : f32
// CHECK: %[[LOW:.*]] = arith.maximumf %arg0,
// CHECK: arith.minimumf %[[LOW]], %[[CLAMP]] : f32
// CHECK: %[[E:.*]] = arith.divf
// CHECK-NEXT: %[[Y:.*]] = math.fma %[[H]], %[[E]], %[[H]] : f32
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @constant
// CHECK-NOT: math.erf
// CHECK: arith.divf
gpu.module @kernels {
  func.func @gelu(%x: f32) -> f32 {
    %c = arith.constant 0.707106769 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %h = arith.mulf %x, %half : f32
    %s = arith.mulf %x, %c : f32
    %e = math.erf %s : f32
    %a = arith.addf %e, %one : f32
    %y = arith.mulf %h, %a : f32
    return %y : f32
  }
  func.func @constant() -> vector<2xf32> {
    %x = arith.constant dense<[0.5, 2.0]> : vector<2xf32>
    %e = math.erf %x : vector<2xf32>
    return %e : vector<2xf32>
  }
}
