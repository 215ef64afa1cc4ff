#include "model/run.h"

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <new>
#include <string>

#include "base/finite.h"
#include "base/memory_budget.h"

#include "model/arch/family.h"
#include "model/layers.h"
#include "model/prefix_cache.h"
#include "model/rope.h"
#include "attention/attention.h"
#include "attention/metrics.h"
#include "model/safetensors.h"

namespace attnviz::model {
namespace {

// 64-byte aligned, so Eigen's vector code takes the same path in every run (the same input gives the same bits).
using AlignedFloats = std::vector<float, Eigen::aligned_allocator<float>>;

// Rows the MLP runs at once (Mlp): large enough for full-speed GEMMs, small enough that its buffers stay small.
constexpr int kMlpRows = 1024;

// The buffers of one run, sized once.
struct Workspace {
  int n = 0, ld_qkv = 0;
  // Rows before r0 come from a kept prefix (RunOptions::prefix): every step runs on rows [r0, n) only, and
  // kept_qkv [r0, ld_qkv] (the layer's kept q | k | v rows) fills ws.qkv's rows before r0 for the attention.
  int r0 = 0;
  const float* kept_qkv = nullptr;
  // With a kept prefix and row figures: the layer's row logit sums [n_head, n, 2] (rows before r0 the kept ones'),
  // read and written by the attention (AttendSink::row_logit_sums).
  std::vector<double>* row_logit_sums = nullptr;
  AlignedFloats x;      // [n, d_model] the residual stream
  AlignedFloats xn;     // [n, d_model] normed input of a sublayer / sublayer output
  AlignedFloats qkv;    // [n, q_dim + 2 kv_dim]: q | k | v columns
  AlignedFloats qk_raw; // [n, q_dim + kv_dim]: q | k before their norms (qk_norm families; empty for LayerQk)
  AlignedFloats z;      // [n, q_dim] heads' mixed values, concatenated
  AlignedFloats ff;     // [min(n, kMlpRows), d_ff]
  AlignedFloats ff2;    // [min(n, kMlpRows), d_ff] (gated MLPs: up)
  AlignedFloats probs;  // [n_head, n, n] scratch when the sink gives no buffer
  // `probs` holds exactly 0 in every cell `probs_mask` hides, as [probs_heads, probs_n, probs_n] maps: a layer
  // under that mask writes only the cells it shows, so it leaves the masked cells to the kernel's earlier zeros
  // (AttendSink::probs_masked_zero). A layer under another mask (gemma's sliding and full layers alternate) writes
  // every cell, and its mask becomes probs_mask. !! The workspace outlives the run (RunWithWorkspace): another shape
  // fills the buffer with zeros once first; a cancelled layer leaves probs_n 0 (nothing known).
  Mask probs_mask;
  size_t probs_heads = 0, probs_n = 0;
  std::vector<float> cos, sin;  // [n, rope_dim / 2] (rope)
  std::vector<float> cos_local, sin_local;  // [n, rope_dim / 2]: the local base's (ModelConfig::LocalRope layers)
  std::vector<HeadMetrics> metrics;  // [n_head] the row figures of the layer just run
  WeightScratch weights;  // one layer's weights dequantized (a quantized GGUF model, Model::BlockWeights)
};

bool Cancelled(const RunOptions& o) { return o.control.cancelled(); }

// A NaN or Inf anywhere in `values` (an overflow upstream, a norm of a constant row with epsilon 0) stops the run
// here, naming where it appeared, rather than flowing on into maps of NaN and summaries of 0.00.
Status NotFinite(int layer, const char* stage) {
  return Status::Error(MsgId::kActivationNotFinite, {layer < 0 ? "embeddings" : std::to_string(layer), stage});
}
Status CheckFinite(const float* values, size_t count, int layer, const char* stage) {
  return FirstNotFinite(values, count) == count ? Status::Ok() : NotFinite(layer, stage);
}

// What the last product of a sublayer (the attention's output projection, the MLP's down) ends each of its tiles
// with, on the tile's thread while the tile is in cache (core/base/matmul.h TileDone): the sublayer's output y
// checked, then the residual added: pre-norm (gpt2, llama) x += y, post-norm (bert) y += x; with output norms
// (olmo2) nothing is added here (AddNormedOutput adds the normed y once the whole of it is there). The sum is checked
// after the MLP of a pre-norm block (the residual stream); elsewhere the norm that follows checks it. One pass over y
// instead of three, and no parallel region of their own.
struct Residual {
  float* x;        // [n, d_model] the residual stream
  bool into_x;     // x += y (pre-norm), else y += x
  bool check_sum;  // sum_bad: the residual stream's check
  bool add = true;  // false: only check y
  std::atomic<bool> out_bad{false}, sum_bad{false};

