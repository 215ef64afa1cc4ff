// What the residual stream predicts, token by token and layer by layer (issue 41): the loss of each next token,
// and the logit lens (nostalgebraist 2020): the model's final norm and LM head applied to the stream after every
// block, not only the last, to see when the prediction forms.
//
// Dimension glossary
//   n        tokens                 d_model  residual width           n_layer  blocks
//   vocab    token ids              k        tokens kept per position
//
// Both go through Predict (predict.h) and so through its steps exactly: the family's final norm (gpt2 ln_f,
// llama/qwen3 model.norm, gemma2 its (1 + w) RMSNorm, gpt_neox final_layer_norm), the LM head a chunk of vocab rows
// at a time, gemma2's final soft cap, a log-softmax in double. Masked LMs (bert, roberta): the lens goes through
// the MLM head (cls.predictions / lm_head: dense, activation, LayerNorm, decoder) at every position, and so says
// which token each layer's output reads as at that position; such a model has no next token, so no per-token loss
// and no next_prob.
//
// Memory: a lens holds one block of logits ([64, vocab] floats, Predict's) at a time, never vocab x n x layers;
// what it keeps is the top-k, (n_layer + 1) x n x k entries (LogitLensBytes, refused above the memory limit).
#pragma once
#include <vector>

#include "base/run_control.h"
#include "base/status.h"
#include "model/model.h"
#include "model/predict.h"

namespace attnviz::model {

// The loss of one next token: position `index` predicts ids[index + 1].
struct TokenLoss {
  int index = 0;
  int next_id = 0;    // ids[index + 1]
  double loss = 0;    // -log p(next_id | ids[0..index]), nats
  double prob = 0;    // p(next_id | ids[0..index]) = exp(-loss)
};

// last_hidden: [n, d_model], hidden[n_layer] of a run (no final norm; a what-if run gives the what-if's losses).
// Returns [n - 1] entries, index 0..n-2; their mean is Predict's loss.
// Errors: no LM head, a masked LM (kTokenLossMaskedLm), fewer than 2 tokens (kTokenLossTooShort), Predict's.
Result<std::vector<TokenLoss>> TokenLosses(const Model& model, const float* last_hidden, const std::vector<int>& ids,
                                           const RunControl& control = {});

struct LensPosition {
  int index = 0;
  std::vector<TokenProb> top;  // [k], most probable first (ties: the lower id first)
  bool has_next = false;       // causal models, index < n - 1
  double next_prob = 0;        // p(ids[index + 1]) as this layer reads it
};

struct LensLayer {
  int layer = 0;                        // 0 = the embeddings, l = after block l - 1; n_layer = the model's own
  std::vector<LensPosition> positions;  // [n]
};

// One layer of the lens. hidden: [n, d_model], hidden[layer] of a run (0..n_layer).
// Errors: layer outside 0..n_layer, k outside 1..vocab, no LM head, Predict's (cancellation included).
Result<LensLayer> LogitLensLayer(const Model& model, const float* hidden, int layer, const std::vector<int>& ids,
                                 int k, const RunControl& control = {});

// The bytes the whole lens keeps: (n_layer + 1) x n positions of k tokens each.
double LogitLensBytes(const ModelConfig& c, size_t n, int k);
// kAnalysisMemory when a lens of n_layer + 1 layers over n positions keeping k tokens each is over the limit.
Status LogitLensMemory(int n_layer, size_t n, int k);

// Every layer. hidden: [n_layer + 1, n, d_model] (ModelRun::hidden). Returns [n_layer + 1] layers, 0 first.
// Errors: LogitLensLayer's, and LogitLensBytes over MemoryLimitBytes() (kAnalysisMemory, before anything is made).
Result<std::vector<LensLayer>> LogitLens(const Model& model, const float* hidden, const std::vector<int>& ids, int k,
                                         const RunControl& control = {});

}  // namespace attnviz::model
