// core/session/model_session.* as the app runs it: a long input streams its maps (each layer a pyramid plus q and k, the same thumbnails,
// roles and exact rows as a run that keeps whole maps), and a what-if reruns from the first layer it changes,
// sharing the layers below it. The run's predictions and loss are core's; head ablation is a what-if that resumes
// like the others (the background scan of every head: tests/session/test_ablation_scan.cpp).
#include "model_display.h"
#include "model_folder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <unistd.h>

#include "maps/view.h"
#include "model/analysis.h"
#include "model/predict.h"
#include "model/prefix_cache.h"
#include "model/run.h"
#include "model_session_test_util.h"

namespace attnviz {
namespace {

const char* kText =
    "The cat sat on the mat and the dog sat on the log. The cat sat on the mat and the dog sat on the log. "
    "A bird sang in the tree and a fish swam in the sea. A bird sang in the tree and a fish swam in the sea.";

using testing::ExactLayer;
using testing::Open;
using testing::RunOnce;

bool SameBits(const Tensor& a, const Tensor& b) {
  if (a.shape != b.shape) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a.data[i], &b.data[i], sizeof(float)) != 0 && !(std::isnan(a.data[i]) && std::isnan(b.data[i])))
      return false;
  return true;
}

class StreamedSession : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamedSession, StreamedLayersShowWhatWholeMapsShow) {
  ModelSession whole(OpenModelFolder), streamed(OpenModelFolder);
  streamed.set_stream_above_cells(0);  // every run streams
  ModelRequest request;
  // bert takes at most 64 positions: half the text.
  request.text = GetParam() == "bert" ? std::string(kText).substr(0, 103) : kText;
  request.folder = Open(whole, GetParam());
  const auto a = RunOnce(whole, request);
  request.folder = Open(streamed, GetParam());
  const auto b = RunOnce(streamed, request);
  ASSERT_TRUE(a && b && a->complete() && b->complete());
  EXPECT_FALSE(a->streamed);
  EXPECT_TRUE(b->streamed);
  ASSERT_EQ(a->n_layer(), b->n_layer());
  const int n = (int)b->tokens.size();
  ASSERT_GT(n, 30);
  for (int l = 0; l < b->n_layer(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const LayerMaps& full = *a->layers[(size_t)l];
    const LayerMaps& pooled = *b->layers[(size_t)l];
    // No whole map kept, nor q and k: a pyramid and the layer's input instead, with a budget on exact rows per view.
    EXPECT_TRUE(pooled.pooled);
    EXPECT_TRUE(pooled.probs->empty());
    ASSERT_TRUE(pooled.pyramid);
    EXPECT_TRUE(pooled.q->empty());
    EXPECT_TRUE(pooled.k->empty());
    ASSERT_TRUE(b->resume_inputs[(size_t)l]);
    EXPECT_EQ(b->resume_inputs[(size_t)l]->size(), (size_t)n * request.folder->model->config().d_model);
    EXPECT_GT(pooled.exact_cells_limit, 0u);
    EXPECT_EQ(pooled.n_head(), full.n_head());
    EXPECT_EQ(pooled.n_q(), n);
    // The same thumbnails, row figures and role scores.
    EXPECT_TRUE(SameBits(*a->thumbnails[(size_t)l], *b->thumbnails[(size_t)l]));
    for (int h = 0; h < full.n_head(); ++h) {
      EXPECT_EQ(pooled.metrics[(size_t)h].entropy, full.metrics[(size_t)h].entropy);
      for (model::HeadRole role : model::AllHeadRoles()) {
        if (role == model::HeadRole::kBroad)  // from the pass's own row entropy (RoleRows)
          EXPECT_NEAR(b->roles.at(l, h)[role], a->roles.at(l, h)[role], 1e-5f);
        else
          EXPECT_EQ(b->roles.at(l, h)[role], a->roles.at(l, h)[role]) << model::RoleName(role);
      }
    }
    // Without q and k a view reads the finest level kept, and hover has nothing exact to say.
    EXPECT_GE(ComposeView(pooled.Source(1), 0, MapWindow{0, n, 0, n}, n, n, PoolKind::kMax).level, 0);
    EXPECT_TRUE(std::isnan(ExactAt(pooled.Source(1), nullptr, 0, n - 1, 1).prob));
    // The layer on screen gets q and k made from its input: every cell the screen can ask for is then the whole
    // map's, bit for bit (exact rows and hover).
    const LayerMaps shown = ExactLayer(*b, l);
    ASSERT_FALSE(shown.q->empty());
    ASSERT_FALSE(shown.k->empty());
    const MapSource src = shown.Source(1);
    for (int h = 0; h < full.n_head(); ++h) {
      const ViewImage v = ComposeView(src, h, MapWindow{0, n, 0, n}, n, n, PoolKind::kMax);
      ASSERT_TRUE(v.exact());
      const float* plane = full.probs->data.data() + (size_t)h * n * n;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const float got = v.values[(size_t)i * n + j];
          if (!std::isnan(got)) ASSERT_EQ(got, plane[(size_t)i * n + j]) << h << ": " << i << "," << j;
        }
      EXPECT_EQ(ExactAt(src, nullptr, h, n - 1, 1).prob, plane[(size_t)(n - 1) * n + 1]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, StreamedSession, ::testing::Values("gpt2", "llama", "bert"));

TEST(ModelSessionWhatIf, RerunsFromTheFirstLayerItChangesSharingTheLayersBelow) {
  for (bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "streamed" : "whole maps");
    ModelSession session(OpenModelFolder), fresh(OpenModelFolder);
    if (stream) session.set_stream_above_cells(0), fresh.set_stream_above_cells(0);
    ModelRequest request;
    request.folder = Open(session, "llama");
    request.text = kText;
    const auto before = RunOnce(session, request);
    ASSERT_TRUE(before);
    const int L = before->n_layer();
    ASSERT_GE(L, 2);
    EXPECT_EQ(before->resumed_from, 0);
    // A what-if on the last layer only.
    ModelRequest what_if = request;
    what_if.temperature = 0.5f;
    what_if.whatif_layers = {L - 1};
    const auto after = RunOnce(session, what_if);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->resumed_from, L - 1);
    for (int l = 0; l < L - 1; ++l) EXPECT_EQ(after->layers[(size_t)l], before->layers[(size_t)l]) << "shared";
    EXPECT_NE(after->layers[(size_t)L - 1], before->layers[(size_t)L - 1]);
    EXPECT_EQ(after->layers[(size_t)L - 1]->temperature, 0.5f);
    // The rerun layer equals a run from scratch with the same what-if.
    what_if.folder = Open(fresh, "llama");
    const auto want = RunOnce(fresh, what_if);
    ASSERT_TRUE(want);
    EXPECT_EQ(want->resumed_from, 0);
    const LayerMaps& got = *after->layers[(size_t)L - 1];
    const LayerMaps& exp = *want->layers[(size_t)L - 1];
    if (stream) {  // the layer's input is the fresh run's, and so are q and k made from it
      const size_t last = (size_t)L - 1;
      ASSERT_TRUE(after->resume_inputs[last] && want->resume_inputs[last]);
      EXPECT_EQ(*after->resume_inputs[last], *want->resume_inputs[last]);
      const LayerMaps g = ExactLayer(*after, L - 1), e = ExactLayer(*want, L - 1);
      ASSERT_FALSE(g.q->empty());
      EXPECT_TRUE(SameBits(*g.q, *e.q));
      EXPECT_TRUE(SameBits(*g.k, *e.k));
    } else {
      EXPECT_TRUE(SameBits(*got.probs, *exp.probs));
    }
    EXPECT_TRUE(SameBits(*after->thumbnails[(size_t)L - 1], *want->thumbnails[(size_t)L - 1]));
    // A different text runs every layer again.
    ModelRequest other = what_if;
    other.folder = request.folder;
    other.text = std::string(kText) + " More.";
    const auto rerun = RunOnce(session, other);
    ASSERT_TRUE(rerun);
    EXPECT_EQ(rerun->resumed_from, 0);
  }
}

}  // namespace
}  // namespace attnviz

