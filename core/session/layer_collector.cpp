#include "session/layer_collector.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/check.h"
#include "maps/view.h"
#include "model/prefix_cache.h"

namespace attnviz {

Status RolloutRefusal(int n) { return model::CheckRolloutMemory((size_t)std::max(1, n)); }

CollectPlan CollectPlan::ForSession(bool stream) {
  CollectPlan plan;
  plan.maps = stream ? Maps::kStreamed : Maps::kWhole;
  return plan;
}

LayerMaps ModelLayerMaps(const model::ModelConfig& c, const TokenList& tokens,
                         const SharedTensor& layer_probs, int layer, const model::RunOptions& options) {
  LayerMaps maps;
  maps.kv_tokens = tokens;
  maps.query_tokens = tokens;
  if (layer_probs) maps.probs = layer_probs;
  maps.mask = model::AttentionMask(c, layer);
  maps.multiplier = model::AttentionMultiplier(c, layer, options);
  maps.softcap = model::AttentionSoftcap(c, layer, options);
  maps.d_qk = c.d_head;
  maps.scaled = c.scale_attn && !(layer < (int)options.no_scale.size() && options.no_scale[(size_t)layer]);
  maps.temperature = layer < (int)options.temperature.size() ? options.temperature[(size_t)layer] : 1.0f;
  return maps;
}

int ResumeStride(const model::ModelConfig& c, int n, bool stream) {
  if (stream) return 1;
  const double per = (double)n * c.d_model * sizeof(float);
  return std::max(1, (int)std::ceil(per * c.n_layer / kResumeBytes));
}

double CollectedBytes(const model::ModelConfig& c, int n, const CollectPlan& plan) {
  const double nn = (double)n * n, f = sizeof(float);
  const bool stream = plan.streamed(), none = plan.maps == CollectPlan::Maps::kNone;
  double bytes = (double)c.n_layer * c.n_head * n * sizeof(RowMetrics);  // row figures
  if (plan.resume_points) bytes += (double)c.n_layer * n * c.d_model * f / ResumeStride(c, n, stream);
  if (plan.value_norms) bytes += (none ? 1.0 : c.n_layer) * c.n_head * n * f;  // value-norm scales
  if (plan.rollout && RolloutRefusal(n).ok()) {  // its state, the pooled head mean's sums, R_l per layer
    const int rf = RolloutFactor(n);
    const double nb = model::RolloutBlocks(n, rf);
    bytes += stream || rf > 1 ? model::PooledRolloutMemoryBytes((size_t)n, rf) : model::RolloutMemoryBytes((size_t)n);
    bytes += (none ? 1.0 : c.n_layer) * nb * nb * f;
  }
  if (none) return bytes + (plan.keep_layer >= 0 ? (double)c.n_head * nn * f : 0.0);
  if (!stream && plan.neuron_qk)  // q, k per layer (and before the q/k norms)
    bytes += (c.recipe.qk_norm != model::BlockRecipe::QkNorm::kNone ? 2.0 : 1.0) * c.n_layer * n *
             (c.q_dim() + c.kv_dim()) * f;
  if (!stream) return bytes + (double)c.n_layer * c.n_head * nn * f;  // whole maps
  const int base = MapPyramid::ForStreamedRun(c.n_layer, c.n_head, n, MapPyramid::kStreamedKeptBytes).pass;
  const double base_side = std::ceil((double)n / base);
  bytes += (double)c.n_head * base_side * base_side * 2 * f * 4 / 3;  // the pass's own pyramid
  bytes += MapPyramid::kStreamedKeptBytes;                             // the kept levels (at most)
  bytes += (double)n * (c.q_dim() + c.kv_dim()) * f;                  // q, k of the layer on screen
  bytes += (double)c.n_layer * c.n_head * (n / model::kRoleSumStride + 1) * sizeof(model::RoleRowSums);  // role sums
  return bytes;
}

double CollectedBytes(const model::ModelConfig& c, const std::vector<tokenize::Token>& tokens, const CollectPlan& plan) {
  return CollectedBytes(c, (int)tokens.size(), plan) + TokenListBytes(tokens);
}

double KeptTokenBytes(const CollectedLayers& layers) {
  std::vector<const std::vector<Token>*> counted;
  double bytes = 0;
  for (const std::shared_ptr<const LayerMaps>& maps : layers.layers) {
    if (!maps) continue;
    for (const TokenList* list : {&maps->query_tokens, &maps->kv_tokens}) {
      if (!list->shared() || std::find(counted.begin(), counted.end(), list->shared()) != counted.end()) continue;
      counted.push_back(list->shared());
      bytes += TokenListBytes(*list);
    }
  }
  return bytes;
}

int ThumbnailFactor(int n) {
  int f = 1;
  while ((n + f - 1) / f > kThumbnailCells) f *= 2;
  return f;
}

// Small inputs: RunModel writes each layer's probs into a fresh tensor the LayerMaps then shares. Long inputs
// (streamed): no map is kept; each block of rows goes into this run's pyramid and role rows as the pass makes it,
// and the layer keeps the pyramid's coarser levels plus its input (in resume_inputs), from which the screen makes
// q and k of the layer it shows and recomputes exact rows: n * d_model floats a layer rather than
// n * (q_dim + kv_dim), and a what-if resumes at exactly the first layer it changes.
struct LayerCollector::State {
  State(const model::Model& m, const model::RunOptions& o, const TokenList& t, const CollectPlan& p,
        LayerTaps tp, std::function<void(const LayerCollector&)> pub)
      : model(m), config(m.config()), options(o), plan(p), taps(std::move(tp)), publish(std::move(pub)),
        mask(model::AttentionMask(m.config(), o.first_layer)), n_head(m.config().n_head), n((int)t.size()), ids(TokenIdsOf(t)),
        tokens(t), resume_stride(ResumeStride(m.config(), (int)t.size(), p.streamed())),
        probs((size_t)m.config().n_layer), thumbs((size_t)m.config().n_layer) {
    const int n_layer = config.n_layer;
    run.layers.resize((size_t)n_layer);
    run.analysis.resize((size_t)n_layer);
    run.resume_inputs.resize((size_t)n_layer);
    run.roles = model::MakeHeadRoles(n_layer, n_head, ids);
    // The chance level of each layer's scores: one per distinct mask (most families: one for all layers).
    std::map<int, model::RoleScores> chance_of_window;
    for (int l = 0; l < n_layer; ++l) {
      const int window = config.WindowOf(l);
      auto it = chance_of_window.find(window);
      if (it == chance_of_window.end())
        it = chance_of_window.emplace(window, model::UniformRoleScores(ids, !config.recipe.bidirectional, window)).first;
      run.roles.chance.push_back(it->second);
    }
    run.streamed = plan.streamed();
    if (plan.rollout && RolloutRefusal(n).ok()) {  // above kRolloutMaxTokens pooled to blocks of rollout_factor tokens
      rollout_factor = RolloutFactor(n);
      rollout_blocks = model::RolloutBlocks(n, rollout_factor);
      rollout = std::make_unique<model::Rollout>(rollout_blocks);
      if (plan.streamed() || rollout_factor > 1)
        pooled_rows = std::make_unique<model::PooledRolloutRows>(n, rollout_factor, mask.causal());
      rollout_means.resize((size_t)n_layer);
    }
    if (plan.streamed()) {
      role_rows = std::make_unique<model::RoleRows>(n_head, ids, mask.causal(), /*broad_from_row_figures=*/true);
      // The pass pools straight into the finest level kept (GPT-2 at 1024 tokens: not a factor-2 level).
      const MapPyramid::StreamedFactors factors =
          MapPyramid::ForStreamedRun(n_layer, n_head, n, MapPyramid::kStreamedKeptBytes);
      kept_factor = factors.kept;
      pyramid.Reset(n_head, n, n, factors.pass, mask);
    }
  }
  static std::vector<int> TokenIdsOf(const std::vector<tokenize::Token>& t) {
    std::vector<int> ids;
    for (const tokenize::Token& tok : t) ids.push_back(tok.id);
    return ids;
  }
  bool keeps_probs(int layer) const {
    return plan.maps == CollectPlan::Maps::kWhole || (plan.maps == CollectPlan::Maps::kNone && layer == plan.keep_layer);
  }

