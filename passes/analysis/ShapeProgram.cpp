//===- ShapeProgram.cpp - A dynamic engine's shape program from host IR ---===//

#include "passes/analysis/ShapeProgram.h"
#include "dialects/kernel/KernelDialect.h"
#include "dialects/kernel/KernelOps.h"

#include "passes/analysis/HostExtents.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using kiln::engine::ShapeInstruction;

kiln::ShapeProgramBuilder::ShapeProgramBuilder(func::FuncOp host,
                                               std::vector<ShapeInstruction> &program)
    : host(host), program(program) {
  auto inputs = host->getAttrOfType<IntegerAttr>(kiln::kernel::kNumInputsAttr);
  numInputs = inputs ? static_cast<unsigned>(inputs.getInt()) : host.getNumArguments();
}

uint32_t kiln::ShapeProgramBuilder::emit(ShapeInstruction::Op op, uint32_t a, uint32_t b,
                                         int64_t constant) {
  for (auto [index, instruction] : llvm::enumerate(program))
    if (instruction.op == op && instruction.a == a && instruction.b == b &&
        instruction.constant == constant)
      return index;
  program.push_back({op, a, b, constant});
  return program.size() - 1;
}

FailureOr<uint32_t> kiln::ShapeProgramBuilder::getExtent(Value buffer, int64_t dim,
                                                         Operation *user) {
  FailureOr<SmallVector<ExtentFactor>> factors = traceExtent(buffer, dim);
  if (failed(factors))
    return user->emitError("reads a run-time extent of a buffer that ")
           << (buffer.getDefiningOp() ? buffer.getDefiningOp()->getName().getStringRef()
                                      : StringRef("a nested block's argument"))
           << " makes, which the shape program cannot follow";
  std::optional<uint32_t> product;
  for (const ExtentFactor &factor : *factors) {
    FailureOr<uint32_t> value = failure();
    if (factor.argument) {
      if (factor.argument.getOwner() != &host.getBody().front() ||
          factor.argument.getArgNumber() >= numInputs)
        return user->emitError("reads an extent of an output buffer, which the host function "
                               "must compute from the inputs' extents");
      value = emit(ShapeInstruction::Op::InputDim, factor.argument.getArgNumber(), factor.dim);
    } else if (std::optional<int64_t> constant = getConstantIntValue(factor.value)) {
      value = emit(ShapeInstruction::Op::Constant, 0, 0, *constant);
    } else {
      value = getValue(cast<Value>(factor.value), user);
    }
    if (failed(value))
      return failure();
    product = product ? emit(ShapeInstruction::Op::Mul, *product, *value) : *value;
  }
  return *product;
}

FailureOr<uint32_t> kiln::ShapeProgramBuilder::getValue(Value value, Operation *user) {
  auto found = values.find(value);
  if (found != values.end())
    return found->second;
  FailureOr<uint32_t> result = compute(value, user);
  if (succeeded(result))
    values[value] = *result;
  return result;
}

