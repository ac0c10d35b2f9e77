//===- NN.cpp - Graph to linalg: convolution, pooling, matmul, normalisation and resampling ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

/// Softmax and the normalisations (NNNormalization.cpp).
void populateNNNormalizationLowering(const TypeConverter &converter,
                                     RewritePatternSet &patterns);
/// Resize, GridSample, RoiAlign, NonMaxSuppression (NNSampling.cpp).
void populateNNSamplingLowering(const TypeConverter &converter, RewritePatternSet &patterns);

void populateNNLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  populateNNNormalizationLowering(converter, patterns);
  populateNNSamplingLowering(converter, patterns);
}

} // namespace kiln::lowering