  // The tiles of y: [rows, d] (row stride d) whose row 0 is row `row0` of x.
  TileDone For(float* y, size_t d, size_t row0) {
    return [this, y, d, row0](size_t r0, size_t rows, size_t c0, size_t width) {
      for (size_t r = r0; r < r0 + rows; ++r) {
        float* y_row = y + r * d + c0;
        float* x_row = x + (row0 + r) * d + c0;
        if (!AllFinite(y_row, width)) out_bad.store(true, std::memory_order_relaxed);
        if (!add) continue;
        float* sum = into_x ? x_row : y_row;
        const float* add = into_x ? y_row : x_row;
        for (size_t j = 0; j < width; ++j) sum[j] += add[j];
        if (check_sum && !AllFinite(sum, width)) sum_bad.store(true, std::memory_order_relaxed);
      }
    };
  }
};

// (0) Embeddings -> ws.x
void Embed(const Model& model, const std::vector<int>& ids, Workspace& ws) {
  const ModelConfig& c = model.config();
  const ModelParams& p = model.params();
  const int n = ws.n, d = c.d_model;
  for (int i = 0; i < n; ++i) {
    float* row = ws.x.data() + (size_t)i * d;
    model.TokenEmbedding(ids[i], row);  // the row of the map, or dequantized
    if (p.pos_emb)
      for (int j = 0; j < d; ++j) row[j] += p.pos_emb[(size_t)i * d + j];
    if (p.type_emb)  // bert: token type 0 for every token
      for (int j = 0; j < d; ++j) row[j] += p.type_emb[j];
  }
  if (c.scale_embeddings) {  // gemma: x * sqrt(d_model), the factor rounded to a float as the hidden dtype holds it
    const float factor = (float)std::sqrt((double)d);
    for (size_t t = 0; t < (size_t)n * d; ++t) ws.x[t] *= factor;
  }
  if (c.recipe.embed_norm) LayerNormForward(ws.x.data(), n, d, p.emb_norm, (float)c.norm_eps, ws.x.data());
}

// q | k | v of `in` [n - r0, d_model] (rows r0.. of the block's input) into ws.qkv's rows r0..
void ProjectQkv(const ModelConfig& c, const BlockParams& b, const float* in, Workspace& ws) {
  const int n = ws.n - ws.r0, d = c.d_model;
  const size_t r0 = (size_t)ws.r0;
  float* qkv = ws.qkv.data() + r0 * ws.ld_qkv;
  // gpt2: q, k, v are adjacent column blocks of one Conv1D weight: one GEMM for the three.
  if (b.q.in_out && b.k.w == b.q.w + b.q.out && b.v.w == b.k.w + b.k.out && b.q.ld == ws.ld_qkv &&
      b.k.b == b.q.b + b.q.out && b.v.b == b.k.b + b.k.out) {
    Linear fused = b.q;
    fused.out = b.q.out + b.k.out + b.v.out;
    LinearForward(in, d, n, fused, qkv, ws.ld_qkv, nullptr, r0);
    return;
  }
  // !! Row blocks of one nn.Linear (phi3's qkv_proj, gpt_neox's de-interleaved query_key_value) run as three
  // products, as separate q/k/v weights do: a model gives the same bits whether its file stores them fused or not
  // (a GGUF file's attn_q/k/v may lie next to each other as well).
  LinearForward(in, d, n, b.q, qkv, ws.ld_qkv, nullptr, r0);
  LinearForward(in, d, n, b.k, qkv + c.q_dim(), ws.ld_qkv, nullptr, r0);
  LinearForward(in, d, n, b.v, qkv + c.q_dim() + c.kv_dim(), ws.ld_qkv, nullptr, r0);
}

// The family's norm (LayerNorm or RMSNorm) of `rows` rows; false when an output is not finite.
bool NormForward(const ModelConfig& c, const float* in, int rows, const Norm& norm, float* out) {
  const float eps = (float)c.norm_eps;
  return c.recipe.norm == BlockRecipe::Norm::kRms ? RmsNormForward(in, rows, c.d_model, norm, eps, out)
                                                  : LayerNormForward(in, rows, c.d_model, norm, eps, out);
}

// The q/k norms (BlockRecipe::qk_norm) in place on the q | k columns of ws.qkv, rows of ld_qkv:
//   q: [n, n_head, d_head] normed per head (kPerHead) or as one row of q_dim (kWhole); k: [n, n_kv_head, d_head] alike.
// False when an output is not finite.
bool QkNormForward(const ModelConfig& c, const BlockParams& b, Workspace& ws) {
  const bool per_head = c.recipe.qk_norm == BlockRecipe::QkNorm::kPerHead;
  const float eps = (float)c.norm_eps;
  const size_t ld = (size_t)ws.ld_qkv;
  float* q = ws.qkv.data() + (size_t)ws.r0 * ld;
  float* k = q + c.q_dim();
  const int rows = ws.n - ws.r0;
  return RmsNormSpans(q, rows, per_head ? c.n_head : 1, per_head ? c.d_head : c.q_dim(), ld, b.q_norm, eps) &&
         RmsNormSpans(k, rows, per_head ? c.n_kv_head : 1, per_head ? c.d_head : c.kv_dim(), ld, b.k_norm, eps);
}

// q | k columns of ws.qkv [n, ld_qkv] -> ws.qk_raw [n, q_dim + kv_dim] (the neuron view's q and k before the norms).
void KeepQkBeforeNorm(const ModelConfig& c, Workspace& ws) {
  const size_t width = (size_t)(c.q_dim() + c.kv_dim());
  for (int i = ws.r0; i < ws.n; ++i) {
    const float* row = ws.qkv.data() + (size_t)i * ws.ld_qkv;
    std::copy(row, row + width, ws.qk_raw.data() + (size_t)i * width);
  }
}

// (1) The steps before attention as the family's recipe orders them, from the block's input [n, d_model]: the
//     input norm into ws.xn (pre-norm families with input norms), q | k | v of the normed input (post-norm, no
//     input norms: of the input itself), the q/k norms unless `qk_norm` is false (the what-if), RoPE on q and k
//     (ws.cos, ws.sin made; gemma3's sliding layers by the local base). The block and LayerQk both run this, so
//     their q and k are the same bits. An error names the stage whose output is not finite.
Status QkvSteps(const ModelConfig& c, const BlockParams& b, const float* input, Workspace& ws, int layer,
                bool qk_norm) {
  const size_t skip = (size_t)ws.r0 * c.d_model;  // rows of a kept prefix
  const float* from = input + skip;
  if (!c.recipe.post_norm && c.recipe.input_norms) {
    if (!NormForward(c, from, ws.n - ws.r0, b.attn_norm, ws.xn.data() + skip))
      return NotFinite(layer, c.recipe.attn_norm_stage);
    from = ws.xn.data() + skip;
  }
  ProjectQkv(c, b, from, ws);
  if (c.recipe.qk_norm != BlockRecipe::QkNorm::kNone) {
    if (!ws.qk_raw.empty()) KeepQkBeforeNorm(c, ws);
    if (qk_norm && !QkNormForward(c, b, ws)) return NotFinite(layer, c.recipe.qk_norm_stage);
  }
  if (c.recipe.rope) {
    const int rot = c.rope_dim();
    const bool local = c.LocalRope(layer);  // gemma3's sliding layers turn by the local base
    const float* cos = local ? ws.cos_local.data() : ws.cos.data();
    const float* sin = local ? ws.sin_local.data() : ws.sin.data();
    const size_t r0 = (size_t)ws.r0, at = r0 * ws.ld_qkv, table = r0 * (size_t)(rot / 2);
    ApplyRope(ws.qkv.data() + at, ws.ld_qkv, ws.n - ws.r0, c.n_head, c.d_head, rot, cos + table, sin + table);
    ApplyRope(ws.qkv.data() + at + c.q_dim(), ws.ld_qkv, ws.n - ws.r0, c.n_kv_head, c.d_head, rot, cos + table,
              sin + table);
  }
  if (ws.kept_qkv) std::copy(ws.kept_qkv, ws.kept_qkv + (size_t)ws.r0 * ws.ld_qkv, ws.qkv.begin());
  return Status::Ok();
}

bool QkNormOn(const RunOptions& o, int layer) {
  return !(layer < (int)o.no_qk_norm.size() && o.no_qk_norm[layer]);
}

// Ablation of one head before the output projection: its output z_h [n, d_head] (rows `ld` floats apart in z)
// set to zero, or (kMean) every row to the mean of its n rows, summed in double (the mean of equal rows is that row).
void AblateHead(AblateMode mode, float* z_h, size_t n, size_t dh, size_t ld) {
  if (mode == AblateMode::kZero) {
    for (size_t i = 0; i < n; ++i) std::fill_n(z_h + i * ld, dh, 0.0f);
    return;
  }
  std::vector<double> sum(dh, 0.0);  // [d_head]
  for (size_t i = 0; i < n; ++i)
    for (size_t t = 0; t < dh; ++t) sum[t] += z_h[i * ld + t];
  std::vector<float> mean(dh);  // [d_head]
  for (size_t t = 0; t < dh; ++t) mean[t] = (float)(sum[t] / (double)n);
  for (size_t i = 0; i < n; ++i) std::copy(mean.begin(), mean.end(), z_h + i * ld);
}

// (2) attention over ws.qkv -> probs, the row figures, ws.z, through the one kernel (core/attention/attention.h) that the
// sandbox's layers use too; then (3) the output projection -> ws.xn.
//   q: [n, n_head * d_head], k, v: [n, n_kv * d_head], columns of ws.qkv [n, ld_qkv] (views: nothing copied)
//   z: [n, n_head * d_head] (torch's transpose + view of [n_head, n, d_head])
Status Attend(const ModelConfig& c, const BlockParams& b, float multiplier, float* probs,
              std::vector<HeadMetrics>* metrics, Workspace& ws, const RunOptions& o, LayerSink* layer_sink,
              int layer, Residual* residual) {
  const size_t n = (size_t)ws.n, dh = (size_t)c.d_head, ld = (size_t)ws.ld_qkv;
  const float* qkv = ws.qkv.data();
  const HeadsView q = HeadsView::Columns(qkv, n, (size_t)c.n_head, dh, ld);
  const HeadsView k = HeadsView::Columns(qkv + c.q_dim(), n, (size_t)c.n_kv_head, dh, ld);
  const HeadsView v = HeadsView::Columns(qkv + c.q_dim() + c.kv_dim(), n, (size_t)c.n_kv_head, dh, ld);
  const HeadsOut z = HeadsOut::Columns(ws.z.data(), n, (size_t)c.n_head, dh, (size_t)c.q_dim());
  AttendSink sink;
  sink.cancel = o.control.cancel;
  sink.first_row = (size_t)ws.r0;
  sink.replay_kept_rows = o.prefix_blocks;
  sink.replay_from_row = o.prefix_blocks_from;
  sink.row_logit_sums = metrics ? ws.row_logit_sums : nullptr;
  const Mask mask = AttentionMask(c, layer);
  // The workspace's own buffer, laid out for this run's maps (RunWithWorkspace): its masked cells hold 0 when the
  // layer before had the same mask; else this layer writes them and its mask is the buffer's from here.
  const bool own_buffer = probs && probs == ws.probs.data();
  sink.probs_masked_zero = own_buffer && ws.probs_mask == mask;
  if (own_buffer && !sink.probs_masked_zero) ws.probs_n = 0;  // until the layer is written in full
  if (o.stream_maps && layer_sink) sink.on_block = [&](const RowBlock& block) { layer_sink->OnBlock(layer, block); };
  if (!AttendHeads(q, k, v, multiplier, mask, probs, metrics, &z, &sink, AttentionSoftcap(c, layer, o)))
    return Status::Cancelled();
  if (own_buffer && !sink.probs_masked_zero) ws.probs_mask = mask, ws.probs_n = (size_t)n;
  for (const AblatedHead& a : o.ablate)
    if (a.layer == layer)  // (a prefix is kept under zero ablation only: its rows are the run's)
      AblateHead(a.mode, ws.z.data() + (size_t)ws.r0 * c.q_dim() + (size_t)a.head * dh, n - (size_t)ws.r0, dh,
                 (size_t)c.q_dim());
  for (const PatchedHead& p : o.patch)
    if (p.layer == layer)
      for (size_t i = 0; i < n; ++i) {
        const size_t at = i * (size_t)c.q_dim() + (size_t)p.head * dh;
        std::copy(p.z + at, p.z + at + dh, ws.z.data() + at);
      }
  const size_t r0 = (size_t)ws.r0;
  float* y = ws.xn.data() + r0 * c.d_model;
  const TileDone done = residual->For(y, (size_t)c.d_model, r0);
  LinearForward(ws.z.data() + r0 * c.q_dim(), c.q_dim(), ws.n - ws.r0, b.o, y, c.d_model, &done, r0);
  return Status::Ok();
}

// (4) MLP of ws.xn [n, d_model] -> ws.xn, kMlpRows rows at a time: each row's MLP reads only that row, so the
//     [rows, d_ff] buffers need not hold all n (at 8192 tokens of SmolLM2's shape: 2 x 6 MB, not 2 x 50 MB), and
//     a chunk's rows of xn are read (up, gate) before down writes them. The activation ends each tile of its
//     product, the residual each tile of down.
void Mlp(const ModelConfig& c, const BlockParams& b, Workspace& ws, Residual* residual) {
  const size_t ff = (size_t)c.d_ff;
  // Chunks cut at multiples of kMlpRows (from ws.r0 after a kept prefix: a first chunk that is cut short).
  for (int r0 = ws.r0; r0 < ws.n; r0 = (r0 / kMlpRows + 1) * kMlpRows) {
    const int rows = std::min((r0 / kMlpRows + 1) * kMlpRows, ws.n) - r0;
    const size_t first = (size_t)r0;
    float* xn = ws.xn.data() + (size_t)r0 * c.d_model;  // [rows, d_model]
    const TileDone down_done = residual->For(xn, (size_t)c.d_model, (size_t)r0);
    if (b.gate.w) {  // llama: down(act(gate(x)) * up(x))
      LinearForward(xn, c.d_model, rows, b.up, ws.ff.data(), c.d_ff, nullptr, first);
      const TileDone gated = [&](size_t t0, size_t t_rows, size_t c0, size_t width) {
        GatedTile(c.activation, ws.ff2.data() + t0 * ff + c0, ws.ff.data() + t0 * ff + c0, t_rows, width, ff);
      };
      LinearForward(xn, c.d_model, rows, b.gate, ws.ff2.data(), c.d_ff, &gated, first);
      LinearForward(ws.ff2.data(), c.d_ff, rows, b.down, xn, c.d_model, &down_done, first);
    } else {  // gpt2, bert: down(act(up(x)))
      const TileDone activated = [&](size_t t0, size_t t_rows, size_t c0, size_t width) {
        ActivateTile(c.activation, ws.ff.data() + t0 * ff + c0, t_rows, width, ff);
      };
      LinearForward(xn, c.d_model, rows, b.up, ws.ff.data(), c.d_ff, &activated, first);
      LinearForward(ws.ff.data(), c.d_ff, rows, b.down, xn, c.d_model, &down_done, first);
    }
  }
}

// A parallel-residual block (gpt_neox use_parallel_residual): x + attn(norm1(x)) + mlp(norm2(x)).
//   1-3. x -> norm1 -> q, k, v (RoPE)  4. attention, output projection: xn = x + attn (x kept for step 5)
//   5. x = norm2(x) in place (the input is read for the last time), then x and xn trade buffers  6. MLP, x += it
// !! HF adds (mlp + attn) + x; the sum here is (x + attn) + mlp: the same within float rounding.
Status ParallelBlockStages(const ModelConfig& c, const BlockParams& b, float multiplier, float* probs,
                           std::vector<HeadMetrics>* metrics, Workspace& ws, const RunOptions& o, LayerSink* sink,
                           int layer) {
  if (Status s = QkvSteps(c, b, ws.x.data(), ws, layer, QkNormOn(o, layer)); !s) return s;  // 1-3.
  Residual attn{ws.x.data(), /*into_x=*/false, /*check_sum=*/false};                       // 4.
  if (Status s = Attend(c, b, multiplier, probs, metrics, ws, o, sink, layer, &attn); !s) return s;
  if (attn.out_bad) return NotFinite(layer, "the attention output");
  float* x_rows = ws.x.data() + (size_t)ws.r0 * c.d_model;
  if (!NormForward(c, x_rows, ws.n - ws.r0, b.mlp_norm, x_rows)) return NotFinite(layer, c.recipe.mlp_norm_stage);  // 5.
  std::swap(ws.x, ws.xn);
  Residual mlp{ws.x.data(), /*into_x=*/true, /*check_sum=*/true};  // 6.
  Mlp(c, b, ws, &mlp);
  if (mlp.out_bad) return NotFinite(layer, "the MLP output");
  if (mlp.sum_bad) return NotFinite(layer, "the residual stream");
  return Status::Ok();
}

// x += out_norm(y): y [n, d_model] a sublayer's output in ws.xn, normed in place, then added to the residual stream
// ws.x, which is checked. An error names the norm or the stream.
Status AddNormedOutput(const ModelConfig& c, const Norm& norm, const char* stage, Workspace& ws, int layer) {
  const size_t skip = (size_t)ws.r0 * c.d_model, count = (size_t)ws.n * c.d_model - skip;
  if (!NormForward(c, ws.xn.data() + skip, ws.n - ws.r0, norm, ws.xn.data() + skip)) return NotFinite(layer, stage);
  float* x = ws.x.data() + skip;
  const float* y = ws.xn.data() + skip;
  for (size_t t = 0; t < count; ++t) x[t] += y[t];
  return CheckFinite(x, count, layer, "the residual stream");
}

// A block with output norms (BlockRecipe::output_norms: olmo2 without input norms, gemma2/3 with them):
//   1-3. x -> [input norm] -> q, k, v (q/k norms, RoPE)  4. attention, output projection -> y; x += out_norm(y)
//   5. [input norm] of x (or x itself)                    6. MLP -> y; x += out_norm(y)
Status OutputNormBlockStages(const ModelConfig& c, const BlockParams& b, float multiplier, float* probs,
                             std::vector<HeadMetrics>* metrics, Workspace& ws, const RunOptions& o, LayerSink* sink,
                             int layer) {
  const size_t skip = (size_t)ws.r0 * c.d_model;  // rows of a kept prefix
  if (Status s = QkvSteps(c, b, ws.x.data(), ws, layer, QkNormOn(o, layer)); !s) return s;  // 1-3.
  Residual attn{ws.x.data(), /*into_x=*/true, /*check_sum=*/false, /*add=*/false};           // 4.
  if (Status s = Attend(c, b, multiplier, probs, metrics, ws, o, sink, layer, &attn); !s) return s;
  if (attn.out_bad) return NotFinite(layer, "the attention output");
  if (Status s = AddNormedOutput(c, b.attn_out_norm, c.recipe.attn_out_norm_stage, ws, layer); !s) return s;
  if (c.recipe.input_norms) {  // 5.
    if (!NormForward(c, ws.x.data() + skip, ws.n - ws.r0, b.mlp_norm, ws.xn.data() + skip))
      return NotFinite(layer, c.recipe.mlp_norm_stage);
  } else {
    std::copy(ws.x.begin() + (ptrdiff_t)skip, ws.x.begin() + (ptrdiff_t)((size_t)ws.n * c.d_model),
              ws.xn.begin() + (ptrdiff_t)skip);
  }
  Residual mlp{ws.x.data(), /*into_x=*/true, /*check_sum=*/false, /*add=*/false};  // 6.
  Mlp(c, b, ws, &mlp);
  if (mlp.out_bad) return NotFinite(layer, "the MLP output");
  return AddNormedOutput(c, b.mlp_out_norm, c.recipe.mlp_out_norm_stage, ws, layer);
}

// One block: ws.x -> ws.x, probs [n_head, n, n] written, as the family's recipe says (config.h BlockRecipe):
//   pre-norm:  1-3. x -> norm -> q, k, v (RoPE)  4. attention, output projection, x += it  5. norm  6. MLP, x += it
//   post-norm: 1-3. x -> q, k, v                 4. attention, output projection, x = norm(x + it)
//                                                6. MLP, x = norm(x + it)
// Each sublayer's output is checked where it is made (the norms' rows as they are written, the products' tiles in
// their TileDone steps), so the message names the first stage that broke.
Status BlockStages(const ModelConfig& c, const BlockParams& b, float multiplier, float* probs,
                   std::vector<HeadMetrics>* metrics, Workspace& ws, const RunOptions& o, LayerSink* sink,
                   int layer) {
  if (c.recipe.parallel_residual) return ParallelBlockStages(c, b, multiplier, probs, metrics, ws, o, sink, layer);
  if (c.recipe.output_norms) return OutputNormBlockStages(c, b, multiplier, probs, metrics, ws, o, sink, layer);
  const int n = ws.n - ws.r0;  // rows run (after a kept prefix)
  const size_t skip = (size_t)ws.r0 * c.d_model;
  const bool pre = !c.recipe.post_norm;
  float* x = ws.x.data();
  float* xn = ws.xn.data();
  if (Status s = QkvSteps(c, b, x, ws, layer, QkNormOn(o, layer)); !s) return s;  // 1-3.
  x += skip, xn += skip;
  Residual attn{ws.x.data(), /*into_x=*/pre, /*check_sum=*/false};                 // 4.
  if (Status s = Attend(c, b, multiplier, probs, metrics, ws, o, sink, layer, &attn); !s) return s;
  if (attn.out_bad) return NotFinite(layer, "the attention output");
  if (pre) {
    if (!NormForward(c, x, n, b.mlp_norm, xn)) return NotFinite(layer, c.recipe.mlp_norm_stage);  // 5. (a sum that broke shows here)
  } else {
    if (!NormForward(c, xn, n, b.attn_norm, x)) return NotFinite(layer, c.recipe.attn_norm_stage);
    std::copy(x, x + (size_t)n * c.d_model, xn);
  }
  Residual mlp{ws.x.data(), /*into_x=*/pre, /*check_sum=*/pre};  // 6.
  Mlp(c, b, ws, &mlp);
  if (mlp.out_bad) return NotFinite(layer, "the MLP output");
  if (pre && mlp.sum_bad) return NotFinite(layer, "the residual stream");
  if (!pre && !NormForward(c, xn, n, b.mlp_norm, x)) return NotFinite(layer, c.recipe.mlp_norm_stage);
  return Status::Ok();
}

// One block, its allocations (the attention kernel's scratch) turned into an error when they fail.
Status Block(const ModelConfig& c, const BlockParams& b, float multiplier, float* probs,
             std::vector<HeadMetrics>* metrics, Workspace& ws, const RunOptions& o, LayerSink* sink, int layer) {
  try {
    return BlockStages(c, b, multiplier, probs, metrics, ws, o, sink, layer);
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"running layer " + std::to_string(layer)});
  }
}

}  // namespace

