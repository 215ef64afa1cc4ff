// The App's logit lens: one background job (core/session/lens_job.h) reading the shown model result's request over
// the window of positions the Overview asks for. Asked every frame the lens is shown; started only when the
// request or the window changed, so a frame never restarts a lens still being read.
#include "app.h"

namespace attnviz {

void App::RequestLens(int first, int count) {
  if (!results.model || !results.model->request.folder) return;
  LensRequest r;
  r.model = results.model->request;
  r.first = first, r.count = count;
  ClipLensWindow((int)results.model->tokens.size(), &r.first, &r.count);
  if (lens_submitted_ && r == last_lens_request_) return;
  lenses->Start(r);
  last_lens_request_ = r;
  lens_submitted_ = true;
}

std::shared_ptr<const LensResult> App::ShownLens() const {
  std::shared_ptr<const LensResult> lens = lenses ? lenses->latest() : nullptr;
  if (!lens || !results.model || lens->request.model != results.model->request) return nullptr;
  return lens;
}

}  // namespace attnviz
