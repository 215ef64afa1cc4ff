#include "session/patching_job.h"

#include "session/loaded_model.h"

namespace attnviz {

Result<PatchingResult> ComputePatching(const PatchingRequest& request, const RunControl& control,
                                       PatchingResult* counts) {
  if (!request.folder || !request.folder->model) return Status::Error("no model is open");  // as PrepareModelRun says it
  PatchingResult out;
  out.request = request;
  auto clean = TokenizeForModel(*request.folder, request.clean_text);
  if (!clean) return clean.status();
  auto corrupted = TokenizeForModel(*request.folder, request.corrupted_text);
  if (!corrupted) return corrupted.status();
  out.clean_tokens = (int)clean->size(), out.corrupted_tokens = (int)corrupted->size();
  if (counts) counts->clean_tokens = out.clean_tokens, counts->corrupted_tokens = out.corrupted_tokens;
  model::PatchingOptions options;
  options.control = control;
  auto p = model::PatchActivations(*request.folder->model, TokenIds(*clean), TokenIds(*corrupted), request.token_a,
                                   request.token_b, options);
  if (!p) return p.status();
  out.patching = std::move(*p);
  return out;
}

PatchingJob::PatchingJob(std::function<void()> on_change)
    : queue_("patching activations",
             [](const PatchingRequest& r, const Queue::Job& job) -> std::shared_ptr<PatchingResult> {
               auto out = std::make_shared<PatchingResult>();
               Result<PatchingResult> p = ComputePatching(r, job.Control(), out.get());
               if (p.status().cancelled()) return nullptr;
               if (p) *out = std::move(*p);
               else out->request = r, out->status = p.status();
               out->generation = job.generation();
               return out;
             },
             std::move(on_change)) {}

}  // namespace attnviz
