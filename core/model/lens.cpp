#include "model/lens.h"

#include <cmath>
#include <new>
#include <string>

#include "base/check.h"
#include "base/memory_budget.h"

namespace attnviz::model {

Result<std::vector<TokenLoss>> TokenLosses(const Model& model, const float* last_hidden, const std::vector<int>& ids,
                                           const RunControl& control) {
  const ModelConfig& c = model.config();
  // 0. Checks: a loss of the next token needs a model that predicts it, and a next token.
  if (!model.has_lm_head()) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  if (!PredictsNextToken(c)) return Status::Error(MsgId::kTokenLossMaskedLm, {c.model_type});
  if (ids.size() < 2) return Status::Error(MsgId::kTokenLossTooShort, {std::to_string(ids.size())});
  // 1. Predict's pass (top-1 at position 0 only: the losses of every position come with any position asked for).
  auto pred = Predict(model, last_hidden, ids, 1, {0}, control);
  if (!pred) return pred.status();
  ATTNVIZ_CHECK_SHAPE(pred->next_log_prob.size() + 1 == ids.size(), "next_log_prob [", pred->next_log_prob.size(),
                      "] of ", ids.size(), " tokens");
  // 2. One entry per position 0..n-2.
  std::vector<TokenLoss> out(ids.size() - 1);
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    const double lp = pred->next_log_prob[i];
    out[i] = {(int)i, ids[i + 1], -lp, std::exp(lp)};
  }
  return out;
}

Result<LensLayer> LogitLensLayer(const Model& model, const float* hidden, int layer, const std::vector<int>& ids,
                                 int k, const RunControl& control) {
  const ModelConfig& c = model.config();
  // 0. Checks (Predict checks k, the ids and the head).
  if (layer < 0 || layer > c.n_layer)
    return Status::Error(MsgId::kOutOfRange, {"lens layer", std::to_string(layer), "0", std::to_string(c.n_layer)});
  // 1. Predict's steps on this layer's stream, at every position: norm, head (soft cap), log-softmax, top-k.
  auto pred = Predict(model, hidden, ids, k, {}, control);
  if (!pred) return pred.status();
  ATTNVIZ_CHECK_SHAPE(pred->positions.size() == ids.size(), "lens positions [", pred->positions.size(), "] of ",
                      ids.size(), " tokens");
  // 2. Per position: the top-k, and (causal) the probability this layer gives the actual next token.
  LensLayer out;
  out.layer = layer;
  out.positions.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    LensPosition& p = out.positions[i];
    p.index = (int)i;
    p.top = std::move(pred->positions[i].top);
    if (i < pred->next_log_prob.size()) p.has_next = true, p.next_prob = std::exp(pred->next_log_prob[i]);
  }
  return out;
}

namespace {
double LensBytes(int n_layer, size_t n, int k) {
  return ((double)n_layer + 1) * (double)n * ((double)sizeof(LensPosition) + (double)k * sizeof(TokenProb));
}
}  // namespace

double LogitLensBytes(const ModelConfig& c, size_t n, int k) { return LensBytes(c.n_layer, n, k); }

Status LogitLensMemory(int n_layer, size_t n, int k) {
  const double need = LensBytes(n_layer, n, k);
  if (need <= (double)MemoryLimitBytes()) return Status::Ok();
  return Status::Error(MsgId::kAnalysisMemory, {"the logit lens's top " + std::to_string(k) + " of every layer",
                                                MemoryText(need), MemoryText((double)MemoryLimitBytes()),
                                                std::to_string(n)});
}

Result<std::vector<LensLayer>> LogitLens(const Model& model, const float* hidden, const std::vector<int>& ids, int k,
                                         const RunControl& control) {
  const ModelConfig& c = model.config();
  const size_t n = ids.size(), d = (size_t)c.d_model;
  // 0. What the lens keeps, refused before anything is made (k is checked first: a k past the vocabulary is the
  //    message to see, not its memory).
  if (k < 1 || k > c.vocab) return Status::Error(MsgId::kTopKRange, {std::to_string(k), std::to_string(c.vocab)});
  if (Status s = LogitLensMemory(c.n_layer, n, k); !s) return s;
  // 1. Layer by layer, hidden[l]: [n, d_model].
  std::vector<LensLayer> out;
  try {
    out.reserve((size_t)c.n_layer + 1);
    for (int l = 0; l <= c.n_layer; ++l) {
      auto layer = LogitLensLayer(model, hidden + (size_t)l * n * d, l, ids, k, control);
      if (!layer) return layer.status();
      out.push_back(std::move(*layer));
    }
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"the logit lens of " + std::to_string(n) + " tokens"});
  }
  return out;
}

}  // namespace attnviz::model
