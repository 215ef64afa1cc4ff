// The pipeline owns the cached stages and knows which setting dirties which stage, so the
// app and the command line never redo work by hand:
//   text, d_model, seed, positional         -> from kEmbed
//   n_head, d_k, d_v, qkv layout, weights   -> from kProject
//   scaling, temperature, soft cap           -> from kMultiplier
//   q/k norm                                 -> from kProject (the same params: q and k normed or not)
//   mask                                     -> from kSoftmax
//   query/key/value source (seed f)          -> from kProject (qkv_source.h: raw features skip the projection)
//   score function (seed f)                  -> from kScores (score.h: a score that is not q . k is kept as a
//                                               full map, never pooled)
// (kMultiplier, kSoftmax and kMetrics run as one pass from the kept raw scores; kMultiplier makes no
// logits map: it applies the new logit multiplier to the kept scores.)
// Stages run in order; Run(through) computes the dirty ones up to `through`. The logits map, z and
// out (kOutput) come last and are computed only when asked for: the maps never need them (a logit
// is LogitFromScore(score, config.logit_multiplier(), config.softcap)). Until then those three are empty.
//
// Long inputs (pooled mode): when n_head * n_q * n_k passes pooled_above_cells() (default 2^24 cells, i.e.
// 64 MiB for one fp32 map: 16 heads at 1024 tokens still run in full mode), no full map is kept. The pass
// streams each (head, block of rows) into a MapPyramid (core/maps) and the per-row figures; scores,
// logits and probs stay empty, and exact rows are recomputed from q and k on demand (core/maps/view.h).
// Given score codes (UseScoreCodes), a pass keeps the raw scores as 16-bit codes (core/maps/score_codes.h, half
// a fp32 map: 512 MiB at 4096 tokens x 16 heads), so a change of scaling, temperature or mask reruns the
// softmax from them without q k^T; without codes it reruns the pass from q and k.
// In full mode the pyramid is built from the kept probs, so the screen reads pyramids either way.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "base/run_control.h"
#include "maps/layer_maps.h"
#include "maps/pyramid.h"
#include "maps/view.h"
#include "sandbox/config.h"
#include "attention/metrics.h"
#include "sandbox/text.h"
#include "sandbox/weights.h"

namespace attnviz {

enum class Stage { kEmbed = 0, kProject, kScores, kMultiplier, kSoftmax, kMetrics, kOutput, kDone };
constexpr int kStageCount = (int)Stage::kDone;
const char* ToString(Stage stage);

// Everything one forward pass produced, in PyTorch order. Immutable once handed out: every tensor
// is shared (SharedTensor), so publishing a result copies no map, and a stage that did not rerun
// shares its tensor with the previous result. A tensor not computed (yet) is EmptyTensor().
// The maps (LayerMaps: tokens, q, k, probs, figures, pyramid, multiplier, mask) and the pipeline's own numbers.
struct AttentionTensors : LayerMaps {
  SharedTensor xq = EmptyTensor();      // [n_q, d_model] (the same tensor as x in self mode)
  SharedTensor x = EmptyTensor();       // [n_k, d_model]
  SharedTensor v = EmptyTensor();       // [n_head, n_k, d_v]
  SharedTensor scores = EmptyTensor();  // [n_head, n_q, n_k]  raw q . k, before scaling and temperature
  SharedTensor logits = EmptyTensor();  // [n_head, n_q, n_k]  after scaling and temperature, before the mask (kOutput)
  SharedTensor z = EmptyTensor();       // [n_head, n_q, d_v]  (kOutput)
  SharedTensor concat = EmptyTensor();  // [n_q, n_head*d_v]  (kOutput)
  SharedTensor out = EmptyTensor();     // [n_q, d_model]  (kOutput)
  // pooled (LayerMaps): scores, logits and probs are empty (see above). multiplier: config.logit_multiplier(d_qk),
  // d_qk the width q and k had (a raw feature's own width when queries and keys are not the projected embeddings,
  // qkv_source.h). mask: the sandbox's knob.
};

struct ScoreCodes;

// One-hot features are as wide as the vocabulary (the distinct words): a layer then costs n_vocab^3; wider is
// refused.
constexpr int kMaxOneHotWidth = 1024;
// The bytes one layer over n_q queries and n_k keys holds: embeddings, q, k, v, the maps (none when pooled), z.
double LayerMemoryBytes(const AttentionConfig& config, int n_vocab, size_t n_q, size_t n_k, size_t pooled_above_cells);
// Refuses a layer over MemoryLimitBytes() (base/memory_budget.h) with the estimate, and one-hot wider than
// kMaxOneHotWidth, before anything is allocated.
Status CheckLayerBudget(const AttentionConfig& config, int n_vocab, size_t n_q, size_t n_k, size_t pooled_above_cells);

class Pipeline {
 public:
  Pipeline();
  ~Pipeline();
  Pipeline(Pipeline&&) noexcept;
  Pipeline& operator=(Pipeline&&) noexcept;
  // The sentence keys and values come from (and queries, in self mode), and the query sentence
  // used in cross mode (may be empty in self mode). Tokenizes; on error nothing changes.
  Status SetText(const std::string& kv_text, const std::string& query_text = "");
  // The same with the tokens already made (the app tokenizes once per text for every request).
  void SetTokenized(const TokenizedText& text);
  // Validates; on error nothing changes. Dirties only the stages the change affects.
  Status SetConfig(const AttentionConfig& config);
  // Use these weights instead of the random init (shapes must match the config when run).
  void SetLoadedWeights(const ProjectionWeights& weights);
  void ClearLoadedWeights();

