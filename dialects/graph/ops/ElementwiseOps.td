//===- ElementwiseOps.td - Elementwise math and logic -*- tablegen -*-===//

#ifndef KILN_GRAPH_ELEMENTWISE_OPS
#define KILN_GRAPH_ELEMENTWISE_OPS

include "dialects/graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Operand constraints (the ONNX type constraints of the ops)
//===----------------------------------------------------------------------===//

def Graph_FloatTensor : TensorOf<[AnyFloat]>;
def Graph_BoolTensor : TensorOf<[I1]>;
def Graph_IntegerTensor : TensorOf<[AnyInteger]>;

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

// A unary op whose result has its operand's type. `attrs` are extra arguments.
class Graph_UnaryOp<string mnemonic, string onnxName, string what,
                    Type operandType = AnyTensor, dag attrs = (ins)>
    : Graph_Op<mnemonic, [Pure, SameOperandsAndResultType, Graph_Pointwise]> {
  let summary = what # " (ONNX " # onnxName # ")";
  let description = "Elementwise ONNX " # onnxName
                    # "; the result has the type of the operand.";
  let arguments = !con((ins operandType:$input), attrs);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// A unary op whose result has its operand's shape and an i1 element type; its shape rule
// (inferPredicateType in ElementwiseOps.cpp) is shared by all such ops.
class Graph_PredicateOp<string mnemonic, string onnxName, string what,
                        Type operandType = AnyTensor, dag attrs = (ins)>
    : Graph_InferredOp<mnemonic, [Graph_Pointwise]> {
  let summary = what # " (ONNX " # onnxName # ")";
  let description = "Elementwise test (ONNX " # onnxName
                    # "); the result has the operand's shape and element type `i1`.";
  let arguments = !con((ins operandType:$input), attrs);
  let results = (outs Graph_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

// An op of two operands with NumPy (multidirectional) broadcasting; the result has the
// broadcast shape and the element type of `lhs`, or `i1` for comparisons. The shape rule
// (inferSameTypeBroadcast in ElementwiseOps.cpp, one line per op there) also checks that
// the operands have one element type.
class Graph_BroadcastOp<string mnemonic, string onnxName, string what,
                        Type operandType = AnyTensor, dag attrs = (ins),
                        list<Trait> traits = []>
    : Graph_InferredOp<mnemonic, !listconcat(traits, [Graph_Pointwise])> {
  let summary = what # " with NumPy broadcasting (ONNX " # onnxName # ")";
  let description = "ONNX " # onnxName # [{, elementwise over the NumPy broadcast of both
    operands, which have one element type; the result has that element type.
  }];
  let arguments = !con((ins operandType:$lhs, operandType:$rhs), attrs);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

class Graph_ComparisonOp<string mnemonic, string onnxName, string what,
                         list<Trait> traits = []>
    : Graph_BroadcastOp<mnemonic, onnxName, what, AnyTensor, (ins), traits> {
  let description = "ONNX " # onnxName # [{, an elementwise comparison over the NumPy
    broadcast of both operands, which have one element type; the result has element type
    `i1`.
  }];
  let results = (outs Graph_BoolTensor:$result);
}

// An op of one or more operands, all broadcast together (ONNX Max, Min, Sum, Mean).
class Graph_VariadicOp<string mnemonic, string onnxName, string what>
    : Graph_InferredOp<mnemonic, [Commutative, Graph_Pointwise]> {
  let summary = what # " of one or more tensors with NumPy broadcasting (ONNX "
                # onnxName # ")";
  let description = "ONNX " # onnxName # [{, elementwise over the NumPy broadcast of all
    operands, which have one element type. ONNX opset 7 (version 6 of the operator)
    required equal shapes, a special case.
  }];
  let arguments = (ins Variadic<AnyTensor>:$inputs);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Arithmetic with broadcasting
//===----------------------------------------------------------------------===//

