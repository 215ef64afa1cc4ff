// The App's head ablations: which heads the what-if zeroes (views.model.ablated, sent with the next model request by
// SubmitModelIfChanged) and the "ablate each head once" scan of the latest request.
#include <algorithm>

#include "app.h"

namespace attnviz {

bool App::HeadAblated(int layer, int head) const { return attnviz::HeadAblated(views, layer, head); }

void App::SetHeadAblated(int layer, int head, bool ablated) {
  std::vector<model::AblatedHead>& a = views.model.ablated;
  a.erase(std::remove(a.begin(), a.end(), model::AblatedHead{layer, head}), a.end());
  if (ablated) a.push_back({layer, head});
}

void App::StartAblationScan(std::vector<int> loss_at) {
  if (model_submitted_) scans->Start(last_model_request_, std::move(loss_at));
}

std::shared_ptr<const AblationScanResult> App::ShownScan() const {
  std::shared_ptr<const AblationScanResult> scan = scans ? scans->latest() : nullptr;
  if (!scan || !results.model || !scan->request.SameText(results.model->request)) return nullptr;
  return scan;
}

}  // namespace attnviz
