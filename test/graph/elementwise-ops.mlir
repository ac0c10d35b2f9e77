// Round trip of the elementwise graph ops, in the custom and in the generic form, with
// the result types their shape rules infer.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Broadcasting binary arithmetic keeps the element type; dynamic extents meet static ones.
// CHECK-LABEL: func.func @arithmetic
func.func @arithmetic(%a: tensor<?x1x768xf32>, %b: tensor<4x768xf32>, %e: tensor<i32>) {
  // CHECK: graph.sub {{.*}} : (tensor<?x1x768xf32>, tensor<4x768xf32>) -> tensor<?x4x768xf32>
  %0 = graph.sub %a, %b : (tensor<?x1x768xf32>, tensor<4x768xf32>) -> tensor<?x4x768xf32>
  // CHECK: graph.mul {{.*}} -> tensor<?x4x768xf32>
  %1 = graph.mul %a, %b : (tensor<?x1x768xf32>, tensor<4x768xf32>) -> tensor<?x4x768xf32>
  // CHECK: graph.div {{.*}} -> tensor<?x4x768xf32>
  %2 = graph.div %a, %b : (tensor<?x1x768xf32>, tensor<4x768xf32>) -> tensor<?x4x768xf32>
  // The exponent of pow may have another element type; the result has the base's.
  // CHECK: graph.pow {{.*}} : (tensor<?x1x768xf32>, tensor<i32>) -> tensor<?x1x768xf32>
  %3 = graph.pow %a, %e : (tensor<?x1x768xf32>, tensor<i32>) -> tensor<?x1x768xf32>
  // CHECK: graph.mod {{.*}} {fmod = true} : (tensor<?x1x768xf32>, tensor<4x768xf32>) -> tensor<?x4x768xf32>
  %4 = graph.mod %a, %b {fmod = true} : (tensor<?x1x768xf32>, tensor<4x768xf32>) -> tensor<?x4x768xf32>
  return
}

