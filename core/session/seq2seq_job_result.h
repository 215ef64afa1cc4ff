// The outcome of an analysis job on an encoder-decoder run (seq2seq_jobs.h, seq2seq_readouts.h): the request, its
// queue generation, and what the job made of the request's run or why not.
#pragma once
#include <memory>
#include <utility>

#include "base/status.h"
#include "session/seq2seq_session.h"

namespace attnviz {

// The run options of another run of `run`'s request: its ablations, the job's control.
inline model::Seq2SeqRunOptions Seq2SeqRunOptionsOf(const Seq2SeqResult& run, const RunControl& control) {
  model::Seq2SeqRunOptions options;
  options.ablate = run.request.ablate;
  options.control = control;
  return options;
}

// Analyses read a complete run (not a generation's step, not a failed one).
inline Status CheckSeq2SeqComplete(const Seq2SeqResult& run) {
  return run.complete() && run.folder ? Status::Ok() : Status::Error("the encoder-decoder run is not complete yet");
}

// `Out` for request `r`: out.*field holds what make(*r.run) made, or out.status says why not.
template <typename Out, typename Request, typename Value, typename Make>
std::shared_ptr<Out> Seq2SeqJobResult(const Request& r, uint64_t generation, Value Out::*field, Make make) {
  auto out = std::make_shared<Out>();
  out->generation = generation;
  out->request = r;
  Result<Value> made = r.run ? make(*r.run) : Result<Value>(Status::Error("no encoder-decoder run to analyse"));
  if (made) (*out).*field = std::move(*made);
  else out->status = made.status();
  return out;
}

}  // namespace attnviz
