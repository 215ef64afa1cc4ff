#include "sandbox/embedding.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace attnviz;

TEST(Embedding, SameTokenSameVectorAcrossSentencesWithoutPositions) {
  auto a = Tokenize("the cat sat");
  auto b = Tokenize("a dog and the end");
  Tensor xa, xb;
  Embed(*a, 32, 7, false, &xa);
  Embed(*b, 32, 7, false, &xb);
  ASSERT_EQ(xa.shape, (std::vector<size_t>{3, 32}));
  for (int c = 0; c < 32; ++c) EXPECT_EQ(xa.data[c], xb.data[3 * 32 + c]);  // "the"
  Tensor xc;
  Embed(*a, 32, 8, false, &xc);  // another seed, another vector
  EXPECT_NE(xa.data[0], xc.data[0]);
  Tensor xd;
  Embed(*a, 32, 7, false, &xd);  // deterministic run to run
  EXPECT_EQ(xa.data, xd.data);
}

TEST(Embedding, UnitVarianceWithAndWithoutPositions) {
  std::string text;
  for (int i = 0; i < 512; ++i) text += "w" + std::to_string(i) + " ";
  auto tokens = Tokenize(text);
  for (bool positional : {false, true}) {
    Tensor x;
    Embed(*tokens, 128, 1, positional, &x);
    double sum = 0, sq = 0;
    for (float v : x.data) {
      sum += v;
      sq += v * v;
    }
    // Mean square 1: token part N(0,1) plus sin/cos pairs (sin^2 + cos^2 = 1 per pair), over sqrt(1.5).
    const double n = x.data.size(), mean = sum / n;
    EXPECT_NEAR(sq / n, 1.0, 0.08) << "positional=" << positional;
    if (!positional) EXPECT_NEAR(mean, 0.0, 0.05);
  }
}

TEST(Embedding, PositionsMatchTheSinusoidFormula) {
  std::vector<float> pe(8);
  SinusoidalPosition(3, 8, pe.data());
  EXPECT_NEAR(pe[0], std::sin(3.0), 1e-6);
  EXPECT_NEAR(pe[1], std::cos(3.0), 1e-6);
  EXPECT_NEAR(pe[2], std::sin(3.0 / std::pow(10000.0, 2.0 / 8)), 1e-6);
  EXPECT_NEAR(pe[7], std::cos(3.0 / std::pow(10000.0, 6.0 / 8)), 1e-6);
  // With positions on, the same token at two positions differs.
  auto t = Tokenize("same same");
  Tensor x;
  Embed(*t, 16, 0, true, &x);
  EXPECT_NE(x.data[0], x.data[16]);
}
