// The forward pass against a naive loop version (double precision), plus its invariants.
#include "attention/attention.h"
#include "sandbox/projection.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sandbox/embedding.h"
#include "sandbox/weights.h"

using namespace attnviz;

namespace {

struct Naive {
  std::vector<double> logits, probs, z, out;  // [n_head, n_q, n_k], same, [n_head, n_q, d_v], [n_q, d_model]
};

// The textbook formula, one loop per index; the second opinion for the Eigen path.
Naive NaiveForward(const Tensor& xq, const Tensor& x, const ProjectionWeights& w, const AttentionConfig& c) {
  const int n_q = xq.dim(0), n_k = x.dim(0), d_model = c.d_model, H = c.n_head;
  const int d_k = c.head_dim_k(), d_v = c.head_dim_v();
  auto wq = [&](int r, int col) { return (double)w.w_q.data[r * H * d_k + col]; };
  auto wk = [&](int r, int col) { return (double)w.w_k.data[r * H * d_k + col]; };
  auto wv = [&](int r, int col) { return (double)w.w_v.data[r * H * d_v + col]; };
  Naive n;
  n.logits.assign(H * n_q * n_k, 0);
  n.probs.assign(H * n_q * n_k, 0);
  n.z.assign(H * n_q * d_v, 0);
  n.out.assign(n_q * d_model, 0);
  const double mult = (c.scale ? 1.0 / std::sqrt((double)d_k) : 1.0) / c.temperature;
  for (int h = 0; h < H; ++h) {
    for (int i = 0; i < n_q; ++i) {
      std::vector<double> q(d_k, 0);
      for (int a = 0; a < d_k; ++a)
        for (int r = 0; r < d_model; ++r) q[a] += xq.data[i * d_model + r] * wq(r, h * d_k + a);
      for (int j = 0; j < n_k; ++j) {
        double dot = 0;
        for (int a = 0; a < d_k; ++a) {
          double kk = 0;
          for (int r = 0; r < d_model; ++r) kk += x.data[j * d_model + r] * wk(r, h * d_k + a);
          dot += q[a] * kk;
        }
        n.logits[(h * n_q + i) * n_k + j] = dot * mult;
      }
      const int visible = c.mask == MaskKind::kCausal ? std::min(i + 1, n_k) : n_k;
      double m = -1e300, sum = 0;
      for (int j = 0; j < visible; ++j) m = std::max(m, n.logits[(h * n_q + i) * n_k + j]);
      for (int j = 0; j < visible; ++j) sum += std::exp(n.logits[(h * n_q + i) * n_k + j] - m);
      for (int j = 0; j < visible; ++j)
        n.probs[(h * n_q + i) * n_k + j] = std::exp(n.logits[(h * n_q + i) * n_k + j] - m) / sum;
      for (int b = 0; b < d_v; ++b) {
        double acc = 0;
        for (int j = 0; j < n_k; ++j) {
          double vv = 0;
          for (int r = 0; r < d_model; ++r) vv += x.data[j * d_model + r] * wv(r, h * d_v + b);
          acc += n.probs[(h * n_q + i) * n_k + j] * vv;
        }
        n.z[(h * n_q + i) * d_v + b] = acc;
      }
    }
  }
  for (int i = 0; i < n_q; ++i)
    for (int o = 0; o < d_model; ++o) {
      double acc = 0;
      for (int h = 0; h < H; ++h)
        for (int b = 0; b < d_v; ++b) acc += n.z[(h * n_q + i) * d_v + b] * w.w_o.data[(h * d_v + b) * d_model + o];
      n.out[i * d_model + o] = acc;
    }
  return n;
}

struct ForwardRun {
  Tensor xq, x, q, k, v, scores, logits, probs, z, concat, out;
};

ForwardRun Forward(const std::string& kv, const std::string& query, const AttentionConfig& c, ProjectionWeights* w) {
  ForwardRun r;
  Embed(*Tokenize(kv), c.d_model, c.seed, c.positional, &r.x);
  if (query.empty()) r.xq = r.x;
  else Embed(*Tokenize(query), c.d_model, c.seed, c.positional, &r.xq);
  AttentionConfig sep = c;
  sep.qkv = QkvLayout::kSeparate;  // the naive version reads the separate matrices
  InitWeights(sep, w);
  Project(r.xq, r.x, *w, &r.q, &r.k, &r.v);
  Scores(r.q, r.k, &r.scores);
  Logits(r.scores, c.logit_multiplier(), &r.logits);
  Softmax(r.logits, c.mask, &r.probs);
  MixValues(r.probs, r.v, &r.z);
  OutputProjection(r.z, w->w_o, &r.concat, &r.out);
  return r;
}

void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " at " << i;
  }
}

}  // namespace

struct Case {
  const char* name;
  int d_model, n_head, d_k, d_v;
  bool scale;
  float temperature;
  MaskKind mask;
  const char* query;  // "" = self
};

class NaiveVsEigen : public ::testing::TestWithParam<Case> {};

