// Elementwise graph ops reject operands and attributes that contradict their ONNX
// semantics. Each failed shape rule is followed by the generic "failed to infer returned
// types", which these cases leave unchecked (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{operands have different element types: 'f32' and 'f16'}}
  %0 = graph.sub %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @comparison_element_type_mismatch(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{operands have different element types: 'i32' and 'i64'}}
  %0 = graph.less %a, %b : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi1>
  return
}

// -----

func.func @shapes_do_not_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{shapes [2, 3] and [4] do not broadcast}}
  %0 = graph.mul %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @variadic_shapes_do_not_broadcast(%a: tensor<3xf32>, %b: tensor<1xf32>, %c: tensor<2xf32>) {
  // expected-error @+1 {{do not broadcast}}
  %0 = graph.max %a, %b, %c : (tensor<3xf32>, tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @variadic_without_operands() {
  // expected-error @+1 {{expects at least one operand}}
  %0 = graph.sum : () -> tensor<f32>
  return
}

// -----

func.func @comparison_result_not_bool(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be tensor of 1-bit signless integer values}}
  %0 = graph.equal %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @integer_mod_of_floats(%a: tensor<4xf32>) {
  // expected-error @+1 {{fmod = false (integer remainder) needs integer operands, got 'f32'}}
  %0 = graph.mod %a, %a {fmod = false} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @bit_shift_direction(%a: tensor<4xui8>) {
  // expected-error @+1 {{direction must be "LEFT" or "RIGHT", got "UP"}}
  %0 = graph.bit_shift %a, %a {direction = "UP"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return
}

// -----

func.func @prelu_slope_grows_input(%x: tensor<2x3xf32>, %s: tensor<4x3xf32>) {
  // expected-error @+1 {{slope of type 'tensor<4x3xf32>' does not broadcast to the input of type 'tensor<2x3xf32>'}}
  %0 = graph.prelu %x, %s : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @prelu_slope_higher_rank(%x: tensor<3xf32>, %s: tensor<1x3xf32>) {
  // expected-error @+1 {{slope of type 'tensor<1x3xf32>' does not broadcast to the input of type 'tensor<3xf32>'}}
  %0 = graph.prelu %x, %s : (tensor<3xf32>, tensor<1x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_condition_not_bool(%c: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be tensor of 1-bit signless integer values}}
  %0 = graph.where %c, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_branch_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{operands have different element types: 'f32' and 'i32'}}
  %0 = graph.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @clip_bound_element_type(%x: tensor<4xf32>, %lo: tensor<f16>) {
  // expected-error @+1 {{min has element type 'f16', expected the input's 'f32'}}
  %0 = graph.clip %x min %lo : (tensor<4xf32>, tensor<f16>) -> tensor<4xf32>
  return
}

// -----

func.func @clip_bound_not_scalar(%x: tensor<4xf32>, %hi: tensor<4xf32>) {
  // expected-error @+1 {{max must be a scalar (rank 0), got 'tensor<4xf32>'}}
  %0 = graph.clip %x max %hi : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_to_non_numeric(%x: tensor<4xf32>) {
  // expected-error @+1 {{cannot cast to 'index': `to` must be an integer or float type}}
  %0 = graph.cast %x {to = index} : (tensor<4xf32>) -> tensor<4xindex>
  return
}

// -----

func.func @cast_result_contradicts_to(%x: tensor<4xf32>) {
  // expected-error @+1 {{inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xi8>'}}
  %0 = graph.cast %x {to = f16} : (tensor<4xf32>) -> tensor<4xi8>
  return
}

// -----

func.func @float_op_of_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %0 = graph.sqrt %x : tensor<4xi32>
  return
}

// -----

func.func @not_of_floats(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be tensor of 1-bit signless integer values}}
  %0 = graph.not %x : tensor<4xf32>
  return
}

// -----

func.func @gelu_approximation(%x: tensor<4xf32>) {
  // expected-error @+1 {{approximate must be "none" or "tanh", got "erf"}}
  %0 = graph.gelu %x {approximate = "erf"} : tensor<4xf32>
  return
}

// -----

// graph.add keeps its SameOperandsAndResultElementType trait, whose check comes first.
func.func @add_element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = graph.add %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

// graph.silu (a Kiln extension) is defined on floats only, and keeps its operand's type.
func.func @silu_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be tensor of floating-point values}}
  %0 = graph.silu %x : tensor<4xi32>
  return
}

// -----

func.func @silu_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "graph.silu"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}