double RunMemoryBytes(const ModelConfig& c, size_t n, bool collect, const RunOptions& o) {
  const double nd = (double)n, f = sizeof(float);
  double floats = nd * c.d_model * 2                        // x, xn
                  + nd * (c.q_dim() + 2.0 * c.kv_dim())      // q | k | v
                  + (c.recipe.qk_norm != BlockRecipe::QkNorm::kNone ? nd * (c.q_dim() + (double)c.kv_dim()) : 0.0)
                  + nd * c.q_dim()                           // z
                  + std::min(nd, (double)kMlpRows) * c.d_ff * (c.recipe.gated_mlp ? 2 : 1)  // MLP
                  + (o.stream_maps ? 0.0 : (double)c.n_head * nd * nd)  // the maps' scratch [n_head, n, n]
                  + nd * c.d_head * (c.layer_local_rope.empty() ? 1 : 2)  // rope cos, sin (and the local base's)
                  + (double)c.layer_scratch_floats;          // one layer's weights dequantized (model.h)
  if (collect) floats += (double)c.n_layer * c.n_head * nd * nd + (c.n_layer + 1.0) * nd * c.d_model;
  const double kept = o.prefix ? PrefixStateBytes(c, n, o.row_figures) : 0.0;
  return floats * f + kept + (double)o.caller_bytes;
}

