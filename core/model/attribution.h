// Direct logit attribution (issue 41): how much each part of the residual stream at one position adds to one
// token's logit there, through the final norm with its scale frozen and the unembedding row.
//
// Dimension glossary
//   n        tokens                 d_model  residual width           n_layer  blocks
//   n_head   query heads            d_head   per-head width           q_dim    n_head * d_head
//
// The stream at `position` after the last block is a sum of parts (pre-norm families):
//   embed       hidden[0] (token + learned position embeddings; gemma: times sqrt(d_model))
//   head l,h    z_h W_o^h: head h's attention-weighted values through its d_head rows of the output projection
//   attn_bias   the output projection's bias (models that have one)
//   mlp l       the MLP's output, its own biases included (gpt_neox's parallel MLP alike)
// The final norm is frozen at the full stream x: LayerNorm part -> (part - mean(part)) / std(x) * gamma, and its
// beta is one part of its own ("norm_bias"); RMSNorm part -> part / rms(x) * w (gemma's (1 + w) as bound). Each
// part's value is that times the target's unembedding row; the values add up to the logit (an LM head bias, none in
// the families that attribute, would go into norm_bias).
//
// Output norms (gemma2/3 post_attention_layernorm, olmo2's norms on the sublayer outputs): a norm over the sum of
// the heads is not linear in them, so its scale is frozen at the full sublayer output y and each head's part (and
// the bias's) is normed linearly with it: part / rms(y) * w; the parts of one sublayer add up to norm(y) exactly.
// The MLP's output norm needs no split (the MLP is one part).
//
// gemma2's final soft cap (cap * tanh(logit / cap)) is not linear either: the attribution is of the logit before the
// cap (LogitAttribution::logit), and capped_logit says what the model outputs.
//
// Refused: post-norm models (bert, roberta: every sublayer's sum is renormalized, so the stream at the end is no
// sum of the parts) and masked LMs, whose MLM head adds a dense layer and a GELU before its LayerNorm (no linear
// path from the stream to a logit): the message says so.
//
// The MLP parts are computed again from their inputs (the block's input plus the attention's parts), not taken as
// a difference of the stream, so the sum rule checks the split against the run.
#pragma once
#include <vector>

#include "base/status.h"
#include "model/model.h"
#include "model/run.h"

namespace attnviz::model {

enum class ComponentKind { kEmbed, kHead, kAttnBias, kMlp, kNormBias };
// "embed", "head", "attn_bias", "mlp", "norm_bias" (the JSON's words).
const char* ComponentKindName(ComponentKind kind);

struct LogitComponent {
  ComponentKind kind = ComponentKind::kEmbed;
  int layer = -1, head = -1;  // -1 where the kind has none
  double value = 0;
};

struct LogitAttribution {
  int position = 0, target = 0;
  double logit = 0;         // the target's logit at position, before any final soft cap
  bool capped = false;      // the model caps its logits (gemma2 final_logit_softcapping)
  double capped_logit = 0;  // cap * tanh(logit / cap) when capped, else logit
  // embed; then per layer: its heads 0..n_head-1, attn_bias (when the projection has one), mlp; then norm_bias.
  std::vector<LogitComponent> components;
};

// The target a caller gives none for: the actual next token ids[position + 1], or at the last position the model's
// top prediction there (ties: the lower id). row: [d_model], hidden[n_layer][position] of the run.
Result<int> DefaultAttributionTarget(const Model& model, const float* row, const std::vector<int>& ids, int position);

// ids: [n]; position in 0..n-1; target in 0..vocab-1, or -1 for DefaultAttributionTarget. options: the run's
// what-ifs (ablated heads attribute as ablated). One run of the model (no maps kept).
// Errors: no LM head, a post-norm or masked LM (kAttributionPostNorm), position or target out of range, the run's.
Result<LogitAttribution> AttributeLogit(const Model& model, const std::vector<int>& ids, int position, int target = -1,
                                        RunOptions options = {});

// A norm frozen at `full` [d] (the sum its parts add up to): part -> (part - mean(part) [LayerNorm]) * scale, with
// scale [d] = w / std(full) (LayerNorm) or w / rms(full) (RMSNorm); its bias (LayerNorm) stays one part of its own.
struct FrozenNorm {
  bool center = false;
  std::vector<double> scale;  // [d]
  FrozenNorm(bool rms, double eps, const std::vector<double>& full, const Norm& norm);
  void Apply(std::vector<double>* part) const;  // part: [d]
};

// Head `head`'s part of an attention output: z [d_head] through its d_head input rows of the projection o
// (nn.Linear [d_model, inner] or Conv1D [inner, d_model]) -> [d_model], in double.
std::vector<double> HeadOutputPart(const Linear& o, const float* z, int head, int d_head, int d_model);

// The logits of `tokens` from one row of the stream after the last block (row: [d_model], no final norm): the final
// norm (masked LMs: the MLM transform), the head rows of those tokens (+ bias), the final soft cap. In double after
// the norm. Errors: no LM head, a token out of the vocabulary.
Result<std::vector<double>> TokenLogitsAt(const Model& model, const float* row, const std::vector<int>& tokens);

}  // namespace attnviz::model
