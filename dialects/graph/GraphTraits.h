//===- GraphTraits.h - What kind of computation a graph op is ---*- C++ -*-===//
//
// Marker traits (GraphBase.td) that kernel formation reads to pick a kernel template:
// pointwise ops (elementwise with broadcasting), reductions and normalisations, and data
// movement. They carry no methods: an op either has one or it does not.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECTS_GRAPH_GRAPHTRAITS_H
#define KILN_DIALECTS_GRAPH_GRAPHTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace kiln::graph::OpTrait {

template <typename ConcreteType>
class Pointwise : public mlir::OpTrait::TraitBase<ConcreteType, Pointwise> {};

template <typename ConcreteType>
class Reduction : public mlir::OpTrait::TraitBase<ConcreteType, Reduction> {};

template <typename ConcreteType>
class DataMovement : public mlir::OpTrait::TraitBase<ConcreteType, DataMovement> {};

} // namespace kiln::graph::OpTrait

#endif // KILN_DIALECTS_GRAPH_GRAPHTRAITS_H
