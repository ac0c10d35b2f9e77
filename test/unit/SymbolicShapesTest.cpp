//===- SymbolicShapesTest.cpp - Polynomials of dimension symbols ----------===//

#include "passes/graph/SymbolicShapes.h"

#include <gtest/gtest.h>

using kiln::graph::DimExpr;

namespace {

const std::vector<std::string> kNames = {"batch", "sequence"};
const DimExpr kBatch = DimExpr::symbol(0), kSequence = DimExpr::symbol(1);

std::string text(const DimExpr &expr) {
  std::string out;
  llvm::raw_string_ostream os(out);
  expr.print(os, kNames);
  return out;
}

TEST(DimExpr, ProductsAreOrderFreeAndPrintHighestDegreeFirst) {
  DimExpr a = kBatch * kSequence * DimExpr::constant(768);
  DimExpr b = DimExpr::constant(768) * kSequence * kBatch;
  EXPECT_EQ(a, b);
  EXPECT_EQ(text(a), "batch*sequence*768");
  EXPECT_EQ(text(kSequence + DimExpr::constant(1)), "sequence + 1");
  EXPECT_EQ(text(DimExpr::constant(1) - kSequence), "-sequence + 1");
}

TEST(DimExpr, TermsCancel) {
  DimExpr zero = kBatch * kSequence - kSequence * kBatch;
  EXPECT_EQ(zero.getConstant(), 0);
  EXPECT_EQ(text(zero), "0");
  EXPECT_EQ((kSequence + DimExpr::constant(1) - kSequence).getConstant(), 1);
}

TEST(DimExpr, DividesExactlyByOneTerm) {
  // Reshape's -1: batch*sequence*768 / (batch*sequence*64) = 12.
  DimExpr elements = kBatch * kSequence * DimExpr::constant(768);
  std::optional<DimExpr> heads = elements.divideExactly(kBatch * kSequence * DimExpr::constant(64));
  ASSERT_TRUE(heads);
  EXPECT_EQ(heads->getConstant(), 12);
  // Not exact: a coefficient, a symbol the dividend lacks, a sum as divisor.
  EXPECT_FALSE(elements.divideExactly(DimExpr::constant(7)));
  EXPECT_FALSE(kBatch.divideExactly(kSequence));
  EXPECT_FALSE(elements.divideExactly(kBatch + DimExpr::constant(1)));
  // A sum divides term by term.
  std::optional<DimExpr> half =
      (kBatch * DimExpr::constant(4) + DimExpr::constant(2)).divideExactly(DimExpr::constant(2));
  ASSERT_TRUE(half);
  EXPECT_EQ(text(*half), "batch*2 + 1");
}

TEST(DimExpr, SignHoldsForEveryPositiveValueOfTheSymbols) {
  EXPECT_EQ((kBatch + DimExpr::constant(1)).sign(), 1);
  EXPECT_EQ((DimExpr::constant(-1) - kBatch * kSequence).sign(), -1);
  EXPECT_EQ(DimExpr::constant(0).sign(), 0);
  EXPECT_FALSE((kBatch - DimExpr::constant(1)).sign()); // 0 for batch = 1
  EXPECT_FALSE((kBatch - kSequence).sign());
}

} // namespace
