#include "model/seq2seq_lens.h"

#include <cmath>
#include <new>
#include <string>

#include "model/seq2seq_run.h"

namespace attnviz::model {

Result<std::vector<LensLayer>> Seq2SeqLogitLens(const Seq2SeqModel& model, const float* decoder_hidden, int n_tgt,
                                                const std::vector<int>& labels, int k, const RunControl& control) {
  const Seq2SeqConfig& c = model.config();
  const int L = c.decoder.n_layer;
  const size_t n = (size_t)n_tgt, d = (size_t)c.d_model;
  // 0. Checks: k first (a k past the vocabulary is the message to see, not its memory), then what the lens keeps.
  if (k < 1 || k > c.decoder_vocab)
    return Status::Error(MsgId::kTopKRange, {std::to_string(k), std::to_string(c.decoder_vocab)});
  if (Status s = LogitLensMemory(L, n, k); !s) return s;
  std::vector<LensLayer> out;
  try {
    // 1. Layer by layer, decoder_hidden[l]: [n_tgt, d_model] through the LM head: the top k and p(label).
    for (int l = 0; l <= L; ++l) {
      if (control.cancelled()) return Status::Cancelled();
      const float* hidden = decoder_hidden + (size_t)l * n * d;
      auto top = Seq2SeqTopTokens(model, hidden, n_tgt, k);
      if (!top) return top.status();
      auto loss = Seq2SeqTokenLoss(model, hidden, n_tgt, labels);
      if (!loss) return loss.status();
      LensLayer layer;
      layer.layer = l;
      layer.positions.resize(n);
      for (size_t i = 0; i < n; ++i) {
        LensPosition& p = layer.positions[i];
        p.index = (int)i;
        p.top = std::move((*top)[i].top);
        if (!std::isnan((*loss)[i])) p.has_next = true, p.next_prob = std::exp(-(*loss)[i]);
      }
      out.push_back(std::move(layer));
      control.Report("logit lens", (size_t)l + 1, (size_t)L + 1);
    }
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"the logit lens of " + std::to_string(n) + " decoder tokens"});
  }
  return out;
}

}  // namespace attnviz::model