FailureOr<uint32_t> kiln::ShapeProgramBuilder::compute(Value value, Operation *user) {
  using Op = ShapeInstruction::Op;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return emit(Op::Constant, 0, 0,
                value.getType().isInteger(1) ? constant.getZExtValue() : constant.getSExtValue());
  Operation *op = value.getDefiningOp();
  if (!op)
    return user->emitError("uses a run-time size that is an argument of the host function");
  // A value read back from the device: its own instruction, numbered in the order the
  // schedule reads them (the engine's read-back steps follow the host function's order).
  if (isa<kernel::ReadBackOp>(op))
    return emit(Op::DeviceValue, readBacks++, 0);
  if (auto dim = dyn_cast<memref::DimOp>(op)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return dim.emitError("reads an extent whose dimension is not a constant");
    return getExtent(dim.getSource(), *index, user);
  }
  // Sizes are far below 2^31: casts between index and integers keep them.
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp,
          arith::TruncIOp>(op))
    return getValue(op->getOperand(0), user);
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    FailureOr<uint32_t> condition = getValue(select.getCondition(), user);
    FailureOr<uint32_t> whenTrue = getValue(select.getTrueValue(), user);
    FailureOr<uint32_t> whenFalse = getValue(select.getFalseValue(), user);
    if (failed(condition) || failed(whenTrue) || failed(whenFalse))
      return failure();
    return emit(Op::Select, *whenTrue, *whenFalse, *condition);
  }
  if (auto compare = dyn_cast<arith::CmpIOp>(op)) {
    FailureOr<uint32_t> lhs = getValue(compare.getLhs(), user);
    FailureOr<uint32_t> rhs = getValue(compare.getRhs(), user);
    if (failed(lhs) || failed(rhs))
      return failure();
    return emit(Op::Compare, *lhs, *rhs, static_cast<int64_t>(compare.getPredicate()));
  }
  std::optional<Op> kind = llvm::TypeSwitch<Operation *, std::optional<Op>>(op)
                               .Case([](arith::AddIOp) { return Op::Add; })
                               .Case([](arith::SubIOp) { return Op::Sub; })
                               .Case([](arith::MulIOp) { return Op::Mul; })
                               .Case([](arith::DivUIOp) { return Op::DivU; })
                               .Case([](arith::RemUIOp) { return Op::RemU; })
                               .Case([](arith::CeilDivUIOp) { return Op::CeilDivU; })
                               .Case([](arith::MinUIOp) { return Op::MinU; })
                               .Case([](arith::MaxUIOp) { return Op::MaxU; })
                               .Case([](arith::DivSIOp) { return Op::DivS; })
                               .Case([](arith::RemSIOp) { return Op::RemS; })
                               .Case([](arith::MinSIOp) { return Op::MinS; })
                               .Case([](arith::MaxSIOp) { return Op::MaxS; })
                               .Case([](arith::AndIOp) { return Op::And; })
                               .Case([](arith::OrIOp) { return Op::Or; })
                               .Case([](arith::XOrIOp) { return Op::Xor; })
                               .Default([](Operation *) { return std::nullopt; });
  if (!kind)
    // Named where the op has a location of its own (a lowering's), else at the op that
    // uses the size (its launch or allocation, which carries the ONNX node).
    return (isa<UnknownLoc>(op->getLoc()) && user ? user : op)
               ->emitError("computes a run-time size with ")
           << op->getName() << ", which the engine's shape program does not evaluate";
  FailureOr<uint32_t> lhs = getValue(op->getOperand(0), user);
  FailureOr<uint32_t> rhs = getValue(op->getOperand(1), user);
  if (failed(lhs) || failed(rhs))
    return failure();
  return emit(*kind, *lhs, *rhs);
}

kiln::ProfileShapeEvaluator::ProfileShapeEvaluator(func::FuncOp host, StringRef profile)
    : builder(host, program), profile(profile.str()) {
  for (BlockArgument argument : host.getArguments()) {
    auto type = dyn_cast<MemRefType>(argument.getType());
    auto extents = host.getArgAttrOfType<DenseI64ArrayAttr>(argument.getArgNumber(), profile);
    std::vector<int64_t> shape;
    if (extents)
      shape.assign(extents.asArrayRef().begin(), extents.asArrayRef().end());
    else if (type)
      shape.assign(type.getShape().begin(), type.getShape().end());
    shapes.push_back(shape);
  }
}

FailureOr<int64_t> kiln::ProfileShapeEvaluator::evaluate(Value value, Operation *user) {
  return evaluateIndex(builder.getValue(value, user), user);
}

FailureOr<int64_t> kiln::ProfileShapeEvaluator::evaluateExtent(Value buffer, int64_t dim,
                                                               Operation *user) {
  return evaluateIndex(builder.getExtent(buffer, dim, user), user);
}

FailureOr<int64_t> kiln::ProfileShapeEvaluator::evaluateIndex(FailureOr<uint32_t> index,
                                                              Operation *user) {
  if (failed(index))
    return failure();
  // Every input extent the program reads must be bounded.
  for (const ShapeInstruction &instruction : program)
    if (instruction.op == ShapeInstruction::Op::InputDim) {
      const std::vector<int64_t> &shape = shapes[instruction.a];
      if (instruction.b >= shape.size() || ShapedType::isDynamic(shape[instruction.b]))
        return user->emitError("reads extent ")
               << instruction.b << " of argument " << instruction.a << ", which has no " << profile
               << ": a dynamic shape needs the profile's shapes";
    }
  // A select on a condition read from the device (which branch of an If runs) may take
  // either side at run time: the bound is the larger.
  std::vector<ShapeInstruction> bounding = engine::boundingProgram(program);
  std::vector<int64_t> values;
  engine::evaluateProgram(bounding, shapes, values);
  return values[*index];
}
