// core/session/seq2seq_readouts.* as the app runs it, on its background threads, on the t5 fixture (pre-norm, so
// every readout is defined): the lens job's cells against the float64 reference's lens logits; the attribution
// job against reference/attribution.json, its defaults (the last decoder position, the label there); the patching
// job gives what core's Seq2SeqPatchActivations gives on the same ids, refuses sources of other lengths naming both
// counts, and a stopped scan keeps the cells it finished.
#include "session/seq2seq_readouts.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <nlohmann/json.hpp>

#include "io/file_io.h"
#include "io/npy.h"
#include "session/loaded_model.h"  // TokenIds

namespace attnviz {
namespace {

using nlohmann::json;

std::string CaseDir() { return std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/seq2seq/t5"; }

json ReadJsonFile(const std::string& path) {
  auto text = ReadFile(path);
  EXPECT_TRUE(text) << path;
  return json::parse(text ? *text : std::string("{}"));
}

// The fixture's reference source and target, run once on the session.
std::shared_ptr<const Seq2SeqResult> ReferenceRun(Seq2SeqSession& session, const std::string& source = "") {
  const json tokens = ReadJsonFile(CaseDir() + "/reference/tokens.json");
  Seq2SeqRequest r;
  r.dir = CaseDir();
  r.source_text = source.empty() ? tokens["source_text"].get<std::string>() : source;
  r.target_text = tokens["target_text"].get<std::string>();
  const uint64_t generation = session.Submit(r);
  EXPECT_TRUE(session.WaitIdle(120));
  std::shared_ptr<const Seq2SeqResult> run = session.latest();
  EXPECT_TRUE(run && run->generation == generation && run->complete()) << (run ? run->status.message() : "");
  if (run) EXPECT_EQ(TokenIds(run->source_tokens), tokens["source_ids"].get<std::vector<int>>());
  return run;
}

TEST(Seq2SeqReadouts, LensCellsAreTheReferencesSoftmax) {
  Seq2SeqSession session;
  auto run = ReferenceRun(session);
  ASSERT_TRUE(run);
  Seq2SeqReadoutJobs jobs;
  jobs.Lens({run});
  ASSERT_TRUE(jobs.WaitIdle(120));
  auto lens = jobs.lens();
  ASSERT_TRUE(lens && lens->status.ok()) << (lens ? lens->status.message() : "");
  EXPECT_EQ(lens->request.run, run);
  auto want = ReadNpy(CaseDir() + "/reference/lens_logits.npy");  // [L + 1, n_tgt, V]
  ASSERT_TRUE(want.ok());
  const int L1 = (int)want->dim(0), n_tgt = (int)want->dim(1), V = (int)want->dim(2);
  ASSERT_EQ((int)lens->layers.size(), L1);
  ASSERT_EQ(n_tgt, (int)run->labels.size());
  for (int l = 0; l < L1; ++l) {
    ASSERT_EQ((int)lens->layers[(size_t)l].positions.size(), n_tgt);
    for (int i = 0; i < n_tgt; ++i) {
      const float* row = want->data.data() + ((size_t)l * n_tgt + i) * V;
      double mx = row[0], sum = 0;
      for (int j = 0; j < V; ++j) mx = std::max(mx, (double)row[j]);
      for (int j = 0; j < V; ++j) sum += std::exp((double)row[j] - mx);
      auto prob = [&](int id) { return std::exp((double)row[id] - mx) / sum; };
      const model::LensPosition& p = lens->layers[(size_t)l].positions[(size_t)i];
      ASSERT_EQ((int)p.top.size(), kSeq2SeqLensTopK);
      int best = 0;
      for (int j = 1; j < V; ++j)
        if (row[j] > row[best]) best = j;
      EXPECT_NEAR(p.top[0].prob, prob(best), 2e-5) << l << " " << i;
      EXPECT_NEAR(p.next_prob, prob(run->labels[(size_t)i]), 2e-5) << l << " " << i;
    }
  }
}

TEST(Seq2SeqReadouts, AttributionIsTheReferencesAndDefaultsToTheLastLabel) {
  Seq2SeqSession session;
  auto run = ReferenceRun(session);
  ASSERT_TRUE(run);
  const json ref = ReadJsonFile(CaseDir() + "/reference/attribution.json");
  Seq2SeqReadoutJobs jobs;
  jobs.Attribution({run, ref["position"].get<int>(), ref["target"].get<int>()});
  ASSERT_TRUE(jobs.WaitIdle(120));
  auto a = jobs.attribution();
  ASSERT_TRUE(a && a->status.ok()) << (a ? a->status.message() : "");
  const model::Seq2SeqLogitAttribution& at = a->attribution;
  EXPECT_NEAR(at.logit, ref["logit"].get<double>(), 1e-4);
  ASSERT_EQ(at.components.size(), ref["components"].size());
  double sum = 0;
  for (size_t i = 0; i < at.components.size(); ++i) {
    EXPECT_NEAR(at.components[i].value, ref["components"][i]["value"].get<double>(), 1e-4) << i;
    EXPECT_EQ(at.components[i].layer, ref["components"][i]["layer"].get<int>()) << i;
    sum += at.components[i].value;
  }
  EXPECT_NEAR(sum, at.logit, 1e-3 * std::max(1.0, std::abs(at.logit)));
  // -1, -1: the last decoder position and its label (what the decoder should say there: eos).
  jobs.Attribution({run, -1, -1});
  ASSERT_TRUE(jobs.WaitIdle(120));
  a = jobs.attribution();
  ASSERT_TRUE(a && a->status.ok()) << (a ? a->status.message() : "");
  EXPECT_EQ(a->attribution.position, (int)run->decoder_tokens.size() - 1);
  EXPECT_EQ(a->attribution.target, run->labels.back());
  // A position past the target is refused with the range.
  jobs.Attribution({run, 99, -1});
  ASSERT_TRUE(jobs.WaitIdle(120));
  a = jobs.attribution();
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->status.ok());
  EXPECT_NE(a->status.message().find("99"), std::string::npos) << a->status.message();
}

// A clean source with the reference's two times swapped, of the same token count.
constexpr const char* kCleanSource =
    "summarize: The train leaves the station at noon, and the meeting starts at nine.";

TEST(Seq2SeqReadouts, PatchingIsCoresOnTheSameIdsAndRefusesOtherLengths) {
  Seq2SeqSession session;
  auto run = ReferenceRun(session);
  ASSERT_TRUE(run);
  auto clean = run->folder->tokenizers.source->Encode(kCleanSource);
  ASSERT_TRUE(clean.ok());
  ASSERT_EQ(clean->size(), run->source_tokens.size()) << "the fixture's clean text must keep the token count";
  const int a = run->labels.back(), b = run->labels[0];
  Seq2SeqReadoutJobs jobs;
  jobs.Patching({run, kCleanSource, a, b});
  ASSERT_TRUE(jobs.WaitIdle(300));
  auto p = jobs.patching();
  ASSERT_TRUE(p && p->status.ok()) << (p ? p->status.message() : "");
  EXPECT_EQ(p->clean_tokens, (int)clean->size());
  auto want = model::Seq2SeqPatchActivations(*run->folder->model, TokenIds(*clean), TokenIds(run->source_tokens),
                                             TokenIds(run->decoder_tokens), a, b);
  ASSERT_TRUE(want.ok()) << want.message();
  EXPECT_TRUE(p->patching.complete);
  EXPECT_EQ(p->patching.clean, want->clean);
  EXPECT_EQ(p->patching.corrupted, want->corrupted);
  EXPECT_EQ(p->patching.encoder_heads, want->encoder_heads);
  EXPECT_EQ(p->patching.cross_heads, want->cross_heads);
  EXPECT_EQ(p->patching.decoder_residual, want->decoder_residual);
  // Another length: refused, both counts named.
  jobs.Patching({run, "summarize: nine.", a, b});
  ASSERT_TRUE(jobs.WaitIdle(120));
  p = jobs.patching();
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->status.ok());
  EXPECT_GT(p->clean_tokens, 0);
  EXPECT_NE(p->status.message().find(std::to_string(p->clean_tokens)), std::string::npos) << p->status.message();
  EXPECT_NE(p->status.message().find(std::to_string(run->source_tokens.size())), std::string::npos)
      << p->status.message();
}

TEST(Seq2SeqReadouts, StoppedPatchingKeepsTheCellsDone) {
  Seq2SeqSession session;
  auto run = ReferenceRun(session);
  ASSERT_TRUE(run);
  Seq2SeqReadoutJobs* self = nullptr;
  Seq2SeqReadoutJobs jobs({}, [&](size_t done) {
    if (done == 3) self->StopPatching();  // the user's Stop after three reruns
  });
  self = &jobs;
  jobs.Patching({run, kCleanSource, run->labels.back(), run->labels[0]});
  ASSERT_TRUE(jobs.WaitIdle(120));
  auto p = jobs.patching();
  ASSERT_TRUE(p && p->status.ok()) << (p ? p->status.message() : "");
  EXPECT_FALSE(p->patching.complete);
  EXPECT_GE(p->patching.done, 3u);
  EXPECT_LT(p->patching.done, p->patching.total);
  size_t kept = 0, missing = 0;
  for (const std::vector<double>* g : {&p->patching.encoder_heads, &p->patching.decoder_heads,
                                       &p->patching.cross_heads, &p->patching.encoder_residual,
                                       &p->patching.decoder_residual})
    for (double v : *g) (std::isnan(v) ? missing : kept) += 1;
  EXPECT_GE(kept, 3u);
  EXPECT_GT(missing, 0u);
}

}  // namespace
}  // namespace attnviz
