//===- RandomOps.td - Random number generation -*- tablegen -*-===//

#ifndef KILN_GRAPH_RANDOM_OPS
#define KILN_GRAPH_RANDOM_OPS

include "dialects/graph/GraphBase.td"

// Random ops draw new values each time they run, so unlike other graph ops they are not
// `Pure`: two identical ones must not be merged, nor one hoisted or folded. `seed`, when
// present, makes a sequence reproducible; absent, the values are nondeterministic.
class Graph_RandomOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits, [Graph_InferTypeWithRefinement])>;

//===----------------------------------------------------------------------===//
// Distributions of a given shape
//===----------------------------------------------------------------------===//

def Graph_RandomUniformOp : Graph_RandomOp<"random_uniform"> {
  let summary = "Uniformly distributed random values (ONNX RandomUniform)";
  let description = [{
    A tensor of `shape` and float element type `dtype` whose elements are drawn uniformly
    from `[low, high)`.

    ```mlir
    %r = graph.random_uniform {dtype = f32, high = 1.0 : f32, low = 0.0 : f32,
                               shape = array<i64: 2, 3>} : () -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins
    TypeAttr:$dtype,
    DenseI64ArrayAttr:$shape,
    F32Attr:$low,
    F32Attr:$high,
    OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "attr-dict `:` functional-type(operands, results)";
}

def Graph_RandomNormalOp : Graph_RandomOp<"random_normal"> {
  let summary = "Normally distributed random values (ONNX RandomNormal)";
  let description = [{
    A tensor of `shape` and float element type `dtype` whose elements are drawn from the
    normal distribution of mean `mean` and standard deviation `scale`.

    ```mlir
    %r = graph.random_normal {dtype = f32, mean = 0.0 : f32, scale = 1.0 : f32,
                              shape = array<i64: 4>} : () -> tensor<4xf32>
    ```
  }];
  let arguments = (ins
    TypeAttr:$dtype,
    DenseI64ArrayAttr:$shape,
    F32Attr:$mean,
    F32Attr:$scale,
    OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Distributions of an input's shape
//===----------------------------------------------------------------------===//

def Graph_RandomUniformLikeOp : Graph_RandomOp<"random_uniform_like"> {
  let summary = "Uniformly distributed random values of an input's shape "
                "(ONNX RandomUniformLike)";
  let description = [{
    As `graph.random_uniform`, with the shape of `input` (whose values are not used). ONNX's
    default `dtype`, the input's element type, is filled in at import.
  }];
  let arguments = (ins
    AnyTensor:$input,
    TypeAttr:$dtype,
    F32Attr:$low,
    F32Attr:$high,
    OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_RandomNormalLikeOp : Graph_RandomOp<"random_normal_like"> {
  let summary = "Normally distributed random values of an input's shape "
                "(ONNX RandomNormalLike)";
  let description = [{
    As `graph.random_normal`, with the shape of `input` (whose values are not used). ONNX's
    default `dtype`, the input's element type, is filled in at import.
  }];
  let arguments = (ins
    AnyTensor:$input,
    TypeAttr:$dtype,
    F32Attr:$mean,
    F32Attr:$scale,
    OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Sampling
//===----------------------------------------------------------------------===//

def Graph_BernoulliOp : Graph_RandomOp<"bernoulli"> {
  let summary = "Bernoulli trials with given probabilities (ONNX Bernoulli)";
  let description = [{
    Each element of the result is 1 with the probability in the same element of the float
    `input` (in `[0, 1]`) and 0 otherwise, as element type `dtype` (ONNX's default, the
    input's element type, is filled in at import).

    ```mlir
    %b = graph.bernoulli %p {dtype = f32} : (tensor<10xf32>) -> tensor<10xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$input, TypeAttr:$dtype, OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_MultinomialOp : Graph_RandomOp<"multinomial"> {
  let summary = "Samples from categorical distributions (ONNX Multinomial)";
  let description = [{
    `input` is `[batch_size, class_size]`, the unnormalised log-probabilities of each class
    per batch; the result `[batch_size, sample_size]` holds `sample_size` class indices
    drawn per batch, of element type `dtype` (i32 or i64).

    ```mlir
    %s = graph.multinomial %logits {dtype = i32, sample_size = 5 : i64}
        : (tensor<3x10xf32>) -> tensor<3x5xi32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    ConfinedAttr<I64Attr, [IntPositive]>:$sample_size,
    TypeAttr:$dtype,
    OptionalAttr<F32Attr>:$seed);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

#endif // KILN_GRAPH_RANDOM_OPS
