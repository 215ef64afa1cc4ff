#include "worker.h"

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

std::string CurrentExceptionMessage(const std::string& job) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return job + ": out of memory";
  } catch (const std::exception& e) {
    return job + " failed: " + e.what();
  } catch (...) {
    return job + " failed: an unknown error";
  }
}

Status RunGuarded(const std::string& what, const std::function<Status()>& job) {
  try {
    return job();
  } catch (...) {
    return Status::Error(CurrentExceptionMessage(what));
  }
}

Worker::Worker(std::unique_ptr<Pipeline> prepared, bool loaded_weights)
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
  compute_thread_ = std::thread([this] { Serve(&compute_, [this](auto& r, uint64_t g) { return RunCompute(r, g); }); });
  sweep_thread_ = std::thread([this] { Serve(&sweep_, [this](auto& r, uint64_t g) { return RunSweep(r, g); }); });
}

Worker::~Worker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    compute_.cancel.store(true);
    sweep_.cancel.store(true);
  }
  wake_.notify_all();
  idle_.notify_all();
  compute_thread_.join();
  sweep_thread_.join();
}

template <typename Request, typename ResultT>
uint64_t Worker::Enqueue(Lane<Request, ResultT>* lane, const Request& request) {
  std::lock_guard<std::mutex> lock(mutex_);
  lane->pending = std::make_unique<Request>(request);
  ++lane->submitted;
  if (lane->running && !lane->cancel.exchange(true)) lane->done_at_cancel = lane->done.load();  // superseded: stop it
  wake_.notify_all();
  idle_.notify_all();  // a sweep waiting for the maps sees its cancel
  return lane->submitted;
}

uint64_t Worker::Submit(const ComputeRequest& request) { return Enqueue(&compute_, request); }
uint64_t Worker::SubmitSweep(const SweepRequest& request) { return Enqueue(&sweep_, request); }

std::shared_ptr<const ComputeResult> Worker::latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return compute_.latest;
}

std::shared_ptr<const SweepResult> Worker::latest_sweep() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sweep_.latest;
}

bool Worker::computing() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return compute_.finished != compute_.submitted;
}

bool Worker::sweeping() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sweep_.finished != sweep_.submitted;
}

uint64_t Worker::submitted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return compute_.submitted;
}

uint64_t Worker::finished() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return compute_.finished;
}

uint64_t Worker::cancelled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return compute_.cancelled;
}

uint64_t Worker::sweeps_cancelled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sweep_.cancelled;
}

size_t Worker::blocks_after_cancel() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return compute_.blocks_after_cancel;
}

template <typename Request, typename ResultT>
WorkerProgress Worker::ProgressOf(const Lane<Request, ResultT>& lane) {
  WorkerProgress p;
  p.active = lane.running;
  if (!p.active) return p;
  p.stage = std::string(lane.phase.load()) + lane.stage.load();
  const size_t total = lane.total.load(), done = lane.done.load();
  p.fraction = total ? std::min(1.0, (double)done / (double)total) : 0.0;
  return p;
}

WorkerProgress Worker::progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ProgressOf(compute_);
}

WorkerProgress Worker::sweep_progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ProgressOf(sweep_);
}

template <typename Request, typename ResultT>
RunControl Worker::ControlFor(Lane<Request, ResultT>* lane, const char* phase) {
  lane->phase.store(phase);
  RunControl control;
  control.cancel = &lane->cancel;
  control.progress = [lane](const char* stage, size_t done, size_t total) {
    lane->stage.store(stage);
    lane->total.store(total);
    // Blocks finish out of order across threads: keep the largest count seen.
    size_t seen = lane->done.load();
    while (done > seen && !lane->done.compare_exchange_weak(seen, done)) {
    }
    if (done < seen && done == 0) lane->done.store(0);
  };
  return control;
}

void Worker::PublishStep(std::shared_ptr<const ComputeResult> step) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    compute_.latest = std::move(step);
  }
  idle_.notify_all();  // the sweep waits for the maps (RunSweep)
}

bool Worker::WaitIdle(double seconds) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return idle_.wait_for(lock, std::chrono::duration<double>(seconds), [this] {
    return compute_.finished == compute_.submitted && sweep_.finished == sweep_.submitted;
  });
}

