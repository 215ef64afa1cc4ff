// The App's direct logit attribution and activation patching: one background job each (core/session/
// attribution_job.h, patching_job.h). The attribution is asked for every frame the Overview shows it and started
// only when the shown request, the position or the target changed; a patching scan reruns the model once per head
// and per layer and position, so it starts only when the panel's Run button asks.
#include "app.h"

namespace attnviz {

void App::RequestAttribution(int position, int target) {
  if (!results.model || !results.model->request.folder) return;
  AttributionRequest r;
  r.model = results.model->request;
  r.position = position, r.target = target;
  if (attribution_submitted_ && r == last_attribution_request_) return;
  attributions->Start(r);
  last_attribution_request_ = r;
  attribution_submitted_ = true;
}

std::shared_ptr<const AttributionResult> App::ShownAttribution() const {
  std::shared_ptr<const AttributionResult> a = attributions ? attributions->latest() : nullptr;
  if (!a || !results.model || a->request.model != results.model->request) return nullptr;
  return a;
}

void App::StartPatching(const std::string& clean_text, int token_a, int token_b) {
  if (!results.model || !results.model->request.folder) return;
  PatchingRequest r;
  r.folder = results.model->request.folder;
  r.clean_text = clean_text;
  r.corrupted_text = results.model->request.text;
  r.token_a = token_a, r.token_b = token_b;
  patchings->Start(r);
}

std::shared_ptr<const PatchingResult> App::ShownPatching() const {
  std::shared_ptr<const PatchingResult> p = patchings ? patchings->latest() : nullptr;
  if (!p || !results.model || p->request.folder != results.model->request.folder) return nullptr;
  return p;
}

}  // namespace attnviz