TEST_P(NaiveVsEigen, AgreesAndKeepsInvariants) {
  const Case& p = GetParam();
  AttentionConfig c;
  c.d_model = p.d_model;
  c.n_head = p.n_head;
  c.d_k = p.d_k;
  c.d_v = p.d_v;
  c.scale = p.scale;
  c.temperature = p.temperature;
  c.mask = p.mask;
  c.seed = 3;
  ProjectionWeights w;
  ForwardRun r = Forward("the animal did not cross the street because it was tired .", p.query, c, &w);
  Naive n = NaiveForward(r.xq, r.x, w, c);
  const size_t n_q = r.xq.dim(0), n_k = r.x.dim(0);
  ASSERT_EQ(r.probs.shape, (std::vector<size_t>{(size_t)p.n_head, n_q, n_k}));
  ASSERT_EQ(r.z.shape, (std::vector<size_t>{(size_t)p.n_head, n_q, (size_t)c.head_dim_v()}));
  ASSERT_EQ(r.out.shape, (std::vector<size_t>{n_q, (size_t)p.d_model}));
  ExpectClose(r.logits.data, n.logits, 2e-5, "logits");
  ExpectClose(r.probs.data, n.probs, 2e-5, "probs");
  ExpectClose(r.z.data, n.z, 2e-5, "z");
  ExpectClose(r.out.data, n.out, 2e-5, "out");
  for (size_t h = 0; h < (size_t)p.n_head; ++h) {
    for (size_t i = 0; i < n_q; ++i) {
      double sum = 0;
      for (size_t j = 0; j < n_k; ++j) {
        const float wij = r.probs.data[(h * n_q + i) * n_k + j];
        ASSERT_TRUE(std::isfinite(wij));
        ASSERT_GE(wij, 0.0f);
        if (p.mask == MaskKind::kCausal && j > i) ASSERT_EQ(wij, 0.0f) << "masked entry not exactly 0";
        sum += wij;
      }
      ASSERT_NEAR(sum, 1.0, 1e-6) << "row " << i << " of head " << h;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, NaiveVsEigen,
    ::testing::Values(Case{"self_1head", 16, 1, 16, 16, true, 1, MaskKind::kNone, ""},
                      Case{"self_4heads", 32, 4, 8, 8, true, 1, MaskKind::kNone, ""},
                      Case{"causal_8heads", 32, 8, 4, 4, true, 1, MaskKind::kCausal, ""},
                      Case{"dv_ne_dk", 24, 3, 10, 6, true, 1, MaskKind::kNone, ""},
                      Case{"unscaled", 16, 2, 32, 16, false, 1, MaskKind::kNone, ""},
                      Case{"temperature", 16, 2, 8, 8, true, 0.3f, MaskKind::kNone, ""},
                      Case{"cross", 16, 2, 8, 5, true, 1, MaskKind::kNone, "die Katze schlief"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Attention, NoNanOrInfAtExtremes) {
  // d_k = 4096 unscaled, and temperature 1e-4: logits in the thousands to millions.
  for (auto [d_k, temperature] : {std::pair{4096, 1.0f}, std::pair{64, 1e-4f}, std::pair{4096, 1e-6f}}) {
    AttentionConfig c;
    c.d_model = 64;
    c.n_head = 2;
    c.d_k = d_k;
    c.scale = false;
    c.temperature = temperature;
    c.mask = MaskKind::kCausal;
    ProjectionWeights w;
    ForwardRun r = Forward("one two three four five six seven eight", "", c, &w);
    for (const Tensor* t : {&r.logits, &r.probs, &r.z, &r.out})
      for (float v : t->data) ASSERT_TRUE(std::isfinite(v)) << "d_k=" << d_k << " T=" << temperature;
    const size_t n = r.x.dim(0);
    for (size_t row = 0; row < 2 * n; ++row) {
      double sum = 0;
      for (size_t j = 0; j < n; ++j) sum += r.probs.data[row * n + j];
      ASSERT_NEAR(sum, 1.0, 1e-6);
    }
  }
}

TEST(Attention, SoftmaxSubtractsTheRowMax) {
  // Logits of 1e30 scale would overflow exp() without the max subtraction.
  Tensor logits;
  logits.Resize({1, 2, 3});
  logits.data = {1e30f, 1e30f - 1e24f, -1e30f, 1000.0f, 1001.0f, 999.0f};
  Tensor probs;
  Softmax(logits, MaskKind::kNone, &probs);
  EXPECT_FLOAT_EQ(probs.data[0], 1.0f);
  EXPECT_EQ(probs.data[2], 0.0f);
  EXPECT_NEAR(probs.data[4], std::exp(1.0) / (1 + std::exp(1.0) + std::exp(-1.0)), 1e-6);
}

TEST(Attention, LogitsAreClampedNotInfinite) {
  Tensor scores, logits;
  scores.Resize({1, 1, 2});
  scores.data = {3e38f, -3e38f};
  Logits(scores, 1e6f, &logits);
  EXPECT_EQ(logits.data[0], kLogitLimit);
  EXPECT_EQ(logits.data[1], -kLogitLimit);
}

TEST(Attention, FusedLogitsSoftmaxEqualsTheTwoSteps) {
  AttentionConfig c;
  c.n_head = 3;
  c.mask = MaskKind::kCausal;
  ProjectionWeights w;
  ForwardRun r = Forward("a b c d e f g", "", c, &w);
  Tensor logits, probs;
  LogitsSoftmax(r.scores, c.logit_multiplier(), c.mask, &logits, &probs);
  EXPECT_EQ(logits.data, r.logits.data);
  EXPECT_EQ(probs.data, r.probs.data);
}

// Shapes are checked at the entry points (ggml style): a mismatch stops with both shapes named.
TEST(AttentionDeathTest, MismatchedShapesStopWithBothShapes) {
  Tensor q, k, v, scores, probs, z;
  q.Resize({2, 3, 8});
  k.Resize({2, 4, 6});  // d_k 6 vs 8
  EXPECT_DEATH(Scores(q, k, &scores), "q \\[2, 3, 8\\] vs k \\[2, 4, 6\\]");
  probs.Resize({2, 3, 4});
  v.Resize({2, 5, 3});  // 5 value rows for 4 keys
  EXPECT_DEATH(MixValues(probs, v, &z), "probs \\[2, 3, 4\\] vs v \\[2, 5, 3\\]");
}