float AttentionMultiplier(const ModelConfig& c, int layer, const RunOptions& o) {
  double m = 1.0;
  const bool no_scale = layer < (int)o.no_scale.size() && o.no_scale[layer];
  if (c.scale_attn && !no_scale) m /= std::sqrt(c.query_pre_attn_scalar > 0 ? c.query_pre_attn_scalar : (double)c.d_head);
  if (c.scale_by_inverse_layer_idx) m /= (layer + 1);
  if (layer < (int)o.temperature.size()) m /= o.temperature[layer];
  return (float)m;
}

float AttentionSoftcap(const ModelConfig& c, int layer, const RunOptions& o) {
  const bool removed = layer >= 0 && layer < (int)o.no_softcap.size() && o.no_softcap[(size_t)layer];
  if (removed || !(c.attn_softcap > 0)) return 0.0f;
  // The temperature divides the capped logits (the softmax's input): (cap / T) tanh(s m / (cap / T)) with
  // m = scale / T is cap tanh(s scale / cap) / T, so the kernel's one multiplier and one cap carry both.
  const double t = layer >= 0 && layer < (int)o.temperature.size() ? o.temperature[(size_t)layer] : 1.0;
  return (float)(c.attn_softcap / t);
}

namespace {
Status RunWithWorkspace(const Model& model, const std::vector<int>& ids, const RunOptions& o, LayerSink* sink);

// Both bases' tables of a run of n tokens: the global one always, the local one when some layer turns by it.
void RopeTablesOfRun(const ModelConfig& c, int n, Workspace& ws) {
  RopeTablesFor(c, n, &ws.cos, &ws.sin);
  if (!c.layer_local_rope.empty()) RopeTablesFor(c, n, &ws.cos_local, &ws.sin_local, /*local=*/true);
}

Status CheckRunMemory(const ModelConfig& c, size_t n, bool collect, const RunOptions& o) {
  const double need = RunMemoryBytes(c, n, collect, o);
  const size_t limit = MemoryLimitBytes();
  if (need <= (double)limit) return Status::Ok();
  return Status::Error(MsgId::kRunMemory, {MemoryText(need), MemoryText((double)limit), std::to_string(n)});
}
}  // namespace

