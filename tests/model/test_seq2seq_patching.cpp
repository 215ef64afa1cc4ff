// core/model/seq2seq_patching.*: activation patching of the three stacks and both streams against
// make_seq2seq_fixtures.py's float64 grids (reference/patching.json), its fixed points (the decoder's last stream
// at the last position: 1; what the source cannot change: 0), refusals and cancellation.
#include "model/seq2seq_patching.h"

#include <atomic>
#include <cmath>

#include "seq2seq_test_util.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
using namespace seq2seq_cases;

struct PatchCase {
  Case c;
  std::vector<int> corrupted;
  int a = 0, b = 0;
  json ref;
};

PatchCase LoadPatch(const std::string& name) {
  PatchCase p{Load(name)};
  p.ref = ReadJson(CaseDir(name) + "/reference/patching.json");
  p.corrupted = p.ref["corrupted_source_ids"].get<std::vector<int>>();
  p.a = p.ref["token_a"], p.b = p.ref["token_b"];
  return p;
}

void ExpectGrid(const std::vector<double>& got, const json& want, const std::string& what) {
  size_t i = 0;
  for (const json& row : want)
    for (const json& v : row) {
      ASSERT_LT(i, got.size()) << what;
      EXPECT_NEAR(got[i], v.get<double>(), 2e-3 * std::max(1.0, std::abs(v.get<double>()))) << what << " cell " << i;
      ++i;
    }
  EXPECT_EQ(i, got.size()) << what;
}

class Seq2SeqPatchingFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqPatchingFixture, GridsMatchTheReference) {
  const std::string name = GetParam();
  PatchCase p = LoadPatch(name);
  ASSERT_TRUE(p.c.model);
  auto got = Seq2SeqPatchActivations(*p.c.model, p.c.src, p.corrupted, p.c.tgt, p.a, p.b);
  ASSERT_TRUE(got.ok()) << got.message();
  EXPECT_TRUE(got->complete);
  EXPECT_EQ(got->done, got->total);
  EXPECT_NEAR(got->clean, p.ref["clean"].get<double>(), 1e-4 * std::max(1.0, std::abs(got->clean)));
  EXPECT_NEAR(got->corrupted, p.ref["corrupted"].get<double>(), 1e-4 * std::max(1.0, std::abs(got->corrupted)));
  ExpectGrid(got->encoder_heads, p.ref["encoder_heads"], name + " encoder heads");
  ExpectGrid(got->decoder_heads, p.ref["decoder_heads"], name + " decoder heads");
  ExpectGrid(got->cross_heads, p.ref["cross_heads"], name + " cross heads");
  ExpectGrid(got->encoder_residual, p.ref["encoder_residual"], name + " encoder residual");
  ExpectGrid(got->decoder_residual, p.ref["decoder_residual"], name + " decoder residual");
  // Fixed points: the decoder's last stream at the last position is the clean metric itself; the decoder's
  // embeddings and its first self-attention never see the source.
  const int L = got->n_dec_layer, n_tgt = got->n_tgt;
  EXPECT_EQ(got->decoder_residual[(size_t)L * n_tgt + n_tgt - 1], 1.0);
  for (int i = 0; i < n_tgt; ++i) EXPECT_EQ(got->decoder_residual[(size_t)i], 0.0) << "decoder embeddings " << i;
  for (int h = 0; h < got->n_dec_head; ++h) EXPECT_EQ(got->decoder_heads[(size_t)h], 0.0) << "decoder layer 0 head " << h;
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqPatchingFixture, ::testing::Values("bart", "t5_v11"));

TEST(Seq2SeqPatching, TheWholeCleanEncoderStreamGivesTheCleanMetric) {
  PatchCase p = LoadPatch("t5_v11");
  ASSERT_TRUE(p.c.model);
  auto clean = RunSeq2Seq(*p.c.model, p.c.src, p.c.tgt);
  ASSERT_TRUE(clean.ok());
  const Seq2SeqConfig& c = p.c.model->config();
  Seq2SeqRunOptions o;  // every encoder row after its last layer patched: the corrupted run becomes the clean one
  const int L = c.encoder.n_layer;
  for (size_t i = 0; i < p.c.src.size(); ++i)
    o.patch_rows.push_back({Seq2SeqStack::kEncoder, L, (int)i,
                            clean->encoder_hidden.data.data() + ((size_t)L * p.c.src.size() + i) * c.d_model});
  auto patched = RunSeq2Seq(*p.c.model, p.corrupted, p.c.tgt, o);
  ASSERT_TRUE(patched.ok()) << patched.message();
  EXPECT_EQ(patched->decoder_hidden.data, clean->decoder_hidden.data);
}

TEST(Seq2SeqPatching, RefusesUnequalSourcesAndNoDifference) {
  PatchCase p = LoadPatch("t5_v11");
  ASSERT_TRUE(p.c.model);
  std::vector<int> shorter(p.corrupted.begin(), p.corrupted.end() - 1);
  auto counts = Seq2SeqPatchActivations(*p.c.model, p.c.src, shorter, p.c.tgt, p.a, p.b);
  ASSERT_FALSE(counts.ok());
  EXPECT_THAT(counts.message(), HasSubstr("as many tokens"));
  auto same = Seq2SeqPatchActivations(*p.c.model, p.c.src, p.c.src, p.c.tgt, p.a, p.b);
  ASSERT_FALSE(same.ok());
  EXPECT_THAT(same.message(), HasSubstr("same metric"));
  auto token = Seq2SeqPatchActivations(*p.c.model, p.c.src, p.corrupted, p.c.tgt, p.a,
                                       p.c.model->config().decoder_vocab);
  ASSERT_FALSE(token.ok());
  EXPECT_THAT(token.message(), HasSubstr("metric token id"));
}

TEST(Seq2SeqPatching, CancelKeepsWhatFinished) {
  PatchCase p = LoadPatch("t5_v11");
  ASSERT_TRUE(p.c.model);
  std::atomic<bool> cancel{false};
  Seq2SeqPatchingOptions o;
  o.control.cancel = &cancel;
  size_t reports = 0;
  o.control.progress = [&](const char*, size_t done, size_t) {
    if (done >= 3) cancel = true;
    ++reports;
  };
  auto got = Seq2SeqPatchActivations(*p.c.model, p.c.src, p.corrupted, p.c.tgt, p.a, p.b, o);
  ASSERT_TRUE(got.ok()) << got.message();
  EXPECT_FALSE(got->complete);
  EXPECT_EQ(got->done, 3u);
  EXPECT_FALSE(std::isnan(got->encoder_heads[2]));
  EXPECT_TRUE(std::isnan(got->encoder_heads[3]));
  EXPECT_GT(reports, 0u);
}

}  // namespace
}  // namespace attnviz::model
