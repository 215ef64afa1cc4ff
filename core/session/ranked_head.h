// One head of an "ablate each head once" scan as the panels rank them (ablation_scan.h, seq2seq_jobs.h).
#pragma once

namespace attnviz {

// One head of the scan: the loss with it ablated (on top of the request's what-ifs) and delta = loss - base_loss.
// stack: an encoder-decoder model's stack (seq2seq_session.h kEncoderStack, kDecoderStack, kCrossStack); -1 for a
// decoder-only model.
struct RankedHead {
  int stack = -1, layer = 0, head = 0;
  double loss = 0, delta = 0;
};

}  // namespace attnviz