// ---- Predictions, the loss beside the what-ifs, head ablation and the ablation scan (gui-predict).
namespace attnviz {
namespace {

const char* kShortText = "The cat sat on the mat and the dog sat on the log.";

// Core's predictions over the same ids and what-ifs: a run that collects the hidden states, then model::Predict.
model::Predictions CorePredict(const ModelFolder& folder, const ModelRequest& request) {
  const model::ModelConfig& c = folder.model->config();
  auto tokens = TokenizeForModel(folder, request.text);
  EXPECT_TRUE(tokens) << tokens.message();
  const std::vector<int> ids = TokenIds(*tokens);
  auto run = model::RunModel(*folder.model, ids, WhatIfRunOptions(request.what_ifs(), c.n_layer));
  EXPECT_TRUE(run) << run.message();
  const float* last = run->hidden.data.data() + (size_t)c.n_layer * ids.size() * c.d_model;
  const std::vector<int> at = model::PredictsNextToken(c) ? std::vector<int>{} : MaskPositions(*tokens);
  auto p = model::Predict(*folder.model, last, ids, kPredictTopK, at);
  EXPECT_TRUE(p) << p.message();
  return *p;
}

void ExpectSamePredictions(const model::Predictions& got, const model::Predictions& want) {
  EXPECT_EQ(got.has_loss, want.has_loss);
  EXPECT_EQ(got.loss, want.loss);
  EXPECT_EQ(got.perplexity, want.perplexity);
  ASSERT_EQ(got.positions.size(), want.positions.size());
  for (size_t i = 0; i < got.positions.size(); ++i) {
    EXPECT_EQ(got.positions[i].index, want.positions[i].index);
    ASSERT_EQ(got.positions[i].top.size(), want.positions[i].top.size());
    for (size_t t = 0; t < got.positions[i].top.size(); ++t) {
      EXPECT_EQ(got.positions[i].top[t].id, want.positions[i].top[t].id) << i << "/" << t;
      EXPECT_EQ(got.positions[i].top[t].prob, want.positions[i].top[t].prob) << i << "/" << t;
    }
  }
}

class SessionPredictions : public ::testing::TestWithParam<std::string> {};

TEST_P(SessionPredictions, ResultCarriesCorePredictEvenWhenStreamed) {
  for (bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "streamed" : "whole maps");
    ModelSession session(OpenModelFolder);
    if (stream) session.set_stream_above_cells(0);
    ModelRequest request;
    request.folder = Open(session, GetParam());
    request.text = GetParam() == "bert" ? "the cat [MASK] on the mat." : kShortText;
    const auto r = RunOnce(session, request);
    ASSERT_TRUE(r && r->predictions);
    EXPECT_TRUE(r->has_lm_head);
    EXPECT_EQ(r->streamed, stream);
    const model::Predictions want = CorePredict(*request.folder, request);
    ExpectSamePredictions(*r->predictions, want);
    if (GetParam() == "bert") {  // the masked-LM head: at the [MASK] only, no loss
      ASSERT_EQ(r->predictions->positions.size(), 1u);
      EXPECT_EQ(r->predictions->positions[0].index, MaskPositions(r->tokens)[0]);
      EXPECT_FALSE(r->predictions->has_loss);
    } else {  // every position, kPredictTopK each, and the loss; the plain run is its own baseline
      EXPECT_EQ(r->predictions->positions.size(), r->tokens.size());
      EXPECT_EQ(r->predictions->positions[0].top.size(), (size_t)kPredictTopK);
      EXPECT_TRUE(r->predictions->has_loss);
      ASSERT_TRUE(r->baseline_loss);
      EXPECT_EQ(*r->baseline_loss, r->predictions->loss);
    }
  }
}

// Every layer is published with the last stream before the predictions are made, and the top tokens of a few
// positions come from it alone (MakeTopTokens): the run's own predictions there, before they exist.
TEST_P(SessionPredictions, TopTokensOfAPositionComeBeforeThePredictions) {
  std::mutex mutex;
  std::shared_ptr<const ModelResult> layers_done;  // the first step with every layer and no predictions yet
  ModelSession* session_seen = nullptr;
  ModelSession session(OpenModelFolder, [&] {
    std::lock_guard<std::mutex> lock(mutex);
    if (!session_seen || layers_done) return;
    std::shared_ptr<const ModelResult> r = session_seen->latest();
    if (r && r->status.ok() && r->layers_done == r->n_layer() && r->n_layer() > 0 && !r->predictions) layers_done = r;
  });
  {
    std::lock_guard<std::mutex> lock(mutex);
    session_seen = &session;
  }
  ModelRequest request;
  request.folder = Open(session, GetParam());
  request.text = GetParam() == "bert" ? "the cat [MASK] on the mat." : kShortText;
  const auto r = RunOnce(session, request);
  ASSERT_TRUE(r && r->predictions);
  std::shared_ptr<const ModelResult> step;
  {
    std::lock_guard<std::mutex> lock(mutex);
    step = layers_done;
  }
  ASSERT_TRUE(step) << "no step held every layer before the predictions";
  ASSERT_TRUE(step->last_hidden);
  const int n = (int)step->tokens.size();
  ASSERT_EQ(step->last_hidden->size(), (size_t)n * request.folder->model->config().d_model);
  const std::vector<int> at = GetParam() == "bert" ? MaskPositions(step->tokens) : std::vector<int>{n - 1, 1};
  session.MakeTopTokens(step, at);
  ASSERT_TRUE(session.WaitIdle(30));
  std::shared_ptr<const TopTokens> top = session.top_tokens();
  ASSERT_TRUE(top && top->status.ok()) << (top ? top->status.message() : "none");
  EXPECT_TRUE(top->request.Of(step));
  ASSERT_EQ(top->positions.size(), at.size());
  for (size_t p = 0; p < at.size(); ++p) {
    const model::PositionTop* want = nullptr;
    for (const model::PositionTop& t : r->predictions->positions)
      if (t.index == at[p]) want = &t;
    ASSERT_TRUE(want) << at[p];
    EXPECT_EQ(top->positions[p].index, at[p]);
    ASSERT_EQ(top->positions[p].top.size(), want->top.size());
    for (size_t t = 0; t < want->top.size(); ++t) EXPECT_NEAR(top->positions[p].top[t].prob, want->top[t].prob, 1e-5);
    EXPECT_EQ(top->positions[p].top[0].id, want->top[0].id);
  }
  // A step without its last stream (a layer still running) says so rather than guessing.
  auto partial = std::make_shared<ModelResult>(*step);
  partial->last_hidden = nullptr;
  session.MakeTopTokens(partial, at);
  ASSERT_TRUE(session.WaitIdle(30));
  ASSERT_TRUE(session.top_tokens());
  EXPECT_FALSE(session.top_tokens()->status.ok());
  // Neither the queue's last request nor its answer keeps the result asked of (and so its maps) alive.
  EXPECT_TRUE(session.top_tokens()->request.Of(partial));
  const std::weak_ptr<const ModelResult> asked = partial;
  partial.reset();
  EXPECT_TRUE(asked.expired());
  EXPECT_FALSE(session.top_tokens()->request.Of(partial));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SessionPredictions, ::testing::Values("gpt2", "llama", "bert"));

TEST(SessionPredictions, BertWithoutMaskAndACheckpointWithoutLmHead) {
  ModelSession session(OpenModelFolder);
  ModelRequest request;
  request.folder = Open(session, "bert");
  request.text = "the cat sat on the mat.";
  auto r = RunOnce(session, request);
  ASSERT_TRUE(r && r->predictions);
  EXPECT_TRUE(r->predictions->positions.empty());  // nothing to guess: the panel asks for a [MASK]
  // A bare BertModel (tests/fixtures/models/bert_legacy, which has no tokenizer: a small vocab.txt beside it): the
  // maps as ever, no predictions.
  const std::string legacy = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models/bert_legacy";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("attnviz-no-lm-head-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (const char* f : {"config.json", "model.safetensors"})
    std::filesystem::copy_file(legacy + "/" + f, dir / f, std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n.\n";
  session.Open(dir.string());
  ASSERT_TRUE(session.WaitIdle(60));
  ASSERT_EQ(OpenErrorText(session), "");
  request.folder = session.folder();
  ASSERT_NE(request.folder->dir.find("attnviz-no-lm-head"), std::string::npos) << request.folder->dir;
  r = RunOnce(session, request);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->has_lm_head);
  EXPECT_FALSE(r->predictions);
  std::filesystem::remove_all(dir);
}

// Two pyramids with the same levels, bit for bit.
bool SamePyramid(const std::shared_ptr<const MapPyramid>& a, const std::shared_ptr<const MapPyramid>& b) {
  return (!a && !b) || (a && b && SameBits(*a, *b));
}

// Typing on: a new text sharing its start with the last run's keeps those rows in every layer (a causal model's run,
// model/prefix_cache.h) and shows the same layers as a fresh session's run of that text: maps (whole, or each
// streamed layer's pyramid), row figures, roles, thumbnails, analysis (q and k, before their norms too, value norms,
// a streamed layer's input), last stream and predictions, bit for bit. A streamed run after a streamed one takes what
// the kept rows added to its pooled views from the last run up to a stride before the change (after whole maps it
// makes their blocks again from the kept q and k); its pooled rollout adds the pass's blocks up in double in the
// order the threads come in, so it is compared to float rounding. words: the first text's length through a
// word-per-id tokenizer (qwen3: q/k norms; gemma2: soft caps, sliding windows; the e2e fixtures gpt2 and llama read
// kText instead). middle_edit: the words are inserted two thirds into the old text, not at its end (the old rows
// after the change are not the new ones).
void ExpectReuseIsAFreshRun(const std::string& fixture, bool stream, int words = 45, bool first_whole = false,
                            bool middle_edit = false) {
  char pattern[] = "/tmp/attnviz-prefix-session-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const bool e2e = fixture == "gpt2" || fixture == "llama";
  const std::string folder = e2e ? std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + fixture
                                 : testing::WithWordIdTokenizer(fixture, dir + "/" + fixture);
  auto word_text = [](int from, int count) {
    std::string text;
    for (int i = 0; i < count; ++i) text += (i ? " w" : "w") + std::to_string((from + i * 7) % 60);
    return text;
  };
  const std::string first = e2e ? std::string(kText) : word_text(3, words);  // (most fixtures take 64 positions)
  const size_t cut = middle_edit ? first.rfind(' ', first.size() * 2 / 3) : first.size();
  const std::string typed =
      first.substr(0, cut) + (e2e ? " And then the cat slept." : " " + word_text(11, 3)) + first.substr(cut);
  auto open = [&](ModelSession& session) {
    if (stream && !first_whole) session.set_stream_above_cells(0);
    session.Open(folder);
    EXPECT_TRUE(session.WaitIdle(60));
    return session.folder();
  };
  ModelSession typing(OpenModelFolder);
  ModelRequest request;
  request.folder = open(typing);
  ASSERT_TRUE(request.folder) << OpenErrorText(typing);
  request.text = first;
  const auto before = RunOnce(typing, request);
  ASSERT_TRUE(before);
  EXPECT_EQ(before->prefix_rows, 0);
  EXPECT_EQ(before->streamed, stream && !first_whole);
  if (first_whole) typing.set_stream_above_cells(0);  // the text grew past the streaming threshold
  request.text = typed;
  const auto reused = RunOnce(typing, request);
  ASSERT_TRUE(reused);
  EXPECT_EQ(reused->streamed, stream);
  EXPECT_GE(reused->prefix_rows, middle_edit ? 16 : words >= 200 ? 176 : 16) << reused->prefix_refused;
  EXPECT_LT(reused->prefix_rows, (int)reused->tokens.size());
  // A streamed run after a streamed one keeps what the kept rows added to every pooled view up to a stride at or
  // before them (so their blocks are not made again); after whole maps every kept row's blocks are made again.
  if (stream && !first_whole) {
    EXPECT_GE(reused->prefix_pooled_rows, reused->prefix_rows - 64);
    EXPECT_GT(reused->prefix_pooled_rows, 0);
    EXPECT_LE(reused->prefix_pooled_rows, reused->prefix_rows);
  } else {
    EXPECT_EQ(reused->prefix_pooled_rows, 0);
  }
  ModelSession fresh_session(OpenModelFolder);
  ModelRequest fresh_request = request;
  if (stream) fresh_session.set_stream_above_cells(0);
  fresh_request.folder = open(fresh_session);
  const auto fresh = RunOnce(fresh_session, fresh_request);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->prefix_rows, 0);
  ASSERT_EQ(reused->n_layer(), fresh->n_layer());
  auto same = [](const SharedTensor& a, const SharedTensor& b) { return (!a && !b) || (a && b && SameBits(*a, *b)); };
  auto near = [](const SharedTensor& a, const SharedTensor& b) {
    if (!a || !b) return !a && !b;
    if (a->shape != b->shape) return false;
    for (size_t i = 0; i < a->size(); ++i)
      if (std::abs(a->data[i] - b->data[i]) > 1e-6f * (1.0f + std::abs(b->data[i]))) return false;
    return true;
  };
  for (int l = 0; l < fresh->n_layer(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const LayerMaps &got = *reused->layers[(size_t)l], &want = *fresh->layers[(size_t)l];
    EXPECT_EQ(got.pooled, stream);
    EXPECT_TRUE(SameBits(*got.probs, *want.probs));
    EXPECT_TRUE(SamePyramid(got.pyramid, want.pyramid));
    ASSERT_EQ(got.metrics.size(), want.metrics.size());
    for (size_t h = 0; h < want.metrics.size(); ++h) {
      ASSERT_EQ(got.metrics[h].rows.size(), want.metrics[h].rows.size());
      EXPECT_EQ(0, std::memcmp(got.metrics[h].rows.data(), want.metrics[h].rows.data(),
                               want.metrics[h].rows.size() * sizeof(RowMetrics)));
      EXPECT_EQ(got.metrics[h].logit_mean, want.metrics[h].logit_mean);
      EXPECT_EQ(got.metrics[h].logit_std, want.metrics[h].logit_std);
      EXPECT_EQ(got.metrics[h].entropy, want.metrics[h].entropy);
    }
    EXPECT_TRUE(same(reused->thumbnails[(size_t)l], fresh->thumbnails[(size_t)l]));
    const LayerAnalysis &ga = *reused->analysis[(size_t)l], &wa = *fresh->analysis[(size_t)l];
    EXPECT_TRUE(same(ga.q, wa.q));
    EXPECT_TRUE(same(ga.k, wa.k));
    EXPECT_TRUE(same(ga.q_before_norm, wa.q_before_norm));
    EXPECT_TRUE(same(ga.k_before_norm, wa.k_before_norm));
    EXPECT_TRUE(same(ga.value_norms, wa.value_norms));
    EXPECT_TRUE(stream ? near(ga.rollout, wa.rollout) : same(ga.rollout, wa.rollout));
    const auto& got_input = reused->resume_inputs[(size_t)l];
    const auto& want_input = fresh->resume_inputs[(size_t)l];
    EXPECT_TRUE((!got_input && !want_input) || (got_input && want_input && *got_input == *want_input));
    if (stream) EXPECT_TRUE(got_input) << "a streamed layer keeps its input";
    for (int h = 0; h < reused->roles.n_head; ++h) {
      const model::RoleScores &gr = reused->roles.at(l, h), &wr = fresh->roles.at(l, h);
      EXPECT_EQ(0, std::memcmp(&gr, &wr, sizeof(gr))) << "head " << h << " roles";
    }
  }
  ASSERT_TRUE(reused->last_hidden && fresh->last_hidden);
  EXPECT_EQ(*reused->last_hidden, *fresh->last_hidden);
  ASSERT_TRUE(reused->predictions && fresh->predictions);
  EXPECT_EQ(reused->predictions->loss, fresh->predictions->loss);
  EXPECT_EQ(reused->predictions->next_log_prob, fresh->predictions->next_log_prob);
  std::filesystem::remove_all(dir);
}

class SessionPrefixReuse : public ::testing::TestWithParam<std::string> {};

TEST_P(SessionPrefixReuse, ANewTextSharingItsStartKeepsThoseRowsAndShowsAFreshRun) {
  ExpectReuseIsAFreshRun(GetParam(), /*stream=*/false);
}

TEST_P(SessionPrefixReuse, AStreamedTextSharingItsStartKeepsThoseRowsAndShowsAFreshRun) {
  ExpectReuseIsAFreshRun(GetParam(), /*stream=*/true);
}

INSTANTIATE_TEST_SUITE_P(Families, SessionPrefixReuse, ::testing::Values("gpt2", "llama", "qwen3", "gemma2"));

// A text long enough that whole blocks of the pass's rows (128) are kept (mistral_sharded: 256 positions, a sliding
// window of 8): their pooled sums taken from the last run, or, when the last run's maps were whole, the blocks made
// again from the kept q and k.
TEST(SessionPrefixReuse, AStreamedLongTextKeepsItsPooledRows) {
  ExpectReuseIsAFreshRun("mistral_sharded", /*stream=*/true, 200);
}

TEST(SessionPrefixReuse, AStreamedLongTextAfterWholeMapsMakesItsKeptBlocksAgain) {
  ExpectReuseIsAFreshRun("mistral_sharded", /*stream=*/true, 200, /*first_whole=*/true);
}

// An edit in the middle: the old rows after it are not the new text's, and nothing of them is kept (its pyramid,
// role sums and rollout rows would differ from a fresh run's).
TEST(SessionPrefixReuse, AStreamedTextEditedInTheMiddleKeepsOnlyTheRowsBeforeTheEdit) {
  for (const std::string fixture : {"gpt2", "gemma2"})
    ExpectReuseIsAFreshRun(fixture, /*stream=*/true, 45, /*first_whole=*/false, /*middle_edit=*/true);
  ExpectReuseIsAFreshRun("mistral_sharded", /*stream=*/true, 200, /*first_whole=*/false, /*middle_edit=*/true);
}

// A bidirectional model runs whole as before, its maps whole or streamed (nothing kept).
TEST(SessionPrefixReuse, BidirectionalRunsKeepNothing) {
  for (bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "streamed" : "whole");
    ModelSession session(OpenModelFolder);
    if (stream) session.set_stream_above_cells(0);
    ModelRequest request;
    request.folder = Open(session, "bert");
    request.text = kShortText;
    ASSERT_TRUE(RunOnce(session, request));
    EXPECT_EQ(session.kept_prefix_bytes(), 0u);
    request.text = std::string(kShortText) + " And more.";
    const auto r = RunOnce(session, request);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->prefix_rows, 0);
    EXPECT_EQ(r->prefix_refused, "");
  }
}