// CHECK-LABEL: func.func @integer_and_bool
func.func @integer_and_bool(%x: tensor<3xi32>, %y: tensor<2x1xi32>, %u: tensor<4xui8>,
                            %p: tensor<*xi1>, %q: tensor<2xi1>) {
  // CHECK: graph.mod {{.*}} {fmod = false} : (tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  %0 = graph.mod %x, %y {fmod = false} : (tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  // CHECK: graph.bit_shift {{.*}} {direction = "LEFT"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = graph.bit_shift %u, %u {direction = "LEFT"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  // CHECK: graph.bit_shift {{.*}} {direction = "RIGHT"}
  %2 = graph.bit_shift %u, %u {direction = "RIGHT"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  // CHECK: graph.bitwise_and {{.*}} -> tensor<2x3xi32>
  %3 = graph.bitwise_and %x, %y : (tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  // CHECK: graph.bitwise_or {{.*}} -> tensor<2x3xi32>
  %4 = graph.bitwise_or %x, %y : (tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  // CHECK: graph.bitwise_xor {{.*}} -> tensor<2x3xi32>
  %5 = graph.bitwise_xor %x, %y : (tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  // CHECK: graph.bitwise_not {{.*}} : tensor<4xui8>
  %6 = graph.bitwise_not %u : tensor<4xui8>
  // An unranked operand makes the result unranked.
  // CHECK: graph.and {{.*}} : (tensor<*xi1>, tensor<2xi1>) -> tensor<*xi1>
  %7 = graph.and %p, %q : (tensor<*xi1>, tensor<2xi1>) -> tensor<*xi1>
  // CHECK: graph.or {{.*}} -> tensor<*xi1>
  %8 = graph.or %p, %q : (tensor<*xi1>, tensor<2xi1>) -> tensor<*xi1>
  // CHECK: graph.xor {{.*}} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %9 = graph.xor %q, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  // CHECK: graph.not {{.*}} : tensor<2xi1>
  %10 = graph.not %q : tensor<2xi1>
  return
}

// Comparisons give i1 of the broadcast shape.
// CHECK-LABEL: func.func @comparisons
func.func @comparisons(%a: tensor<?x4xf16>, %b: tensor<4xf16>) {
  // CHECK: graph.equal {{.*}} : (tensor<?x4xf16>, tensor<4xf16>) -> tensor<?x4xi1>
  %0 = graph.equal %a, %b : (tensor<?x4xf16>, tensor<4xf16>) -> tensor<?x4xi1>
  // CHECK: graph.less {{.*}} -> tensor<?x4xi1>
  %1 = graph.less %a, %b : (tensor<?x4xf16>, tensor<4xf16>) -> tensor<?x4xi1>
  // CHECK: graph.less_or_equal {{.*}} -> tensor<?x4xi1>
  %2 = graph.less_or_equal %a, %b : (tensor<?x4xf16>, tensor<4xf16>) -> tensor<?x4xi1>
  // CHECK: graph.greater {{.*}} -> tensor<?x4xi1>
  %3 = graph.greater %a, %b : (tensor<?x4xf16>, tensor<4xf16>) -> tensor<?x4xi1>
  // CHECK: graph.greater_or_equal {{.*}} -> tensor<?x4xi1>
  %4 = graph.greater_or_equal %a, %b : (tensor<?x4xf16>, tensor<4xf16>) -> tensor<?x4xi1>
  return
}

// Variadic ops broadcast all their operands; one operand is allowed.
// CHECK-LABEL: func.func @variadic
func.func @variadic(%a: tensor<3x1xf32>, %b: tensor<4xf32>, %c: tensor<1x1x4xf32>) {
  // CHECK: graph.max {{.*}} : (tensor<3x1xf32>, tensor<4xf32>, tensor<1x1x4xf32>) -> tensor<1x3x4xf32>
  %0 = graph.max %a, %b, %c : (tensor<3x1xf32>, tensor<4xf32>, tensor<1x1x4xf32>) -> tensor<1x3x4xf32>
  // CHECK: graph.min {{.*}} -> tensor<1x3x4xf32>
  %1 = graph.min %a, %b, %c : (tensor<3x1xf32>, tensor<4xf32>, tensor<1x1x4xf32>) -> tensor<1x3x4xf32>
  // CHECK: graph.sum {{.*}} : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %2 = graph.sum %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // CHECK: graph.mean {{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = graph.mean %b : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @where_clip_prelu
func.func @where_clip_prelu(%c: tensor<?x1xi1>, %x: tensor<5xf32>, %y: tensor<f32>,
                            %lo: tensor<f32>, %i: tensor<1x16x8x8xf32>, %s: tensor<16x1x1xf32>) {
  // Where broadcasts all three operands.
  // CHECK: graph.where {{.*}} : (tensor<?x1xi1>, tensor<5xf32>, tensor<f32>) -> tensor<?x5xf32>
  %0 = graph.where %c, %x, %y : (tensor<?x1xi1>, tensor<5xf32>, tensor<f32>) -> tensor<?x5xf32>
  // Clip's bounds are optional.
  // CHECK: graph.clip %{{.*}} min %{{.*}} max %{{.*}} : (tensor<5xf32>, tensor<f32>, tensor<f32>) -> tensor<5xf32>
  %1 = graph.clip %x min %lo max %y : (tensor<5xf32>, tensor<f32>, tensor<f32>) -> tensor<5xf32>
  // CHECK: graph.clip %{{.*}} max %{{.*}} : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  %2 = graph.clip %x max %y : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  // CHECK: graph.clip %{{.*}} : (tensor<5xf32>) -> tensor<5xf32>
  %3 = graph.clip %x : (tensor<5xf32>) -> tensor<5xf32>
  // The slope broadcasts to the input, per channel here.
  // CHECK: graph.prelu {{.*}} : (tensor<1x16x8x8xf32>, tensor<16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %4 = graph.prelu %i, %s : (tensor<1x16x8x8xf32>, tensor<16x1x1xf32>) -> tensor<1x16x8x8xf32>
  return
}

// Cast infers its result element type from `to`; `saturate` defaults to true.
// CHECK-LABEL: func.func @cast
func.func @cast(%x: tensor<?x3xf32>) {
  // CHECK: graph.cast %{{.*}} {to = f16} : (tensor<?x3xf32>) -> tensor<?x3xf16>
  %0 = graph.cast %x {to = f16} : (tensor<?x3xf32>) -> tensor<?x3xf16>
  // CHECK: graph.cast %{{.*}} {saturate = false, to = ui8} : (tensor<?x3xf32>) -> tensor<?x3xui8>
  %1 = graph.cast %x {to = ui8, saturate = false} : (tensor<?x3xf32>) -> tensor<?x3xui8>
  // CHECK: graph.cast %{{.*}} {to = i1} : (tensor<?x3xf32>) -> tensor<?x3xi1>
  %2 = graph.cast %x {to = i1} : (tensor<?x3xf32>) -> tensor<?x3xi1>
  return
}

// IsNaN and IsInf give i1 of the operand's shape.
// CHECK-LABEL: func.func @predicates
func.func @predicates(%x: tensor<?x3xbf16>) {
  // CHECK: graph.is_nan %{{.*}} : (tensor<?x3xbf16>) -> tensor<?x3xi1>
  %0 = graph.is_nan %x : (tensor<?x3xbf16>) -> tensor<?x3xi1>
  // CHECK: graph.is_inf %{{.*}} {detect_negative = false, detect_positive = true} : (tensor<?x3xbf16>) -> tensor<?x3xi1>
  %1 = graph.is_inf %x {detect_negative = false, detect_positive = true} : (tensor<?x3xbf16>) -> tensor<?x3xi1>
  return
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<2x?xf32>, %i: tensor<4xi64>) {
  // CHECK: graph.abs %{{.*}} : tensor<4xi64>
  %0 = graph.abs %i : tensor<4xi64>
  // CHECK: graph.neg %{{.*}} : tensor<4xi64>
  %1 = graph.neg %i : tensor<4xi64>
  // CHECK: graph.sign %{{.*}} : tensor<2x?xf32>
  %2 = graph.sign %x : tensor<2x?xf32>
  // CHECK: graph.reciprocal
  %3 = graph.reciprocal %x : tensor<2x?xf32>
  // CHECK: graph.sqrt
  %4 = graph.sqrt %x : tensor<2x?xf32>
  // CHECK: graph.exp
  %5 = graph.exp %x : tensor<2x?xf32>
  // CHECK: graph.log
  %6 = graph.log %x : tensor<2x?xf32>
  // CHECK: graph.erf
  %7 = graph.erf %x : tensor<2x?xf32>
  // CHECK: graph.floor
  %8 = graph.floor %x : tensor<2x?xf32>
  // CHECK: graph.ceil
  %9 = graph.ceil %x : tensor<2x?xf32>
  // CHECK: graph.round
  %10 = graph.round %x : tensor<2x?xf32>
  // CHECK: graph.sin
  %11 = graph.sin %x : tensor<2x?xf32>
  // CHECK: graph.cos
  %12 = graph.cos %x : tensor<2x?xf32>
  // CHECK: graph.tan
  %13 = graph.tan %x : tensor<2x?xf32>
  // CHECK: graph.asin
  %14 = graph.asin %x : tensor<2x?xf32>
  // CHECK: graph.acos
  %15 = graph.acos %x : tensor<2x?xf32>
  // CHECK: graph.atan
  %16 = graph.atan %x : tensor<2x?xf32>
  // CHECK: graph.sinh
  %17 = graph.sinh %x : tensor<2x?xf32>
  // CHECK: graph.cosh
  %18 = graph.cosh %x : tensor<2x?xf32>
  // CHECK: graph.tanh
  %19 = graph.tanh %x : tensor<2x?xf32>
  // CHECK: graph.asinh
  %20 = graph.asinh %x : tensor<2x?xf32>
  // CHECK: graph.acosh
  %21 = graph.acosh %x : tensor<2x?xf32>
  // CHECK: graph.atanh %{{.*}} : tensor<2x?xf32>
  %22 = graph.atanh %x : tensor<2x?xf32>
  return
}

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<*xf32>) {
  // CHECK: graph.sigmoid %{{.*}} : tensor<*xf32>
  %0 = graph.sigmoid %x : tensor<*xf32>
  // CHECK: graph.softplus
  %1 = graph.softplus %x : tensor<*xf32>
  // CHECK: graph.softsign
  %2 = graph.softsign %x : tensor<*xf32>
  // CHECK: graph.mish
  %3 = graph.mish %x : tensor<*xf32>
  // CHECK: graph.hard_swish
  %4 = graph.hard_swish %x : tensor<*xf32>
  // CHECK: graph.elu %{{.*}} {alpha = 1.{{0+}}e+00 : f32} : tensor<*xf32>
  %5 = graph.elu %x {alpha = 1.0 : f32} : tensor<*xf32>
  // CHECK: graph.celu %{{.*}} {alpha = 2.{{0+}}e+00 : f32}
  %6 = graph.celu %x {alpha = 2.0 : f32} : tensor<*xf32>
  // CHECK: graph.selu %{{.*}} {alpha = 1.67{{[0-9]*}} : f32, gamma = 1.05{{[0-9]*}} : f32}
  %7 = graph.selu %x {alpha = 1.67326319 : f32, gamma = 1.05070102 : f32} : tensor<*xf32>
  // CHECK: graph.leaky_relu %{{.*}} {alpha = 0.0099{{[0-9]*}} : f32}
  %8 = graph.leaky_relu %x {alpha = 0.01 : f32} : tensor<*xf32>
  // CHECK: graph.hard_sigmoid %{{.*}} {alpha = 2.{{0+}}e-01 : f32, beta = 5.{{0+}}e-01 : f32}
  %9 = graph.hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<*xf32>
  // CHECK: graph.thresholded_relu %{{.*}} {alpha = 1.{{0+}}e+00 : f32}
  %10 = graph.thresholded_relu %x {alpha = 1.0 : f32} : tensor<*xf32>
  // CHECK: graph.shrink %{{.*}} {bias = 0.{{0+}}e+00 : f32, lambd = 5.{{0+}}e-01 : f32}
  %11 = graph.shrink %x {bias = 0.0 : f32, lambd = 0.5 : f32} : tensor<*xf32>
  // CHECK: graph.gelu %{{.*}} {approximate = "tanh"} : tensor<*xf32>
  %12 = graph.gelu %x {approximate = "tanh"} : tensor<*xf32>
  // CHECK: graph.relu %{{.*}} : tensor<*xf32>
  %13 = graph.relu %x : tensor<*xf32>
  // graph.silu is a Kiln extension (graph-recognize-activations forms it).
  // CHECK: graph.silu %{{.*}} : tensor<*xf32>
  %14 = graph.silu %x : tensor<*xf32>
  return
}

// CHECK-LABEL: func.func @silu_ranked
// CHECK: graph.silu %{{.*}} : tensor<?x32x112x112xf16>
func.func @silu_ranked(%x: tensor<?x32x112x112xf16>) -> tensor<?x32x112x112xf16> {
  %0 = graph.silu %x : tensor<?x32x112x112xf16>
  return %0 : tensor<?x32x112x112xf16>
}
