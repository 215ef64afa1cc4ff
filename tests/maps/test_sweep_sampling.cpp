// The d_k sweep on long inputs samples query rows and states its error: on a mid-size case the sampled
// curves lie within that error of the full computation (same seeds and heads, every row).
#include <gtest/gtest.h>

#include "sandbox/sweep.h"
#include "sandbox/text.h"

using namespace attnviz;

TEST(SweepSampling, SampledCurvesWithinTheirStatedErrorOfTheFullSweep) {
  for (MaskKind mask : {MaskKind::kNone, MaskKind::kCausal}) {
    std::string text;
    for (int i = 0; i < 700; ++i) text += (i ? " w" : "w") + std::to_string(i % 173);
    auto tokens = Tokenize(text);
    ASSERT_TRUE(tokens.ok());
    AttentionConfig base;
    base.mask = mask;
    SweepOptions full;
    full.n_seeds = 2;
    full.n_head = 2;
    full.d_ks = {1, 4, 16, 64, 256, 1024};
    full.sample_above_rows = 0;  // every row
    SweepOptions sampled = full;
    sampled.sample_above_rows = 256;
    sampled.sample_rows = 128;
    auto f = SweepDk({}, *tokens, base, full);
    auto s = SweepDk({}, *tokens, base, sampled);
    ASSERT_TRUE(f.ok() && s.ok());
    ASSERT_EQ(f->size(), s->size());
    int checked = 0;
    for (size_t i = 0; i < f->size(); ++i) {
      const SweepPoint &a = (*f)[i], &b = (*s)[i];
      EXPECT_EQ(a.rows, 0);
      EXPECT_EQ(b.rows, 128);
      EXPECT_EQ(b.n_q, 700);
      EXPECT_GT(b.max_weight_err, 0.0f);
      EXPECT_LT(b.max_weight_err, 0.1f);  // an error that says something
      EXPECT_NEAR(b.max_weight, a.max_weight, b.max_weight_err) << "d_k " << a.d_k << " scaled " << a.scaled;
      EXPECT_NEAR(b.entropy, a.entropy, b.entropy_err) << "d_k " << a.d_k;
      EXPECT_NEAR(b.norm_entropy, a.norm_entropy, b.norm_entropy_err) << "d_k " << a.d_k;
      EXPECT_NEAR(b.grad_norm, a.grad_norm, b.grad_norm_err) << "d_k " << a.d_k;
      EXPECT_NEAR(b.logit_std, a.logit_std, 0.1 * a.logit_std + 0.05) << "d_k " << a.d_k;
      ++checked;
    }
    EXPECT_EQ(checked, 12);
    // The CSV states the sample and the errors.
    const std::string csv = SweepToCsv(*s);
    EXPECT_EQ(csv.rfind("d_k,scaled,seeds,max_weight,entropy,norm_entropy,effective_keys,grad_norm,logit_std,rows,n_q,"
                        "max_weight_err,entropy_err,norm_entropy_err,grad_norm_err\n", 0), 0u);
    EXPECT_EQ(SweepToCsv(*f).find("_err"), std::string::npos);
  }
}

TEST(SweepSampling, CancelStopsTheSweep) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += (i ? " w" : "w") + std::to_string(i);
  auto tokens = Tokenize(text);
  std::atomic<bool> cancel{false};
  SweepOptions o;
  o.control.cancel = &cancel;
  size_t calls = 0;
  o.control.progress = [&](const char*, size_t done, size_t) {
    calls = done;
    if (done == 2) cancel = true;
  };
  auto r = SweepDk({}, *tokens, AttentionConfig{}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().cancelled()) << r.message();
  EXPECT_EQ(calls, 2u);
}