// The rows a run keeps for the next are let go when a run cannot use them (here a what-if resumed at a layer, after
// which the next text starts afresh anyway).
TEST(SessionPrefixReuse, ARunThatKeepsNothingLetsTheKeptRowsGo) {
  ModelSession session(OpenModelFolder);
  ModelRequest request;
  request.folder = Open(session, "gpt2");
  request.text = kShortText;
  ASSERT_TRUE(RunOnce(session, request));
  EXPECT_GT(session.kept_prefix_bytes(), 0u);
  request.ablated = {{1, 0}};
  const auto r = RunOnce(session, request);
  ASSERT_TRUE(r && r->complete());
  EXPECT_EQ(r->resumed_from, 1);
  EXPECT_EQ(session.kept_prefix_bytes(), 0u);
}

// The kept rows count against the memory limit: when the run with them would pass it, the run keeps none, says why,
// and runs as ever (rather than being refused for the sake of the next one).
TEST(SessionPrefixReuse, RowsThatWouldPassTheMemoryLimitAreNotKept) {
  ModelSession session(OpenModelFolder);
  ModelRequest request;
  request.folder = Open(session, "gpt2");
  ASSERT_TRUE(request.folder);
  const std::string typed = std::string(kText) + " And then the cat slept.";
  auto prepared = PrepareModelRun(*request.folder, typed, {});
  ASSERT_TRUE(prepared) << prepared.message();
  const model::ModelConfig& c = request.folder->model->config();
  const size_t n = prepared->ids.size();
  model::RunOptions o;
  o.row_figures = true;
  o.caller_bytes = (size_t)CollectedBytes(c, prepared->tokens, CollectPlan::ForSession(false));
  const double without = model::RunMemoryBytes(c, n, false, o);
  const double limit = without + model::PrefixStateBytes(c, n, true) / 2;
  ::setenv("ATTNVIZ_MEMORY_LIMIT", std::to_string((size_t)limit).c_str(), 1);
  request.text = kText;
  const auto first = RunOnce(session, request);
  request.text = typed;
  const auto r = RunOnce(session, request);
  ::unsetenv("ATTNVIZ_MEMORY_LIMIT");
  ASSERT_TRUE(first && r);
  ASSERT_TRUE(r->complete()) << r->status.message();
  EXPECT_FALSE(r->streamed);
  EXPECT_EQ(r->prefix_rows, 0);
  EXPECT_NE(r->prefix_refused.find("memory limit"), std::string::npos) << r->prefix_refused;
  EXPECT_EQ(session.kept_prefix_bytes(), 0u);
  // Under the default limit the same texts keep their rows.
  request.text = kText;
  ASSERT_TRUE(RunOnce(session, request));
  request.text = typed;
  const auto kept = RunOnce(session, request);
  ASSERT_TRUE(kept);
  EXPECT_GT(kept->prefix_rows, 0) << kept->prefix_refused;
}

