// LayerMaps: one attention layer's maps as every room after the kernel sees them (the Heads panel, the Overview,
// Shapes, figures and exports), whichever wing made the layer: the sandbox's pipeline (AttentionTensors extends it
// with the pipeline's own numbers: x, v, scores, logits, z, out) or a trained model's run (one LayerMaps per layer,
// published as each layer finishes). Immutable once handed out; tensors are shared, never deep-copied.
#pragma once
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "attention/mask.h"
#include "attention/metrics.h"
#include "maps/pyramid.h"
#include "maps/token_list.h"
#include "base/tensor.h"
#include "tokenize/token.h"
#include "maps/view.h"

namespace attnviz {

struct LayerMaps {
  // One list shared by every layer of a run (token_list.h): a model's layers hold the same one.
  TokenList query_tokens;              // n_q (equal to kv_tokens in self-attention)
  TokenList kv_tokens;                 // n_k
  SharedTensor q = EmptyTensor();      // [n_head, n_q, d_k]  what exact rows need (empty: the maps are kept whole,
                                       // or a streamed model layer not shown: core/session/model_session.h ExactQk)
  SharedTensor k = EmptyTensor();      // [n_head, n_k, d_k]
  SharedTensor probs = EmptyTensor();  // [n_head, n_q, n_k]  softmax rows; masked entries exactly 0 (empty: pooled)
  std::vector<HeadMetrics> metrics;    // [n_head]: the per-row figures, from the same pass as the maps
  // The pooled levels of probs (a long input keeps only these, and q, k or what makes them); may be null while
  // probs are kept.
  std::shared_ptr<const MapPyramid> pyramid;
  bool pooled = false;  // no full map kept: probs is empty
  // Value-weighted maps of a streamed layer: exact cells are probs (from q, k) times this (MapSource::col_scale) and
  // the pyramid pools the weighted map; empty otherwise.
  SharedTensor col_scale = EmptyTensor();  // [n_head, n_k]
  size_t exact_cells_limit = 0;  // MapSource::exact_cells_limit (0: exact rows at any cost)
  // How the pass made the logits: the multiplier (1/sqrt(d_qk) when scaled, or 1; divided by the temperature),
  // the soft cap (0 = none; attention.h LogitFromScore), whether 1/sqrt(d_qk) was in it and the temperature (the
  // hover's words), and the layer's mask.
  float multiplier = 1.0f;
  float softcap = 0;
  int d_qk = 0;  // the width of q and k (what 1/sqrt(d_qk) divides by)
  bool scaled = true;
  float temperature = 1.0f;
  Mask mask;

  // !! A streamed model layer keeps neither probs nor q, k (the screen makes q, k of the layer it shows from the
  // layer's input): its sizes are the pyramid's.
  int n_head() const { return !probs->empty() ? (int)probs->dim(0) : pyramid ? pyramid->n_head() : (int)q->dim(0); }
  int n_q() const { return !probs->empty() ? (int)probs->dim(1) : pyramid ? pyramid->n_q() : (int)q->dim(1); }
  int n_k() const { return !probs->empty() ? (int)probs->dim(2) : pyramid ? pyramid->n_k() : (int)k->dim(1); }
  // Where the maps' numbers come from (the full map, or the pyramid and q, k for exact rows), with the
  // multiplier and mask above. generation: a number that changes with the tensors.
  MapSource Source(uint64_t generation) const;
};

// "d_k=16 · scaled · T=1 · causal, window 4": how the maps were made, in the words of the sandbox's titles
// (LocalizedTitle says it in the UI's language).
std::string Describe(const LayerMaps& maps);

}  // namespace attnviz