  // The thumbnail of each head of a finished layer: max-pooled, so a one-hot row stays visible.
  Result<std::shared_ptr<Tensor>> Thumbnail(const model::LayerOutput& out, const LayerMaps& maps) {
    MapSource source = maps.Source(0);
    if (plan.streamed()) {
      source.pyramid = &pyramid;  // the pass's own, finer levels
      // A thumbnail finer than the pass's finest level (a short streamed input) needs exact rows: this layer's q
      // and k, for this moment only.
      if (pyramid.LevelFor((double)n / std::min(n, kThumbnailCells)) < 0) {
        model::LayerQkCopy(out, &thumb_q, &thumb_k);
        source.q = &thumb_q, source.k = &thumb_k;
      }
    } else if (!out.probs || maps.probs->empty()) {  // kNone keeps no maps to make thumbnails of
      return Status::Error("layer " + std::to_string(out.layer) + ": no maps to make thumbnails of");
    }
    const int t = std::min(n, kThumbnailCells);
    auto thumb = std::make_shared<Tensor>();
    thumb->Resize({(size_t)n_head, (size_t)t, (size_t)t});
    const MapWindow all{0, n, 0, n};
    for (int h = 0; h < n_head; ++h) {
      ViewImage view = ComposeView(source, h, all, t, t, PoolKind::kMax);
      if (view.width != t || view.height != t) return Status::Error("thumbnail: unexpected size");
      std::copy(view.values.begin(), view.values.end(), thumb->data.begin() + (size_t)h * t * t);
    }
    return thumb;
  }

