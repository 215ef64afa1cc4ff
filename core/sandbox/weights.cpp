#include "sandbox/weights.h"

#include <cmath>

#include "io/npy.h"
#include "base/random.h"

namespace attnviz {
namespace {

// Random streams: one per logical matrix, so the fused and separate layouts draw the same numbers.
enum : uint64_t { kStreamQ = 1, kStreamK = 2, kStreamV = 3, kStreamO = 4 };

// Fills columns [col0, col0 + cols) of a row-major [rows, ld] buffer from stream `stream`, whose
// logical matrix is [rows, cols].
void FillNormal(uint64_t seed, uint64_t stream, float stddev, size_t rows, size_t cols, float* dst, size_t ld,
                size_t col0, bool fast) {
#pragma omp parallel for schedule(static) if (rows * cols > (1u << 16))
  for (long long r = 0; r < (long long)rows; ++r) {
    if (fast) {
      FastNormals(seed, stream, (uint64_t)r * cols, cols, stddev, dst + r * ld + col0);
      continue;
    }
    for (size_t c = 0; c < cols; ++c) {
      dst[r * ld + col0 + c] = stddev * NormalAt(seed, stream, (uint64_t)r * cols + c);
    }
  }
}

}  // namespace

void InitWeights(const AttentionConfig& config, ProjectionWeights* w, bool fast) {
  const size_t d_model = config.d_model, n_head = config.n_head;
  const size_t d_k = config.head_dim_k(), d_v = config.head_dim_v();
  w->d_model = (int)d_model;
  w->n_head = (int)n_head;
  w->d_k = (int)d_k;
  w->d_v = (int)d_v;
  w->layout = config.qkv;
  const float in_std = (float)(1.0 / std::sqrt((double)d_model));
  const size_t qk_cols = n_head * d_k, v_cols = n_head * d_v;
  if (config.qkv == QkvLayout::kFused) {
    const size_t ld = 2 * qk_cols + v_cols;
    w->w_qkv.Resize({d_model, ld});
    FillNormal(config.seed, kStreamQ, in_std, d_model, qk_cols, w->w_qkv.data.data(), ld, 0, fast);
    FillNormal(config.seed, kStreamK, in_std, d_model, qk_cols, w->w_qkv.data.data(), ld, qk_cols, fast);
    FillNormal(config.seed, kStreamV, in_std, d_model, v_cols, w->w_qkv.data.data(), ld, 2 * qk_cols, fast);
    w->w_q = w->w_k = w->w_v = Tensor();
  } else {
    w->w_q.Resize({d_model, qk_cols});
    w->w_k.Resize({d_model, qk_cols});
    w->w_v.Resize({d_model, v_cols});
    FillNormal(config.seed, kStreamQ, in_std, d_model, qk_cols, w->w_q.data.data(), qk_cols, 0, fast);
    FillNormal(config.seed, kStreamK, in_std, d_model, qk_cols, w->w_k.data.data(), qk_cols, 0, fast);
    FillNormal(config.seed, kStreamV, in_std, d_model, v_cols, w->w_v.data.data(), v_cols, 0, fast);
    w->w_qkv = Tensor();
  }
  const float out_std = (float)(1.0 / std::sqrt((double)v_cols));
  w->w_o.Resize({v_cols, d_model});
  FillNormal(config.seed, kStreamO, out_std, v_cols, d_model, w->w_o.data.data(), d_model, 0, fast);
}

Status LoadWeights(const std::string& dir, const AttentionConfig& config, ProjectionWeights* w) {
  const size_t d_model = config.d_model, n_head = config.n_head;
  const size_t d_k = config.head_dim_k(), d_v = config.head_dim_v();
  struct Item {
    const char* file;
    Tensor* dst;
    std::vector<size_t> shape;
    const char* meaning;
  };
  ProjectionWeights loaded;
  Item items[] = {
      {"wq.npy", &loaded.w_q, {d_model, n_head * d_k}, "[d_model, n_head*d_k]"},
      {"wk.npy", &loaded.w_k, {d_model, n_head * d_k}, "[d_model, n_head*d_k]"},
      {"wv.npy", &loaded.w_v, {d_model, n_head * d_v}, "[d_model, n_head*d_v]"},
      {"wo.npy", &loaded.w_o, {n_head * d_v, d_model}, "[n_head*d_v, d_model]"},
  };
  for (Item& item : items) {
    std::string path = dir + "/" + item.file;
    auto t = ReadNpy(path);
    if (!t) return t.status();
    if (t->shape != item.shape) {
      return Status::ErrorAt(path, MsgId::kWeightsShape,
                             {ShapeString(t->shape), item.meaning, ShapeString(item.shape), std::to_string(d_model),
                              std::to_string(n_head), std::to_string(d_k), std::to_string(d_v)});
    }
    *item.dst = std::move(*t);
  }
  loaded.d_model = (int)d_model;
  loaded.n_head = (int)n_head;
  loaded.d_k = (int)d_k;
  loaded.d_v = (int)d_v;
  loaded.layout = QkvLayout::kSeparate;
  *w = std::move(loaded);
  return Status::Ok();
}

}  // namespace attnviz
