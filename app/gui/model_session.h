// The trained-model side of the app: opens a model folder and runs it off the UI thread, the way the
// Worker runs the sandbox. A newer request cancels the running one (RunModel checks the flag per layer
// and per block of rows), so only the latest settings finish; progress says which layer is running.
// Results are immutable and shared: every layer's probs is its own SharedTensor, never copied for the
// screen.
#pragma once
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "maps/layer_maps.h"
#include "attention/metrics.h"
#include "model_figure.h"
#include "model/roles.h"
#include "model_folder.h"
#include "sandbox/pipeline.h"
#include "base/status.h"
#include "base/tensor.h"
#include "sandbox/text.h"

namespace attnviz {

// What the user asks of a model: the text and the what-ifs.
struct ModelRequest {
  std::shared_ptr<const ModelFolder> folder;
  std::string text;
  bool no_scale = false;                 // what-if: drop 1/sqrt(d_head)
  float temperature = 1.0f;              // what-if: logits / T
  std::vector<int> whatif_layers;        // the layers the what-ifs act on; empty = all
  bool operator==(const ModelRequest& o) const {
    return folder == o.folder && text == o.text && no_scale == o.no_scale && temperature == o.temperature &&
           whatif_layers == o.whatif_layers;
  }
  bool operator!=(const ModelRequest& o) const { return !(*this == o); }
  ModelWhatIfs what_ifs() const { return {no_scale, temperature, whatif_layers}; }  // app/common/model_figure.h
};

constexpr int kThumbnailCells = 96;

struct ModelResult {
  uint64_t generation = 0;
  ModelRequest request;
  Status status;
  std::vector<tokenize::Token> tokens;        // as the model sees them
  // [n_layer]: each layer's maps (probs [n_head, n, n], row figures, mask, multiplier), as every room reads them.
  std::vector<std::shared_ptr<const LayerMaps>> layers;
  model::HeadRoles roles;                     // [n_layer, n_head]: what each head does (core/model/roles.h)
  // The overview's small maps: per layer [n_head, t, t], each head max-pooled to t = min(n, kThumbnailCells)
  // (core/maps ComposeView), made as the layers arrive, so the overview never uploads whole maps.
  std::vector<SharedTensor> thumbnails;
  double seconds = 0;
  int n_layer() const { return (int)layers.size(); }
};

class ModelSession {
 public:
  ModelSession();
  ~ModelSession();
  ModelSession(const ModelSession&) = delete;
  ModelSession& operator=(const ModelSession&) = delete;

  // Opens a folder in the background; opened() then has it (or the error).
  void Open(const std::string& dir);
  bool opening() const;
  // The folder last opened successfully, and the last open error in the UI's language ("" when it worked).
  std::shared_ptr<const ModelFolder> folder() const;
  std::string open_error() const;
  uint64_t open_generation() const;  // counts finished opens (the app notices a new folder by it)

  void Submit(const ModelRequest& request);
  std::shared_ptr<const ModelResult> latest() const;
  bool running() const;
  // "layer 3 of 12" while running, "" otherwise; fraction in [0, 1].
  std::string progress(float* fraction) const;
  bool WaitIdle(double seconds) const;  // tests

 private:
  void Serve();
  std::shared_ptr<ModelResult> Run(const ModelRequest& request, uint64_t generation);

  mutable std::mutex mutex_;
  mutable std::condition_variable wake_, idle_;
  bool stop_ = false;
  std::string open_pending_;
  bool open_requested_ = false, opening_ = false;
  std::shared_ptr<const ModelFolder> folder_;
  Status open_status_;
  uint64_t open_generation_ = 0;
  std::unique_ptr<ModelRequest> pending_;
  uint64_t submitted_ = 0, finished_ = 0;
  std::shared_ptr<const ModelResult> latest_;
  std::atomic<bool> cancel_{false};
  std::atomic<int> layer_done_{0}, layer_total_{0};
  std::thread thread_;
};

// One layer of a model result as the AttentionTensors the Heads and Export panels draw: its LayerMaps, shared
// tensors (nothing deep-copied); the sandbox-only numbers stay empty.
AttentionTensors LayerAsTensors(const ModelResult& result, int layer);
// The same with the special tokens' rows and columns left out when `hide_special` (then a copy).
AttentionTensors LayerForDisplay(const ModelResult& result, int layer, bool hide_special);
// Every layer's heads as one stack [n_layer * n_head, n, n] (map k = layer k / n_head, head k % n_head),
// for the overview figure: a copy, made by the export job off the UI thread.
AttentionTensors StackedLayers(const ModelResult& result, bool hide_special);
// Heads sharing one key/value head (grouped-query attention): query head h reads kv head GroupOf(h).
int KvGroupOf(const model::ModelConfig& config, int head);

}  // namespace attnviz