  // A kept prefix's rows of q and k before their norms [heads, n, d_head] (a reused run does not make them): the
  // earlier run's (the same folder: KeepRows' caller checks it, so other shapes are a programming error).
  void KeptRowsBeforeNorm(int layer, Tensor* q, Tensor* k) const {
    if (!kept_from || layer >= (int)kept_from->analysis.size() || !kept_from->analysis[(size_t)layer]) return;
    const LayerAnalysis& old = *kept_from->analysis[(size_t)layer];
    for (auto [to, from] : {std::pair<Tensor*, const Tensor*>{q, old.q_before_norm.get()}, {k, old.k_before_norm.get()}}) {
      ATTNVIZ_CHECK_SHAPE(from && from->shape.size() == 3 && from->dim(0) == to->dim(0) && from->dim(2) == to->dim(2) &&
                              from->dim(1) >= (size_t)kept_rows,
                          "kept rows before the norm ", from ? from->shape : std::vector<size_t>{}, " for ",
                          to->shape, " and ", kept_rows, " rows");
      const size_t heads = to->dim(0), width = to->dim(2), rows = (size_t)kept_rows;
      for (size_t h = 0; h < heads; ++h)
        std::copy_n(from->data.begin() + (ptrdiff_t)(h * from->dim(1) * width), rows * width,
                    to->data.begin() + (ptrdiff_t)(h * to->dim(1) * width));
    }
  }