template <typename Request, typename ResultT, typename RunFn>
void Worker::Serve(Lane<Request, ResultT>* lane, RunFn run) {
  for (;;) {
    Request request;
    uint64_t generation = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || lane->pending; });
      if (stop_) return;
      request = std::move(*lane->pending);
      lane->pending.reset();
      generation = lane->submitted;
      lane->running = true;
      lane->cancel.store(false);
      lane->done.store(0);
      lane->total.store(0);
    }
    std::shared_ptr<ResultT> result;
    try {
      result = run(request, generation);
    } catch (...) {  // e.g. std::bad_alloc: a message for the user, never the end of the app
      result = std::make_shared<ResultT>();
      result->generation = generation;
      result->request = request;
      result->status = Status::Error(CurrentExceptionMessage("computing"));
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      lane->running = false;
      if (!result) {  // cancelled by a newer request: never shown
        ++lane->cancelled;
        const size_t done = lane->done.load();
        lane->blocks_after_cancel = done > lane->done_at_cancel ? done - lane->done_at_cancel : 0;
        if (lane->finished < generation) lane->finished = generation;
        idle_.notify_all();
        continue;
      }
      lane->latest = std::move(result);
      // Newer submissions keep computing()/sweeping() true until their own result lands.
      if (lane->finished < generation) lane->finished = generation;
    }
    idle_.notify_all();
  }
}

std::shared_ptr<ComputeResult> Worker::RunCompute(const ComputeRequest& request, uint64_t generation) {
  auto t0 = std::chrono::steady_clock::now();
  auto result = std::make_shared<ComputeResult>();
  result->generation = generation;
  result->request = request;
  auto is_cancelled = [](const Status& st) { return st.cancelled(); };
  // A step of this request, published while the rest computes (shares every tensor: no copy).
  auto step = [&](bool with_twin) {
    auto r = std::make_shared<ComputeResult>(*result);
    r->tensors = pipeline_->tensors();
    if (with_twin) {
      r->twin = twin_->tensors();
      r->has_twin = true;
    }
    r->seconds = SecondsSince(t0);
    return r;
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
    PublishStep(step(true));
  }
  twin_ready_ = false;
  Status st = Configure(pipeline_.get(), request, request.config);
  if (!st.ok()) {
    result->status = st;
    result->seconds = SecondsSince(t0);
    return result;
  }
  RunControl control = ControlFor(&compute_, "");
  if (st.ok()) st = pipeline_->Run(Stage::kMetrics, &control);
  if (is_cancelled(st)) return nullptr;
  if (!st.ok()) {
    result->status = st;
    result->seconds = SecondsSince(t0);
    return result;
  }
  const bool pooled = pipeline_->tensors().pooled;
  const bool twin_wanted = request.want_twin || pooled;
  // The twin may already hold the flipped settings (after a swap, or when only want_twin changed).
  bool has_twin = twin_ready_ || (twin_->config() == flipped && twin_->kv_text() == request.kv_text &&
                                  twin_->query_text() == query && (int)twin_->first_dirty() > (int)Stage::kMetrics &&
                                  twin_->run_count(Stage::kEmbed) > 0);
  has_twin = has_twin && twin_wanted;
  PublishStep(step(has_twin));  // the maps and figures: on screen now
  if (twin_wanted && !has_twin) {
    Status twin = Configure(twin_.get(), request, flipped);
    RunControl twin_control = ControlFor(&compute_, "other scaling: ");
    if (twin.ok()) twin = twin_->Run(Stage::kMetrics, &twin_control);
    if (is_cancelled(twin)) return nullptr;
    has_twin = twin.ok();
    if (has_twin) PublishStep(step(true));
  }
  twin_ready_ = has_twin;
  RunControl output_control = ControlFor(&compute_, "");
  st = pipeline_->Run(Stage::kOutput, &output_control);
  if (is_cancelled(st)) return nullptr;
  if (!st.ok()) {
    result->status = st;
    result->seconds = SecondsSince(t0);
    return result;
  }
  result->tensors = pipeline_->tensors();
  if (has_twin) {
    result->twin = twin_->tensors();
    result->has_twin = true;
  }
  result->seconds = SecondsSince(t0);
  return result;
}

std::shared_ptr<SweepResult> Worker::RunSweep(const SweepRequest& request, uint64_t generation) {
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
  options.cancel = &sweep_.cancel;
  sweep_.phase.store("");
  // The maps come first: on 2 cores a sweep running beside the attention pass would halve its speed. Once the
  // newest request's maps are on screen (its first published step), the sweep runs beside its twin and z.
  options.before_unit = [this] {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait_for(lock, std::chrono::seconds(30), [this] {
      const bool maps_shown = compute_.latest && compute_.latest->generation == compute_.submitted;
      return stop_ || !compute_.running || maps_shown || sweep_.cancel.load();
    });
  };
  options.progress = [this](size_t done, size_t total) {
    sweep_.stage.store("d_k sweep");
    sweep_.done.store(done);
    sweep_.total.store(total);
  };
  Result<std::vector<SweepPoint>> points =
      SweepDk(cross ? text.query_tokens : text.kv_tokens, text.kv_tokens, request.base, options);
  if (!points && points.status().cancelled()) return nullptr;
  if (points) result->points = *points;
  else result->status = points.status();
  result->seconds = SecondsSince(t0);
  return result;
}

}  // namespace attnviz