// The rows of q and k before their norms that a reused run takes come from a run of the same folder: any other
// shape is a programming error, stopped with both shapes rather than skipped.
TEST(SessionPrefixReuseDeathTest, KeptRowsBeforeTheNormsOfAnotherShapeStop) {
  char pattern[] = "/tmp/attnviz-prefix-death-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  std::shared_ptr<const ModelResult> before;
  {
    ModelSession session(OpenModelFolder);
    session.Open(testing::WithWordIdTokenizer("qwen3", dir + "/qwen3"));
    ASSERT_TRUE(session.WaitIdle(60));
    ModelRequest request;
    request.folder = session.folder();
    ASSERT_TRUE(request.folder);
    request.text = "w3 w10 w17 w24 w31 w38 w45 w52 w59 w6 w13 w20 w27 w34 w41 w48 w55 w2 w9 w16";
    before = RunOnce(session, request);
    ASSERT_TRUE(before && before->complete());
  }
  ASSERT_TRUE(before->analysis[0]->q_before_norm && !before->analysis[0]->q_before_norm->empty());
  CollectedLayers other = *before;
  auto analysis = std::make_shared<LayerAnalysis>(*other.analysis[0]);
  auto narrow = std::make_shared<Tensor>();
  narrow->Resize({1, before->tokens.size(), 3});
  analysis->q_before_norm = narrow;
  other.analysis[0] = analysis;
  const model::Model& model = *before->request.folder->model;
  model::RunOptions options;
  options.row_figures = true;
  const std::vector<int> ids = TokenIds(before->tokens);
  EXPECT_DEATH(
      {
        LayerCollector collector(model, options, before->tokens, CollectPlan::ForSession(false));
        collector.KeepRows(other, 16);
        (void)model::RunModel(model, ids, options, &collector);
      },
      "kept rows before the norm \\[1, [0-9]+, 3\\]");
  std::filesystem::remove_all(dir);
}