Status CheckRunInputs(const ModelConfig& c, const std::vector<int>& ids, const RunOptions& o) {
  if (ids.empty()) return Status::Error("no tokens to run");
  if ((int64_t)ids.size() > c.max_positions)
    return Status::Error(std::to_string(ids.size()) + " tokens exceed the model's " + std::to_string(c.max_positions) +
                         " positions (max_position_embeddings)");
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.vocab)
      return Status::Error("token " + std::to_string(i) + " has id " + std::to_string(ids[i]) +
                           "; allowed: 0.." + std::to_string(c.vocab - 1) + " (vocab_size " +
                           std::to_string(c.vocab) + ")");
  if (!o.no_scale.empty() && (int)o.no_scale.size() != c.n_layer)
    return Status::Error("no_scale has " + std::to_string(o.no_scale.size()) + " entries; the model has " +
                         std::to_string(c.n_layer) + " layers");
  if (!o.no_softcap.empty() && (int)o.no_softcap.size() != c.n_layer)
    return Status::Error("no_softcap has " + std::to_string(o.no_softcap.size()) + " entries; the model has " +
                         std::to_string(c.n_layer) + " layers");
  if (std::find(o.no_softcap.begin(), o.no_softcap.end(), true) != o.no_softcap.end() && !(c.attn_softcap > 0))
    return Status::Error(MsgId::kNoSoftcapToRemove, {c.model_type});
  if (!o.temperature.empty() && (int)o.temperature.size() != c.n_layer)
    return Status::Error("temperature has " + std::to_string(o.temperature.size()) + " entries; the model has " +
                         std::to_string(c.n_layer) + " layers");
  for (size_t l = 0; l < o.temperature.size(); ++l)
    if (!(o.temperature[l] > 0) || !std::isfinite(o.temperature[l]))
      return Status::Error("temperature of layer " + std::to_string(l) + " is " + std::to_string(o.temperature[l]) +
                           "; allowed: a finite number > 0");
  if (!o.no_qk_norm.empty() && (int)o.no_qk_norm.size() != c.n_layer)
    return Status::Error("no_qk_norm has " + std::to_string(o.no_qk_norm.size()) + " entries; the model has " +
                         std::to_string(c.n_layer) + " layers");
  if (c.recipe.qk_norm == BlockRecipe::QkNorm::kNone &&
      std::find(o.no_qk_norm.begin(), o.no_qk_norm.end(), true) != o.no_qk_norm.end())
    return Status::Error(MsgId::kNoQkNorms, {c.model_type, QkNormModelTypes()});
  for (const AblatedHead& a : o.ablate) {
    if (a.layer < 0 || a.layer >= c.n_layer)
      return Status::Error(MsgId::kAblateLayerRange,
                           {std::to_string(a.layer), std::to_string(c.n_layer - 1), std::to_string(c.n_layer)});
    if (a.head < 0 || a.head >= c.n_head)
      return Status::Error(MsgId::kAblateHeadRange, {std::to_string(a.head), std::to_string(a.layer),
                                                     std::to_string(c.n_head - 1), std::to_string(c.n_head)});
  }
  for (const PatchedHead& p : o.patch) {
    if (p.layer < 0 || p.layer >= c.n_layer)
      return Status::Error(MsgId::kLayerRange,
                           {std::to_string(p.layer), std::to_string(c.n_layer - 1), std::to_string(c.n_layer)});
    if (p.head < 0 || p.head >= c.n_head)
      return Status::Error(MsgId::kHeadRange, {std::to_string(p.head), std::to_string(p.layer),
                                               std::to_string(c.n_head - 1), std::to_string(c.n_head)});
    if (!p.z) return Status::Error("a patched head needs the other run's z (PatchedHead::z is null)");
  }
  if (o.first_layer < 0 || o.first_layer > c.n_layer)
    return Status::Error("first_layer " + std::to_string(o.first_layer) + " is outside 0.." + std::to_string(c.n_layer));
  if (o.first_layer > 0 && !o.resume_hidden)
    return Status::Error("first_layer > 0 needs resume_hidden (the residual stream before that layer)");
  if (o.last_layer != -1 && (o.last_layer < o.first_layer || o.last_layer >= c.n_layer))
    return Status::Error("last_layer " + std::to_string(o.last_layer) + " is outside " + std::to_string(o.first_layer) +
                         ".." + std::to_string(c.n_layer - 1) + " (first_layer..the last layer; -1: every layer)");
  return Status::Ok();
}

