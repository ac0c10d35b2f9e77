// The kernel dialect rejects malformed kernels, launches and configs.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{must not return values: kernels write to their buffer arguments}}
kernel.func @returns_value(%a: memref<4xf32>) -> f32 {
  kernel.return
}

// -----

// expected-error @+1 {{argument 0 has type 'tensor<4xf32>'; expected a memref, an integer, an index or a float}}
kernel.func @tensor_argument(%a: tensor<4xf32>) {
  kernel.return
}

// -----

kernel.func @k(%a: memref<4xf32>) {
  kernel.return
}
func.func @launch_arity(%a: memref<4xf32>) {
  // expected-error @+1 {{passes 2 operands to 'k', which takes 1}}
  kernel.launch @k(%a, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

kernel.func @k(%a: memref<4xf32>) {
  kernel.return
}
func.func @launch_types(%a: memref<8xf32>) {
  // expected-error @+1 {{operand 0 has type 'memref<8xf32>' but 'k' expects 'memref<4xf32>'}}
  kernel.launch @k(%a) : (memref<8xf32>) -> ()
  return
}

// -----

func.func @not_a_kernel(%a: memref<4xf32>) {
  return
}
func.func @launch_unknown(%a: memref<4xf32>) {
  // expected-error @+1 {{'not_a_kernel' does not name a kernel.func}}
  kernel.launch @not_a_kernel(%a) : (memref<4xf32>) -> ()
  return
}

// -----

func.func @return_outside_kernel() {
  // expected-error @+1 {{expects parent op 'kernel.func'}}
  kernel.return
}

// -----

// expected-error @+1 {{warps must be a power of two from 1 to 32, got 3}}
func.func @bad_warps() attributes {c = #kernel.config<tile = [128], stages = 1, warps = 3>} {
  return
}

// -----

// expected-error @+1 {{tile extents must be positive}}
func.func @bad_tile() attributes {c = #kernel.config<tile = [128, 0], stages = 1, warps = 4>} {
  return
}

// -----

// expected-error @+1 {{tile must have at least one extent}}
func.func @empty_tile() attributes {c = #kernel.config<tile = [], stages = 1, warps = 4>} {
  return
}

// -----

// expected-error @+1 {{stages must be at least 1, got 0}}
func.func @bad_stages() attributes {c = #kernel.config<tile = [64], stages = 0, warps = 4>} {
  return
}

// -----

// expected-error @+1 {{split_k must be at least 1, got 0}}
func.func @bad_split_k() attributes {c = #kernel.config<tile = [64], stages = 1, warps = 4, split_k = 0>} {
  return
}

// -----

// expected-error @+1 {{struct is missing required parameter: warps}}
func.func @missing_warps() attributes {c = #kernel.config<tile = [64], stages = 1>} {
  return
}

// -----

kernel.func @body_argument_type(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{body argument 0 has type 'tensor<4xf16>'; input buffer 0 is read as 'tensor<4xf32>'}}
  kernel.pointwise ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: tensor<4xf16>):
    %r = graph.cast %a {to = f32} : (tensor<4xf16>) -> tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  kernel.return
}

// -----

kernel.func @body_arity(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{body has 0 arguments for 1 input buffers}}
  kernel.pointwise ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
    %r = graph.constant dense<1.0> : tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  kernel.return
}

// -----

kernel.func @yield_type(%x: memref<4xf32>, %y: memref<4xi32>) {
  kernel.pointwise ins(%x : memref<4xf32>) outs(%y : memref<4xi32>) {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{value 0 has type 'tensor<4xf32>'; output buffer 0 holds 'tensor<4xi32>'}}
    kernel.yield %a : tensor<4xf32>
  }
  kernel.return
}

// -----

kernel.func @matmul_without_anchor(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  // expected-error @+1 {{body must start with a graph.matmul or graph.gemm}}
  kernel.matmul ins(%x : memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%a: tensor<4x4xf32>):
    %r = graph.relu %a : tensor<4x4xf32>
    kernel.yield %r : tensor<4x4xf32>
  }
  kernel.return
}

// -----

kernel.func @reduction_without_reduction(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{body must hold a reduction (an op with the graph Reduction trait)}}
  kernel.reduction ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %r = graph.relu %a : tensor<4xf32>
    kernel.yield %r : tensor<4xf32>
  }
  kernel.return
}

// -----

func.func @yield_outside_template(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op to be one of}}
  kernel.yield %a : tensor<4xf32>
}
