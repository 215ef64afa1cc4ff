#include "sandbox/qkv_source.h"

#include <algorithm>
#include <unordered_map>

#include "attention/attention.h"
#include <cmath>
#include "sandbox/projection.h"

namespace attnviz {

std::vector<std::string> Vocabulary(const std::vector<Token>& query_tokens, const std::vector<Token>& kv_tokens) {
  std::vector<std::string> vocab;
  std::unordered_map<std::string, int> seen;
  for (const std::vector<Token>* tokens : {&kv_tokens, &query_tokens})
    for (const Token& t : *tokens)
      if (seen.emplace(t.display, (int)vocab.size()).second) vocab.push_back(t.display);
  return vocab;
}

int FeatureWidth(FeatureSource source, int embedding_width, int n_vocab) {
  switch (source) {
    case FeatureSource::kEmbedding: return embedding_width;
    case FeatureSource::kLength:
    case FeatureSource::kPosition: return 1;
    case FeatureSource::kOneHot: return n_vocab;
  }
  return 0;
}

QkvWidths FeatureWidths(const AttentionConfig& c, int n_vocab) {
  return {FeatureWidth(c.query_from, c.head_dim_k(), n_vocab), FeatureWidth(c.key_from, c.head_dim_k(), n_vocab),
          FeatureWidth(c.value_from, c.head_dim_v(), n_vocab)};
}

Status CheckQueryKeyWidths(const AttentionConfig& c, int n_vocab) {
  const bool onehot_q = c.query_from == FeatureSource::kOneHot, onehot_k = c.key_from == FeatureSource::kOneHot;
  if (n_vocab < 0 && onehot_q != onehot_k) return Status::Ok();
  const QkvWidths w = FeatureWidths(c, n_vocab);
  if (w.q == w.k) return Status::Ok();
  auto what = [](FeatureSource s) {
    return s == FeatureSource::kEmbedding ? " (d_k)" : s == FeatureSource::kOneHot ? " (n_vocab)" : "";
  };
  return Status::Error(MsgId::kWidthMismatch, {ToString(c.query_from), std::to_string(w.q), what(c.query_from),
                                               ToString(c.key_from), std::to_string(w.k), what(c.key_from)});
}

void RawFeatures(FeatureSource source, const std::vector<Token>& tokens, const std::vector<std::string>& vocab,
                 int n_head, Tensor* features) {
  const size_t n = tokens.size(), width = (size_t)FeatureWidth(source, 0, (int)vocab.size());
  features->Resize({(size_t)n_head, n, width});
  std::fill(features->data.begin(), features->data.end(), 0.0f);
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < vocab.size(); ++i) index.emplace(vocab[i], i);
  for (size_t i = 0; i < n; ++i) {
    for (size_t h = 0; h < (size_t)n_head; ++h) {
      float* row = features->data.data() + (h * n + i) * width;
      if (source == FeatureSource::kLength) row[0] = (float)DecodeUtf8(tokens[i].display).size();
      else if (source == FeatureSource::kPosition) row[0] = (float)i;
      else if (source == FeatureSource::kOneHot) row[index.at(tokens[i].display)] = 1.0f;
    }
  }
}

AttentionConfig WeightsConfig(const AttentionConfig& c, int n_vocab) {
  AttentionConfig w = c.resolved();
  if (c.value_from != FeatureSource::kEmbedding) w.d_v = FeatureWidth(c.value_from, 0, n_vocab);
  return w;
}

void SourceQkv(const AttentionConfig& c, const std::vector<Token>& query_tokens, const std::vector<Token>& kv_tokens,
               const std::vector<std::string>& vocab, const Tensor& xq, const Tensor& x, const ProjectionWeights& w,
               Tensor* q, Tensor* k, Tensor* v) {
  const bool any_embedding = c.query_from == FeatureSource::kEmbedding || c.key_from == FeatureSource::kEmbedding ||
                             c.value_from == FeatureSource::kEmbedding;
  if (any_embedding) Project(xq, x, w, q, k, v);
  if (c.query_from != FeatureSource::kEmbedding) RawFeatures(c.query_from, query_tokens, vocab, c.n_head, q);
  if (c.key_from != FeatureSource::kEmbedding) RawFeatures(c.key_from, kv_tokens, vocab, c.n_head, k);
  if (c.value_from != FeatureSource::kEmbedding) RawFeatures(c.value_from, kv_tokens, vocab, c.n_head, v);
  if (c.qk_norm) {
    NormQueryKeyRows(q);
    NormQueryKeyRows(k);
  }
}

void NormQueryKeyRows(Tensor* t) {
  if (t->empty()) return;
  const size_t d = t->shape.back();
  const long rows = (long)(t->size() / d);
#pragma omp parallel for schedule(static) if (rows > 256)
  for (long r = 0; r < rows; ++r) {
    float* row = t->data.data() + (size_t)r * d;
    double ms = 0;  // as model::RmsNormForward, with the weight at 1
    for (size_t j = 0; j < d; ++j) ms += (double)row[j] * row[j];
    const float inv = (float)(1.0 / std::sqrt(ms / (double)d + kQkNormEps));
    for (size_t j = 0; j < d; ++j) row[j] *= inv;
  }
}

}  // namespace attnviz
