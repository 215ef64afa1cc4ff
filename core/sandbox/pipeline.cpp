#include "sandbox/pipeline.h"

#include "base/memory_budget.h"

#include <algorithm>

#include "sandbox/embedding.h"
#include "sandbox/qkv_source.h"
#include "sandbox/score.h"
#include "maps/score_codes.h"

namespace attnviz {

namespace {
// A streamed pass (pooled mode): decoded from `codes` when the caller found they hold the scores of exactly
// these q and k (no q k^T), else from q and k.
// q: [n_head, n_q, d_k]  k: [n_head, n_k, d_k]  v: [n_head, n_k, d_v]  z: [n_head, n_q, d_v] or null
bool AttendStreamFromCodesOr(const ScoreCodes* codes, const Tensor& q, const Tensor& k, const Tensor& v,
                             float multiplier, float softcap, const Mask& mask, const AttendSink& sink,
                             std::vector<HeadMetrics>* metrics, Tensor* z) {
  return codes ? AttendStreamFromCodes(*codes, v, multiplier, mask, sink, metrics, z, softcap)
               : AttendStream(q, k, v, multiplier, mask, sink, metrics, z, softcap);
}
}  // namespace

const char* ToString(Stage stage) {
  switch (stage) {
    case Stage::kEmbed: return "embed";
    case Stage::kProject: return "project";
    case Stage::kScores: return "scores";
    case Stage::kMultiplier: return "multiplier";
    case Stage::kSoftmax: return "softmax";
    case Stage::kMetrics: return "metrics";
    case Stage::kOutput: return "output";
    case Stage::kDone: return "done";
  }
  return "?";
}


Pipeline::Pipeline() = default;
Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;

void Pipeline::UseScoreCodes(std::shared_ptr<ScoreCodes> codes, bool write) {
  codes_ = std::move(codes);
  write_codes_ = write;
}

void Pipeline::MarkDirty(Stage stage) { first_dirty_ = std::min(first_dirty_, stage); }

double LayerMemoryBytes(const AttentionConfig& c, int n_vocab, size_t n_q, size_t n_k, size_t pooled_above_cells) {
  const QkvWidths w = FeatureWidths(c, n_vocab);
  const double h = c.n_head, nq = (double)n_q, nk = (double)n_k;
  const double cells = h * nq * nk;
  double floats = (nq + nk) * c.d_model                      // x, xq
                  + h * (nq * w.q + nk * w.k + nk * w.v)     // q, k, v (onehot: n_vocab wide)
                  + (cells > (double)pooled_above_cells ? 0.0 : 3 * cells)  // scores, logits, probs (pooled: none)
                  + 2 * h * nq * w.v + nq * c.d_model;       // z, concat, out
  return floats * sizeof(float);
}

Status CheckLayerBudget(const AttentionConfig& c, int n_vocab, size_t n_q, size_t n_k, size_t pooled_above_cells) {
  // One-hot features are as wide as the vocabulary: each q . k then costs n_vocab, and a layer n^3.
  const bool onehot = c.query_from == FeatureSource::kOneHot || c.key_from == FeatureSource::kOneHot ||
                      c.value_from == FeatureSource::kOneHot;
  if (onehot && n_vocab > kMaxOneHotWidth)
    return Status::Error(MsgId::kOneHotTooWide, {std::to_string(n_vocab), std::to_string(kMaxOneHotWidth)});
  const double need = LayerMemoryBytes(c, n_vocab, n_q, n_k, pooled_above_cells);
  const size_t limit = MemoryLimitBytes();
  if (need > (double)limit)
    return Status::Error(MsgId::kSandboxTooLarge, {MemoryText(need), MemoryText((double)limit), std::to_string(std::max(n_q, n_k))});
  return Status::Ok();
}

Status Pipeline::SetText(const std::string& kv_text, const std::string& query_text) {
  auto tokenized = TokenizeTexts(kv_text, query_text);
  if (!tokenized) return tokenized.status();
  SetTokenized(**tokenized);
  return Status::Ok();
}

void Pipeline::SetTokenized(const TokenizedText& text) {
  if (text.kv_text != kv_text_ || text.query_text != query_text_) MarkDirty(Stage::kEmbed);
  kv_text_ = text.kv_text;
  query_text_ = text.query_text;
  kv_tokens_ = text.kv_tokens;
  query_tokens_ = text.query_tokens;
}

int Pipeline::VocabularySize() const {
  if (kv_tokens_.empty()) return -1;
  const bool cross = config_.mode == AttentionMode::kCross;
  return (int)Vocabulary(cross ? query_tokens_ : std::vector<Token>{}, kv_tokens_).size();
}

Status Pipeline::SetConfig(const AttentionConfig& c) {
  if (Status s = Validate(c); !s) return s;
  if (Status s = CheckQueryKeyWidths(c, kv_tokens_.empty() ? -1 : (int)Vocabulary(
                                            c.mode == AttentionMode::kCross ? query_tokens_ : std::vector<Token>{},
                                            kv_tokens_).size());
      !s)
    return s;
  const bool first = run_count_[(int)Stage::kEmbed] == 0 && first_dirty_ == Stage::kEmbed;
  // The dirty rules come from the field table (ConfigFields in config.h): each field names what it affects.
  const unsigned effects = first ? ~0u : ChangedEffects(config_, c);
  if (effects & kAffectsEmbedding) MarkDirty(Stage::kEmbed);
  if (effects & kAffectsParams) {
    params_dirty_ = true;
    MarkDirty(Stage::kProject);
  }
  if (effects & kAffectsMultiplier) MarkDirty(Stage::kMultiplier);
  if (effects & kAffectsMask) MarkDirty(Stage::kSoftmax);
  if (effects & kAffectsScores) MarkDirty(Stage::kScores);
  if (effects & kAffectsQk) MarkDirty(Stage::kProject);  // the same params, q and k normed or not
  config_ = c;
  return Status::Ok();
}

void Pipeline::SetLoadedWeights(const ProjectionWeights& weights) {
  params_ = weights;
  loaded_weights_ = true;
  params_dirty_ = false;
  MarkDirty(Stage::kProject);
}

void Pipeline::ClearLoadedWeights() {
  if (!loaded_weights_) return;
  loaded_weights_ = false;
  params_dirty_ = true;
  MarkDirty(Stage::kProject);
}

Tensor* Pipeline::Writable(std::shared_ptr<Tensor>* buffer) {
  if (!*buffer || buffer->use_count() > 1) *buffer = std::make_shared<Tensor>();
  return buffer->get();
}

void Pipeline::Publish() {
  const Buffers& b = buffers_;
  auto share = [](const std::shared_ptr<Tensor>& t) -> SharedTensor { return t ? SharedTensor(t) : EmptyTensor(); };
  AttentionTensors& t = published_;
  t.query_tokens = run_query_tokens_;
  t.kv_tokens = run_kv_tokens_;
  t.xq = share(b.xq), t.x = share(b.x), t.q = share(b.q), t.k = share(b.k), t.v = share(b.v);
  t.scores = share(b.scores), t.logits = share(b.logits), t.probs = share(b.probs);
  t.z = share(b.z), t.concat = share(b.concat), t.out = share(b.out);
  t.metrics = metrics_;
  t.pyramid = pyramid_;
  t.pooled = pooled_;
  t.multiplier = multiplier_;
  t.softcap = config_.softcap;
  t.mask = config_.mask;
  t.scaled = config_.scale;
  t.d_qk = b.q ? (int)b.q->dim(2) : config_.head_dim_k();
  t.temperature = config_.temperature;
}

// What Run's steps share: the control, the attention pass's sink and its block count, whether the maps' pass made
// the logits map and z too.
struct Pipeline::PassState {
  const RunControl& ctl;
  AttendSink sink;
  std::atomic<size_t> blocks_done{0};
  bool in_pass = false;
  explicit PassState(const RunControl& control) : ctl(control) {
    sink.blocks_done = &blocks_done;
    sink.cancel = control.cancel;
  }
  void Report(const char* stage, size_t done, size_t total) const { ctl.Report(stage, done, total); }
};

Status Pipeline::CheckRun(const std::vector<std::string>& vocab, const AttentionConfig& wc) const {
  const AttentionConfig& c = config_;
  const bool cross = c.mode == AttentionMode::kCross;
  if (Status s = CheckQueryKeyWidths(c, (int)vocab.size()); !s) return s;
  if (Status s = CheckLayerBudget(c, (int)vocab.size(), cross ? query_tokens_.size() : kv_tokens_.size(),
                                  kv_tokens_.size(), pooled_above_cells_);
      !s)
    return s;
  if (loaded_weights_ && (params_.d_model != wc.d_model || params_.n_head != wc.n_head ||
                          params_.d_k != wc.d_k || params_.d_v != wc.d_v)) {
    return Status::Error("loaded weights are for d_model=" + std::to_string(params_.d_model) +
                         ", n_head=" + std::to_string(params_.n_head) + ", d_k=" + std::to_string(params_.d_k) +
                         ", d_v=" + std::to_string(params_.d_v) + "; the config asks for d_model=" +
                         std::to_string(wc.d_model) + ", n_head=" + std::to_string(wc.n_head) +
                         ", d_k=" + std::to_string(wc.d_k) + ", d_v=" + std::to_string(wc.d_v));
  }
  return Status::Ok();
}

Status Pipeline::Run(Stage through, const RunControl* control) {
  const AttentionConfig& c = config_;
  const bool cross = c.mode == AttentionMode::kCross;
  if (kv_tokens_.empty()) return Status::Error("no text: set a sentence first");
  if (cross && query_tokens_.empty()) {
    return Status::Error("cross mode needs a query sentence (queries) besides the key/value sentence");
  }
  // Seed (f): the vocabulary of one-hot features, and the widths a score needs equal (qkv_source.h).
  const std::vector<std::string> vocab = Vocabulary(cross ? query_tokens_ : std::vector<Token>{}, kv_tokens_);
  const AttentionConfig wc = WeightsConfig(c, (int)vocab.size());  // d_v: a raw value feature's width
  if (Status s = CheckRun(vocab, wc); !s) return s;
  const bool params_shape_changed = !loaded_weights_ && (params_.d_v != wc.d_v || params_.d_k != wc.d_k);
  if (params_shape_changed && first_dirty_ > Stage::kProject) MarkDirty(Stage::kProject);
  published_ = AttentionTensors{};  // drops the pipeline's own hold, so Writable() reuses what nobody else keeps
  Buffers& b = buffers_;
  const RunControl none;
  PassState st(control ? *control : none);
  for (int s = (int)first_dirty_; s <= (int)through && s < kStageCount; ++s) {
    if (st.ctl.cancelled()) {
      first_dirty_ = (Stage)s;
      return Status::Cancelled();
    }
    switch ((Stage)s) {
      case Stage::kEmbed:  // x [n_k, d_model], xq [n_q, d_model] (in self mode xq is x itself)
        st.Report("embedding the tokens", 0, 1);
        run_kv_tokens_ = kv_tokens_;
        run_query_tokens_ = cross ? query_tokens_ : kv_tokens_;
        if (b.xq == b.x) b.xq.reset();
        Embed(run_kv_tokens_, c.d_model, c.seed, c.positional, Writable(&b.x));
        if (cross) Embed(run_query_tokens_, c.d_model, c.seed, c.positional, Writable(&b.xq));
        else b.xq = b.x;
        break;
      case Stage::kProject:  // q [n_head, n_q, d_k], k [n_head, n_k, d_k], v [n_head, n_k, d_v]
        st.Report("projecting q, k, v", 0, 1);
        if ((params_dirty_ || params_shape_changed) && !loaded_weights_) InitWeights(wc, &params_);
        params_dirty_ = false;
        SourceQkv(c, run_query_tokens_, run_kv_tokens_, vocab, *b.xq, *b.x, params_, Writable(&b.q), Writable(&b.k),
                  Writable(&b.v));
        break;
      case Stage::kScores:      // scores [n_head, n_q, n_k]
      case Stage::kMultiplier:  // scaling or temperature changed: probs from the kept scores
      case Stage::kSoftmax:     // only the mask changed: likewise (the logits map is not kept, see RunMapsPass)
      case Stage::kMetrics:
        if (Status r = RunMapsPass(&s, through, &st); !r) return r;
        break;
      case Stage::kOutput:  // logits map and z [n_head, n_q, d_v] (unless made above), out [n_q, d_model]
        if (Status r = RunOutput(&st); !r) return r;
        break;
      case Stage::kDone:
        break;
    }
    ++run_count_[s];
  }
  Publish();
  if ((int)through + 1 > (int)first_dirty_) first_dirty_ = (Stage)std::min((int)through + 1, kStageCount);
  return Status::Ok();
}

// kScores .. kMetrics: every dirty step from *stage through `through` (z too when kOutput is asked for) in one pass
// over each block of query rows, while the block is in cache; *stage ends at the last step it ran (Run counts it).
Status Pipeline::RunMapsPass(int* stage, Stage through, PassState* st) {
  const AttentionConfig& c = config_;
  Buffers& b = buffers_;
  int& s = *stage;
  AttendSink& sink = st->sink;
  std::atomic<size_t>& blocks_done = st->blocks_done;
  const RunControl& ctl = st->ctl;
  multiplier_ = c.logit_multiplier((int)b.q->dim(2));
  const bool dot = IsDotScore(c.score);
  if (!dot && s == (int)Stage::kScores) {
    // Seed (f): a score that is not q . k is computed into a kept map first (never pooled: the exact rows
    // of pooled mode are recomputed as q . k).
    const size_t cells = b.q->dim(0) * b.q->dim(1) * b.k->dim(1);
    if (cells > pooled_above_cells_) {
      first_dirty_ = Stage::kScores;
      return Status::Error("score " + std::string(ToString(c.score)) + " keeps the whole map: " +
                           std::to_string(cells) + " cells (n_head * n_q * n_k) is over the limit " +
                           std::to_string(pooled_above_cells_) + "; use scaled-dot or dot for long inputs");
    }
    AdditiveWeights additive;
    if (c.score == ScoreKind::kAdditive) DrawAdditiveWeights(c.seed, (int)b.q->dim(0), (int)b.q->dim(2), &additive);
    ScoreMatrix(c.score, *b.q, *b.k, &additive, Writable(&b.scores));
  }
  if (through == Stage::kScores) {  // the scores alone
    if (dot) Scores(*b.q, *b.k, Writable(&b.scores));
    return Status::Ok();
  }
  // Each step counts as run. The logits map is written only when kOutput is asked for: the maps and figures need
  // only the scores and the multiplier, and a third map would cost a toggle a third more traffic.
  const Tensor& q = *b.q;
  const int n_head = (int)q.dim(0), n_q = (int)q.dim(1), n_k = (int)b.k->dim(1);
  pooled_ = dot && (size_t)n_head * n_q * n_k > pooled_above_cells_;
  const bool metrics = through >= Stage::kMetrics;
  st->in_pass = through >= Stage::kOutput;
  const bool in_pass = st->in_pass;
  const size_t total = AttendBlockCount(n_head, n_q, n_k);
  blocks_done = 0;
  st->Report("attention maps", 0, total);
  // A pyramid nobody else holds (the published ones are immutable): the last one or the spare when
  // the app has let go of them (no fresh memory to touch), else a new one.
  std::shared_ptr<MapPyramid> pyramid;
  if (pyramid_ && pyramid_.use_count() == 1) {
    pyramid = std::move(pyramid_);
  } else if (spare_pyramid_ && spare_pyramid_.use_count() == 1) {
    pyramid = std::move(spare_pyramid_);
    spare_pyramid_ = std::move(pyramid_);
  } else {
    pyramid = std::make_shared<MapPyramid>();
    spare_pyramid_ = std::move(pyramid_);
  }
  pyramid_.reset();
  pyramid->Reset(n_head, n_q, n_k, MapPyramid::BaseFactor(n_head, n_q, n_k), c.mask);
  bool ok = true;
  if (pooled_) {
    // No map is kept: scores, logits and probs stay empty; each block goes to the pyramid. The raw
    // scores go to the codes too (within their budget), and a pass whose q and k made the codes
    // (a scaling, temperature or mask change) decodes them instead of redoing q k^T.
    for (std::shared_ptr<Tensor>* gone : {&b.scores, &b.logits, &b.probs}) gone->reset();
    const bool from_codes = codes_ && codes_->MadeFrom(q, *b.k);
    const bool write_codes = !from_codes && codes_ && write_codes_ &&
                             (size_t)n_head * n_q * n_k * sizeof(uint16_t) <= kScoreCodesBudget;
    if (write_codes) codes_->Reset(n_head, n_q, n_k);
    std::atomic<bool> coded{true};
    MapPyramid* pyr = pyramid.get();
    ScoreCodes* codes = write_codes ? codes_.get() : nullptr;
    sink.full_scores = codes != nullptr;  // the codes keep every key's score: a later pass may drop the mask
    sink.on_block = [&, pyr, codes](const RowBlock& block) {
      pyr->AddBlock(block);
      if (codes && !EncodeScoreRows(block.scores, block.head, block.r0, block.rows, codes)) coded = false;
      st->Report("attention maps", blocks_done.load(std::memory_order_relaxed), total);  // this block counted
    };
    ok = AttendStreamFromCodesOr(from_codes ? codes_.get() : nullptr, q, *b.k, *b.v, multiplier_, c.softcap, c.mask, sink,
                                 metrics ? &metrics_ : nullptr, in_pass ? Writable(&b.z) : nullptr);
    if (from_codes && ok) ++passes_from_codes_;
    if (write_codes && ok && coded) codes_->q = b.q, codes_->k = b.k;  // valid from now on
    if (write_codes && !(ok && coded)) codes_->Clear();
  } else {
    if (codes_ && write_codes_) codes_->Clear();  // full mode keeps the scores themselves
    const AttendFrom from = dot && (s == (int)Stage::kScores || !b.scores || b.scores->empty())
                                ? AttendFrom::kQueryKey : AttendFrom::kKeptScores;
    sink.on_block = [&](const RowBlock&) {
      st->Report("attention maps", blocks_done.load(std::memory_order_relaxed), total);  // this block counted
    };
    Tensor* scores = from == AttendFrom::kQueryKey ? Writable(&b.scores) : b.scores.get();
    ok = Attend(from, q, *b.k, *b.v, multiplier_, c.mask, scores, in_pass ? Writable(&b.logits) : nullptr,
                Writable(&b.probs), metrics ? &metrics_ : nullptr, in_pass ? Writable(&b.z) : nullptr,
                ctl.cancel || ctl.progress ? &sink : nullptr, c.softcap);
    if (ok) pyramid->AddMap(*b.probs);
  }
  sink.on_block = nullptr;  // its captures end with this pass
  if (!ok) {  // cancelled: this pass's stage stays dirty (from the scores, which may be half written)
    if (!pooled_) b.scores.reset();
    spare_pyramid_ = std::move(pyramid);
    // Intact codes (a pass that only read them) keep q k^T done: the next run starts at the multiplier.
    first_dirty_ = pooled_ && codes_ && codes_->MadeFrom(q, *b.k) ? Stage::kMultiplier : Stage::kScores;
    return Status::Cancelled();
  }
  pyramid->Finish();
  pyramid_ = std::move(pyramid);
  if (!in_pass) {  // what was derived from the old probs is stale until kOutput runs again
    for (std::shared_ptr<Tensor>* stale : {&b.logits, &b.z, &b.concat, &b.out}) stale->reset();
  }
  const int last = std::max(metrics ? (int)Stage::kMetrics : (int)through, (int)Stage::kSoftmax);
  for (; s < last; ++s) ++run_count_[s];  // the last one is counted by Run
  return Status::Ok();
}

// kOutput: the logits map and z (unless the maps' pass made them), then out.
Status Pipeline::RunOutput(PassState* st) {
  const AttentionConfig& c = config_;
  Buffers& b = buffers_;
  if (!st->in_pass && pooled_) {  // no kept map: z from a streamed pass (no logits map in pooled mode)
    st->Report("values (z)", 0, 1);
    st->blocks_done = 0;
    st->sink.on_block = nullptr;
    st->sink.full_scores = false;
    const bool from_codes = codes_ && codes_->MadeFrom(*b.q, *b.k);
    if (!AttendStreamFromCodesOr(from_codes ? codes_.get() : nullptr, *b.q, *b.k, *b.v, multiplier_, c.softcap, c.mask, st->sink,
                                 nullptr, Writable(&b.z))) {
      first_dirty_ = Stage::kOutput;
      return Status::Cancelled();
    }
  } else if (!st->in_pass) {
    Logits(*b.scores, multiplier_, Writable(&b.logits), c.softcap);
    MixValues(*b.probs, *b.v, Writable(&b.z));
  }
  OutputProjection(*b.z, params_.w_o, Writable(&b.concat), Writable(&b.out));
  return Status::Ok();
}

}  // namespace attnviz
