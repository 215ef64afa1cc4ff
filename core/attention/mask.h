// Mask: which keys each query may see. The one description of a mask that the kernel, the per-row figures,
// pyramids and views, the shader, figures and exports all read (sandbox layers and model layers alike).
//
//   none           every key                       (the sandbox's "no mask", cross-attention)
//   causal         key j visible to query i iff j <= i
//   causal + W     ... and i - j < W: a sliding window of W keys, the query's own included (Mistral;
//                  HF's mask: j > i - W)
//   bidirectional  every key                       (encoders such as BERT: the same as none, named for
//                                                   what the model is)
// For a query i the visible keys are one interval [Begin(i), End(i, n_k)); Begin and End never decrease with i,
// which is what lets the kernel trim a block of rows to the keys any of its rows may see.
#pragma once
#include <algorithm>
#include <string>

namespace attnviz {

// The sandbox's mask knob (AttentionConfig::mask, the settings file's `mask = none|causal`).
enum class MaskKind { kNone, kCausal };

struct Mask {
  enum class Kind { kNone, kCausal, kBidirectional };
  Kind kind = Kind::kNone;
  int window = 0;  // causal only: keys a query sees at most (its own included); 0 = no window
  // A cut of a bigger map (a figure of a zoomed window): row i, key j here are query row0 + i, key col0 + j there.
  int row0 = 0, col0 = 0;

  Mask() = default;
  Mask(MaskKind knob) : kind(knob == MaskKind::kCausal ? Kind::kCausal : Kind::kNone) {}  // NOLINT: the knob is a mask
  static Mask None() { return Mask(); }
  static Mask Causal(int window = 0) {
    Mask m;
    m.kind = Kind::kCausal;
    m.window = window > 0 ? window : 0;
    return m;
  }
  static Mask Bidirectional() {
    Mask m;
    m.kind = Kind::kBidirectional;
    return m;
  }

  bool causal() const { return kind == Kind::kCausal; }
  bool windowed() const { return causal() && window > 0; }
  // Keys query i may see: [Begin(i), End(i, n_k)) (empty only in a cut).
  int Begin(int i) const {
    const int first = windowed() ? row0 + i - window + 1 - col0 : -col0;
    return first > 0 ? first : 0;
  }
  int End(int i, int n_k) const {
    if (!causal()) return n_k;
    const int end = std::min(row0 + i + 1 - col0, n_k);
    return std::max(end, Begin(i));
  }
  int Visible(int i, int n_k) const { return End(i, n_k) - Begin(i); }
  // The mask of the cut rows [r0, ...) x keys [c0, ...) of this map.
  Mask Cut(int r0, int c0) const {
    Mask m = *this;
    m.row0 += r0, m.col0 += c0;
    return m;
  }
  bool Masked(int i, int j, int n_k) const { return j < Begin(i) || j >= End(i, n_k); }
  // Every cell of rows [r0, r1) x keys [c0, c1) masked (a pooled texel that covers only masked cells).
  bool AllMasked(int r0, int r1, int c0, int c1, int n_k) const {
    if (!causal() || r0 >= r1 || c0 >= c1) return false;
    if (c0 >= End(r1 - 1, n_k)) return true;  // every key after every query
    return windowed() && c1 - 1 < Begin(r0);   // every key before every query's window
  }
  // Whether any cell of an [n_q, n_k] map is masked.
  bool HidesAny(int n_q, int n_k) const {
    if (!causal() || n_q <= 0 || n_k <= 0) return false;
    return End(0, n_k) < n_k || Begin(n_q - 1) > 0;
  }

  bool operator==(const Mask& o) const {
    return kind == o.kind && window == o.window && row0 == o.row0 && col0 == o.col0;
  }
  bool operator!=(const Mask& o) const { return !(*this == o); }
};

// "none", "causal", "causal, window 8", "bidirectional" (titles, JSON, the CLI's summary).
std::string Describe(const Mask& mask);

}  // namespace attnviz
