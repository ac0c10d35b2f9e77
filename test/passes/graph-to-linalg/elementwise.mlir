// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// A broadcast binary op is one linalg.generic; the broadcast operand's unit dimension
// reads index 0.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[FULL]]]
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<3x4xf32>, %b: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %0 = graph.add %a, %b : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Unsigned division is divui: the graph type carries the signedness.
// CHECK-LABEL: func.func @div_unsigned
// CHECK: arith.divui
func.func @div_unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = graph.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Dynamic extents come from the operand that does not broadcast.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[DIM:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4xf32>
// CHECK: tensor.empty(%[[DIM]]) : tensor<?x4xf32>
func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = graph.mul %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Mod without fmod takes the divisor's sign: the truncated remainder is corrected by
// adding the divisor when the signs differ.
// CHECK-LABEL: func.func @mod_integer
// CHECK: linalg.generic
// CHECK: %[[REM:.*]] = arith.remsi
// CHECK: %[[FIX:.*]] = arith.addi %[[REM]]
// CHECK: arith.select %{{.*}}, %[[FIX]], %[[REM]]
func.func @mod_integer(%a: tensor<6xi32>, %b: tensor<6xi32>) -> tensor<6xi32> {
  %0 = graph.mod %a, %b {fmod = false} : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

// Mod with fmod is C's fmod: frem.
// CHECK-LABEL: func.func @mod_fmod
// CHECK: arith.remf
// CHECK-NOT: arith.select
func.func @mod_fmod(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  %0 = graph.mod %a, %b {fmod = true} : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// A float base takes the exponent converted to its type.
// CHECK-LABEL: func.func @pow_float_int
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: math.powf
func.func @pow_float_int(%a: tensor<3xf32>, %b: tensor<3xi64>) -> tensor<3xf32> {
  %0 = graph.pow %a, %b : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An integer power is square-and-multiply in a loop over the exponent's bits.
// CHECK-LABEL: func.func @pow_integer
// CHECK: linalg.generic
// CHECK: scf.while
// CHECK: arith.muli
// CHECK: arith.shrui
func.func @pow_integer(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %0 = graph.pow %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// An integer base with a float exponent is computed in f64 and truncated back.
// CHECK-LABEL: func.func @pow_integer_float
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// CHECK: math.powf %{{.*}} : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i32
func.func @pow_integer_float(%a: tensor<3xi32>, %b: tensor<3xf32>) -> tensor<3xi32> {
  %0 = graph.pow %a, %b : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Shifts by the bit width or more give 0 rather than LLVM poison.
// CHECK-LABEL: func.func @bit_shift_right
// CHECK: %[[SHIFTED:.*]] = arith.shrui
// CHECK: %[[FAR:.*]] = arith.cmpi uge
// CHECK: arith.select %[[FAR]], %{{.*}}, %[[SHIFTED]]
func.func @bit_shift_right(%a: tensor<3xui16>, %b: tensor<3xui16>) -> tensor<3xui16> {
  %0 = graph.bit_shift %a, %b {direction = "RIGHT"} : (tensor<3xui16>, tensor<3xui16>) -> tensor<3xui16>
  return %0 : tensor<3xui16>
}

// -----

// Unsigned comparisons use the unsigned predicate.
// CHECK-LABEL: func.func @less_unsigned
// CHECK: arith.cmpi ult
func.func @less_unsigned(%a: tensor<3xui32>, %b: tensor<3xui32>) -> tensor<3xi1> {
  %0 = graph.less %a, %b : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// Comparisons of floats are ordered (false with NaN).
// CHECK-LABEL: func.func @greater_or_equal
// CHECK: arith.cmpf oge
func.func @greater_or_equal(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xi1> {
  %0 = graph.greater_or_equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// A variadic op reads all operands, broadcast, in one generic.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @max_variadic
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[COL]], #[[FULL]], #[[FULL]]]
// CHECK: arith.maximumf
// CHECK: arith.maximumf
func.func @max_variadic(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.max %a, %b, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Mean divides the sum by the operand count.
// CHECK-LABEL: func.func @mean
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK: %[[COUNT:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: arith.divf %[[SUM]], %[[COUNT]]
func.func @mean(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = graph.mean %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Where broadcasts its three operands.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[FULL]], #[[SCALAR]], #[[FULL]]]
// CHECK: arith.select
func.func @where(%c: tensor<2x3xi1>, %a: tensor<2x3xi64>, %b: tensor<i64>) -> tensor<2x3xi64> {
  %0 = graph.where %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// Clip with only a maximum: one min, on the unsigned order for unsigned elements.
// CHECK-LABEL: func.func @clip_max_only
// CHECK: linalg.generic
// CHECK-NOT: arith.maxui
// CHECK: arith.minui
func.func @clip_max_only(%x: tensor<4xui8>, %hi: tensor<ui8>) -> tensor<4xui8> {
  %0 = graph.clip %x max %hi : (tensor<4xui8>, tensor<ui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// f16 math is computed in f32 and rounded back once.
// CHECK-LABEL: func.func @sin_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: math.sin %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @sin_f16(%x: tensor<3xf16>) -> tensor<3xf16> {
  %0 = graph.sin %x : tensor<3xf16>
  return %0 : tensor<3xf16>
}

// -----

// Round sends halves to even.
// CHECK-LABEL: func.func @round
// CHECK: math.roundeven
func.func @round(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = graph.round %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Softplus in the form that does not overflow: max(x, 0) + log1p(exp(-|x|)).
// CHECK-LABEL: func.func @softplus
// CHECK: arith.maximumf
// CHECK: math.absf
// CHECK: math.exp
// CHECK: math.log1p
func.func @softplus(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = graph.softplus %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Gelu without approximation: 0.5 * x * (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu
// CHECK: math.erf
// CHECK-NOT: math.tanh
func.func @gelu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = graph.gelu %x {approximate = "none"} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Gelu with the tanh approximation.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: math.tanh
// CHECK-NOT: math.erf
func.func @gelu_tanh(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = graph.gelu %x {approximate = "tanh"} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// SiLU (a Kiln extension): x * sigmoid(x), the sigmoid as 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @silu
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.mulf
func.func @silu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = graph.silu %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Elu without a select: max(x, 0) + alpha * (exp(min(x, 0)) - 1).
// CHECK-LABEL: func.func @elu
// CHECK: %[[POSITIVE:.*]] = arith.maximumf %in
// CHECK: math.exp
// CHECK: %[[ALPHA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %[[ALPHA]]
// CHECK: arith.addf %[[POSITIVE]], %[[SCALED]]
func.func @elu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = graph.elu %x {alpha = 2.0 : f32} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// IsInf tests only the infinities it is asked for; the result is i1.
// CHECK-LABEL: func.func @is_inf_negative
// CHECK: arith.constant 0xFF800000 : f32
// CHECK-NOT: 0x7F800000
// CHECK: arith.cmpf oeq
// CHECK: -> tensor<3xi1>
func.func @is_inf_negative(%x: tensor<3xf32>) -> tensor<3xi1> {
  %0 = graph.is_inf %x {detect_negative = true, detect_positive = false} : (tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// PRelu: the slope broadcasts to the input.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[SLOPE:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @prelu
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[SLOPE]], #[[FULL]]]
// CHECK: ^bb0(%[[X:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32
// CHECK: arith.maximumf %[[X]]
// CHECK: arith.mulf %[[S]]
// CHECK: arith.addf
func.func @prelu(%x: tensor<2x3x4xf32>, %slope: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.prelu %x, %slope : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Cast from f32 to an unsigned integer: fptoui into the signless type.
// CHECK-LABEL: func.func @cast_to_unsigned
// CHECK: arith.fptoui %{{.*}} : f32 to i8
func.func @cast_to_unsigned(%x: tensor<3xf32>) -> tensor<3xui8> {
  %0 = graph.cast %x {to = ui8} : (tensor<3xf32>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}
