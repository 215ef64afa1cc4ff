// What an encoder-decoder run computes (issue 41), for the app, each on its own "latest request wins" queue
// (latest_wins.h) so the UI thread never waits and a newer request cancels the running one:
//   lens         the decoder's logit lens (model::Seq2SeqLogitLens) over every decoder position: one more run
//                under the run's ablations for its decoder stream
//   attribution  direct logit attribution (model::Seq2SeqAttributeLogit) of one target token at one decoder
//                position: decoder and cross heads, biases, MLPs, embeddings
//   patching     activation patching (model::Seq2SeqPatchActivations): the shown source is the corrupted run, a
//                second source of the same token count the clean one, the decoder reading the shown target in
//                both; a rerun per head of each stack and per residual row, progress in reruns; a cancel keeps the
//                cells done (Seq2SeqPatching::complete false)
//
// Dimension glossary (seq2seq_session.h): n_src source tokens, n_tgt decoder tokens.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/lens.h"
#include "model/seq2seq_attribution.h"
#include "model/seq2seq_patching.h"
#include "session/seq2seq_session.h"

namespace attnviz {

// The tokens each lens cell keeps (its hover lists them).
constexpr int kSeq2SeqLensTopK = 5;

// The lens of `run` (complete): [n_dec_layer + 1] layers, each decoder position's top k and p(its label).
Result<std::vector<model::LensLayer>> Seq2SeqLensOf(const Seq2SeqResult& run, int k, const RunControl& control = {});
// The attribution at decoder `position` (-1: the last) of `target` (-1: the label there) of `run` (complete),
// under its ablations.
Result<model::Seq2SeqLogitAttribution> Seq2SeqAttributionOf(const Seq2SeqResult& run, int position, int target);
// Patching from `clean_source` (the source tokenizer's tokens, </s> appended, as the run's) into `run` (complete);
// *clean_tokens gets the clean source's token count once it tokenized (also when the counts differ: the refusal).
Result<model::Seq2SeqPatching> Seq2SeqPatchingOf(const Seq2SeqResult& run, const std::string& clean_source,
                                                 int token_a, int token_b, const RunControl& control = {},
                                                 int* clean_tokens = nullptr);

struct Seq2SeqLensRequest {
  std::shared_ptr<const Seq2SeqResult> run;
};
struct Seq2SeqLensResult {
  uint64_t generation = 0;
  Seq2SeqLensRequest request;
  Status status;
  std::vector<model::LensLayer> layers;  // [n_dec_layer + 1], 0 = the decoder's embeddings
};

struct Seq2SeqAttributionRequest {
  std::shared_ptr<const Seq2SeqResult> run;
  int position = -1, target = -1;  // -1: the last decoder position; the label there
  bool Same(const Seq2SeqAttributionRequest& o) const {
    return run == o.run && position == o.position && target == o.target;
  }
};
struct Seq2SeqAttributionResult {
  uint64_t generation = 0;
  Seq2SeqAttributionRequest request;
  Status status;
  model::Seq2SeqLogitAttribution attribution;  // position and target resolved
};

struct Seq2SeqPatchingRequest {
  std::shared_ptr<const Seq2SeqResult> run;  // the corrupted run: its source, target and folder
  std::string clean_source;
  int token_a = 0, token_b = 0;  // the metric logit[A] - logit[B] at the last decoder position (target vocabulary)
};
struct Seq2SeqPatchingResult {
  uint64_t generation = 0;
  Seq2SeqPatchingRequest request;
  Status status;
  int clean_tokens = 0;  // the clean source's token count (0: it did not tokenize)
  model::Seq2SeqPatching patching;
};

class Seq2SeqReadoutJobs {
 public:
  // on_change: called after every submission and finished job (outside their locks); on_rerun (tests): on the
  // patching thread after each rerun, with the number done.
  explicit Seq2SeqReadoutJobs(std::function<void()> on_change = {}, std::function<void(size_t)> on_rerun = {});
  void Lens(const Seq2SeqLensRequest& r) { lenses_.Submit(r); }
  void Attribution(const Seq2SeqAttributionRequest& r) { attributions_.Submit(r); }
  void Patching(const Seq2SeqPatchingRequest& r) { patchings_.Submit(r); }
  // The user's Stop: the running patching ends, the cells it finished published.
  void StopPatching() { patchings_.CancelRunning(); }
  // Every job stopped (another folder or run).
  void CancelAll();
  std::shared_ptr<const Seq2SeqLensResult> lens() const { return lenses_.latest(); }
  std::shared_ptr<const Seq2SeqAttributionResult> attribution() const { return attributions_.latest(); }
  std::shared_ptr<const Seq2SeqPatchingResult> patching() const { return patchings_.latest(); }
  bool lens_busy() const { return lenses_.busy(); }
  bool attribution_busy() const { return attributions_.busy(); }
  bool patching_busy() const { return patchings_.busy(); }
  JobProgress lens_progress() const { return lenses_.progress(); }
  JobProgress patching_progress() const { return patchings_.progress(); }  // done, total: reruns
  bool WaitIdle(double seconds) const {
    return lenses_.WaitIdle(seconds) && attributions_.WaitIdle(seconds) && patchings_.WaitIdle(seconds);
  }

 private:
  std::function<void(size_t)> on_rerun_;
  LatestWins<Seq2SeqLensRequest, Seq2SeqLensResult> lenses_;
  LatestWins<Seq2SeqAttributionRequest, Seq2SeqAttributionResult> attributions_;
  LatestWins<Seq2SeqPatchingRequest, Seq2SeqPatchingResult> patchings_;  // last: threads start once the rest exists
};

}  // namespace attnviz
