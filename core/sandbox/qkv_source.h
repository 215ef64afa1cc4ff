// Seed (f): where queries, keys and values come from, and the width check a score needs.
//   embedding  the projected embeddings (attention.h Project): q = xq W_q, k = x W_k, v = x W_v per head;
//              widths d_k, d_k, d_v as configured
//   length     the token's length in characters (Unicode code points, so Hangul counts one per syllable);
//              one number, width 1
//   position   the token's index in its own sentence, 0-based; one number, width 1
//   onehot     the token's identity: 1 at its index in the vocabulary, 0 elsewhere; width n_vocab
// A raw feature (not embedding) skips the projection: it is used as it is, with its own width, and every
// head gets the same numbers; d_k (or d_v for values) is then the feature's width, not the configured one.
// So length against onehot, or embedding (d_k = 16) against length, is refused: a score compares q with k
// and needs d_q = d_k. d_v is free (values are only averaged): a raw value source is always allowed, and
// W_o is drawn for its width (WeightsConfig).
// The vocabulary is the distinct token texts of the key/value sentence and then of the query sentence, in
// the order they first appear: queries and keys share it, so a word has one one-hot vector on both sides.
#pragma once
#include <string>
#include <vector>

#include "sandbox/config.h"
#include "base/status.h"
#include "base/tensor.h"
#include "sandbox/text.h"
#include "sandbox/weights.h"

namespace attnviz {

std::vector<std::string> Vocabulary(const std::vector<Token>& query_tokens, const std::vector<Token>& kv_tokens);

// The width a source gives: embedding_width for kEmbedding, 1 for length and position, n_vocab for onehot.
int FeatureWidth(FeatureSource source, int embedding_width, int n_vocab);
struct QkvWidths {
  int q = 0, k = 0, v = 0;
};
QkvWidths FeatureWidths(const AttentionConfig& config, int n_vocab);
// Refuses a query/key width mismatch, naming both sources and widths, e.g. "a score needs d_q = d_k: the
// query from length has width 1, the key from onehot has width 7 (n_vocab)". n_vocab < 0 (the text is not
// known yet): a pair with onehot on one side only is not checked.
Status CheckQueryKeyWidths(const AttentionConfig& config, int n_vocab);

// features [n_head, n, width] of a raw source (not kEmbedding) for `tokens`; onehot indexes `vocab`.
void RawFeatures(FeatureSource source, const std::vector<Token>& tokens, const std::vector<std::string>& vocab,
                 int n_head, Tensor* features);

// The config the projection weights are drawn for: d_v is the value feature's width when values are raw
// (W_o [n_head*d_v, d_model] must match z).
AttentionConfig WeightsConfig(const AttentionConfig& config, int n_vocab);

// q [n_head, n_q, d_q], k [n_head, n_k, d_k], v [n_head, n_k, d_v] from the config's sources: Project where
// the source is kEmbedding (one call, as the pipeline always did), RawFeatures where it is not.
// xq, x: the embeddings [n, d_model]; w: weights for WeightsConfig(config, vocab.size()).
// config.qk_norm: q and k then go through NormQueryKeyRows (v never does).
void SourceQkv(const AttentionConfig& config, const std::vector<Token>& query_tokens,
               const std::vector<Token>& kv_tokens, const std::vector<std::string>& vocab, const Tensor& xq,
               const Tensor& x, const ProjectionWeights& w, Tensor* q, Tensor* k, Tensor* v);

// The q/k norm of today's families (Qwen3, OLMo 2, Gemma 3) with its weight at 1: each row of the last axis
// divided by its RMS, row / sqrt(mean(row^2) + kQkNormEps), so every q and k has length sqrt(d_k) whatever the
// input's size. t: [n_head, n, d_k] in place.
void NormQueryKeyRows(Tensor* t);

}  // namespace attnviz