  // The neuron view's q and k (whole-map runs), the value-norm scales, and what the layer's step of the rollout
  // needs: the run's thread, O(n d_model^2 + n^3) per layer.
  std::shared_ptr<LayerAnalysis> Analyze(const model::LayerOutput& out) {
    auto a = std::make_shared<LayerAnalysis>();
    // A streamed layer keeps none (its input makes them again).
    if (!plan.streamed() && plan.neuron_qk && plan.maps != CollectPlan::Maps::kNone) {
      auto q = std::make_shared<Tensor>(), k = std::make_shared<Tensor>();
      model::LayerQkCopy(out, q.get(), k.get());
      a->q = q, a->k = k;
      if (out.q_before_norm.data) {
        auto qn = std::make_shared<Tensor>(), kn = std::make_shared<Tensor>();
        model::LayerQkBeforeNormCopy(out, qn.get(), kn.get());
        KeptRowsBeforeNorm(out.layer, qn.get(), kn.get());
        a->q_before_norm = qn, a->k_before_norm = kn;
      }
    }
    a->multiplier = out.multiplier;
    a->softcap = out.softcap;
    if (plan.value_norms) {
      auto norms = std::make_shared<Tensor>();
      norms->Resize({(size_t)n_head, (size_t)n});
      if (analysis_kept > 0) {  // the kept keys' norms (each reads its own v alone)
        const Tensor& old = *kept_from->analysis[(size_t)out.layer]->value_norms;  // [n_head, n_old]
        for (int h = 0; h < n_head; ++h)
          std::copy_n(old.data.begin() + (ptrdiff_t)((size_t)h * old.dim(1)), analysis_kept,
                      norms->data.begin() + (ptrdiff_t)((size_t)h * n));
      }
      model::ValueNormScales(model, out, norms->data.data(), analysis_kept);
      a->value_norms = norms;
    }
    a->role_sums = layer_role_sums;
    if (rollout) {
      a->rollout_factor = rollout_factor;
      if (pooled_rows) {  // the pooled head mean: the blocks' (streamed) or the whole maps' (probs: [n_head, n, n])
        if (out.probs && !plan.streamed()) pooled_rows->AddMap(out.probs, n_head);
        const size_t nb = (size_t)rollout_blocks;
        // [nb, nb], not zero-filled first: TakeMean writes every cell (a fresh page is touched once, by its threads).
        rollout_means[(size_t)out.layer].reset(new float[nb * nb]);
        pooled_rows->TakeMean(n_head, rollout_means[(size_t)out.layer].get());
      }
    }
    return a;
  }

  // R_l of layer l onto `a`: whole maps (n <= kRolloutMaxTokens) exact from probs [n_head, n, n], else from the
  // layer's pooled head mean (its memory goes as R_l comes).
  void RolloutStep(int l, const float* layer_probs, LayerAnalysis* a) {
    const size_t nb = (size_t)rollout_blocks;
    auto r = std::make_shared<Tensor>();
    r->Resize({1, nb, nb});
    // The kept rows' R_l rows: the earlier run's ([1, nb_old, nb_old]).
    const Tensor* old = analysis_kept > 0 ? kept_from->analysis[(size_t)l]->rollout.get() : nullptr;
    if (!pooled_rows && old) {
      rollout->AddLayerKeeping(layer_probs, n_head, old->data.data(), (int)old->dim(1), analysis_kept, r->data.data());
    } else if (!pooled_rows) {
      rollout->AddLayer(layer_probs, n_head, r->data.data());
    } else if (old) {
      rollout->AddMeanLayerKeeping(rollout_means[(size_t)l].get(), old->data.data(), (int)old->dim(1),
                                   analysis_kept / rollout_factor, r->data.data());
      rollout_means[(size_t)l].reset();
    } else {
      rollout->AddMeanLayer(rollout_means[(size_t)l].get(), r->data.data());
      rollout_means[(size_t)l].reset();
    }
    a->rollout = r;
  }

  // A streamed run keeping rows [0, rows) of `earlier` (KeepRows): the row its pooled sums are made from, after
  // checking that earlier kept what they need of every layer (0: every row's blocks are handed over).
  int KeepPooledRows(const CollectedLayers& earlier, int rows) {
    const int n_layer = config.n_layer;
    if (!earlier.streamed || (int)earlier.layers.size() != n_layer) return 0;
    const int align = std::max({kept_factor, rollout ? rollout_factor : 1, model::kRoleSumStride});
    const int from = rows / align * align;
    if (from <= 0 || KeptAnalysisRows(earlier, from) != from) return 0;
    for (int l = 0; l < n_layer; ++l) {
      const std::shared_ptr<const LayerMaps>& maps = earlier.layers[(size_t)l];
      if (!maps || !maps->pyramid || !earlier.analysis[(size_t)l]->role_sums) return 0;
    }
    // The thumbnails read the pass's own pyramid at their level: one finer than the kept levels has no kept rows.
    const int thumb_level = pyramid.LevelFor((double)n / std::min(n, kThumbnailCells));
    if (plan.thumbnails && thumb_level >= 0 && pyramid.levels()[(size_t)thumb_level].factor < kept_factor) return 0;
    if (!pyramid.KeepRowsOf(*earlier.layers[0]->pyramid, from)) return 0;
    kept_from = &earlier, pooled_from = from;
    KeepAnalysisRows(from);
    return from;
  }