Status RunModel(const Model& model, const std::vector<int>& ids, const RunOptions& o, LayerSink* sink) {
  const ModelConfig& c = model.config();
  if (Status s = CheckRunInputs(c, ids, o); !s) return s;
  if (Status s = CheckRunMemory(c, ids.size(), /*collect=*/false, o); !s) return s;
  try {
    const Status s = RunWithWorkspace(model, ids, o, sink);
    // Weights read past the new end of a file that shrank were zeros: whatever the run made of them is not shown.
    if (Status unchanged = MappedFilesUnchanged(); !unchanged) return unchanged;
    return s;
  } catch (const std::bad_alloc&) {  // the estimate is an estimate: an allocation may still fail
    return Status::Error(MsgId::kOutOfMemory, {"running the model over " + std::to_string(ids.size()) + " tokens"});
  }
}

namespace {
Status RunWithWorkspace(const Model& model, const std::vector<int>& ids, const RunOptions& o, LayerSink* sink) {
  const ModelConfig& c = model.config();
  // 1. Buffers: the calling thread's workspace from its previous run (grown when needed), so a repeated run pays
  //    no allocation and no first-touch page faults; a run started from inside a sink gets a fresh one.
  thread_local Workspace cached;
  thread_local bool cached_busy = false;
  Workspace fresh;
  const bool reuse = !cached_busy;
  Workspace& ws = reuse ? cached : fresh;
  struct Release {
    bool on;
    ~Release() {
      if (on) cached_busy = false;
    }
  } release{reuse};
  cached_busy = true;
  const int n = (int)ids.size(), d = c.d_model;
  ws.n = n;
  ws.ld_qkv = c.q_dim() + 2 * c.kv_dim();
  ws.x.resize((size_t)n * d);
  ws.xn.resize((size_t)n * d);
  ws.qkv.resize((size_t)n * ws.ld_qkv);
  ws.z.resize((size_t)n * c.q_dim());
  ws.ff.resize((size_t)std::min(n, kMlpRows) * c.d_ff);
  if (c.recipe.gated_mlp) ws.ff2.resize((size_t)std::min(n, kMlpRows) * c.d_ff);
  if (c.recipe.qk_norm != BlockRecipe::QkNorm::kNone) ws.qk_raw.resize((size_t)n * (c.q_dim() + c.kv_dim()));
  if (c.recipe.rope) RopeTablesOfRun(c, n, ws);
  // 1b. A kept prefix: the rows it gives, the state laid out for n rows (its valid rows are those shared until the
  //     run is done, so a cancelled run leaves it usable).
  PrefixState* kept = sink ? o.prefix : nullptr;
  ws.r0 = 0, ws.kept_qkv = nullptr, ws.row_logit_sums = nullptr;
  struct ResetRows {
    Workspace& ws;
    ~ResetRows() { ws.r0 = 0, ws.kept_qkv = nullptr, ws.row_logit_sums = nullptr; }  // LayerQk, later runs: row 0
  } reset_rows{ws};
  if (kept) {
    const PrefixPlan plan = PlanPrefixReuse(c, *kept, ids, o);
    kept->reused_rows = plan.rows, kept->refused = plan.refused;
    if (plan.rows == 0) {
      kept->Clear();
      kept->what_ifs = SignatureOf(o);
      kept->made_n = n;
      kept->hidden.resize((size_t)c.n_layer + 1);
      kept->qkv.resize((size_t)c.n_layer);
      kept->row_figures = o.row_figures;
      kept->metrics.assign(o.row_figures ? (size_t)c.n_layer : 0, {});
      kept->row_logit_sums.assign(o.row_figures ? (size_t)c.n_layer : 0, {});
    } else {
      kept->ids.resize((size_t)plan.rows);
      if (!o.row_figures && kept->row_figures) {  // this run makes none: the kept figures would go stale
        kept->row_figures = false;
        kept->metrics.clear(), kept->row_logit_sums.clear();
      }
    }
    // Room for a few more rows (typing adds a token or two a run): a longer text then moves no kept row.
    auto grow = [n](std::vector<float>& rows, size_t width) {
      if (rows.capacity() < (size_t)n * width) rows.reserve(((size_t)n + kPrefixSpareRows) * width);
      rows.resize((size_t)n * width);
    };
    for (auto& h : kept->hidden) grow(h, (size_t)d);
    for (auto& q : kept->qkv) grow(q, (size_t)ws.ld_qkv);
    ws.r0 = plan.rows;
  }
  const size_t kept_floats = (size_t)ws.r0 * d, kept_qkv = (size_t)ws.r0 * ws.ld_qkv;
  // 2. Embeddings (or the resumed residual stream).
  if (o.first_layer > 0 || o.resume_hidden) {
    std::copy(o.resume_hidden, o.resume_hidden + (size_t)n * d, ws.x.begin());
  } else {
    Embed(model, ids, ws);
    if (Status s = CheckFinite(ws.x.data(), (size_t)n * d, -1, "the embeddings"); !s) return s;
    if (kept) std::copy(ws.x.begin() + (ptrdiff_t)kept_floats, ws.x.end(), kept->hidden[0].begin() + (ptrdiff_t)kept_floats);
    if (sink)
      if (Status s = sink->OnEmbeddings(ws.x.data(), n, d); !s) return s;
  }
  // 3. Blocks, up to last_layer when set (a caller that needs no later layer).
  const int end = o.last_layer >= 0 ? o.last_layer + 1 : c.n_layer;
  for (int l = o.first_layer; l < end; ++l) {
    if (Cancelled(o)) return Status::Cancelled();
    float* probs = sink && !o.stream_maps ? sink->ProbsBuffer(l) : nullptr;
    if (!probs && !(o.stream_maps && sink)) {
      if (ws.probs_heads != (size_t)c.n_head || ws.probs_n != (size_t)n) {
        // another run's maps (or none yet): zeros first
        ws.probs.assign((size_t)c.n_head * n * n, 0.0f);
        ws.probs_mask = AttentionMask(c, l), ws.probs_heads = (size_t)c.n_head, ws.probs_n = (size_t)n;
      }
      probs = ws.probs.data();
    }
    std::vector<HeadMetrics>* metrics = o.row_figures ? &ws.metrics : nullptr;
    const BlockParams& b = model.BlockWeights(l, &ws.weights);  // resident, or layer l dequantized into ws.weights
    if (kept) ws.kept_qkv = kept->qkv[(size_t)l].data();
    std::vector<double> row_sums;  // [n_head, n, 2]
    if (kept && metrics && kept->row_figures) {
      // The kept rows' figures and logit sums in the layout of n rows (rows [0, r0) valid, the rest the pass's).
      const std::vector<double>& old_sums = kept->row_logit_sums[(size_t)l];
      const size_t heads = (size_t)c.n_head, old_n = heads ? old_sums.size() / (2 * heads) : 0;
      row_sums.assign(2 * heads * (size_t)n, 0.0);
      for (size_t h = 0; h < heads && ws.r0 > 0; ++h)
        std::copy_n(old_sums.begin() + (ptrdiff_t)(2 * h * old_n), 2 * (size_t)ws.r0,
                    row_sums.begin() + (ptrdiff_t)(2 * h * (size_t)n));
      if (ws.r0 > 0) ws.metrics = kept->metrics[(size_t)l];  // the pass resizes each head's rows to n, keeping these
      ws.row_logit_sums = &row_sums;
    }
    if (Status s = Block(c, b, AttentionMultiplier(c, l, o), probs, metrics, ws, o, sink, l); !s) return s;
    if (ws.row_logit_sums) {  // the layer's figures kept for the next run
      kept->metrics[(size_t)l] = ws.metrics;
      kept->row_logit_sums[(size_t)l] = std::move(row_sums);
      ws.row_logit_sums = nullptr;
    }
    if (kept) {  // the new rows kept, the kept rows shown
      std::copy(ws.x.begin() + (ptrdiff_t)kept_floats, ws.x.begin() + (ptrdiff_t)((size_t)n * d),
                kept->hidden[(size_t)l + 1].begin() + (ptrdiff_t)kept_floats);
      std::copy(ws.qkv.begin() + (ptrdiff_t)kept_qkv, ws.qkv.begin() + (ptrdiff_t)((size_t)n * ws.ld_qkv),
                kept->qkv[(size_t)l].begin() + (ptrdiff_t)kept_qkv);
      std::copy(kept->hidden[(size_t)l + 1].begin(), kept->hidden[(size_t)l + 1].begin() + (ptrdiff_t)kept_floats,
                ws.x.begin());
    }
    if (sink) {
      LayerOutput out;
      out.layer = l, out.n_layer = c.n_layer, out.n_head = c.n_head, out.n = n, out.d_model = d;
      out.probs = probs, out.hidden = ws.x.data();
      out.metrics = metrics;
      out.q = HeadsView::Columns(ws.qkv.data(), (size_t)n, (size_t)c.n_head, (size_t)c.d_head, (size_t)ws.ld_qkv);
      out.k = HeadsView::Columns(ws.qkv.data() + c.q_dim(), (size_t)n, (size_t)c.n_kv_head, (size_t)c.d_head,
                                 (size_t)ws.ld_qkv);
      out.v = HeadsView::Columns(ws.qkv.data() + c.q_dim() + c.kv_dim(), (size_t)n, (size_t)c.n_kv_head,
                                 (size_t)c.d_head, (size_t)ws.ld_qkv);
      out.z = HeadsView::Columns(ws.z.data(), (size_t)n, (size_t)c.n_head, (size_t)c.d_head, (size_t)c.q_dim());
      if (c.recipe.qk_norm != BlockRecipe::QkNorm::kNone) {
        const size_t width = (size_t)(c.q_dim() + c.kv_dim());
        out.q_before_norm = HeadsView::Columns(ws.qk_raw.data(), (size_t)n, (size_t)c.n_head, (size_t)c.d_head, width);
        out.k_before_norm = HeadsView::Columns(ws.qk_raw.data() + c.q_dim(), (size_t)n, (size_t)c.n_kv_head,
                                               (size_t)c.d_head, width);
      }
      out.multiplier = AttentionMultiplier(c, l, o);
      out.softcap = AttentionSoftcap(c, l, o);
      out.weights = &b;  // still layer l's: the scratch is refilled only by the next BlockWeights
      if (Status s = sink->OnLayer(out); !s) return s;
    }
    o.control.Report("layers", (size_t)l + 1, (size_t)end);
  }
  if (kept) {
    if (end == c.n_layer && o.first_layer == 0) kept->ids = ids, kept->made_n = n;
    else kept->Clear();  // some layers were not run: nothing is known for every layer
  }
  return Status::Ok();
}

// Head-major copies of strided q | k columns: [n_head, n, d_head] from [n, ld] columns.
void CopyHeadsTo(const HeadsView& v, Tensor* out) {
  out->Resize({v.n_head, v.n, v.d});
  for (size_t h = 0; h < v.n_head; ++h)
    for (size_t i = 0; i < v.n; ++i) {
      const float* row = v.data + h * v.head_stride + i * v.row_stride;
      std::copy(row, row + v.d, out->data.begin() + (ptrdiff_t)((h * v.n + i) * v.d));
    }
}

class CollectSink : public LayerSink {
 public:
  explicit CollectSink(ModelRun* run) : run_(run) {}
  Status OnEmbeddings(const float* hidden, int n, int d) override {
    std::copy(hidden, hidden + (size_t)n * d, run_->hidden.data.data());
    return Status::Ok();
  }
  float* ProbsBuffer(int layer) override {
    const size_t per = run_->probs.dim(1) * run_->probs.dim(2) * run_->probs.dim(3);
    return run_->probs.data.data() + (size_t)layer * per;
  }
  Status OnLayer(const LayerOutput& out) override {
    const size_t nd = (size_t)out.n * out.d_model;
    std::copy(out.hidden, out.hidden + nd, run_->hidden.data.data() + (size_t)(out.layer + 1) * nd);
    return Status::Ok();
  }