  // Computes every dirty stage up to and including `through`. A cancelled run returns the error
  // kCancelled and leaves the interrupted stage dirty (the next Run redoes it).
  Status Run(Stage through = Stage::kMetrics, const RunControl* control = nullptr);
  // Maps of more cells than this (n_head * n_q * n_k) run in pooled mode (see above).
  static constexpr size_t kDefaultPooledAboveCells = size_t(1) << 24;
  void set_pooled_above_cells(size_t cells) { pooled_above_cells_ = cells; }
  size_t pooled_above_cells() const { return pooled_above_cells_; }

  // Pooled mode's score codes (see above; core/maps/score_codes.h), shared by pipelines whose q and k are
  // equal (the app's main pipeline and its scale-flipped twin): a pass reads them when they were made from
  // its q and k, and a pass from q and k writes them when `write` (at most kScoreCodesBudget bytes of codes).
  // Without codes (the default) every pass starts from q and k.
  static constexpr size_t kScoreCodesBudget = size_t(512) << 20;
  void UseScoreCodes(std::shared_ptr<ScoreCodes> codes, bool write);
  const ScoreCodes* score_codes() const { return codes_.get(); }
  // Passes that read the score codes instead of q k^T (tests use it to prove the codes are used).
  int passes_from_score_codes() const { return passes_from_codes_; }

  const AttentionConfig& config() const { return config_; }
  // What the last Run() produced (shared, immutable; cheap to copy and to keep).
  const AttentionTensors& tensors() const { return published_; }
  const ProjectionWeights& params() const { return params_; }  // random or loaded
  const std::string& kv_text() const { return kv_text_; }
  const std::string& query_text() const { return query_text_; }
  // The tokens of the texts last set (query_tokens is empty in self mode without a query text).
  const std::vector<Token>& kv_tokens() const { return kv_tokens_; }
  const std::vector<Token>& query_tokens() const { return query_tokens_; }
  // The distinct tokens of the texts (one-hot width, qkv_source.h); -1 before any text is set.
  int VocabularySize() const;
  // The first stage that must be recomputed.
  Stage first_dirty() const { return first_dirty_; }
  // How often each stage ran (tests use it to prove work is reused).
  int run_count(Stage stage) const { return run_count_[(int)stage]; }

 private:
  void MarkDirty(Stage stage);
  AttentionConfig config_;
  std::string kv_text_, query_text_;
  std::vector<Token> kv_tokens_, query_tokens_;
  ProjectionWeights params_;
  bool loaded_weights_ = false;
  // The working buffers, one per tensor. Before a stage writes one, Writable() gives it a fresh
  // buffer if a published result still holds the old one; otherwise the buffer is reused.
  struct Buffers {
    std::shared_ptr<Tensor> xq, x, q, k, v, scores, logits, probs, z, concat, out;
  };
  static Tensor* Writable(std::shared_ptr<Tensor>* buffer);
  void Publish();
  // Run's steps (pipeline.cpp): the checks before anything runs, then the maps' pass (kScores .. kMetrics, z too
  // when kOutput is asked for) and the output stage, each on what the run shares (PassState).
  struct PassState;
  Status CheckRun(const std::vector<std::string>& vocab, const AttentionConfig& weights_config) const;
  Status RunMapsPass(int* stage, Stage through, PassState* st);
  Status RunOutput(PassState* st);
  Buffers buffers_;
  std::vector<Token> run_query_tokens_, run_kv_tokens_;
  std::vector<HeadMetrics> metrics_;
  std::shared_ptr<MapPyramid> pyramid_, spare_pyramid_;  // the spare: reused once nobody holds it
  bool pooled_ = false;
  float multiplier_ = 1.0f;  // the logit multiplier of the last pass (AttentionTensors::multiplier)
  size_t pooled_above_cells_ = kDefaultPooledAboveCells;
  std::shared_ptr<ScoreCodes> codes_;  // used while made from the current q and k (ScoreCodes::MadeFrom)
  bool write_codes_ = false;
  int passes_from_codes_ = 0;
  AttentionTensors published_;
  Stage first_dirty_ = Stage::kEmbed;
  bool params_dirty_ = true;  // the random init must be redrawn (seed or a shape changed)
  int run_count_[kStageCount] = {};
};

}  // namespace attnviz