  // The rows [0, r) of every layer's value norms and rollout `earlier` can give a run keeping its rows [0, rows):
  // r <= rows, a multiple of the rollout factor (0: none).
  int KeptAnalysisRows(const CollectedLayers& earlier, int rows) const {
    const int n_layer = config.n_layer;
    if (first_computed != 0 || earlier.layers_done != n_layer || earlier.rollout_pending ||
        (int)earlier.analysis.size() != n_layer)
      return 0;
    const int kept = rollout ? rows / rollout_factor * rollout_factor : rows;
    if (kept <= 0) return 0;
    for (int l = 0; l < n_layer; ++l) {
      const std::shared_ptr<const LayerAnalysis>& a = earlier.analysis[(size_t)l];
      if (!a) return 0;
      if (plan.value_norms && (a->value_norms->shape.size() != 2 || a->value_norms->dim(0) != (size_t)n_head ||
                               a->value_norms->dim(1) < (size_t)kept))
        return 0;
      if (rollout && (a->rollout->shape.size() != 3 || a->rollout_factor != rollout_factor ||
                      a->rollout->dim(1) < (size_t)(kept / rollout_factor)))
        return 0;
    }
    return kept;
  }
  void KeepAnalysisRows(int rows) {  // (KeptAnalysisRows said so)
    analysis_kept = rows;
    if (pooled_rows && rows > 0) pooled_rows->SkipRowsBefore(rows);  // the rollout rows before it are kept_from's
  }

