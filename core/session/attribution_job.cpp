#include "session/attribution_job.h"

#include <algorithm>
#include <cmath>

namespace attnviz {

double AttributionGrid::MaxAbs() const {
  double m = std::max(std::fabs(embed), std::fabs(norm_bias));
  for (double v : heads) m = std::max(m, std::fabs(v));
  for (double v : mlp) m = std::max(m, std::fabs(v));
  for (double v : attn_bias) m = std::max(m, std::fabs(v));
  return m;
}

AttributionGrid MakeAttributionGrid(const model::LogitAttribution& a, int n_layer, int n_head) {
  AttributionGrid g;
  g.n_layer = n_layer, g.n_head = n_head;
  g.heads.assign((size_t)n_layer * n_head, 0.0);
  g.mlp.assign((size_t)n_layer, 0.0);
  g.attn_bias.assign((size_t)n_layer, 0.0);
  for (const model::LogitComponent& c : a.components) {
    g.sum += c.value;
    const bool in_layer = c.layer >= 0 && c.layer < n_layer;
    switch (c.kind) {
      case model::ComponentKind::kEmbed: g.embed += c.value; break;
      case model::ComponentKind::kNormBias: g.norm_bias += c.value; break;
      case model::ComponentKind::kHead:
        if (in_layer && c.head >= 0 && c.head < n_head) g.heads[(size_t)c.layer * n_head + c.head] += c.value;
        break;
      case model::ComponentKind::kAttnBias:
        if (in_layer) g.attn_bias[(size_t)c.layer] += c.value, g.has_attn_bias = true;
        break;
      case model::ComponentKind::kMlp:
        if (in_layer) g.mlp[(size_t)c.layer] += c.value;
        break;
    }
  }
  return g;
}

Result<AttributionResult> ComputeAttribution(const AttributionRequest& request, const RunControl& control) {
  // 1. The request's run as the shown one is made (tokens, what-ifs, ablations).
  Result<PreparedRun> prepared = PrepareModelRun(request.model);
  if (!prepared) return prepared.status();
  const model::Model& model = *request.model.folder->model;
  const model::ModelConfig& c = model.config();
  AttributionResult out;
  out.request = request;
  out.n = (int)prepared->ids.size();
  const int position = request.position < 0 ? out.n - 1 : request.position;
  // 2. One run, no maps kept; a newer request stops it within one block.
  model::RunOptions& options = prepared->options;
  options.stream_maps = true;
  options.control.cancel = control.cancel;
  auto a = model::AttributeLogit(model, prepared->ids, position, request.target, options);
  if (!a) return a.status();
  if (control.cancelled()) return Status::Cancelled();
  out.attribution = std::move(*a);
  out.grid = MakeAttributionGrid(out.attribution, c.n_layer, c.n_head);
  return out;
}

AttributionJob::AttributionJob(std::function<void()> on_change)
    : queue_("attributing the logit",
             [](const AttributionRequest& r, const Queue::Job& job) -> std::shared_ptr<AttributionResult> {
               Result<AttributionResult> a = ComputeAttribution(r, job.Control());
               if (a.status().cancelled()) return nullptr;
               auto out = std::make_shared<AttributionResult>();
               if (a) *out = std::move(*a);
               else out->request = r, out->status = a.status();
               out->generation = job.generation();
               return out;
             },
             std::move(on_change)) {}

}  // namespace attnviz
