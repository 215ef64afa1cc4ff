// app/gui/model_session.*: a long input streams its maps (each layer a pyramid plus q and k, the same thumbnails,
// roles and exact rows as a run that keeps whole maps), and a what-if reruns from the first layer it changes,
// sharing the layers below it.
#include "model_session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "maps/view.h"
#include "model/run.h"

namespace attnviz {
namespace {

const char* kText =
    "The cat sat on the mat and the dog sat on the log. The cat sat on the mat and the dog sat on the log. "
    "A bird sang in the tree and a fish swam in the sea. A bird sang in the tree and a fish swam in the sea.";

std::shared_ptr<const ModelResult> RunOnce(ModelSession& session, const ModelRequest& request) {
  session.Submit(request);
  EXPECT_TRUE(session.WaitIdle(120));
  std::shared_ptr<const ModelResult> r = session.latest();
  EXPECT_TRUE(r && r->complete()) << (r ? r->status.message() : "no result");
  return r;
}

std::shared_ptr<const ModelFolder> Open(ModelSession& session, const std::string& fixture) {
  session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + fixture);
  EXPECT_TRUE(session.WaitIdle(60));
  EXPECT_TRUE(session.folder()) << session.open_error();
  return session.folder();
}

bool SameBits(const Tensor& a, const Tensor& b) {
  if (a.shape != b.shape) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a.data[i], &b.data[i], sizeof(float)) != 0 && !(std::isnan(a.data[i]) && std::isnan(b.data[i])))
      return false;
  return true;
}

class StreamedSession : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamedSession, StreamedLayersShowWhatWholeMapsShow) {
  ModelSession whole, streamed;
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
    AttentionTensors shown = LayerAsTensors(*b, l);
    ASSERT_TRUE(WithExactRows(*b, l, &shown).ok());
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
    ModelSession session, fresh;
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
      AttentionTensors g = LayerAsTensors(*after, L - 1), e = LayerAsTensors(*want, L - 1);
      ASSERT_TRUE(WithExactRows(*after, L - 1, &g).ok());
      ASSERT_TRUE(WithExactRows(*want, L - 1, &e).ok());
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
