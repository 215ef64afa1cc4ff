#include "session/seq2seq_readouts.h"

#include <string>
#include <utility>

#include "model/seq2seq_lens.h"
#include "session/loaded_model.h"  // TokenIds
#include "session/seq2seq_job_result.h"

namespace attnviz {

Result<std::vector<model::LensLayer>> Seq2SeqLensOf(const Seq2SeqResult& run, int k, const RunControl& control) {
  if (Status st = CheckSeq2SeqComplete(run); !st) return st;
  const model::Seq2SeqModel& m = *run.folder->model;
  const std::vector<int> decoder = TokenIds(run.decoder_tokens);
  auto again = model::RunSeq2Seq(m, TokenIds(run.source_tokens), decoder, Seq2SeqRunOptionsOf(run, control));
  if (!again) return again.status();
  return model::Seq2SeqLogitLens(m, again->decoder_hidden.data.data(), (int)decoder.size(), run.labels, k, control);
}

Result<model::Seq2SeqLogitAttribution> Seq2SeqAttributionOf(const Seq2SeqResult& run, int position, int target) {
  if (Status st = CheckSeq2SeqComplete(run); !st) return st;
  const int n = (int)run.decoder_tokens.size();
  if (position < 0) position = n - 1;
  if (target < 0 && position < (int)run.labels.size()) target = run.labels[(size_t)position];
  return model::Seq2SeqAttributeLogit(*run.folder->model, TokenIds(run.source_tokens), TokenIds(run.decoder_tokens),
                                      position, target, Seq2SeqRunOptionsOf(run, {}));
}

Result<model::Seq2SeqPatching> Seq2SeqPatchingOf(const Seq2SeqResult& run, const std::string& clean_source,
                                                 int token_a, int token_b, const RunControl& control,
                                                 int* clean_tokens) {
  if (Status st = CheckSeq2SeqComplete(run); !st) return st;
  auto clean = run.folder->tokenizers.source->Encode(clean_source);
  if (!clean) return clean.status();
  if (clean_tokens) *clean_tokens = (int)clean->size();
  model::Seq2SeqPatchingOptions options;
  options.control = control;
  return model::Seq2SeqPatchActivations(*run.folder->model, TokenIds(*clean), TokenIds(run.source_tokens),
                                        TokenIds(run.decoder_tokens), token_a, token_b, options);
}

Seq2SeqReadoutJobs::Seq2SeqReadoutJobs(std::function<void()> on_change, std::function<void(size_t)> on_rerun)
    : on_rerun_(std::move(on_rerun)),
      lenses_("computing the logit lens",
              [](const Seq2SeqLensRequest& r, const LatestWins<Seq2SeqLensRequest, Seq2SeqLensResult>::Job& job)
                  -> std::shared_ptr<Seq2SeqLensResult> {
                auto out = Seq2SeqJobResult(r, job.generation(), &Seq2SeqLensResult::layers,
                                            [&](const Seq2SeqResult& run) {
                                              return Seq2SeqLensOf(run, kSeq2SeqLensTopK, job.Control());
                                            });
                return out->status.cancelled() ? nullptr : out;
              },
              on_change),
      attributions_("computing the attribution",
                    [](const Seq2SeqAttributionRequest& r,
                       const LatestWins<Seq2SeqAttributionRequest, Seq2SeqAttributionResult>::Job& job) {
                      return Seq2SeqJobResult(r, job.generation(), &Seq2SeqAttributionResult::attribution,
                                              [&](const Seq2SeqResult& run) {
                                                return Seq2SeqAttributionOf(run, r.position, r.target);
                                              });
                    },
                    on_change),
      patchings_("patching activations",
                 [this](const Seq2SeqPatchingRequest& r,
                        const LatestWins<Seq2SeqPatchingRequest, Seq2SeqPatchingResult>::Job& job)
                     -> std::shared_ptr<Seq2SeqPatchingResult> {
                   RunControl control = job.Control();
                   if (on_rerun_)
                     control.progress = [progress = control.progress, this](const char* stage, size_t done,
                                                                            size_t total) {
                       progress(stage, done, total);
                       if (std::string(stage) == "patching" && done > 0) on_rerun_(done);
                     };
                   int clean_tokens = 0;
                   auto out = Seq2SeqJobResult(r, job.generation(), &Seq2SeqPatchingResult::patching,
                                               [&](const Seq2SeqResult& run) {
                                                 return Seq2SeqPatchingOf(run, r.clean_source, r.token_a, r.token_b,
                                                                          control, &clean_tokens);
                                               });
                   out->clean_tokens = clean_tokens;
                   // A cancel after both runs is a partial scan (kept); before them there is nothing to show.
                   return out->status.cancelled() ? nullptr : out;
                 },
                 std::move(on_change)) {}

void Seq2SeqReadoutJobs::CancelAll() {
  lenses_.CancelRunning();
  attributions_.CancelRunning();
  patchings_.CancelRunning();
}

}  // namespace attnviz