 private:
  ModelRun* run_;
};
}  // namespace

Status LayerQk(const Model& model, int layer, const float* input, int n, Tensor* q, Tensor* k, bool no_qk_norm) {
  const ModelConfig& c = model.config();
  if (layer < 0 || layer >= c.n_layer)
    return Status::Error(MsgId::kOutOfRange, {"layer", std::to_string(layer), "0", std::to_string(c.n_layer - 1)});
  if (n < 1 || n > c.max_positions)
    return Status::Error(MsgId::kOutOfRange, {"tokens", std::to_string(n), "1", std::to_string(c.max_positions)});
  try {
    // The steps of BlockStages before attention (QkvSteps), on a workspace of their own.
    Workspace ws;
    ws.n = n;
    ws.ld_qkv = c.q_dim() + 2 * c.kv_dim();
    ws.xn.resize((size_t)n * c.d_model);
    ws.qkv.resize((size_t)n * ws.ld_qkv);
    if (c.recipe.rope) RopeTablesOfRun(c, n, ws);
    const BlockParams& b = model.BlockWeights(layer, &ws.weights);
    if (Status s = QkvSteps(c, b, input, ws, layer, !no_qk_norm); !s) return s;
    if (Status s = CheckFinite(ws.qkv.data(), ws.qkv.size(), layer, "q, k and v"); !s) return s;
    CopyHeadsTo(HeadsView::Columns(ws.qkv.data(), (size_t)n, (size_t)c.n_head, (size_t)c.d_head, (size_t)ws.ld_qkv), q);
    CopyHeadsTo(HeadsView::Columns(ws.qkv.data() + c.q_dim(), (size_t)n, (size_t)c.n_kv_head, (size_t)c.d_head,
                                   (size_t)ws.ld_qkv), k);
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"q and k of layer " + std::to_string(layer)});
  }
  return Status::Ok();
}