  const model::Model& model;
  const model::ModelConfig& config;
  const model::RunOptions& options;
  CollectPlan plan;
  LayerTaps taps;
  std::function<void(const LayerCollector&)> publish;
  // The first computed layer's (AttentionMask; each layer's pyramid is Reset to its own): a causal one lets the
  // pyramid and rollout rows skip the masked half (causal or not, every layer of a model is alike).
  Mask mask;
  int n_head, n;
  std::vector<int> ids;
  TokenList tokens;  // every layer's (one list)
  int resume_stride;
  CollectedLayers run;
  std::vector<std::shared_ptr<Tensor>> probs;   // [n_layer]: the buffer each kept layer's pass writes
  std::vector<std::shared_ptr<Tensor>> thumbs;  // [n_layer]
  std::unique_ptr<model::Rollout> rollout;      // [nb, nb]; null when the plan or RolloutRefusal says no
  std::vector<std::unique_ptr<float[]>> rollout_means;  // [n_layer][nb * nb]: each layer's pooled head mean
  int first_computed = 0;                               // the first layer this run computes (Reuse)
  bool rollout_made = false;                            // MakeRollout finished
  int rollout_factor = 1, rollout_blocks = 0;           // RolloutFactor(n), nb = ceil(n / factor)
  // The layer's pooled head mean [nb, nb] (streamed runs, or whole maps above kRolloutMaxTokens).
  std::unique_ptr<model::PooledRolloutRows> pooled_rows;
  // Streaming: the pass's pyramid (one, reset per layer), the role rows, the factor each layer keeps from.
  MapPyramid pyramid;
  Tensor thumb_q, thumb_k;  // q, k of the layer just run, when its thumbnail needs exact rows
  std::unique_ptr<model::RoleRows> role_rows;
  int kept_factor = 1;
  std::shared_ptr<const std::vector<float>> last_hidden;  // [n, d_model]; null until the last layer
  // KeepRows: the earlier run whose rows [0, kept_rows) this one keeps.
  const CollectedLayers* kept_from = nullptr;
  int kept_rows = 0;
  // Streamed KeepRows: rows [0, pooled_from) of every layer's pyramid, role sums, value norms and rollout are
  // kept_from's.
  int pooled_from = 0;
  std::shared_ptr<const model::RoleSumCheckpoints> layer_role_sums;  // the layer's (RoleRows::checkpoints)
  // KeepRows, whole or streamed: rows [0, analysis_kept) of every layer's value norms and rollout are kept_from's.
  int analysis_kept = 0;
};

LayerCollector::LayerCollector(const model::Model& m, const model::RunOptions& options,
                               const TokenList& tokens, const CollectPlan& plan, LayerTaps taps,
                               std::function<void(const LayerCollector&)> publish)
    : s_(std::make_unique<State>(m, options, tokens, plan, std::move(taps), std::move(publish))) {}

LayerCollector::~LayerCollector() = default;

void LayerCollector::Reuse(const CollectedLayers& earlier, int first) {
  State& s = *s_;
  for (int l = 0; l < first; ++l) {
    s.run.layers[(size_t)l] = earlier.layers[(size_t)l];
    if ((size_t)l < earlier.thumbnails.size())
      s.thumbs[(size_t)l] = std::const_pointer_cast<Tensor>(earlier.thumbnails[(size_t)l]);
    for (int h = 0; h < s.n_head; ++h) s.run.roles.at(l, h) = earlier.roles.at(l, h);
    s.run.analysis[(size_t)l] = earlier.analysis[(size_t)l];
  }
  // Rollout is a product over the layers: its state is the earlier run's R_(first-1). A first layer whose head
  // mean is 2R - I gives A^ = 0.5 (2R - I) + 0.5 I = R (rows already sum to 1), so R_0 = R and the next layers
  // multiply onto it, without the shared layers' maps (a streamed run has none). A pooled rollout likewise at
  // block level: R' [nb, nb] (the same tokens: the same factor).
  const Tensor* r = first > 0 && earlier.analysis[(size_t)first - 1] ? earlier.analysis[(size_t)first - 1]->rollout.get()
                                                                      : nullptr;
  const int nb = s.rollout_blocks;
  if (s.rollout && r && !r->empty() && r->dim(1) == (size_t)nb &&
      earlier.analysis[(size_t)first - 1]->rollout_factor == s.rollout_factor) {
    std::vector<float> mean(r->data);  // [nb, nb]
    for (int i = 0; i < nb; ++i) {
      for (int j = 0; j < nb; ++j) mean[(size_t)i * nb + j] *= 2.0f;
      mean[(size_t)i * nb + i] -= 1.0f;
    }
    s.rollout->AddMeanLayer(mean.data(), nullptr);
  } else if (first > 0) {
    s.rollout.reset();  // nothing to go on (not expected: the same tokens are refused or not alike)
  }
  for (int l = 0; l <= first && l < (int)s.run.resume_inputs.size(); ++l)
    s.run.resume_inputs[(size_t)l] = earlier.resume_inputs[(size_t)l];
  s.run.layers_done = first;
  s.first_computed = first;
}

Status LayerCollector::OnEmbeddings(const float* hidden, int n, int d) {
  State& s = *s_;
  if (s.plan.resume_points && s.plan.streamed())  // layer 0's input (what makes its q and k)
    s.run.resume_inputs[0] = std::make_shared<const std::vector<float>>(hidden, hidden + (size_t)n * d);
  return s.taps.embeddings ? s.taps.embeddings(hidden, n, d) : Status::Ok();
}

int LayerCollector::KeepRows(const CollectedLayers& earlier, int rows) {
  State& s = *s_;
  if (rows <= 0) return 0;
  if (s.plan.streamed()) return s.KeepPooledRows(earlier, rows);
  s.kept_from = &earlier, s.kept_rows = rows;
  s.KeepAnalysisRows(s.KeptAnalysisRows(earlier, rows));
  return rows;
}

float* LayerCollector::ProbsBuffer(int layer) {
  State& s = *s_;
  if (!s.keeps_probs(layer)) return nullptr;  // the run's scratch: the taps read it during OnLayer
  auto t = std::make_shared<Tensor>();
  t->Resize({(size_t)s.n_head, (size_t)s.n, (size_t)s.n});
  s.probs[(size_t)layer] = t;
  // A kept prefix: its rows of the earlier maps, which the run does not write again.
  const std::shared_ptr<const LayerMaps> before =
      s.kept_from && layer < s.kept_from->layers_done ? s.kept_from->layers[(size_t)layer] : nullptr;
  if (before && !before->probs->empty()) {
    const Tensor& old = *before->probs;  // [n_head, n_old, n_old]
    ATTNVIZ_CHECK_SHAPE(old.dim(0) == (size_t)s.n_head && old.dim(1) >= (size_t)s.kept_rows,
                        "kept maps [", old.dim(0), ", ", old.dim(1), "] for ", s.n_head, " heads and ", s.kept_rows, " rows");
    model::MovePrefixRows(old.data.data(), (size_t)s.n_head, old.dim(1), (size_t)s.n, (size_t)s.kept_rows, t->data.data());
  }
  return t->data.data();
}

void LayerCollector::OnBlock(int, const RowBlock& block) {  // the pass's threads: each block covers its own cells
  State& s = *s_;
  s.pyramid.AddBlock(block);
  s.role_rows->AddRows(block.head, block.r0, block.rows, block.probs);
  // Blocks of different heads cover the same rows at once: AddRows sums each block's rows alone, then adds them
  // in under its mutex (one writer at a time; in double, so the order the threads come in hardly shows).
  if (s.rollout && s.pooled_rows) s.pooled_rows->AddRows(block.r0, block.rows, block.probs);  // probs: [rows, n]
}

Status LayerCollector::OnLayer(const model::LayerOutput& out) {
  State& s = *s_;
  const size_t l = (size_t)out.layer;
  const bool stream = s.plan.streamed();
  // 1. The layer's maps, with the row figures from the attention pass itself (RunOptions::row_figures).
  if (!out.metrics) return Status::Error("layer " + std::to_string(out.layer) + " has no row figures");
  if (s.keeps_probs(out.layer) && !s.probs[l])
    return Status::Error("layer " + std::to_string(out.layer) + " was not written");
  auto maps = std::make_shared<LayerMaps>(ModelLayerMaps(s.config, s.tokens, s.probs[l], out.layer, s.options));
  maps->metrics = *out.metrics;
  // 2. Its head roles.
  if (stream) {
    s.pyramid.Finish();
    maps->pooled = true;
    maps->exact_cells_limit = kExactCellsLimit;
    if (s.pooled_from > 0) {
      const bool kept = s.role_rows->KeepSums(s.kept_from->analysis[l]->role_sums, s.pooled_from);
      ATTNVIZ_CHECK_SHAPE(kept, "layer ", l, ": kept role sums for ", s.pooled_from, " rows");
    }
    if (Status st = s.role_rows->ScoreInto(out.layer, &s.run.roles, out.metrics); !st) return st;
    s.layer_role_sums = s.role_rows->checkpoints();
  } else if (Status st = model::ScoreLayer(out.probs, out.layer, s.n_head, s.n, s.ids, &s.run.roles, out.metrics); !st) {
    return st;
  }
  // 3. Thumbnails, analysis, resume point.
  if (s.plan.thumbnails) {
    Result<std::shared_ptr<Tensor>> thumb = s.Thumbnail(out, *maps);
    if (!thumb) return thumb.status();
    s.thumbs[l] = *thumb;
  }
  if (stream) {
    // The kept levels are taken from the pass's pyramid, not copied: the next layer's Reset makes its own coarser
    // levels, whose first touch (the kernel zeroing fresh pages) then falls in Finish, on every core.
    const int base = s.pyramid.levels().front().factor;
    maps->pyramid = std::make_shared<const MapPyramid>(std::move(s.pyramid).Coarsened(s.kept_factor));
    if (l + 1 < s.run.layers.size()) {  // next layer, under its own mask
      s.pyramid.Reset(s.n_head, s.n, s.n, base, model::AttentionMask(s.config, (int)l + 1));
      if (s.pooled_from > 0) {  // every layer is alike (KeepRows checked the first)
        const bool kept = s.pyramid.KeepRowsOf(*s.kept_from->layers[l + 1]->pyramid, s.pooled_from);
        ATTNVIZ_CHECK_SHAPE(kept, "layer ", l + 1, ": a kept pyramid for ", s.pooled_from, " rows");
      }
    } else {
      s.pyramid = MapPyramid();  // the last layer's fine levels go before the run's end (its peak memory)
    }
  }
  // The predictions read the residual stream after the last block (it lives in the run's workspace).
  if (l + 1 == s.run.layers.size())
    s.last_hidden = std::make_shared<const std::vector<float>>(out.hidden, out.hidden + (size_t)s.n * out.d_model);
  std::shared_ptr<LayerAnalysis> analysis = s.Analyze(out);
  if (s.rollout && s.plan.rollout_with_layers) s.RolloutStep(out.layer, out.probs, analysis.get());
  if (s.plan.resume_points && l + 1 < s.run.resume_inputs.size() && (l + 1) % (size_t)s.resume_stride == 0)
    s.run.resume_inputs[l + 1] =
        std::make_shared<const std::vector<float>>(out.hidden, out.hidden + (size_t)s.n * out.d_model);
  // 4. The taps, then what is kept, then publish.
  if (s.taps.layer)
    if (Status st = s.taps.layer(out, *maps, *analysis); !st) return st;
  if (s.plan.maps == CollectPlan::Maps::kNone && out.layer != s.plan.keep_layer) {
    auto light = std::make_shared<LayerAnalysis>();  // what passed is the taps'
    light->multiplier = analysis->multiplier;
    light->softcap = analysis->softcap;
    light->rollout_factor = analysis->rollout_factor;
    analysis = light;
  }
  s.run.analysis[l] = analysis;
  s.probs[l].reset();  // the LayerMaps holds it now
  s.run.layers[l] = std::move(maps);
  s.run.layers_done = out.layer + 1;
  if (s.publish) s.publish(*this);
  return Status::Ok();
}

Status LayerCollector::MakeRollout(const RunControl& control) {
  State& s = *s_;
  if (!s.rollout || s.plan.rollout_with_layers) return Status::Ok();
  const int n_layer = (int)s.run.layers.size();
  for (int l = s.first_computed; l < n_layer; ++l) {
    control.Report(kRolloutStage, (size_t)l, (size_t)n_layer);
    if (control.cancelled()) return Status::Cancelled();
    if (!s.pooled_rows && s.run.layers[(size_t)l]->probs->empty())
      return Status::Error("layer " + std::to_string(l) + " kept no maps to make its rollout of");
    auto a = std::make_shared<LayerAnalysis>(*s.run.analysis[(size_t)l]);  // shares q, k and the value norms
    s.RolloutStep(l, s.pooled_rows ? nullptr : s.run.layers[(size_t)l]->probs->data.data(), a.get());
    s.run.analysis[(size_t)l] = a;
  }
  control.Report(kRolloutStage, (size_t)n_layer, (size_t)n_layer);
  s.rollout_made = true;
  return Status::Ok();
}

bool LayerCollector::makes_rollout() const { return s_->rollout != nullptr; }

bool LayerCollector::rollout_pending() const {
  return s_->rollout && !s_->plan.rollout_with_layers && !s_->rollout_made;
}

void LayerCollector::CopyInto(CollectedLayers* r) const {
  *r = s_->run;
  r->thumbnails.assign(s_->thumbs.begin(), s_->thumbs.end());
  r->rollout_pending = rollout_pending();
}

const CollectedLayers& LayerCollector::collected() const { return s_->run; }

const std::vector<float>& LayerCollector::last_hidden() const {
  static const std::vector<float> none;
  return s_->last_hidden ? *s_->last_hidden : none;
}

std::shared_ptr<const std::vector<float>> LayerCollector::shared_last_hidden() const { return s_->last_hidden; }

}  // namespace attnviz
