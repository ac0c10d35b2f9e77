//===- ShapeInferenceTest.cpp - The graph ops' shape rules ----------------===//

#include "dialects/graph/ShapeInference.h"

#include <gtest/gtest.h>

using namespace kiln::graph;
using llvm::SmallVector;

namespace {

constexpr int64_t kDyn = mlir::ShapedType::kDynamic;

TEST(BroadcastShapes, AlignsFromTheInnermostDimension) {
  auto shape = broadcastShapes({8, 1, 6, 1}, {7, 1, 5});
  ASSERT_TRUE(bool(shape));
  EXPECT_EQ(*shape, (SmallVector<int64_t>{8, 7, 6, 5}));
}

TEST(BroadcastShapes, DynamicAgainstStaticTakesTheStaticExtent) {
  auto shape = broadcastShapes({kDyn, 3}, {4, 3});
  ASSERT_TRUE(bool(shape));
  EXPECT_EQ(*shape, (SmallVector<int64_t>{4, 3}));
}

TEST(BroadcastShapes, DynamicAgainstOneStaysDynamic) {
  auto shape = broadcastShapes({kDyn}, {1});
  ASSERT_TRUE(bool(shape));
  EXPECT_EQ(*shape, (SmallVector<int64_t>{kDyn}));
}

TEST(BroadcastShapes, MismatchedExtentsFail) {
  auto shape = broadcastShapes({2, 3}, {4, 3});
  ASSERT_FALSE(bool(shape));
  EXPECT_EQ(llvm::toString(shape.takeError()), "shapes [2, 3] and [4, 3] do not broadcast");
}

TEST(ConvOutputExtent, MatchesResNetStem) {
  // 224 input, 7x7 kernel, stride 2, pad 3 on both sides: 112.
  auto extent = convOutputExtent(224, 7, 2, 1, 3, 3);
  ASSERT_TRUE(bool(extent));
  EXPECT_EQ(*extent, 112);
}

TEST(ConvOutputExtent, DilationWidensTheWindow) {
  // A 3-tap kernel dilated by 2 spans 5 elements: 10 - 5 + 1 = 6 outputs.
  auto extent = convOutputExtent(10, 3, 1, 2, 0, 0);
  ASSERT_TRUE(bool(extent));
  EXPECT_EQ(*extent, 6);
}

TEST(ConvOutputExtent, RoundsDown) {
  auto extent = convOutputExtent(8, 3, 2, 1, 0, 0);
  ASSERT_TRUE(bool(extent));
  EXPECT_EQ(*extent, 3);
}

TEST(ConvOutputExtent, DynamicInputGivesDynamicOutput) {
  auto extent = convOutputExtent(kDyn, 3, 1, 1, 1, 1);
  ASSERT_TRUE(bool(extent));
  EXPECT_EQ(*extent, kDyn);
}

TEST(ConvOutputExtent, WindowLargerThanInputFails) {
  auto extent = convOutputExtent(2, 5, 1, 1, 0, 0);
  ASSERT_FALSE(bool(extent));
  llvm::consumeError(extent.takeError());
}

TEST(MatMulShape, BroadcastsBatchDimensions) {
  auto shape = matmulShape({2, 1, 4, 8}, {3, 8, 5});
  ASSERT_TRUE(bool(shape));
  EXPECT_EQ(*shape, (SmallVector<int64_t>{2, 3, 4, 5}));
}

TEST(MatMulShape, VectorOperandsDropTheirDimension) {
  auto vecMat = matmulShape({8}, {8, 5});
  ASSERT_TRUE(bool(vecMat));
  EXPECT_EQ(*vecMat, (SmallVector<int64_t>{5}));
  auto matVec = matmulShape({4, 8}, {8});
  ASSERT_TRUE(bool(matVec));
  EXPECT_EQ(*matVec, (SmallVector<int64_t>{4}));
  auto dot = matmulShape({8}, {8});
  ASSERT_TRUE(bool(dot));
  EXPECT_TRUE(dot->empty());
}

TEST(MatMulShape, ContractingMismatchFails) {
  auto shape = matmulShape({4, 8}, {7, 5});
  ASSERT_FALSE(bool(shape));
  EXPECT_NE(llvm::toString(shape.takeError()).find("contracting dimensions differ"),
            std::string::npos);
}

TEST(MatMulShape, DynamicContractingDimensionIsAccepted) {
  auto shape = matmulShape({kDyn, 128, kDyn}, {768, 64});
  ASSERT_TRUE(bool(shape));
  EXPECT_EQ(*shape, (SmallVector<int64_t>{kDyn, 128, 64}));
}

} // namespace
