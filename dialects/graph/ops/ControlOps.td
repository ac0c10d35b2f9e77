//===- ControlOps.td - Control flow: If, Loop, Scan ------*- tablegen -*-===//
//
// ONNX's control-flow operators carry subgraphs; here they are regions. Bodies are not
// isolated: like ONNX subgraphs they use values of the enclosing graph directly. Result
// types come from what the bodies yield (set at import) and are verified against them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_CONTROL_OPS
#define KILN_GRAPH_CONTROL_OPS

include "dialects/graph/GraphBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Graph_YieldOp : Graph_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["IfOp", "LoopOp", "ScanOp"]>]> {
  let summary = "Ends the body of graph.if, graph.loop or graph.scan with its outputs";
  let arguments = (ins Variadic<AnyTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Graph_IfOp : Graph_Op<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "Runs one of two subgraphs (ONNX If)";
  let description = [{
    `condition` is a boolean with one element. The results are the values the taken branch
    yields; both branches yield as many values, of the result types or more refined ones.

    ```mlir
    %r = graph.if %c : tensor<i1> -> tensor<5xf32> {
      graph.yield %a : tensor<5xf32>
    } else {
      graph.yield %b : tensor<5xf32>
    }
    ```
  }];
  let arguments = (ins AnyTensor:$condition);
  let results = (outs Variadic<AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$then_branch, SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $condition `:` type($condition) (`->` type($results)^)? $then_branch `else` $else_branch
    attr-dict
  }];
  let hasVerifier = 1;
}

def Graph_LoopOp : Graph_Op<"loop", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "Repeats a subgraph while a trip count and a condition allow (ONNX Loop)";
  let description = [{
    Runs `body` at most `max_trip_count` times (unbounded when absent) and while the
    condition holds (always when absent). The body's arguments are the iteration number
    (tensor<i64>), the condition (tensor<i1>) and the loop-carried values, which start as
    `initial_values`; it yields the next condition, the next carried values and any number
    of scan outputs. The results are the final carried values, then each scan output's
    values of all iterations stacked along a new leading dimension.
  }];
  let arguments = (ins
    Optional<AnyTensor>:$max_trip_count,
    Optional<AnyTensor>:$condition,
    Variadic<AnyTensor>:$initial_values);
  let results = (outs Variadic<AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`max_trip_count` $max_trip_count^ `:` type($max_trip_count))?
    (`condition` $condition^ `:` type($condition))?
    (`iter_args` `(` $initial_values^ `:` type($initial_values) `)`)?
    (`->` type($results)^)? $body attr-dict
  }];
  let hasVerifier = 1;
}

def Graph_ScanOp : Graph_Op<"scan", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "Runs a subgraph over slices of its inputs (ONNX Scan, opset 9 and later)";
  let description = [{
    Iterates over `scan_inputs` along their `scan_input_axes` (forward or, where
    `scan_input_directions` is 1, backward), carrying `initial_states`. The body's arguments
    are the states then one slice of each scan input; it yields the next states then one
    slice of each scan output. The results are the final states, then the scan outputs,
    slices stacked along `scan_output_axes` in `scan_output_directions`.
  }];
  let arguments = (ins
    Variadic<AnyTensor>:$initial_states,
    Variadic<AnyTensor>:$scan_inputs,
    DenseI64ArrayAttr:$scan_input_axes,
    DenseI64ArrayAttr:$scan_input_directions,
    DenseI64ArrayAttr:$scan_output_axes,
    DenseI64ArrayAttr:$scan_output_directions);
  let results = (outs Variadic<AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`states` `(` $initial_states^ `:` type($initial_states) `)`)?
    (`inputs` `(` $scan_inputs^ `:` type($scan_inputs) `)`)?
    (`->` type($results)^)? $body attr-dict
  }];
  let hasVerifier = 1;
}

#endif // KILN_GRAPH_CONTROL_OPS
