// Direct logit attribution of the shown text (model::AttributeLogit, core/model/attribution.h) off the UI thread,
// on its own "latest request wins" queue (latest_wins.h), as the logit lens (lens_job.h): the request's run again
// (its what-ifs and ablations: an ablated head attributes as ablated), the parts of one position's logit of one
// target token laid out as the Overview draws them. A newer request or Cancel() drops the running one.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "model/attribution.h"
#include "session/latest_wins.h"
#include "session/model_session.h"

namespace attnviz {

struct AttributionRequest {
  ModelRequest model;  // the folder, text and what-ifs (the shown run's)
  int position = -1;   // -1: the last position
  int target = -1;     // -1: model::DefaultAttributionTarget
  bool operator==(const AttributionRequest& o) const {
    return model == o.model && position == o.position && target == o.target;
  }
  bool operator!=(const AttributionRequest& o) const { return !(*this == o); }
};

// The components of model::LogitAttribution as a grid: each layer's heads and its MLP, with the parts that belong to
// no head (the embeddings, each layer's attention bias, the final norm's bias) beside it.
struct AttributionGrid {
  int n_layer = 0, n_head = 0;
  std::vector<double> heads;      // [n_layer, n_head]
  std::vector<double> mlp;        // [n_layer]
  std::vector<double> attn_bias;  // [n_layer]; 0 where the projection has no bias
  bool has_attn_bias = false;
  double embed = 0, norm_bias = 0;
  double sum = 0;                 // every component added up (equals the logit up to rounding)
  double Head(int layer, int head) const { return heads[(size_t)layer * n_head + head]; }
  // The largest |value| of any cell the grid draws (embed and the biases included): the colour range is +-this.
  double MaxAbs() const;
};

// Lays out a's components on an n_layer x n_head grid.
AttributionGrid MakeAttributionGrid(const model::LogitAttribution& a, int n_layer, int n_head);

struct AttributionResult {
  uint64_t generation = 0;
  AttributionRequest request;
  Status status;
  int n = 0;  // the text's tokens
  model::LogitAttribution attribution;  // position and target resolved (never -1)
  AttributionGrid grid;
};

// The attribution of `request` now, on the caller's thread. Errors: PrepareModelRun's, AttributeLogit's (no LM head,
// a post-norm or masked LM: kAttributionPostNorm, position or target out of range, the run's);
// Status::Cancelled() when control's flag stopped it.
Result<AttributionResult> ComputeAttribution(const AttributionRequest& request, const RunControl& control = {});

class AttributionJob {
 public:
  explicit AttributionJob(std::function<void()> on_change = {});
  void Start(const AttributionRequest& request) { queue_.Submit(request); }
  void Cancel() { queue_.CancelRunning(); }
  std::shared_ptr<const AttributionResult> latest() const { return queue_.latest(); }
  bool busy() const { return queue_.busy(); }
  bool WaitIdle(double seconds) const { return queue_.WaitIdle(seconds); }

 private:
  using Queue = LatestWins<AttributionRequest, AttributionResult>;
  Queue queue_;
};

}  // namespace attnviz
