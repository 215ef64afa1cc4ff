#include "session/lens_job.h"

#include <algorithm>
#include <string>

#include "base/memory_budget.h"
#include "model/predict.h"
#include "model/run.h"

namespace attnviz {
namespace {

// Reads the window of every residual stream as the run passes it: hidden[0] from the embeddings, hidden[l + 1]
// after block l. One row past the window (when the text has it) gives the window's last position its next token.
class LensSink : public model::LayerSink {
 public:
  LensSink(const model::Model& model, const std::vector<int>& ids, int first, int count, const RunControl& control,
           LensResult* out)
      : model_(model), first_(first), count_(count), control_(control), out_(out) {
    rows_ = std::min<int>((int)ids.size() - first, count + 1);
    window_ids_.assign(ids.begin() + first, ids.begin() + first + rows_);
    lens_control_.cancel = control.cancel;  // its own progress is the layers read, not Predict's blocks
  }
  Status OnEmbeddings(const float* hidden, int n, int d_model) override { return Read(hidden, 0, d_model); }
  Status OnLayer(const model::LayerOutput& out) override { return Read(out.hidden, out.layer + 1, out.d_model); }

 private:
  // hidden: [n, d_model], hidden[layer] of the run.
  Status Read(const float* hidden, int layer, int d_model) {
    auto read = model::LogitLensLayer(model_, hidden + (size_t)first_ * d_model, layer, window_ids_, kLensTopK,
                                      lens_control_);
    if (!read) return read.status();
    read->positions.resize((size_t)count_);  // the row past the window only gave its last position a next token
    for (model::LensPosition& p : read->positions) p.index += first_;
    out_->layers.push_back(std::move(*read));
    control_.Report("lens", out_->layers.size(), (size_t)model_.config().n_layer + 1);
    return Status::Ok();
  }
  const model::Model& model_;
  int first_, count_, rows_ = 0;
  std::vector<int> window_ids_;
  RunControl control_, lens_control_;
  LensResult* out_;
};

}  // namespace

void ClipLensWindow(int n, int* first, int* count) {
  *count = std::max(0, std::min({*count <= 0 ? kLensWindow : *count, kLensWindow, n}));
  *first = std::max(0, std::min(*first, n - *count));
}

Result<LensResult> ComputeLens(const LensRequest& request, const RunControl& control) {
  // 1. The request's run as the shown one is made (tokens, what-ifs, ablations).
  Result<PreparedRun> prepared = PrepareModelRun(request.model);
  if (!prepared) return prepared.status();
  const model::Model& model = *request.model.folder->model;
  const model::ModelConfig& c = model.config();
  if (!model::HasLmHead(model)) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  LensResult out;
  out.request = request;
  out.n = (int)prepared->ids.size();
  out.first = request.first, out.count = request.count;
  ClipLensWindow(out.n, &out.first, &out.count);
  // 2. What the lens keeps, refused before the run.
  const double need = model::LogitLensBytes(c, (size_t)out.count, kLensTopK);
  if (need > (double)MemoryLimitBytes())
    return Status::Error(MsgId::kAnalysisMemory, {"the logit lens's top " + std::to_string(kLensTopK) + " of every layer",
                                                  MemoryText(need), MemoryText((double)MemoryLimitBytes()),
                                                  std::to_string(out.count)});
  // 3. The run, maps streamed (the lens reads none of them), each layer's window read as it passes.
  model::RunOptions& options = prepared->options;
  options.stream_maps = true;
  options.control.cancel = control.cancel;
  control.Report("lens", 0, (size_t)c.n_layer + 1);
  LensSink sink(model, prepared->ids, out.first, out.count, control, &out);
  if (Status s = model::RunModel(model, prepared->ids, options, &sink); !s) return s;
  return out;
}

LensJob::LensJob(std::function<void()> on_change)
    : queue_("reading the logit lens",
             [](const LensRequest& r, const Queue::Job& job) -> std::shared_ptr<LensResult> {
               Result<LensResult> lens = ComputeLens(r, job.Control());
               if (lens.status().cancelled()) return nullptr;
               auto out = std::make_shared<LensResult>();
               if (lens) *out = std::move(*lens);
               else out->request = r, out->status = lens.status();
               out->generation = job.generation();
               return out;
             },
             std::move(on_change)) {}

}  // namespace attnviz
