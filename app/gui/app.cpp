#include "app.h"
#include "widgets.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "data_dir.h"
#include "i18n/help_ko.h"
#include "i18n/app_messages.h"
#include "i18n/localized.h"
#include "io/json.h"
#include "lesson_show.h"

namespace attnviz {

std::string FormatNumber(double value, const char* format) {
  if (!std::isfinite(value)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  // A zero is written without a sign: -|q - k| of equal lengths is -0.0f, and "-0" (or "-0.00" for -0.001)
  // reads as a number below zero.
  std::string text = buf;
  if (!text.empty() && text[0] == '-') {
    const std::string mantissa = text.substr(1, text.find_first_of("eE") - 1);
    if (mantissa.find_first_not_of("0.") == std::string::npos) text.erase(0, 1);  // only zeros shown
    if (text[0] != '-' && std::strchr(format, '+')) text.insert(0, "+");
  }
  return text;
}

float FaintMapsPeak(const std::vector<HeadMetrics>& metrics, ColorScale scale, bool auto_range) {
  if (scale != ColorScale::kLinear || auto_range || metrics.empty()) return 0;
  float peak = 0;
  for (const HeadMetrics& m : metrics) peak = std::max(peak, m.max_weight);
  return peak > 0 && peak < kFaintMapsPeak ? peak : 0;
}

std::string ShortExponent(double value) {
  if (value == 0.0) return "0";
  std::string text = FormatNumber(value, "%.0e");  // "6e-07"
  const size_t e = text.find('e');
  if (e == std::string::npos) return text;
  size_t digits = e + 1;
  if (digits < text.size() && (text[digits] == '-' || text[digits] == '+')) ++digits;
  while (digits + 1 < text.size() && text[digits] == '0') text.erase(digits, 1);
  if (text[e + 1] == '+') text.erase(e + 1, 1);
  return text;
}

// ---------------------------------------------------------------- options

namespace {
// The app's own options (after the shared ones); the Korean text is help_ko.cpp's.
const char* const kAppOptionsHelp =
    "\nApp options:\n"
    "  --model DIR|FILE.gguf|tiny\n"
    "                        open a trained model folder (config.json, model.safetensors, tokenizer files) or\n"
    "                        a .gguf file ({gguf_types}); tiny: the bundled model\n"
    "  --shader-dir DIR      where heatmap.vert and heatmap.frag live (default: <prefix>/share/attnviz/shaders\n"
    "                        beside the executable, or the source tree's from the build folder; --print-paths)\n"
    "  --screenshot FILE     save the window as PNG (or .ppm) after --frames frames, then exit\n"
    "  --frames N            exit after N frames (counted once the first results are on screen)\n"
    "  --widgets-json FILE   write named widget rectangles and values there every frame (tests)\n"
    "  --snapshot-path FILE  on SIGUSR1, save a screenshot there (PNG or .ppm)\n"
    "  --bench-frames N      frame-time benchmark (N frames a phase), prints a table and exits\n"
    "  --no-settings         neither restore nor save settings\n"
    "  --lang en|ko          the UI language (default: the saved choice, else ko when LC_ALL, LC_MESSAGES\n"
    "                        or LANG starts with ko)\n"
    "  --lesson a..g         open at that lesson: its knobs set, its evidence shown, its text beside it\n"
    "  --print-paths         print where the shaders, samples and bundled model are read from, then exit\n"
    "  --version             print the version, then exit\n"
    "Keys: Left/Right cycle heads, S toggles sqrt(d_k) scaling, Ctrl+Q quits.\n";
}  // namespace

std::string AppOptionsHelp() {
  return std::string(HelpText(Help::kAppHead, "usage: attnviz [options] [FILE] [MODEL_DIR]\n"
                                              "Text and attention settings (the same as attnviz-cli):\n")) +
         HelpText(Help::kInputOptions, InputOptionsHelp().c_str()) +
         WithModelTypes(HelpText(Help::kAppOptions, kAppOptionsHelp));
}

Status ParseAppOptions(const std::vector<std::string>& args, AppOptions* options) {
  for (size_t i = 0; i < args.size(); ++i) {
    Status error;
    bool consumed = ParseInputOption(args, &i, &options->input, &error);
    if (!error.ok()) return error;
    if (consumed) continue;
    const std::string& a = args[i];
    // --version, --print-paths: print and exit, before any window (help2man and the install tests use them).
    if (std::string info = InfoOptionText("attnviz", a); !info.empty()) {
      std::fputs(info.c_str(), stdout);
      std::exit(0);
    }
    constexpr bool kPath = true;  // a file or folder: "~" expanded (options.h ExpandHome)
    auto take = [&](std::string* out, bool path = false) -> Status {
      Result<std::string> v = path ? TakePathValue(args, &i) : TakeValue(args, &i);
      if (!v) return v.status();
      *out = *v;
      return Status::Ok();
    };
    auto take_int = [&](int* out, int lo, int hi) -> Status {
      Result<std::string> v = TakeValue(args, &i);
      if (!v) return v.status();
      Result<int> n = ParseIntValue(a, *v, lo, hi);
      if (!n) return n.status();
      *out = *n;
      return Status::Ok();
    };
    Status st;
    if (a == "--shader-dir") st = take(&options->shader_dir, kPath);
    else if (a == "--model") {
      st = take(&options->input.model_dir, kPath);
      if (st.ok() && options->input.model_dir.empty()) st = AppError(AppMsgId::kModelEmpty, {});  // not "no model"
    }
    else if (a == "--screenshot") st = take(&options->screenshot_path, kPath);
    else if (a == "--frames") st = take_int(&options->frames, 1, 1000000);
    else if (a == "--widgets-json") st = take(&options->widgets_json_path, kPath);
    else if (a == "--snapshot-path") st = take(&options->snapshot_path, kPath);
    else if (a == "--bench-frames") st = take_int(&options->bench_frames, 1, 100000);
    else if (a == "--no-settings") options->no_settings = true;
    else if (a == "--lang") {
      Lang lang;
      st = take(&options->lang);
      if (st.ok() && !ParseLang(options->lang, &lang))
        st = Status::Error("--lang: '" + CappedValue(options->lang) + "' is not a language: allowed en, ko");
      if (st.ok()) options->lang = ToString(lang);
    }
    else if (a == "--lesson") {
      Lesson lesson;
      st = take(&options->lesson);
      if (st.ok() && !ParseLessonLetter(options->lesson, &lesson)) st = Status::Error(Trf(Str::kAppBadLesson, {CappedValue(options->lesson)}));
    }
    else if (a == "--help" || a == "-h") options->help = true;
    else st = Status::Error(Trf(Str::kAppUnknownOption, {CappedValue(a)}));
    if (!st.ok()) return st;
  }
  if (!options->screenshot_path.empty() && options->frames == 0) options->frames = 3;
  return Status::Ok();
}

// ---------------------------------------------------------------- app

App::App(const AppSettings& restored, const AppOptions& opts, std::unique_ptr<Pipeline> prepared)
    : settings(restored), options(opts) {
  bool loaded_weights = prepared && !opts.input.weights_dir.empty();
  worker = std::make_unique<SandboxSession>(std::move(prepared), loaded_weights);
  const InputOptions& in = options.input;
  settings.config = in.config;
  dump.set_enabled(!options.widgets_json_path.empty());
  std::string text_file_abs = in.text_file;
  if (char* resolved = in.text_file.empty() ? nullptr : realpath(in.text_file.c_str(), nullptr)) {
    text_file_abs = resolved;
    std::free(resolved);
  }
  bool restored_text = !restored.kv_text.empty() && restored.sentence_file == text_file_abs;
  if (!in.text_file.empty()) {
    Status st = OpenSentenceFile(in.text_file);
    if (st.ok()) {
      int pick = -1;  // --line was checked by ResolveInputText in main: it names an item
      for (size_t i = 0; i < views.sentences.items.size(); ++i)
        if (in.line > 0 && views.sentences.items[i].line == in.line) pick = (int)i;
      if (pick < 0 && !restored_text && !views.sentences.items.empty()) pick = 0;
      if (pick >= 0) SelectSentence(pick);
    }
  } else if (!settings.sentence_file.empty()) {
    Status st = OpenSentenceFile(settings.sentence_file);
    if (!st.ok()) views.sentences.message = st;
  }
  if (!in.text.empty()) settings.kv_text = in.text;
  // Settings saved by older versions carry their default query, a sentence the user never typed.
  if (settings.config.mode == AttentionMode::kSelf && settings.query_text == "Ich gehe nach Hause.") settings.query_text.clear();
  if (!in.query_text.empty()) {
    settings.query_text = in.query_text;
    settings.config.mode = AttentionMode::kCross;
  }
  views.sentences.path_input = settings.sentence_file;
  if (!options.lang.empty()) settings.lang = options.lang;  // an explicit --lang is remembered
  Lang lang = LangFromEnvironment();
  if (!settings.lang.empty()) ParseLang(settings.lang, &lang);
  SetLang(lang);
  settings.selected_head = std::clamp(settings.selected_head, 0, kMaxHeads - 1);
  InitModels();
  if (Lesson lesson; ParseLessonLetter(options.lesson, &lesson)) {  // --lesson: a teacher's link to one lesson
    ShowLesson(lesson);
  }
}

Status App::OpenSentenceFile(const std::string& typed_path) {
  const std::string path = ExpandHome(typed_path);  // "~/x" typed into the path field
  Result<std::vector<SentenceItem>> items = LoadSentenceFile(path);
  if (!items) {
    views.sentences.message = items.status();
    views.sentences.error = true;
    return items.status();
  }
  // Remember the absolute path, so the recent-files list works from any folder.
  std::string absolute = path;
  if (char* resolved = realpath(path.c_str(), nullptr)) {
    absolute = resolved;
    std::free(resolved);
  }
  views.sentences.items = *items;
  views.sentences.selected = -1;
  settings.sentence_file = absolute;
  settings.AddRecentFile(absolute);
  views.sentences.path_input = absolute;
  views.sentences.message = UiMessage(Str::kLoadedSentencesFrom, {std::to_string(views.sentences.items.size()), path});
  views.sentences.error = false;
  for (const SentenceItem& item : views.sentences.items) {
    fonts.AddText(item.kv_text);
    fonts.AddText(item.query_text);
  }
  return Status::Ok();
}

void App::SelectSentence(int index) {
  if (index < 0 || index >= (int)views.sentences.items.size()) return;
  const SentenceItem& item = views.sentences.items[(size_t)index];
  views.sentences.selected = index;
  settings.kv_text = item.kv_text;
  if (item.is_cross()) {
    settings.query_text = item.query_text;
    settings.config.mode = AttentionMode::kCross;
  } else {
    settings.config.mode = AttentionMode::kSelf;
  }
}

void App::ShowLesson(Lesson lesson, LessonPart part) {
  LessonStage stage{settings, views};
  stage.bundled_model_dir = bundled_model_dir;
  std::shared_ptr<const ModelFolder> open = models->folder();
  stage.bundled_model_open = open && open->dir == bundled_model_dir && !models->opening();
  stage.bundled_seq2seq_dir = bundled_seq2seq_dir;
  stage.open_model = [this](const std::string& dir) { OpenModel(dir); };
  stage.set_source = [this](Source source) { SetSource(source); };
  attnviz::ShowLesson(lesson, stage, part);
}

void App::SetLanguage(Lang lang) {
  settings.lang = ToString(lang);
  SetLang(lang);
}

LearnTabDrawers App::LearnTabs() {
  LearnTabDrawers tabs;
  tabs.numbers = [this] { DrawNumbersPanel(*this); };
  tabs.lessons = [this] { DrawLessonsPanel(*this); };
  tabs.dictionary = [this] { DrawDictionaryPanel(*this); };
  tabs.variance = [this] { DrawVariancePanel(*this); };
  tabs.lesson_beside = [this] { DrawLessonBeside(*this); };
  return tabs;
}

void DrawLanguageSwitch(PanelContext& ctx) {
  const Lang now = CurrentLang();
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("English").x + ImGui::GetFrameHeight() * 2.0f);
  Lang lang = now;
  const Lang langs[] = {Lang::kEn, Lang::kKo};
  if (widget::Combo(ctx.dump, Str::kLanguage, "language", &lang, langs, [](Lang l) { return LangName(l); },
                    [](Lang l) { return ToString(l); }))
    ctx.verbs.SetLanguage(lang);
}

void App::ToggleScaling() {
  // Only scaled-dot is divided: under another score the checkbox is disabled, and so is its key (a flip there would
  // change nothing on screen but the setting kept for scaled-dot).
  if (!ScalingActs()) return;
  if (settings.source == Source::kModel) settings.model_no_scale = !settings.model_no_scale;  // the model's what-if
  else settings.config.scale = !settings.config.scale;
}

int App::QueryKeyWidth() const { return attnviz::QueryKeyWidth(settings, results); }

std::vector<int> App::VisibleHeads() const { return attnviz::VisibleHeads(settings, results); }

void App::CycleHead(int direction) {
  int n_head = results.shown && results.shown->maps ? results.shown->maps->n_head() : settings.config.n_head;
  if (n_head <= 0) return;
  int h = settings.selected_head;
  for (int step = 0; step < n_head; ++step) {
    h = ((h + direction) % n_head + n_head) % n_head;
    if (settings.head_visible(h)) break;
  }
  settings.selected_head = h;
}

ColorRange App::RangeFor(const std::vector<int>& heads, bool twin) const {
  const bool weighted = results.shown && KindHasOwnRange(results.shown->model != nullptr || Seq2SeqShown(), results.shown->kind);
  if ((!settings.auto_range && !weighted) || !results.shown || !results.shown->maps) return ColorRange{};
  const SandboxExtras* sandbox = results.shown->sandbox.get();
  const LayerMaps& t = twin && sandbox && sandbox->twin ? *sandbox->twin : *results.shown->maps;
  // Keyed by the tensors too: a request publishes in steps (maps, twin, z) under one generation.
  std::string key = std::to_string(results.shown->generation) + (twin ? "t" : "m") +
                    std::to_string((uintptr_t)t.pyramid.get());
  for (int h : heads) key += "," + std::to_string(h);
  if (key == range_key_) return range_value_;
  ColorRange range;
  bool first = true;
  size_t plane = (size_t)t.n_q() * (size_t)t.n_k();
  for (int h : heads) {
    if (h < 0 || h >= t.n_head()) continue;
    // Long inputs keep no full map: the pyramid's range of the head (panel_heads draws pooled views).
    ColorRange r = t.probs->empty() && t.pyramid ? ColorRange{t.pyramid->head_min(h), t.pyramid->head_max(h)}
                                                 : AutoRange(t.probs->data.data() + (size_t)h * plane, plane);
    if (first) range = r;
    else range = ColorRange{std::min(range.lo, r.lo), std::max(range.hi, r.hi)};
    first = false;
  }
  range_key_ = key;
  range_value_ = range;
  return range;
}

ComputeRequest App::BuildRequest() {
  ComputeRequest r;
  r.kv_text = settings.kv_text;
  r.query_text = settings.config.mode == AttentionMode::kCross ? settings.query_text : std::string();
  r.config = settings.config;
  r.want_twin = settings.side_by_side && ScalingActs();  // no twin of a score never divided: the same maps
  // Tokenized once per text; the forward pass, its twin and the results.sweep share the tokens.
  if (!tokenized_ || tokenized_->kv_text != r.kv_text || tokenized_->query_text != r.query_text) {
    auto made = TokenizeTexts(r.kv_text, r.query_text);
    tokenized_ = made ? *made : nullptr;  // null: the worker tokenizes and reports the error
  }
  r.tokens = tokenized_;
  return r;
}

void App::SubmitIfChanged() {
  // Cross mode starts from the user's own sentence (queries = keys/values), not an unrelated one.
  if (settings.config.mode == AttentionMode::kCross && settings.query_text.empty()) settings.query_text = settings.kv_text;
  if (settings.source == Source::kModel) {  // the sandbox worker rests while a model is results.shown
    if (Seq2SeqShown()) SubmitSeq2SeqIfChanged();
    else SubmitModelIfChanged();
    return;
  }
  Status valid = Validate(settings.config);
  if (valid.ok() && !std::isfinite(settings.config.temperature)) valid = AppError(AppMsgId::kTemperatureNotFinite, {});
  if (!valid.ok()) {
    results.config_error = valid;
    return;
  }
  results.config_error.clear();
  ComputeRequest request = BuildRequest();
  if (!submitted_once_ || request != last_request_) {
    worker->Submit(request);
    last_request_ = request;
    submitted_once_ = true;
  }
  SweepRequest sweep_request = SweepRequest::For(request);
  if (!sweep_submitted_once_ || sweep_request != last_sweep_request_) {
    worker->SubmitSweep(sweep_request);
    last_sweep_request_ = sweep_request;
    sweep_submitted_once_ = true;
  }
}

void App::StartExport(const std::string& path, std::function<Status()> job) {
  export_job_path_ = path;
  views.export_panel.message = UiMessage(Str::kExportingPath, {path});
  views.export_panel.ok = false;
  views.export_panel.path_written.clear();
  // An exception in the job (e.g. std::bad_alloc for a huge figure) becomes the export's message.
  export_job_ = std::async(std::launch::async, [job = std::move(job)] { return RunGuarded("export", job); });
}

void App::Update() {
  if (export_job_.valid() && export_job_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    Status st = export_job_.get();
    views.export_panel.ok = st.ok();
    views.export_panel.path_written = st.ok() ? export_job_path_ : "";
    views.export_panel.message = st.ok() ? UiMessage(Str::kWrote, {export_job_path_}) : UiMessage(Str::kExportFailed, {st});
    views.export_panel.note = st.ok() && views.export_panel.pending ? *views.export_panel.pending
                                                                    : ExportPanelView::CellNote();
    views.export_panel.pending.reset();
  }
  for (const std::string& path : pending_drops) {
    if (IsModelFolder(path)) {  // a dropped model folder or .gguf file opens as a model
      OpenModel(path);
      continue;
    }
    Status st = OpenSentenceFile(path);
    if (st.ok() && !views.sentences.items.empty()) SelectSentence(0);
  }
  pending_drops.clear();

  std::shared_ptr<const SandboxRun> now = worker->latest();
  if (now && now != results.latest) {
    results.latest = now;
    if (now->status.ok()) {
      sandbox_shown_ = ShownSandbox(*now, ++view_generation_);
      if (settings.source == Source::kSandbox) results.shown = sandbox_shown_;
      results.compute_error.clear();
    } else {
      results.compute_error = now->status;
    }
  }
  std::shared_ptr<const SweepResult> now_sweep = worker->latest_sweep();
  if (now_sweep && now_sweep != results.sweep) {
    if (now_sweep->status.ok()) {
      results.sweep = now_sweep;
      results.sweep_error.clear();
    } else {
      results.sweep_error = now_sweep->status;
    }
  }
  std::string text = settings.kv_text + "\n" + settings.query_text;
  if (text != checked_text_) {
    fonts.AddText(text);
    checked_text_ = text;
  }
  if (Seq2SeqShown()) UpdateSeq2Seq();
  else UpdateModel();
  SubmitIfChanged();
  results.computing = worker->computing();
  results.sweeping = worker->sweeping();
}

bool App::Ready() const {
  if (fonts.dirty()) return false;
  if (Seq2SeqShown())
    return !seq2seqs->busy() && ((results.seq2seq && results.seq2seq->complete()) || !results.seq2seq_error.empty());
  if (settings.source == Source::kModel) {
    if (models->opening() || models->running() || models->making_exact_rows() || models->making_weighted_overview())
      return false;
    return (results.model && results.model->complete()) || !results.model_error.empty() ||
           !results.config_error.empty() || !models->open_status().ok();
  }
  return (results.shown || !results.compute_error.empty()) && !results.computing && !results.sweeping;
}

bool App::Busy() const {
  return results.computing || results.sweeping || exporting() || models->opening() || models->running() ||
         models->making_exact_rows() || models->making_weighted_overview() || (scans && scans->busy()) || (lenses && lenses->busy()) ||
         (attributions && attributions->busy()) || (patchings && patchings->busy()) || fonts.dirty() || !pending_drops.empty() ||
         views.learn.variance_job.valid() || (seq2seqs && seq2seqs->busy()) ||
         (seq2seq_jobs && (seq2seq_jobs->neuron_busy() || seq2seq_jobs->kind_busy() || seq2seq_jobs->scan_busy())) ||
         (kind_layers_pending_ && kind_budget_frame_ + 1 >= frame);  // layers left for the next frame (app.h)
}

App::ShownState App::Shown() const {
  ShownState s{results.model.get(), results.shown.get(), results.sweep.get(), models->weighted_overview().get(), Busy()};
  if (results.model) s.model_layers = results.model->layers_done, s.model_complete = results.model->complete();
  return s;
}

void App::Draw(HeatmapRenderer& renderer) {
  ImGuiIO& io = ImGui::GetIO();
  dump.BeginFrame(frame);

  // Keys: only when no text field has the keyboard.
  if (!io.WantTextInput) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) CycleHead(-1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) CycleHead(+1);
    if (!io.KeyCtrl && ImGui::IsKeyPressed('S', false)) ToggleScaling();
  }
  if (io.KeyCtrl && ImGui::IsKeyPressed('Q', false)) quit_requested = true;
  if (io.KeyCtrl && ImGui::IsKeyPressed('0', false)) layout.RequestReset();

  // The menu bar, then the panels laid out in the rest of the window (layout.h).
  float menu_height = 0.0f;
  if (!bench_heads_only) {
    SandboxPanelContext menu = SandboxPanelContextFor();
    menu_height = DrawMenuBar(menu);
  }
  layout.BeginFrame(PanelRect{0.0f, menu_height, io.DisplaySize.x, io.DisplaySize.y - menu_height});

  // The panels that take a context get a fresh one each: what an earlier panel changed this frame shows in the next.
  auto with_context = [&](void (*draw)(PanelContext&), HeatmapRenderer* maps) {
    PanelContext ctx = PanelContextFor(maps);
    draw(ctx);
  };
  auto with_sandbox_context = [&](void (*draw)(SandboxPanelContext&)) {
    SandboxPanelContext ctx = SandboxPanelContextFor();
    draw(ctx);
  };
  if (bench_heads_only) {
    with_context(DrawHeadsPanel, &renderer);
  } else {
    // The sandbox's panels, or in their places the trained model's (Model for Controls, Overview for
    // Saturation); Sentences, Heads, Shapes and Export serve both.
    const bool model = settings.source == Source::kModel;
    const bool seq2seq = Seq2SeqShown();  // an encoder-decoder model: its own Model panel and Overview
    with_context(seq2seq ? DrawSeq2SeqModelPanel : model ? DrawModelPanel : DrawControlsPanel, nullptr);
    with_sandbox_context(DrawSentencesPanel);
    with_context(DrawHeadsPanel, &renderer);
    {
      PanelContext ctx = PanelContextFor(nullptr);
      DrawShapesPanel(ctx, LearnTabs());
    }
    if (seq2seq) with_context(DrawSeq2SeqOverviewPanel, &renderer);
    else if (model) with_context(DrawOverviewPanel, &renderer);
    else with_sandbox_context(DrawSaturationPanel);
    with_context(DrawExportPanel, nullptr);
    if (model) with_context(DrawNeuronPanel, nullptr);
  }
  layout.KeepPanelsInside(dump.enabled() ? &dump : nullptr);
  // What the panels changed goes to the worker now, so this frame's dump already says "computing".
  SubmitIfChanged();
  results.computing = worker->computing();
  results.sweeping = worker->sweeping();

  if (dump.enabled()) {
    dump.SetField("computing", results.computing ? "true" : "false");
    dump.SetField("sweeping", results.sweeping ? "true" : "false");
    dump.SetField("submitted", std::to_string(worker->submitted()));
    dump.SetField("finished", std::to_string(worker->finished()));
    dump.SetField("config", ConfigJson(settings.config));
    if (results.shown && results.shown->maps) {
      // How the shown maps were made (a sandbox layer's or a model layer's own).
      const LayerMaps& t = *results.shown->maps;
      dump.SetField("result", "{\"generation\": " + std::to_string(results.shown->generation) +
                                  ", \"d_k\": " + std::to_string(t.d_qk) + ", \"scale\": " + (t.scaled ? "true" : "false") +
                                  ", \"n_head\": " + std::to_string(t.n_head()) + ", \"n_q\": " + std::to_string(t.n_q()) +
                                  ", \"n_k\": " + std::to_string(t.n_k()) +
                                  ", \"kv_tokens\": " + JsonStringArray(TokenTexts(t.kv_tokens)) +
                                  ", \"query_tokens\": " + JsonStringArray(TokenTexts(t.query_tokens)) +
                                  ", \"mean_max_weight\": " + JsonNumber(MeanOverHeads(t.metrics).max_weight) +
                                  ", \"seconds\": " + JsonNumber(results.shown->seconds) + "}");
    }
    std::vector<int> visible = VisibleHeads();
    std::string heads = "[";
    for (size_t i = 0; i < visible.size(); ++i) heads += (i ? ", " : "") + std::to_string(visible[i]);
    dump.SetField("visible_heads", heads + "]");
    dump.SetField("selected_head", std::to_string(settings.selected_head));
    dump.SetField("kv_text", JsonString(settings.kv_text));
    dump.SetField("query_text", JsonString(settings.query_text));
    dump.SetField("config_error", JsonString(results.config_error.Render()));
    dump.SetField("compute_error", JsonString(results.compute_error.Render()));
    dump.SetField("renderer_error", JsonString(renderer.error()));
    dump.SetField("notice", JsonString(notice.Render()));
    dump.SetField("sentences_message", JsonString(views.sentences.message.Render()));
    dump.SetField("export_message", JsonString(views.export_panel.message.Render()));
    dump.SetField("export_ok", views.export_panel.ok ? "true" : "false");
    dump.SetField("exporting", exporting() ? "true" : "false");
    dump.SetField("export_path", JsonString(views.export_panel.path_written));
    dump.SetField("sweep_points", std::to_string(results.sweep ? results.sweep->points.size() : 0));
    dump.SetField("font_codepoints", std::to_string(fonts.codepoint_count()));
    dump.SetField("slot_glyphs", "{\"built\": " + std::to_string(fonts.slot_glyph_count()) +
                                     ", \"from_fonts\": " + std::to_string(fonts.slot_glyphs_from_fonts()) + "}");
    dump.SetField("display", "[" + JsonNumber(io.DisplaySize.x) + ", " + JsonNumber(io.DisplaySize.y) + "]");
    // Keys held in this frame: a test releases them as soon as the app has seen them (imgui repeats a key
    // held past 0.275 s of frame time, which a few slow frames on a loaded machine reach).
    int keys_down = 0;
    for (bool down : io.KeysDown) keys_down += down ? 1 : 0;
    dump.SetField("keys_down", std::to_string(keys_down));
  }
}

}  // namespace attnviz
