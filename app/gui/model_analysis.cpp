#include "model_analysis.h"

#include <algorithm>

#include "i18n/map_kind_words.h"
#include "maps/layer_cut.h"
#include "model_display.h"

namespace attnviz {
namespace {

// q [n_head, n, d] or k: a HeadsView over a kept tensor (rows contiguous).
HeadsView KeptHeads(const Tensor& t) {
  HeadsView v;
  v.data = const_cast<float*>(t.data.data());  // Neuron only reads
  v.n_head = t.dim(0), v.n = t.dim(1), v.d = t.dim(2);
  v.head_stride = v.n * v.d, v.row_stride = v.d;
  return v;
}

// A pooled rollout (rollout_factor f > 1) as the panels draw it: every token (nothing to cut special ones out
// of), a one-head pyramid whose base level holds R'[I, J] / cols_covered(J) (view.h reads its finest level when
// zoomed in; hover has nothing exact: no probs, q or k).
std::shared_ptr<const LayerMaps> PooledRolloutLayer(const ModelResult& r, const LayerMaps& maps,
                                                    const LayerAnalysis& a) {
  auto made = std::make_shared<LayerMaps>(maps);  // the title's words, the mask, the tokens (shared)
  LayerMaps& t = *made;
  t.metrics.clear();
  t.q = t.k = t.probs = EmptyTensor();
  const int n = (int)r.tokens.size();
  t.pyramid = std::make_shared<const MapPyramid>(
      MapPyramid::FromPooledMean(a.rollout->data.data(), 1, n, n, a.rollout_factor));  // rollout: [1, nb, nb]
  t.pooled = true;
  t.exact_cells_limit = 0;
  t.col_scale = EmptyTensor();
  return made;
}

}  // namespace

LayerMaps PooledRolloutBlocks(const ModelResult& r, int layer) {
  LayerMaps out;
  if (!r.has_layer(layer) || layer >= (int)r.analysis.size() || !r.analysis[(size_t)layer]) return out;
  const LayerAnalysis& a = *r.analysis[(size_t)layer];
  if (a.rollout_factor <= 1 || a.rollout->empty()) return out;
  const LayerMaps& maps = *r.layers[(size_t)layer];
  const int n = (int)r.tokens.size(), f = a.rollout_factor, nb = model::RolloutBlocks(n, f);
  out.probs = a.rollout;  // [1, nb, nb]
  std::vector<Token> blocks;
  for (int b = 0; b < nb; ++b) {
    Token block;
    block.display = std::to_string(b * f) + "-" + std::to_string(std::min(n, (b + 1) * f) - 1);
    blocks.push_back(block);
  }
  out.kv_tokens = TokenList(std::move(blocks));
  out.query_tokens = out.kv_tokens;
  // !! A window cuts blocks partly: block level shows causal only (cells outside the window are 0, not grey).
  out.mask = maps.mask.causal() ? Mask::Causal() : maps.mask;
  out.multiplier = maps.multiplier, out.d_qk = maps.d_qk, out.scaled = maps.scaled, out.temperature = maps.temperature;
  return out;
}

UiMessage RolloutRefusalMessage(int n) {
  if (Status s = RolloutRefusal(n); !s) return UiMessage(Str::kRolloutRefusedMemory, {UiMessage(s)});
  return UiMessage();
}

bool RolloutPending(const ModelResult& r, int layer) {
  return r.rollout_pending && r.has_layer(layer) && layer < (int)r.analysis.size() && r.analysis[(size_t)layer] &&
         r.analysis[(size_t)layer]->rollout->empty();
}

UiMessage MapKindRefusal(const ModelResult& r, MapKind kind) {
  // (Value-weighted is never refused: a streamed run makes the shown layer's pyramid on demand, ExactRows::weighted.)
  const Status s = KindInfo(kind).refusal((int)r.tokens.size());
  if (s.ok()) return UiMessage();
  const Str refused = WordsOf(kind).refused;
  return refused == Str::kCount ? UiMessage(s) : UiMessage(refused, {UiMessage(s)});
}

std::vector<int> DisplayPositions(const ModelResult& r, bool hide_special) {
  std::vector<int> keep;
  for (size_t i = 0; i < r.tokens.size(); ++i)
    if (!(hide_special && !r.streamed) || !HiddenAsSpecial(r.tokens[i])) keep.push_back((int)i);
  if (keep.empty())  // nothing but special tokens: all of them (NonSpecialPositions does the same)
    for (size_t i = 0; i < r.tokens.size(); ++i) keep.push_back((int)i);
  return keep;
}

bool ValueWeightedPending(const ModelResult& r, int layer, MapKind kind, const ExactRows* rows) {
  return KindInfo(kind).shows.needs_pyramid && r.streamed && r.has_layer(layer) &&
         !(rows && rows->weighted && rows->status.ok() && rows->For(r, layer));
}

namespace {

// The attention maps of the layer as shown: the layer itself, or its cut (special tokens hidden).
std::shared_ptr<const LayerMaps> AttentionLayer(const ModelResult& r, int layer, bool hide_special) {
  const std::shared_ptr<const LayerMaps>& maps = r.layers[(size_t)layer];
  return hide_special ? CutLayerMaps(maps, DisplayPositions(r, true)) : maps;
}

// Layer `layer` of a streamed run as value-weighted maps: the pyramid `rows` made, exact cells from its q and k times
// the value norms (MapSource::col_scale); every token (a streamed run keeps no whole map to cut).
std::shared_ptr<const LayerMaps> StreamedWeightedLayer(const ModelResult& r, int layer, const ExactRows& rows) {
  auto t = std::make_shared<LayerMaps>(*r.layers[(size_t)layer]);
  t->metrics.clear();  // the row figures are attention's
  t->pyramid = rows.weighted;
  t->q = rows.q, t->k = rows.k;
  t->col_scale = r.analysis[(size_t)layer]->value_norms;
  return t;
}

}  // namespace

std::shared_ptr<const LayerMaps> KindLayerForDisplay(const ModelResult& r, int layer, MapKind kind, bool hide_special,
                                                     const ExactRows* rows) {
  if (!r.has_layer(layer)) return nullptr;
  const bool analysed = layer < (int)r.analysis.size() && r.analysis[(size_t)layer];
  // 1. A streamed layer's value-weighted maps: the pyramid made in the background; the attention maps until the
  //    pyramid is there (the panel says so).
  if (KindInfo(kind).shows.needs_pyramid && r.streamed && analysed) {
    if (ValueWeightedPending(r, layer, kind, rows)) return AttentionLayer(r, layer, hide_special);
    return StreamedWeightedLayer(r, layer, *rows);
  }
  // 2. Attention, or a kind refused (the panel says why).
  const bool made = KindInfo(kind).shows.derived && MapKindRefusal(r, kind).empty() && analysed;
  if (!made) return AttentionLayer(r, layer, hide_special);
  // 3. Rollout, or value-weighted whole maps.
  const LayerAnalysis& a = *r.analysis[(size_t)layer];
  const LayerMaps& maps = *r.layers[(size_t)layer];
  SharedTensor full;
  if (kind == MapKind::kRollout) {
    if (a.rollout->empty()) return AttentionLayer(r, layer, hide_special);
    if (a.rollout_factor > 1) return PooledRolloutLayer(r, maps, a);
    full = a.rollout;  // [1, n, n]
  } else {
    if (maps.probs->empty() || a.value_norms->empty()) return AttentionLayer(r, layer, hide_special);
    // value-weighted: [n_head, n, n] = probs[h, i, j] * norms[h, j]
    const size_t n_head = maps.probs->dim(0), n = maps.probs->dim(1);
    auto w = std::make_shared<Tensor>();
    w->Resize({n_head, n, n});
    for (size_t h = 0; h < n_head; ++h)
      model::ScaleColumns(maps.probs->data.data() + h * n * n, a.value_norms->data.data() + h * n, (int)n, (int)n,
                          w->data.data() + h * n * n);
    full = w;
  }
  // How the layer was made (the title's words, the mask's grey cells, the tokens); the row figures are attention's,
  // left out.
  auto t = std::make_shared<LayerMaps>(maps);
  t->metrics.clear();
  t->pyramid.reset();  // a streamed layer's (a rollout up to kRolloutMaxTokens is a whole [1, n, n] map)
  t->q = t->k = t->col_scale = EmptyTensor();
  t->pooled = false;
  t->exact_cells_limit = 0;
  t->probs = full;
  return hide_special ? CutLayerMaps(t, DisplayPositions(r, true)) : t;
}

LayerStack KindStack(const ModelResult& r, MapKind kind, bool hide_special) {
  std::vector<std::shared_ptr<const LayerMaps>> layers;
  for (int l = 0; l < r.n_layer(); ++l) layers.push_back(KindLayerForDisplay(r, l, kind, hide_special));
  return StackOfLayers(std::move(layers), StackKind::kSelf);
}

Result<model::NeuronView> NeuronOf(const ModelResult& r, int layer, int head, int i, int j) {
  if (!r.request.folder) return Status::Error("no model is open");
  const model::ModelConfig& c = r.request.folder->model->config();
  const int n = (int)r.tokens.size();
  if (Status s = model::CheckNeuron(c, n, layer, head, i, j); !s) return s;
  if (!r.has_layer(layer) || layer >= (int)r.analysis.size() || !r.analysis[(size_t)layer])
    return Status::Error("layer " + std::to_string(layer) + " is not there yet");
  const LayerAnalysis& a = *r.analysis[(size_t)layer];
  // A streamed layer keeps its input, not q and k: made again from it (the run's own bits; a quarter of a second
  // at 8192 tokens on the SmolLM2 shape, once per cell clicked).
  SharedTensor q = a.q, k = a.k;
  if (q->empty() || k->empty()) {
    Result<std::shared_ptr<const LayerMaps>> with_rows = LayerWithExactRows(r, layer);
    if (!with_rows) return with_rows.status();
    q = (*with_rows)->q, k = (*with_rows)->k;
  }
  if (q->empty() || k->empty()) return Status::Error("layer " + std::to_string(layer) + " kept no q and k");
  model::LayerOutput out;
  out.layer = layer, out.n_layer = c.n_layer, out.n_head = c.n_head, out.n = n, out.d_model = c.d_model;
  out.q = KeptHeads(*q);
  out.k = KeptHeads(*k);
  out.multiplier = a.multiplier;
  out.softcap = a.softcap;
  if (!a.q_before_norm->empty() && !a.k_before_norm->empty()) {
    out.q_before_norm = KeptHeads(*a.q_before_norm);
    out.k_before_norm = KeptHeads(*a.k_before_norm);
  }
  const LayerMaps& maps = *r.layers[(size_t)layer];
  if (!maps.probs->empty()) out.probs = maps.probs->data.data();  // the pass's own probability: the map's cell
  model::NeuronView view = model::Neuron(c, out, head, i, j);
  const std::shared_ptr<const std::vector<float>>& input =
      layer < (int)r.resume_inputs.size() ? r.resume_inputs[(size_t)layer] : nullptr;
  if (c.recipe.qk_norm != model::BlockRecipe::QkNorm::kNone && !view.qk_norm && input) {
    // !! A streamed layer keeps no q and k before the norms: made again without the norms, then turned back from
    // RoPE by the neuron view itself (its q_before_rope of the unnormed q is the projection's).
    Tensor raw_q, raw_k;
    if (Status s = model::LayerQk(*r.request.folder->model, layer, input->data(), n, &raw_q, &raw_k, true); !s)
      return s;
    model::LayerOutput raw = out;
    raw.q = KeptHeads(raw_q);
    raw.k = KeptHeads(raw_k);
    raw.q_before_norm = raw.k_before_norm = HeadsView{};
    const model::NeuronView unnormed = model::Neuron(c, raw, head, i, j);
    view.qk_norm = true;
    view.q_before_norm = unnormed.rope ? unnormed.q_before_rope : unnormed.q;
    view.k_before_norm = unnormed.rope ? unnormed.k_before_rope : unnormed.k;
  }
  return view;
}

}  // namespace attnviz