void LayerQkCopy(const LayerOutput& out, Tensor* q, Tensor* k) {
  CopyHeadsTo(out.q, q);
  CopyHeadsTo(out.k, k);
}

void LayerQkBeforeNormCopy(const LayerOutput& out, Tensor* q, Tensor* k) {
  if (!out.q_before_norm.data || !out.k_before_norm.data) {
    *q = Tensor{}, *k = Tensor{};
    return;
  }
  CopyHeadsTo(out.q_before_norm, q);
  CopyHeadsTo(out.k_before_norm, k);
}

Result<ModelRun> RunModel(const Model& model, const std::vector<int>& ids, const RunOptions& options) {
  const ModelConfig& c = model.config();
  if (Status s = CheckRunInputs(c, ids, options); !s) return s;
  if (options.first_layer > 0 || options.resume_hidden)
    return Status::Error("resuming needs a LayerSink (RunModel with a sink); this overload runs every layer");
  if (options.stream_maps)
    return Status::Error("stream_maps needs a LayerSink (RunModel with a sink); this overload keeps every map");
  if (options.last_layer >= 0)
    return Status::Error("last_layer needs a LayerSink (RunModel with a sink); this overload keeps every layer");
  if (options.prefix)
    return Status::Error("a kept prefix needs a LayerSink (RunModel with a sink) whose maps hold the kept rows");
  const size_t n = ids.size();
  if (Status s = CheckRunMemory(c, n, /*collect=*/true, options); !s) return s;
  ModelRun run;
  try {
    run.probs.Resize({(size_t)c.n_layer, (size_t)c.n_head, n, n});
    run.hidden.Resize({(size_t)c.n_layer + 1, n, (size_t)c.d_model});
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"keeping every layer's maps of " + std::to_string(n) + " tokens"});
  }
  CollectSink sink(&run);
  if (Status s = RunModel(model, ids, options, &sink); !s) return s;
  return run;
}

}  // namespace attnviz::model
