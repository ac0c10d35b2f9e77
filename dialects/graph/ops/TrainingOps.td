//===- TrainingOps.td - Optimizers of ai.onnx.preview.training -*- tablegen -*-===//
//
// The optimizer steps of ONNX's training domain (`ai.onnx.preview.training`, opset 1):
// Adagrad, Adam and Momentum. Each updates any number of tensors at once: its operands are
// the learning rate `R`, the iteration count `T`, then the variadic `inputs` grouped as
// ONNX orders them (all parameters X, then all gradients G, then each kind of optimizer
// state: H for Adagrad; V then H for Adam; V for Momentum), and its results the new
// parameters then the new states in the same grouping. Every tensor of one group index
// (X_i, G_i and its states) has one shape and one float element type, which its results
// keep.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_TRAINING_OPS
#define KILN_GRAPH_TRAINING_OPS

include "dialects/graph/GraphBase.td"

// An optimizer step over `inputs` grouped as (X..., G..., states...) with `numStates`
// kinds of state per tensor.
class Graph_OptimizerOp<string mnemonic, int numStates>
    : Graph_InferredOp<mnemonic> {
  let results = (outs Variadic<AnyTensor>:$outputs);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The kinds of optimizer state each updated tensor has (H; V, H; V).
    static constexpr unsigned kNumStates = }] # !cast<string>(numStates) # [{;
    /// The number of tensors the step updates (the groups of `inputs`).
    unsigned getNumUpdated() { return getInputs().size() / (2 + kNumStates); }
    /// Group `group` of `inputs`: 0 the parameters X, 1 the gradients G, 2 and on the
    /// states in ONNX's order.
    ::mlir::OperandRange getInputGroup(unsigned group) {
      unsigned count = getNumUpdated();
      return getInputs().slice(group * count, count);
    }
  }];
}

def Graph_AdagradOp : Graph_OptimizerOp<"adagrad", 1> {
  let summary = "One Adagrad step on several tensors (ONNX Adagrad, ai.onnx.preview.training)";
  let description = [{
    `learning_rate` is a float scalar `R`, `iteration` an i64 scalar `T`; `inputs` are
    `X1..Xn, G1..Gn, H1..Hn` (parameters, gradients, accumulated squared gradients) and the
    results `X1_new..Xn_new, H1_new..Hn_new`. For each tensor, elementwise:

        r = R / (1 + T * decay_factor)
        g = norm_coefficient * X + G
        H_new = H + g * g
        X_new = X - r * g / (sqrt(H_new) + epsilon)

    ONNX's defaults (`decay_factor` 0, `epsilon` 1e-6, `norm_coefficient` 0) are filled in
    by the importer.

    ```mlir
    %x_new, %h_new = graph.adagrad %r, %t, %x, %g, %h
        {decay_factor = 1.0e-01 : f32, epsilon = 1.0e-05 : f32, norm_coefficient = 1.0e-03 : f32}
        : (tensor<f32>, tensor<i64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins
    AnyTensor:$learning_rate,
    AnyTensor:$iteration,
    Variadic<AnyTensor>:$inputs,
    F32Attr:$decay_factor,
    F32Attr:$epsilon,
    F32Attr:$norm_coefficient);
}

def Graph_AdamOp : Graph_OptimizerOp<"adam", 2> {
  let summary = "One Adam step on several tensors (ONNX Adam, ai.onnx.preview.training)";
  let description = [{
    `learning_rate` is a float scalar `R`, `iteration` an i64 scalar `T`; `inputs` are
    `X1..Xn, G1..Gn, V1..Vn, H1..Hn` (parameters, gradients, first and second moments) and
    the results `X1_new..Xn_new, V1_new..Vn_new, H1_new..Hn_new`. For each tensor,
    elementwise:

        g = norm_coefficient * X + G
        V_new = alpha * V + (1 - alpha) * g
        H_new = beta * H + (1 - beta) * g * g
        r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
        X_new = (1 - norm_coefficient_post) * (X - r * V_new / (sqrt(H_new) + epsilon))

    ONNX's defaults (`alpha` 0.9, `beta` 0.999, `epsilon` 1e-6, both norm coefficients 0)
    are filled in by the importer.

    ```mlir
    %x_new, %v_new, %h_new = graph.adam %r, %t, %x, %g, %v, %h
        {alpha = 0.949999988 : f32, beta = 1.000000e-01 : f32, epsilon = 1.0e-07 : f32,
         norm_coefficient = 1.0e-03 : f32, norm_coefficient_post = 0.0 : f32}
        : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
           tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    ```
  }];
  let arguments = (ins
    AnyTensor:$learning_rate,
    AnyTensor:$iteration,
    Variadic<AnyTensor>:$inputs,
    F32Attr:$alpha,
    F32Attr:$beta,
    F32Attr:$epsilon,
    F32Attr:$norm_coefficient,
    F32Attr:$norm_coefficient_post);
}

def Graph_MomentumOp : Graph_OptimizerOp<"momentum", 1> {
  let summary = "One step of SGD with momentum on several tensors (ONNX Momentum, "
                "ai.onnx.preview.training)";
  let description = [{
    `learning_rate` is a float scalar `R`, `iteration` an i64 scalar `T`; `inputs` are
    `X1..Xn, G1..Gn, V1..Vn` (parameters, gradients, momenta) and the results
    `X1_new..Xn_new, V1_new..Vn_new`. For each tensor, elementwise:

        g = norm_coefficient * X + G
        V_new = alpha * V + (T > 0 ? beta : 1) * g
        X_new = X - R * V_new                      (mode "standard")
        X_new = X - R * (g + alpha * V_new)        (mode "nesterov")

    ONNX requires every attribute; there are no defaults.

    ```mlir
    %x_new, %v_new = graph.momentum %r, %t, %x, %g, %v
        {alpha = 0.949999988 : f32, beta = 1.000000e-01 : f32, mode = "standard",
         norm_coefficient = 1.0e-03 : f32}
        : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
        -> (tensor<2xf32>, tensor<2xf32>)
    ```
  }];
  let arguments = (ins
    AnyTensor:$learning_rate,
    AnyTensor:$iteration,
    Variadic<AnyTensor>:$inputs,
    F32Attr:$alpha,
    F32Attr:$beta,
    StrAttr:$mode,
    F32Attr:$norm_coefficient);
}

#endif // KILN_GRAPH_TRAINING_OPS
