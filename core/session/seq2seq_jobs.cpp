#include "session/seq2seq_jobs.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "session/loaded_model.h"  // TokenIds
#include "session/seq2seq_job_result.h"

namespace attnviz {
namespace {

using model::Seq2SeqStack;

// Stack `s` of `like` with each layer's maps replaced: maps [n_layer, n_map, n_q, n_k] (n_map: the heads, or 1).
LayerStack StackLike(const LayerStack& like, Seq2SeqStack s, const Tensor& maps) {
  const size_t n_layer = maps.dim(0), per_layer = maps.size() / std::max<size_t>(1, n_layer);
  std::vector<std::shared_ptr<const LayerMaps>> layers;
  for (size_t l = 0; l < n_layer; ++l) {
    const LayerMaps* a = like.layer((int)l);
    if (!a) return LayerStack{};
    Tensor t;
    t.Resize({maps.dim(1), maps.dim(2), maps.dim(3)});
    std::copy(maps.data.begin() + (ptrdiff_t)(l * per_layer), maps.data.begin() + (ptrdiff_t)((l + 1) * per_layer),
              t.data.begin());
    layers.push_back(Seq2SeqLayerMaps(std::move(t), Tensor(), a->query_tokens, a->kv_tokens, s, a->d_qk, a->multiplier));
  }
  return StackOfLayers(std::move(layers), Seq2SeqStackKind(s));
}

// probs of stack `s` as one tensor: [n_layer, n_head, n_q, n_k].
Tensor ProbsOf(const LayerStack& st) {
  Tensor all;
  const LayerMaps* first = st.layer(0);
  if (!first) return all;
  const size_t plane = first->probs->size();
  all.Resize({(size_t)st.n_layer(), (size_t)first->n_head(), (size_t)first->n_q(), (size_t)first->n_k()});
  for (int l = 0; l < st.n_layer(); ++l)
    std::copy(st.layer(l)->probs->data.begin(), st.layer(l)->probs->data.end(), all.data.begin() + (ptrdiff_t)(l * plane));
  return all;
}

}  // namespace

Status Seq2SeqKindRefusal(MapKind kind, int stack) {
  if (kind == MapKind::kRollout && stack == kCrossStack)
    return Status::Error(
        "rollout is defined for the encoder's and the decoder's self-attention only: a cross-attention map's rows "
        "(target tokens) and columns (source tokens) are different tokens, so its maps do not chain");
  return Status::Ok();
}

Result<std::shared_ptr<const std::vector<LayerStack>>> Seq2SeqKindStacks(const Seq2SeqResult& run, MapKind kind,
                                                                         const RunControl& control) {
  if (Status st = CheckSeq2SeqComplete(run); !st) return st;
  const std::vector<LayerStack>& stacks = *run.stacks;
  if (kind == MapKind::kAttention) return run.stacks;
  auto out = std::make_shared<std::vector<LayerStack>>();
  if (kind == MapKind::kRollout) {
    for (Seq2SeqStack s : {Seq2SeqStack::kEncoder, Seq2SeqStack::kDecoder}) {
      auto r = model::Seq2SeqRollout(s, ProbsOf(stacks[(size_t)s]));
      if (!r) return r.status();
      Tensor maps = std::move(*r);
      maps.shape = {maps.dim(0), 1, maps.dim(1), maps.dim(2)};  // one map per layer
      out->push_back(StackLike(stacks[(size_t)s], s, maps));
    }
    LayerStack cross;
    cross.kind = StackKind::kCross;
    out->push_back(std::move(cross));
    return std::shared_ptr<const std::vector<LayerStack>>(std::move(out));
  }
  const model::Seq2SeqModel& m = *run.folder->model;
  auto norms = model::RunSeq2SeqValueNorms(m, TokenIds(run.source_tokens), TokenIds(run.decoder_tokens),
                                           Seq2SeqRunOptionsOf(run, control));
  if (!norms) return norms.status();
  out->push_back(StackLike(stacks[kEncoderStack], Seq2SeqStack::kEncoder, norms->encoder));
  out->push_back(StackLike(stacks[kDecoderStack], Seq2SeqStack::kDecoder, norms->decoder));
  out->push_back(StackLike(stacks[kCrossStack], Seq2SeqStack::kCross, norms->cross));
  return std::shared_ptr<const std::vector<LayerStack>>(std::move(out));
}

Result<model::Seq2SeqNeuronView> Seq2SeqNeuronOf(const Seq2SeqResult& run, int stack, int layer, int head, int i,
                                                 int j, const RunControl& control) {
  if (Status st = CheckSeq2SeqComplete(run); !st) return st;
  if (stack < 0 || stack > 2) return Status::Error("stack " + std::to_string(stack) + " is not 0..2");
  return model::RunSeq2SeqNeuron(*run.folder->model, TokenIds(run.source_tokens), TokenIds(run.decoder_tokens),
                                 Seq2SeqRunOptionsOf(run, control), (Seq2SeqStack)stack, layer, head, i, j);
}

Result<model::Seq2SeqAblationScan> Seq2SeqScanOf(const Seq2SeqResult& run, const std::vector<int>& loss_at,
                                                 const RunControl& control) {
  if (Status st = CheckSeq2SeqComplete(run); !st) return st;
  return model::ScanSeq2SeqHeadAblations(*run.folder->model, TokenIds(run.source_tokens), TokenIds(run.decoder_tokens),
                                         run.labels, Seq2SeqRunOptionsOf(run, control), model::AblateMode::kZero,
                                         loss_at);
}

double Seq2SeqScanResult::Delta(int stack, int layer, int head) const {
  for (const model::Seq2SeqHeadLoss& h : scan.heads)
    if ((int)h.stack == stack && h.layer == layer && h.head == head) return h.loss - scan.base_loss;
  return NAN;
}

Seq2SeqAnalysisJobs::Seq2SeqAnalysisJobs(std::function<void()> on_change, std::function<void(size_t)> on_head)
    : on_head_(std::move(on_head)),
      neurons_("computing the neuron view",
               [](const Seq2SeqNeuronRequest& r, const LatestWins<Seq2SeqNeuronRequest, Seq2SeqNeuronResult>::Job& job) {
                 return Seq2SeqJobResult(r, job.generation(), &Seq2SeqNeuronResult::view, [&](const Seq2SeqResult& run) {
                   return Seq2SeqNeuronOf(run, r.stack, r.layer, r.head, r.i, r.j, job.Control());
                 });
               },
               on_change),
      kinds_("computing the map kind",
             [](const Seq2SeqKindRequest& r, const LatestWins<Seq2SeqKindRequest, Seq2SeqKindResult>::Job& job) {
               return Seq2SeqJobResult(r, job.generation(), &Seq2SeqKindResult::stacks, [&](const Seq2SeqResult& run) {
                 return Seq2SeqKindStacks(run, r.kind, job.Control());
               });
             },
             on_change),
      scans_(
          "scanning head ablations",
          [this](const Seq2SeqScanRequest& r, const LatestWins<Seq2SeqScanRequest, Seq2SeqScanResult>::Job& job)
              -> std::shared_ptr<Seq2SeqScanResult> {
            if (job.generation() <= cancelled_upto_.load()) return nullptr;
            RunControl control = job.Control();
            if (on_head_)
              control.progress = [progress = control.progress, this](const char* stage, size_t done, size_t total) {
                progress(stage, done, total);
                if (std::string(stage) == "heads" && done > 0) on_head_(done);
              };
            auto out = Seq2SeqJobResult(r, job.generation(), &Seq2SeqScanResult::scan,
                                 [&](const Seq2SeqResult& run) { return Seq2SeqScanOf(run, r.loss_at, control); });
            if (out->status.cancelled()) return nullptr;
            if (!out->status.ok()) return out;
            // Cut short: kept after StopScan(), unless CancelAll() or a newer scan came since.
            const bool keeps = job.generation() <= stopped_upto_.load() &&
                               job.generation() > cancelled_upto_.load() && scans_.submitted() == job.generation();
            if (!out->scan.complete && (out->scan.heads_done == 0 || !keeps)) return nullptr;
            for (const model::Seq2SeqHeadLoss& h : out->scan.heads)
              if (!std::isnan(h.loss))
                out->ranked.push_back({(int)h.stack, h.layer, h.head, h.loss, h.loss - out->scan.base_loss});
            std::stable_sort(out->ranked.begin(), out->ranked.end(),
                             [](const RankedHead& a, const RankedHead& b) { return a.delta > b.delta; });
            for (const RankedHead& h : out->ranked) out->max_abs_delta = std::max(out->max_abs_delta, std::abs(h.delta));
            return out;
          },
          std::move(on_change)) {}

void Seq2SeqAnalysisJobs::StopScan() {
  stopped_upto_.store(scans_.submitted());
  scans_.CancelRunning();
}

void Seq2SeqAnalysisJobs::CancelAll() {
  cancelled_upto_.store(scans_.submitted());
  scans_.CancelRunning();
  kinds_.CancelRunning();
  neurons_.CancelRunning();
}

}  // namespace attnviz
