// What the model predicts from its last hidden state: the top-k next tokens per position and the mean next-token
// loss (gpt2, llama family), or the top-k at chosen positions (bert's masked-LM head at its [MASK] tokens).
//
// Dimension glossary
//   n        tokens                 d_model  residual width
//   vocab    token ids              k        tokens kept per position
//
// Steps (numbered as in predict.cpp), per block of kRows positions:
//   1. the final norm: gpt2 ln_f (LayerNorm), llama model.norm (RMSNorm); bert: cls.predictions.transform
//      (dense, the config's activation, LayerNorm)
//   2. logits = normed . W_head^T (+ bias): W_head [vocab, d_model] is lm_head.weight or the tied input embeddings,
//      taken a chunk of vocab rows at a time (Model::LmHeadRows: a quantized GGUF head is never dequantized whole)
//   3. log-softmax in double; the top k ids by probability (ties: the lower id first); the log-probability of
//      the next id ids[i + 1] (causal models)
//   loss = mean over i in 0..n-2 of -log p(ids[i + 1] | ids[0..i]) in nats, perplexity = exp(loss).
#pragma once
#include <vector>

#include "base/run_control.h"
#include "base/status.h"
#include "model/model.h"

namespace attnviz::model {

struct TokenProb {
  int id = 0;
  double prob = 0;
};

struct PositionTop {
  int index = 0;                // the position whose output is read (causal: it predicts index + 1)
  std::vector<TokenProb> top;   // [k], most probable first
};

struct Predictions {
  bool next_token = false;      // the model predicts the next token (gpt2, llama family), not masked ones (bert)
  bool has_loss = false;        // causal models over >= 2 tokens
  double loss = 0;              // nats, mean over the n - 1 next-token predictions
  double perplexity = 0;        // exp(loss)
  // [n - 1] causal models over >= 2 tokens: log p(ids[i + 1] | ids[0..i]) at i = 0..n-2 (each position's own
  // next-token loss is minus it; lens.h TokenLosses, LogitLens read it); empty otherwise.
  std::vector<double> next_log_prob;
  std::vector<PositionTop> positions;
};

// Whether the checkpoint has an LM head (lm_head.weight, tied embeddings, or bert's cls.predictions.*).
bool HasLmHead(const Model& model);
// Whether the model predicts the next token (gpt2, llama family) rather than masked ones (bert).
bool PredictsNextToken(const ModelConfig& c);

// values: [count], finite. The indices of the k largest (k <= count), largest first; ties: the lower index first (as
// std::partial_sort with that order). A small k: one pass over a sorted list of the k best so far; a large k (up to
// the vocabulary, attnviz-cli model --predict): std::partial_sort.
std::vector<int> TopKIndices(const float* values, int count, int k);

// last_hidden: [n, d_model], the residual stream after the last block (hidden[n_layer] of a run; no final norm).
// positions: the positions whose top-k are returned (each in 0..n-1, any order); empty = every position.
// Errors: no LM head ("this checkpoint has no LM head ..."), k outside 1..vocab, a position outside 0..n-1,
// ids of the wrong length or out of the vocabulary, a logit that is not finite, cancellation (control's cancel
// flag, checked before each block of positions: Status::Cancelled()). Progress: ("predict", positions done, n).
Result<Predictions> Predict(const Model& model, const float* last_hidden, const std::vector<int>& ids, int k,
                            const std::vector<int>& positions = {}, const RunControl& control = {});

// Predict over every position of a causal run that kept the rows of an earlier one (a kept prefix,
// model/prefix_cache.h): rows [0, same_rows) of last_hidden and ids are the earlier run's bits, `earlier` its
// Predict over every position with the same k. The blocks of positions wholly before same_rows - 1 that were whole
// blocks in the earlier run are taken from it (their logits would be the same bits), the rest computed: the same
// result as Predict, bit for bit, at the cost of the rows after the change.
Result<Predictions> PredictKeeping(const Model& model, const float* last_hidden, const std::vector<int>& ids, int k,
                                   const Predictions& earlier, int same_rows, const RunControl& control = {});

// log p(ids[i + 1]) at each position i of `at` (each in 0..n-2; empty: every position 0..n-2), in at's order: the
// final norm and the LM head over those rows only, so a loss read at a few positions costs a few rows of logits
// instead of n x vocab (the ablation scan's --scan-at). Within float rounding of Predict's next_log_prob there (its
// rows are multiplied in other blocks). last_hidden: [n, d_model], the last block's stream.
// Errors: no LM head, a masked LM, fewer than 2 tokens, a position out of range, an id out of range, a logit not
// finite; Status::Cancelled() between blocks of rows.
Result<std::vector<double>> NextLogProbsAt(const Model& model, const float* last_hidden, const std::vector<int>& ids,
                                           const std::vector<int>& at, const RunControl& control = {});

// The top k tokens at each position of `at` (each in 0..n-1, at least one), in at's order: the final norm and the
// LM head over those rows only, what a hovered token shows at once while Predict's n x vocab logits are still to
// come. The same ids as Predict's positions there, probabilities within float rounding (its rows are multiplied in
// other blocks). last_hidden: [n, d_model], the last block's stream.
// Errors: no LM head, k outside 1..vocab, no position or one out of range, a logit not finite; Status::Cancelled()
// between blocks of rows.
Result<std::vector<PositionTop>> TopTokensAt(const Model& model, const float* last_hidden, int n, int k,
                                             const std::vector<int>& at, const RunControl& control = {});

}  // namespace attnviz::model
