#include "pipeline.h"

#include <algorithm>

#include "embedding.h"

namespace attnviz {

const char* ToString(Stage stage) {
  switch (stage) {
    case Stage::kEmbed: return "embed";
    case Stage::kProject: return "project";
    case Stage::kScores: return "scores";
    case Stage::kLogits: return "logits";
    case Stage::kSoftmax: return "softmax";
    case Stage::kMetrics: return "metrics";
    case Stage::kOutput: return "output";
    case Stage::kDone: return "done";
  }
  return "?";
}

void Pipeline::MarkDirty(Stage stage) { first_dirty_ = std::min(first_dirty_, stage); }

Status Pipeline::SetText(const std::string& kv_text, const std::string& query_text) {
  auto kv = Tokenize(kv_text);
  if (!kv) return Status::Error(query_text.empty() ? kv.message() : "key/value text: " + kv.message());
  std::vector<Token> query;
  if (!query_text.empty()) {
    auto q = Tokenize(query_text);
    if (!q) return Status::Error("query text: " + q.message());
    query = std::move(*q);
  }
  if (kv_text != kv_text_ || query_text != query_text_) MarkDirty(Stage::kEmbed);
  kv_text_ = kv_text;
  query_text_ = query_text;
  kv_tokens_ = std::move(*kv);
  query_tokens_ = std::move(query);
  return Status::Ok();
}

Status Pipeline::SetConfig(const AttentionConfig& c) {
  if (Status s = Validate(c); !s) return s;
  const AttentionConfig& o = config_;
  const bool first = run_count_[(int)Stage::kEmbed] == 0 && first_dirty_ == Stage::kEmbed;
  if (first || c.d_model != o.d_model || c.seed != o.seed || c.positional != o.positional || c.mode != o.mode) {
    MarkDirty(Stage::kEmbed);
  }
  if (first || c.d_model != o.d_model || c.seed != o.seed || c.n_head != o.n_head ||
      c.head_dim_k() != o.head_dim_k() || c.head_dim_v() != o.head_dim_v() || c.qkv != o.qkv) {
    weights_dirty_ = true;
    MarkDirty(Stage::kProject);
  }
  if (c.scale != o.scale || c.temperature != o.temperature) MarkDirty(Stage::kLogits);
  if (c.mask != o.mask) MarkDirty(Stage::kSoftmax);
  config_ = c;
  return Status::Ok();
}

void Pipeline::SetLoadedWeights(const ProjectionWeights& weights) {
  weights_ = weights;
  loaded_weights_ = true;
  weights_dirty_ = false;
  MarkDirty(Stage::kProject);
}

void Pipeline::ClearLoadedWeights() {
  if (!loaded_weights_) return;
  loaded_weights_ = false;
  weights_dirty_ = true;
  MarkDirty(Stage::kProject);
}

Status Pipeline::Run(Stage through) {
  const AttentionConfig& c = config_;
  const bool cross = c.mode == AttentionMode::kCross;
  if (kv_tokens_.empty()) return Status::Error("no text: set a sentence first");
  if (cross && query_tokens_.empty()) {
    return Status::Error("cross mode needs a query sentence (queries) besides the key/value sentence");
  }
  if (loaded_weights_ && (weights_.d_model != c.d_model || weights_.n_head != c.n_head ||
                          weights_.d_k != c.head_dim_k() || weights_.d_v != c.head_dim_v())) {
    return Status::Error("loaded weights are for d_model=" + std::to_string(weights_.d_model) +
                         ", n_head=" + std::to_string(weights_.n_head) + ", d_k=" + std::to_string(weights_.d_k) +
                         ", d_v=" + std::to_string(weights_.d_v) + "; the config asks for d_model=" +
                         std::to_string(c.d_model) + ", n_head=" + std::to_string(c.n_head) +
                         ", d_k=" + std::to_string(c.head_dim_k()) + ", d_v=" + std::to_string(c.head_dim_v()));
  }
  AttentionTensors& t = tensors_;
  bool in_pass = false;  // the logits map and z were produced by the weights' pass
  for (int s = (int)first_dirty_; s <= (int)through && s < kStageCount; ++s) {
    switch ((Stage)s) {
      case Stage::kEmbed:  // x [n_k, d_model], xq [n_q, d_model]
        t.kv_tokens = kv_tokens_;
        t.query_tokens = cross ? query_tokens_ : kv_tokens_;
        Embed(t.kv_tokens, c.d_model, c.seed, c.positional, &t.x);
        if (cross) Embed(t.query_tokens, c.d_model, c.seed, c.positional, &t.xq);
        else t.xq = t.x;
        break;
      case Stage::kProject:  // q [n_head, n_q, d_k], k [n_head, n_k, d_k], v [n_head, n_k, d_v]
        if (weights_dirty_ && !loaded_weights_) InitWeights(c, &weights_);
        weights_dirty_ = false;
        Project(cross ? t.xq : t.x, t.x, weights_, &t.q, &t.k, &t.v);
        break;
      case Stage::kScores:   // scores [n_head, n_q, n_k]
      case Stage::kLogits:   // scaling or temperature changed: weights from the kept scores
      case Stage::kSoftmax:  // only the mask changed: likewise (the logits map is not kept, see below)
      case Stage::kMetrics: {
        if (through == Stage::kScores) {  // the scores alone
          Scores(t.q, t.k, &t.scores);
          break;
        }
        // Every dirty step from here through `through` (z too when kOutput is asked for) in one pass
        // over each block of query rows, while the block is in cache. Each step counts as run.
        // The logits map is written only when kOutput is asked for: the maps and figures need only
        // the scores and the multiplier, and a third map would cost a toggle a third more traffic.
        const AttendFrom from = s == (int)Stage::kScores ? AttendFrom::kScores : AttendFrom::kLogits;
        const bool metrics = through >= Stage::kMetrics;
        in_pass = through >= Stage::kOutput;
        Attend(from, t.q, t.k, t.v, c.logit_multiplier(), c.mask, &t.scores, in_pass ? &t.logits : nullptr,
               &t.weights, metrics ? &t.metrics : nullptr, in_pass ? &t.z : nullptr);
        if (!in_pass) {  // what was derived from the old weights is stale until kOutput runs again
          for (Tensor* stale : {&t.logits, &t.z, &t.concat, &t.out}) {
            stale->shape.clear();
            stale->data.clear();
          }
        }
        const int last = std::max(metrics ? (int)Stage::kMetrics : (int)through, (int)Stage::kSoftmax);
        for (; s < last; ++s) ++run_count_[s];  // the last one is counted below
        break;
      }
      case Stage::kOutput:  // logits map and z [n_head, n_q, d_v] (unless made above), out [n_q, d_model]
        if (!in_pass) {
          Logits(t.scores, c.logit_multiplier(), &t.logits);
          MixValues(t.weights, t.v, &t.z);
        }
        OutputProjection(t.z, weights_.w_o, &t.concat, &t.out);
        break;
      case Stage::kDone:
        break;
    }
    ++run_count_[s];
  }
  if ((int)through + 1 > (int)first_dirty_) first_dirty_ = (Stage)std::min((int)through + 1, kStageCount);
  return Status::Ok();
}

}  // namespace attnviz
