#include "session/sandbox_session.h"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <new>

#include "base/parse_number.h"
#include "maps/score_codes.h"

namespace attnviz {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The request's tokens, or the texts tokenized now when the caller made none.
Result<std::shared_ptr<const TokenizedText>> TokensOf(const std::shared_ptr<const TokenizedText>& tokens,
                                                      const std::string& kv, const std::string& query) {
  if (tokens) return tokens;
  return TokenizeTexts(kv, query);
}

// Sets text and config only when they changed, so the pipeline's dirty tracking does the rest.
Status Configure(Pipeline* p, const ComputeRequest& request, const AttentionConfig& config) {
  const std::string& q = config.mode == AttentionMode::kCross ? request.query_text : std::string();
  if (p->kv_text() != request.kv_text || p->query_text() != q || p->first_dirty() == Stage::kEmbed) {
    auto tokens = TokensOf(request.tokens, request.kv_text, q);
    if (!tokens) return tokens.status();
    p->SetTokenized(**tokens);
  }
  if (p->config() != config) {
    Status st = p->SetConfig(config);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

}  // namespace

bool ComputeRequest::operator==(const ComputeRequest& o) const {
  return kv_text == o.kv_text && query_text == o.query_text && config == o.config && want_twin == o.want_twin;
}

std::shared_ptr<SandboxRun> MakeSandboxRun(uint64_t generation, const ComputeRequest& request, Status status,
                                           std::shared_ptr<const AttentionTensors> numbers,
                                           std::shared_ptr<const AttentionTensors> twin, double seconds) {
  auto run = std::make_shared<SandboxRun>();
  run->generation = generation;
  run->request = request;
  run->status = std::move(status);
  const StackKind kind = request.config.mode == AttentionMode::kCross ? StackKind::kCross : StackKind::kSelf;
  if (!run->status.ok() || !numbers) {
    run->stack = OneLayerStack(nullptr, kind);
    return run;
  }
  run->stack = OneLayerStack(numbers, kind);  // the layer is the numbers' own object: shared, no copy
  auto extras = std::make_shared<SandboxExtras>();
  extras->generation = generation;
  extras->config = request.config;
  extras->numbers = std::move(numbers);
  extras->twin = std::move(twin);
  extras->seconds = seconds;
  run->extras = std::move(extras);
  return run;
}

SweepRequest SweepRequest::For(const ComputeRequest& compute) {
  SweepRequest r;
  r.kv_text = compute.kv_text;
  r.query_text = compute.query_text;
  r.tokens = compute.tokens;
  r.base = compute.config;
  // What the sweep sets itself (it covers every d_k, scaled and unscaled, with its own heads and
  // values), so two requests that differ only there are equal.
  r.base.n_head = 1;
  r.base.d_k = r.base.d_v = 0;
  r.base.scale = true;
  r.base.qkv = QkvLayout::kFused;
  return r;
}

bool SweepRequest::operator==(const SweepRequest& o) const {
  return kv_text == o.kv_text && query_text == o.query_text && base == o.base;
}

SandboxSession::SandboxSession(std::unique_ptr<Pipeline> prepared, bool loaded_weights)
    : pipeline_(prepared ? std::move(prepared) : std::make_unique<Pipeline>()), twin_(std::make_unique<Pipeline>()) {
  if (loaded_weights) {
    twin_->SetLoadedWeights(pipeline_->params());
    loaded_weights_ = std::make_shared<const ProjectionWeights>(pipeline_->params());
  }
  // One set of score codes for both (their raw scores are the same): the twin, which runs after the first maps
  // are on screen, writes them; the main pipeline reads them on the next scaling, temperature or mask change.
  score_codes_ = std::make_shared<ScoreCodes>();
  pipeline_->UseScoreCodes(score_codes_, false);
  twin_->UseScoreCodes(score_codes_, true);
  // Tests and benchmarks move the pooled-mode threshold (map cells) to exercise long inputs cheaply.
  if (const char* env = std::getenv("ATTNVIZ_POOLED_ABOVE_CELLS")) {
    const Result<uint64_t> cells = ParseUnsigned64(env);  // not a plain number: ignored, as unset
    if (cells && *cells > 0) {
      pipeline_->set_pooled_above_cells((size_t)*cells);
      twin_->set_pooled_above_cells((size_t)*cells);
    }
  }
  compute_ = std::make_unique<ComputeQueue>(
      "computing", [this](const ComputeRequest& r, const ComputeQueue::Job& job) { return RunCompute(r, job); },
      [this] { QueuesChanged(); });
  sweep_ = std::make_unique<SweepQueue>(
      "computing", [this](const SweepRequest& r, const SweepQueue::Job& job) { return RunSweep(r, job); },
      [this] { QueuesChanged(); });
}

SandboxSession::~SandboxSession() {
  {
    std::lock_guard<std::mutex> lock(maps_mutex_);
    stopping_ = true;  // a sweep waiting for the maps goes on (and is cancelled by its queue's stop)
  }
  maps_changed_.notify_all();
  sweep_.reset();  // before the compute queue: the sweep reads its state
  compute_.reset();
}

void SandboxSession::QueuesChanged() {
  { std::lock_guard<std::mutex> lock(maps_mutex_); }  // orders the change before a waiter's predicate check
  maps_changed_.notify_all();
}

uint64_t SandboxSession::Submit(const ComputeRequest& request) { return compute_->Submit(request); }
uint64_t SandboxSession::SubmitSweep(const SweepRequest& request) { return sweep_->Submit(request); }
std::shared_ptr<const SandboxRun> SandboxSession::latest() const { return compute_->latest(); }
std::shared_ptr<const SweepResult> SandboxSession::latest_sweep() const { return sweep_->latest(); }
bool SandboxSession::computing() const { return compute_->busy(); }
bool SandboxSession::sweeping() const { return sweep_->busy(); }
uint64_t SandboxSession::submitted() const { return compute_->submitted(); }
uint64_t SandboxSession::finished() const { return compute_->finished(); }
uint64_t SandboxSession::cancelled() const { return compute_->cancelled(); }
uint64_t SandboxSession::sweeps_cancelled() const { return sweep_->cancelled(); }
size_t SandboxSession::blocks_after_cancel() const { return compute_->units_after_cancel(); }
JobProgress SandboxSession::progress() const { return compute_->progress(); }
JobProgress SandboxSession::sweep_progress() const { return sweep_->progress(); }

bool SandboxSession::WaitIdle(double seconds) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto left = [&] { return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count(); };
  // The compute queue first: a sweep may wait for its maps.
  return compute_->WaitIdle(std::max(0.0, left())) && sweep_->WaitIdle(std::max(0.0, left())) &&
         !compute_->busy();
}

void SandboxSession::WaitForMaps(const std::atomic<bool>* sweep_cancel) {
  std::unique_lock<std::mutex> lock(maps_mutex_);
  maps_changed_.wait_for(lock, std::chrono::seconds(30), [&] {
    if (stopping_ || sweep_cancel->load() || !compute_->running()) return true;
    const std::shared_ptr<const SandboxRun> shown = compute_->latest();
    return shown && shown->generation == compute_->submitted();
  });
}

std::shared_ptr<SandboxRun> SandboxSession::RunCompute(const ComputeRequest& request, const ComputeQueue::Job& job) {
  const uint64_t generation = job.generation();
  auto t0 = std::chrono::steady_clock::now();
  auto is_cancelled = [](const Status& st) { return st.cancelled(); };
  // A step of this request (or its end), published while the rest computes (shares every tensor: no copy).
  auto step = [&](bool with_twin) {
    return MakeSandboxRun(generation, request, Status::Ok(),
                          std::make_shared<const AttentionTensors>(pipeline_->tensors()),
                          with_twin ? std::make_shared<const AttentionTensors>(twin_->tensors()) : nullptr,
                          SecondsSince(t0));
  };
  auto failed = [&](Status st) {
    return MakeSandboxRun(generation, request, std::move(st), nullptr, nullptr, SecondsSince(t0));
  };
  AttentionConfig flipped = request.config;
  flipped.scale = !flipped.scale;
  // A scaling toggle whose twin is ready: swap the two pipelines and show it at once.
  const std::string& query = request.config.mode == AttentionMode::kCross ? request.query_text : std::string();
  if (twin_ready_ && twin_->config() == request.config && twin_->kv_text() == request.kv_text &&
      twin_->query_text() == query && (int)twin_->first_dirty() > (int)Stage::kMetrics) {
    std::swap(pipeline_, twin_);
    pipeline_->UseScoreCodes(score_codes_, false);  // the roles follow the swap (see the constructor)
    twin_->UseScoreCodes(score_codes_, true);
    job.Publish(step(true));
  }
  twin_ready_ = false;
  Status st = Configure(pipeline_.get(), request, request.config);
  if (!st.ok()) return failed(st);
  const RunControl control = job.Control();
  if (st.ok()) st = pipeline_->Run(Stage::kMetrics, &control);
  if (is_cancelled(st)) return nullptr;
  if (!st.ok()) return failed(st);
  const bool pooled = pipeline_->tensors().pooled;
  const bool twin_wanted = request.want_twin || pooled;
  // The twin may already hold the flipped settings (after a swap, or when only want_twin changed).
  bool has_twin = twin_ready_ || (twin_->config() == flipped && twin_->kv_text() == request.kv_text &&
                                  twin_->query_text() == query && (int)twin_->first_dirty() > (int)Stage::kMetrics &&
                                  twin_->run_count(Stage::kEmbed) > 0);
  has_twin = has_twin && twin_wanted;
  job.Publish(step(has_twin));  // the maps and figures: on screen now
  if (twin_wanted && !has_twin) {
    Status twin = Configure(twin_.get(), request, flipped);
    const RunControl twin_control = job.Control("other scaling: ");
    if (twin.ok()) twin = twin_->Run(Stage::kMetrics, &twin_control);
    if (is_cancelled(twin)) return nullptr;
    has_twin = twin.ok();
    if (has_twin) job.Publish(step(true));
  }
  twin_ready_ = has_twin;
  const RunControl output_control = job.Control();
  st = pipeline_->Run(Stage::kOutput, &output_control);
  if (is_cancelled(st)) return nullptr;
  if (!st.ok()) return failed(st);
  return step(has_twin);
}

std::shared_ptr<SweepResult> SandboxSession::RunSweep(const SweepRequest& request, const SweepQueue::Job& job) {
  const uint64_t generation = job.generation();
  auto t0 = std::chrono::steady_clock::now();
  auto result = std::make_shared<SweepResult>();
  result->generation = generation;
  result->request = request;
  const bool cross = request.base.mode == AttentionMode::kCross;
  auto tokens = TokensOf(request.tokens, request.kv_text, cross ? request.query_text : std::string());
  if (!tokens) {
    result->status = tokens.status();
    return result;
  }
  const TokenizedText& text = **tokens;
  // The sweep attnviz-cli runs too (long inputs: sampled rows and one seed).
  SweepOptions options = StandardSweepOptions((cross ? text.query_tokens : text.kv_tokens).size());
  options.control = job.Control();
  // The maps come first: on 2 cores a sweep running beside the attention pass would halve its speed. Once the
  // newest request's maps are on screen (its first published step), the sweep runs beside its twin and z.
  options.before_unit = [this, cancel = options.control.cancel] { WaitForMaps(cancel); };
  Result<std::vector<SweepPoint>> points =
      SweepDk(cross ? text.query_tokens : text.kv_tokens, text.kv_tokens, request.base, options);
  if (!points && points.status().cancelled()) return nullptr;
  if (points) result->points = *points;
  else result->status = points.status();
  result->seconds = SecondsSince(t0);
  return result;
}

}  // namespace attnviz