TEST(ModelRequestAblation, AblatedHeadsAreAWhatIf) {
  ModelRequest a, b;
  b.ablated = {{1, 2}};
  EXPECT_NE(a, b);
  EXPECT_TRUE(a.plain());
  EXPECT_FALSE(b.plain());
  ASSERT_EQ(b.what_ifs().ablate.size(), 1u);
  const model::RunOptions o = WhatIfRunOptions(b.what_ifs(), 3);
  ASSERT_EQ(o.ablate.size(), 1u);
  EXPECT_EQ(o.ablate[0], (model::AblatedHead{1, 2}));
}

// An ablation changes the loss (beside the baseline of the plain run), and a rerun with a changed ablation set
// resumes at that set's first changed layer with the same maps and loss as a run from scratch.
TEST(ModelSessionAblation, ChangesTheLossAndResumesLikeAFullRun) {
  for (const char* fixture : {"gpt2", "llama"}) {
    SCOPED_TRACE(fixture);
    ModelSession session(OpenModelFolder), fresh(OpenModelFolder);
    ModelRequest request;
    request.folder = Open(session, fixture);
    request.text = kText;
    const auto plain = RunOnce(session, request);
    ASSERT_TRUE(plain && plain->predictions && plain->predictions->has_loss);
    const int L = plain->n_layer();
    ASSERT_GE(L, 2);
    // Steps: ablate a head of the last layer, then move the ablation to layer 1 (layer 0 stays the same), then
    // add a head of layer 0.
    const std::vector<std::vector<model::AblatedHead>> steps = {{{L - 1, 1}}, {{1, 0}}, {{1, 0}, {0, 2}}};
    const std::vector<int> resume_at = {L - 1, 1, 0};
    for (size_t s = 0; s < steps.size(); ++s) {
      SCOPED_TRACE("step " + std::to_string(s));
      ModelRequest ablated = request;
      ablated.ablated = steps[s];
      const auto after = RunOnce(session, ablated);
      ASSERT_TRUE(after && after->predictions);
      EXPECT_EQ(after->resumed_from, resume_at[s]);
      EXPECT_NE(after->predictions->loss, plain->predictions->loss);
      ASSERT_TRUE(after->baseline_loss);
      EXPECT_EQ(*after->baseline_loss, plain->predictions->loss);  // the plain run's, kept by the session
      // Equal to a run from scratch, and to core's.
      ablated.folder = Open(fresh, fixture);
      const auto want = RunOnce(fresh, ablated);
      ASSERT_TRUE(want && want->predictions);
      EXPECT_EQ(want->resumed_from, 0);
      EXPECT_FALSE(want->baseline_loss);  // that session never ran the plain text
      EXPECT_EQ(after->predictions->loss, want->predictions->loss);
      for (int l = 0; l < L; ++l) EXPECT_TRUE(SameBits(*after->layers[(size_t)l]->probs, *want->layers[(size_t)l]->probs)) << l;
      ExpectSamePredictions(*after->predictions, CorePredict(*ablated.folder, ablated));
    }
  }
}

}  // namespace
}  // namespace attnviz