def Graph_AddOp : Graph_InferredOp<"add", [Graph_Pointwise, Commutative, SameOperandsAndResultElementType]> {
  let summary = "Elementwise addition with NumPy broadcasting (ONNX Add)";
  let description = [{
    ONNX Add, elementwise over the NumPy broadcast of both operands, which have one
    element type. Folds `x + 0` to `x` when the zero does not broadcast `x`.
  }];
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_SubOp : Graph_BroadcastOp<"sub", "Sub", "Elementwise subtraction, lhs - rhs">;
def Graph_MulOp : Graph_BroadcastOp<"mul", "Mul", "Elementwise multiplication",
                                    AnyTensor, (ins), [Commutative]>;
def Graph_DivOp : Graph_BroadcastOp<"div", "Div", "Elementwise division, lhs / rhs"> {
  let description = [{
    ONNX Div, elementwise over the NumPy broadcast of both operands, which have one
    element type. Integer division truncates toward zero, as in ONNX.
  }];
}

def Graph_PowOp : Graph_BroadcastOp<"pow", "Pow", "Elementwise power, lhs ^ rhs"> {
  let description = [{
    ONNX Pow: raises `lhs` to the power `rhs` over the NumPy broadcast of both. The exponent may
    have another element type than the base (ONNX Pow since opset 12); the result has
    the base's.
  }];
}

def Graph_ModOp : Graph_BroadcastOp<"mod", "Mod", "Elementwise remainder",
                                    AnyTensor, (ins BoolAttr:$fmod)> {
  let description = [{
    ONNX Mod over the NumPy broadcast of both operands. With `fmod = false` the remainder takes the sign of the divisor (Python's `%`) and
    the operands must be integers; with `fmod = true` it takes the sign of the dividend
    (C's `fmod`), for integers and floats.
  }];
}

def Graph_BitShiftOp : Graph_BroadcastOp<"bit_shift", "BitShift", "Elementwise bit shift",
                                         Graph_IntegerTensor, (ins StrAttr:$direction)> {
  let description = [{
    ONNX BitShift: shifts `lhs` by `rhs` bits over the NumPy broadcast of both; `direction` is `"LEFT"`
    or `"RIGHT"`, as in ONNX. ONNX defines it for unsigned integers only.
  }];
}

def Graph_BitwiseAndOp : Graph_BroadcastOp<"bitwise_and", "BitwiseAnd",
    "Elementwise bitwise and", Graph_IntegerTensor, (ins), [Commutative]>;
def Graph_BitwiseOrOp : Graph_BroadcastOp<"bitwise_or", "BitwiseOr",
    "Elementwise bitwise or", Graph_IntegerTensor, (ins), [Commutative]>;
def Graph_BitwiseXorOp : Graph_BroadcastOp<"bitwise_xor", "BitwiseXor",
    "Elementwise bitwise exclusive or", Graph_IntegerTensor, (ins), [Commutative]>;

def Graph_AndOp : Graph_BroadcastOp<"and", "And", "Elementwise logical and",
                                    Graph_BoolTensor, (ins), [Commutative]>;
def Graph_OrOp : Graph_BroadcastOp<"or", "Or", "Elementwise logical or",
                                   Graph_BoolTensor, (ins), [Commutative]>;
def Graph_XorOp : Graph_BroadcastOp<"xor", "Xor", "Elementwise logical exclusive or",
                                    Graph_BoolTensor, (ins), [Commutative]>;

def Graph_PReluOp : Graph_InferredOp<"prelu", [Graph_Pointwise]> {
  let summary = "Parametric rectified linear unit (ONNX PRelu)";
  let description = [{
    ONNX PRelu, `x < 0 ? slope * x : x`. `slope` broadcasts to the shape of `input` (ONNX's
    unidirectional broadcasting), so the result has the type of `input`.
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$slope);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input `,` $slope attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

def Graph_EqualOp : Graph_ComparisonOp<"equal", "Equal", "Elementwise lhs == rhs",
                                       [Commutative]>;
def Graph_LessOp : Graph_ComparisonOp<"less", "Less", "Elementwise lhs < rhs">;
def Graph_LessOrEqualOp : Graph_ComparisonOp<"less_or_equal", "LessOrEqual",
                                             "Elementwise lhs <= rhs">;
def Graph_GreaterOp : Graph_ComparisonOp<"greater", "Greater", "Elementwise lhs > rhs">;
def Graph_GreaterOrEqualOp : Graph_ComparisonOp<"greater_or_equal", "GreaterOrEqual",
                                                "Elementwise lhs >= rhs">;

//===----------------------------------------------------------------------===//
// Variadic
//===----------------------------------------------------------------------===//

def Graph_MaxOp : Graph_VariadicOp<"max", "Max", "Elementwise maximum">;
def Graph_MinOp : Graph_VariadicOp<"min", "Min", "Elementwise minimum">;
def Graph_SumOp : Graph_VariadicOp<"sum", "Sum", "Elementwise sum">;
def Graph_MeanOp : Graph_VariadicOp<"mean", "Mean", "Elementwise mean">;

//===----------------------------------------------------------------------===//
// Selection and clamping
//===----------------------------------------------------------------------===//

def Graph_WhereOp : Graph_InferredOp<"where", [Graph_Pointwise]> {
  let summary = "Elementwise choice between two tensors (ONNX Where)";
  let description = [{
    ONNX Where, `condition ? lhs : rhs` over the NumPy broadcast of all three operands. `lhs` and
    `rhs` have one element type, which the result has.
  }];
  let arguments = (ins Graph_BoolTensor:$condition, AnyTensor:$lhs, AnyTensor:$rhs);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_ClipOp : Graph_InferredOp<"clip", [AttrSizedOperandSegments, Graph_Pointwise]> {
  let summary = "Clamps a tensor to [min, max] (ONNX Clip)";
  let description = [{
    ONNX Clip. `min` and `max` are optional scalars of the input's element type; an absent bound
    does not clamp. ONNX Clip before opset 11 had them as attributes; the importer turns
    those into constants.

    ```mlir
    %y = graph.clip %x min %lo max %hi : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$input, Optional<AnyTensor>:$min, Optional<AnyTensor>:$max);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

def Graph_CastOp : Graph_InferredOp<"cast", [Graph_Pointwise]> {
  let summary = "Converts the element type (ONNX Cast, CastLike)";
  let description = [{
    The result has the operand's shape and element type `to` (an integer or float type).
    `saturate` (ONNX Cast since opset 19) only matters for conversions into 8-bit float
    types: out-of-range values then clamp to the largest finite value instead of becoming
    infinity or NaN. ONNX CastLike imports as this op, with `to` taken from its second
    input.

    ```mlir
    %y = graph.cast %x {to = f16} : (tensor<4xf32>) -> tensor<4xf16>
    ```
  }];
  let arguments = (ins AnyTensor:$input, TypeAttr:$to,
                   DefaultValuedAttr<BoolAttr, "true">:$saturate);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

def Graph_ReluOp : Graph_Op<"relu", [Pure, SameOperandsAndResultType, Graph_Pointwise]> {
  let summary = "Rectified linear unit, max(x, 0) (ONNX Relu)";
  let description = "Elementwise ONNX Relu; the result has the type of the operand.";
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Graph_AbsOp : Graph_UnaryOp<"abs", "Abs", "Absolute value">;
def Graph_NegOp : Graph_UnaryOp<"neg", "Neg", "Negation">;
def Graph_SignOp : Graph_UnaryOp<"sign", "Sign", "Sign, -1, 0 or 1">;
def Graph_NotOp : Graph_UnaryOp<"not", "Not", "Logical negation", Graph_BoolTensor>;
def Graph_BitwiseNotOp : Graph_UnaryOp<"bitwise_not", "BitwiseNot", "Bitwise negation",
                                       Graph_IntegerTensor>;

def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal", "Reciprocal", "Reciprocal, 1 / x",
                                       Graph_FloatTensor>;
def Graph_SqrtOp : Graph_UnaryOp<"sqrt", "Sqrt", "Square root", Graph_FloatTensor>;
def Graph_ExpOp : Graph_UnaryOp<"exp", "Exp", "Exponential", Graph_FloatTensor>;
def Graph_LogOp : Graph_UnaryOp<"log", "Log", "Natural logarithm", Graph_FloatTensor>;
def Graph_ErfOp : Graph_UnaryOp<"erf", "Erf", "Error function", Graph_FloatTensor>;
def Graph_FloorOp : Graph_UnaryOp<"floor", "Floor", "Rounding down", Graph_FloatTensor>;
def Graph_CeilOp : Graph_UnaryOp<"ceil", "Ceil", "Rounding up", Graph_FloatTensor>;
def Graph_RoundOp : Graph_UnaryOp<"round", "Round",
                                  "Rounding to nearest, halves to even", Graph_FloatTensor>;

def Graph_SinOp : Graph_UnaryOp<"sin", "Sin", "Sine", Graph_FloatTensor>;
def Graph_CosOp : Graph_UnaryOp<"cos", "Cos", "Cosine", Graph_FloatTensor>;
def Graph_TanOp : Graph_UnaryOp<"tan", "Tan", "Tangent", Graph_FloatTensor>;
def Graph_AsinOp : Graph_UnaryOp<"asin", "Asin", "Arcsine", Graph_FloatTensor>;
def Graph_AcosOp : Graph_UnaryOp<"acos", "Acos", "Arccosine", Graph_FloatTensor>;
def Graph_AtanOp : Graph_UnaryOp<"atan", "Atan", "Arctangent", Graph_FloatTensor>;
def Graph_SinhOp : Graph_UnaryOp<"sinh", "Sinh", "Hyperbolic sine", Graph_FloatTensor>;
def Graph_CoshOp : Graph_UnaryOp<"cosh", "Cosh", "Hyperbolic cosine", Graph_FloatTensor>;
def Graph_TanhOp : Graph_UnaryOp<"tanh", "Tanh", "Hyperbolic tangent", Graph_FloatTensor>;
def Graph_AsinhOp : Graph_UnaryOp<"asinh", "Asinh", "Inverse hyperbolic sine",
                                  Graph_FloatTensor>;
def Graph_AcoshOp : Graph_UnaryOp<"acosh", "Acosh", "Inverse hyperbolic cosine",
                                  Graph_FloatTensor>;
def Graph_AtanhOp : Graph_UnaryOp<"atanh", "Atanh", "Inverse hyperbolic tangent",
                                  Graph_FloatTensor>;

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "Sigmoid", "Logistic sigmoid, 1 / (1 + exp(-x))",
                                    Graph_FloatTensor>;
def Graph_SoftplusOp : Graph_UnaryOp<"softplus", "Softplus", "Softplus, log(exp(x) + 1)",
                                     Graph_FloatTensor>;
def Graph_SoftsignOp : Graph_UnaryOp<"softsign", "Softsign", "Softsign, x / (1 + |x|)",
                                     Graph_FloatTensor>;
def Graph_MishOp : Graph_UnaryOp<"mish", "Mish", "Mish, x * tanh(softplus(x))",
                                 Graph_FloatTensor>;
def Graph_HardSwishOp : Graph_UnaryOp<"hard_swish", "HardSwish",
    "Hard swish, x * max(0, min(1, x / 6 + 1 / 2))", Graph_FloatTensor>;

// Kiln extension: no ONNX node imports as graph.silu; graph-recognize-activations forms it
// from the exporters' x * Sigmoid(x).
def Graph_SiluOp : Graph_UnaryOp<"silu", "-", "SiLU", Graph_FloatTensor> {
  let summary = "Sigmoid linear unit (swish), x * sigmoid(x): a Kiln extension";
  let description = [{
    Elementwise `x * sigmoid(x)`; the result has the type of the operand. A Kiln
    extension, not an ONNX operator: no ONNX node imports as it. The
    `graph-recognize-activations` pass forms it from the exporters' `x * Sigmoid(x)`
    (EfficientNet, YOLO, diffusion models), so that later stages see one pointwise op.

    ```mlir
    %y = graph.silu %x : tensor<?x32x112x112xf32>
    ```
  }];
}

def Graph_EluOp : Graph_UnaryOp<"elu", "Elu",
    "Exponential linear unit, x < 0 ? alpha * (exp(x) - 1) : x", Graph_FloatTensor,
    (ins F32Attr:$alpha)>;
def Graph_CeluOp : Graph_UnaryOp<"celu", "Celu",
    "Continuously differentiable ELU, max(0, x) + min(0, alpha * (exp(x / alpha) - 1))",
    Graph_FloatTensor, (ins F32Attr:$alpha)>;
def Graph_SeluOp : Graph_UnaryOp<"selu", "Selu",
    "Scaled ELU, gamma * (x <= 0 ? alpha * (exp(x) - 1) : x)", Graph_FloatTensor,
    (ins F32Attr:$alpha, F32Attr:$gamma)>;
def Graph_LeakyReluOp : Graph_UnaryOp<"leaky_relu", "LeakyRelu",
    "Leaky rectified linear unit, x < 0 ? alpha * x : x", Graph_FloatTensor,
    (ins F32Attr:$alpha)>;
def Graph_HardSigmoidOp : Graph_UnaryOp<"hard_sigmoid", "HardSigmoid",
    "Hard sigmoid, max(0, min(1, alpha * x + beta))", Graph_FloatTensor,
    (ins F32Attr:$alpha, F32Attr:$beta)>;
def Graph_ThresholdedReluOp : Graph_UnaryOp<"thresholded_relu", "ThresholdedRelu",
    "Thresholded rectified linear unit, x > alpha ? x : 0", Graph_FloatTensor,
    (ins F32Attr:$alpha)>;
def Graph_ShrinkOp : Graph_UnaryOp<"shrink", "Shrink",
    "Shrinkage, x < -lambd ? x + bias : (x > lambd ? x - bias : 0)", AnyTensor,
    (ins F32Attr:$bias, F32Attr:$lambd)>;

def Graph_GeluOp : Graph_UnaryOp<"gelu", "Gelu", "Gaussian error linear unit",
                                 Graph_FloatTensor, (ins StrAttr:$approximate)> {
  let description = [{
    `x * Phi(x)` with `approximate = "none"`, or the tanh approximation
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))` with
    `approximate = "tanh"`, as in ONNX Gelu (opset 20).
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Predicates
//===----------------------------------------------------------------------===//

def Graph_IsNaNOp : Graph_PredicateOp<"is_nan", "IsNaN", "Elementwise test for NaN",
                                      Graph_FloatTensor>;
def Graph_IsInfOp : Graph_PredicateOp<"is_inf", "IsInf", "Elementwise test for infinity",
    Graph_FloatTensor, (ins BoolAttr:$detect_negative, BoolAttr:$detect_positive)> {
  let description = [{
    ONNX IsInf: true for -infinity when `detect_negative` and for +infinity when `detect_positive`;
    the result has the operand's shape and element type `i1`.
  }];
}

#endif // KILN_GRAPH_ELEMENTWISE_OPS
