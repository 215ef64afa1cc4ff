#include "ablation_scan.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "model/predict.h"

namespace attnviz {

double AblationScanResult::Delta(int layer, int head) const {
  if (!Done(layer, head)) return 0;
  return scan.loss[(size_t)layer * n_head + head] - scan.base_loss;
}

bool AblationScanResult::Done(int layer, int head) const {
  return layer >= 0 && head >= 0 && layer < n_layer && head < n_head && scan.Done((size_t)layer * n_head + head);
}

std::vector<RankedHead> RankHeads(const model::AblationScan& scan, int n_head) {
  std::vector<RankedHead> ranked;
  for (size_t i = 0; i < scan.loss.size(); ++i)
    if (scan.Done(i))
      ranked.push_back({-1, (int)(i / n_head), (int)(i % n_head), scan.loss[i], scan.loss[i] - scan.base_loss});
  std::stable_sort(ranked.begin(), ranked.end(), [](const RankedHead& a, const RankedHead& b) { return a.delta > b.delta; });
  return ranked;
}

AblationScanJob::AblationScanJob(std::function<void()> on_change, std::function<void(size_t)> on_head)
    : on_head_(std::move(on_head)),
      queue_("scanning head ablations", [this](const ScanRequest& r, const Queue::Job& job) { return Scan(r, job); },
             std::move(on_change)) {}

void AblationScanJob::Cancel() {
  cancelled_upto_.store(queue_.submitted());
  queue_.CancelRunning();
}

void AblationScanJob::Stop() {
  stopped_upto_.store(queue_.submitted());
  queue_.CancelRunning();
}

bool AblationScanJob::KeepsPartial(uint64_t generation) const {
  return generation <= stopped_upto_.load() && generation > cancelled_upto_.load() && queue_.submitted() == generation;
}

AblationScanProgress AblationScanJob::progress() const {
  const JobProgress p = queue_.progress();
  AblationScanProgress out;
  if (!p.active || p.total == 0) return out;
  out.running = true;
  out.fraction = (float)p.fraction;
  out.total = (int)p.total;
  out.head = (int)std::min(p.done + 1, p.total);  // the head running now (the base run: head 1's wait)
  out.done = (int)p.done;
  return out;
}

std::shared_ptr<AblationScanResult> AblationScanJob::Scan(const ScanRequest& scan_request, const Queue::Job& job) {
  const ModelRequest& request = scan_request;
  if (job.generation() <= cancelled_upto_.load() || job.generation() <= stopped_upto_.load()) return nullptr;
  auto result = std::make_shared<AblationScanResult>();
  result->generation = job.generation();
  result->request = request;
  Result<PreparedRun> prepared = PrepareModelRun(request);  // as the shown run's
  if (!prepared) {
    result->status = prepared.status();
    return result;
  }
  const ModelFolder& folder = *request.folder;
  const model::ModelConfig& c = folder.model->config();
  model::RunOptions& options = prepared->options;
  options.control = job.Control();
  if (on_head_)
    options.control.progress = [progress = options.control.progress, this](const char* stage, size_t done, size_t total) {
      if (progress) progress(stage, done, total);
      if (std::string(stage) == "heads" && done > 0) on_head_(done);
    };
  auto scan = model::ScanHeadAblations(*folder.model, prepared->ids, options, scan_request.loss_at);
  if (scan.status().cancelled()) return nullptr;
  if (!scan) {
    result->status = scan.status();
    return result;
  }
  // Cancelled part way: the heads done are shown after Stop(); after Cancel() or a newer Start (another text or
  // what-if) they are stale.
  if (!scan->complete && (scan->heads_done == 0 || !KeepsPartial(job.generation()))) return nullptr;
  result->scan = std::move(*scan);
  result->n_layer = c.n_layer;
  result->n_head = c.n_head;
  result->ranked = RankHeads(result->scan, c.n_head);
  for (const RankedHead& r : result->ranked) result->max_abs_delta = std::max(result->max_abs_delta, std::abs(r.delta));
  return result;
}

}  // namespace attnviz
