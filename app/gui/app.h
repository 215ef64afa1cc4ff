// The app model: the AppSettings the user edits, the worker that computes, the latest results,
// and the messages shown to the user. Knows nothing about GL or GLFW: main.cpp feeds it events
// (dropped files) and draws it with a HeatmapRenderer; the no-GL test does the same with a fake.
#pragma once
#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fonts.h"
#include "heatmap_view.h"
#include "layout.h"
#include "lessons.h"
#include "model_display.h"
#include "options.h"
#include "panel_context.h"
#include "panel_views.h"
#include "sandbox_panel_context.h"
#include "settings.h"
#include "sandbox/text.h"
#include "session/ablation_scan.h"
#include "session/attribution_job.h"
#include "session/lens_job.h"
#include "session/patching_job.h"
#include "session/sandbox_session.h"
#include "session/seq2seq_session.h"
#include "i18n/ui_message.h"
#include "i18n/ui_strings.h"
#include "widgets_dump.h"

namespace attnviz {

// Options only the desktop app has (the shared text/config options come from ParseInputOption).
struct AppOptions {
  InputOptions input;
  std::string shader_dir;          // --shader-dir: where heatmap.vert/.frag live
  std::string screenshot_path;     // --screenshot FILE: save the framebuffer after --frames and exit
  int frames = 0;                  // --frames N: exit after N frames (once the first results are shown)
  std::string widgets_json_path;   // --widgets-json FILE: widget rectangles and values, every frame
  std::string snapshot_path;       // --snapshot-path FILE: SIGUSR1 saves a screenshot there (PNG or PPM)
  int bench_frames = 0;            // --bench-frames N: frame-time benchmark, prints a table, exits
  bool no_settings = false;        // --no-settings: neither read nor write the settings file
  std::string lang;                // --lang en|ko ("" = the saved choice, else the locale)
  std::string lesson;              // --lesson a..g: open at that lesson ("" = none)
  bool help = false;
};
// Parses argv (without the program name). Errors name the option.
Status ParseAppOptions(const std::vector<std::string>& args, AppOptions* options);
std::string AppOptionsHelp();

class App {
 public:
  // Applies the command line on top of the restored settings: explicit options win.
  App(const AppSettings& restored, const AppOptions& options, std::unique_ptr<Pipeline> prepared);

  // Before ImGui::NewFrame: picks up finished results and handles dropped files.
  void Update();
  // Draws every panel (between NewFrame and Render).
  void Draw(HeatmapRenderer& renderer);

  // Actions panels and tests call.
  Status OpenSentenceFile(const std::string& path);
  void SelectSentence(int index);
  void ToggleScaling();
  void CycleHead(int direction);  // among the visible heads
  void Notify(const UiMessage& message) { notice = message; }
  // The Lessons tab: the lesson shown, and its button (lesson_show.h ShowLesson with the App's verbs: ApplyLesson on
  // the settings, then the tab that shows the answer is brought to the front).
  Lesson lesson() const { return views.learn.lesson; }
  void PickLesson(Lesson lesson) { views.learn.lesson = lesson; }
  void ShowLesson(Lesson lesson, LessonPart part = LessonPart::kMain);
  // The UI language: Tr() answers in it from the next frame on; saved in the settings.
  void SetLanguage(Lang lang);
  // Runs an export job on a background thread; Update() reports "Wrote PATH" or the error.
  void StartExport(const std::string& path, std::function<Status()> job);
  bool exporting() const { return export_job_.valid(); }

  // Submits the current settings if they changed; validation errors go to config_error.
  void SubmitIfChanged();

  // ---- Trained models (app_model.cpp): the Model and Overview panels, and what the Heads panel shows
  // in model mode (one layer of the latest model result, as `shown`).
  void OpenModel(const std::string& dir_or_name);
  static bool IsModelFolder(const std::string& path);  // a folder with config.json, or a .gguf file
  void SetSource(Source source);
  // Layer `layer` of the latest model result as the panels draw it (special tokens left out when
  // asked: a cut of that layer, made once per result), of the map kind the Heads panel picked (views.heads.kind);
  // null while it is not there or still to be made.
  std::shared_ptr<const LayerMaps> OverviewLayer(int layer, bool hide_special);
  // The Heads panel shows the attention maps (that kind, or the one picked is refused): what a streamed layer's
  // q and k (exact rows) belong to.
  bool ShowsAttention() const;
  // One sentence on what head (layer, head) of the latest model result does: its strongest role, the score and
  // what the role means (core/model/roles.h). "" when no model result has roles for that head.
  std::string HeadRoleLine(int layer, int head) const;
  std::unique_ptr<ModelSession> models;
  // Called from the background jobs' threads when a result or step arrives, so the event wait ends at once (main sets
  // it to Platform::Wake once the window exists, which posts nothing after Shutdown; null before).
  std::atomic<void (*)()> wake_ui{nullptr};
  // ---- Head ablation (app_ablation.cpp): the what-if that zeroes heads (views.model.ablated, sent with every model
  // request), and "ablate each head once" on its own background job.
  bool HeadAblated(int layer, int head) const;
  void SetHeadAblated(int layer, int head, bool ablated);
  void RestoreAllHeads() { views.model.ablated.clear(); }
  // Scans the latest model request (its folder, text, what-ifs and ablations) in the background.
  void StartAblationScan(std::vector<int> loss_at = {});
  // The last scan when it is of the shown model result's folder and text, else null.
  std::shared_ptr<const AblationScanResult> ShownScan() const;
  std::unique_ptr<AblationScanJob> scans;
  // ---- The logit lens (app_lens.cpp): of the shown model result's request, over a window of positions, on its own
  // background job; asked for by the Overview while it shows the lens, started again only when that changes.
  void RequestLens(int first, int count);
  // The last lens read when it is of the shown model result's request, else null.
  std::shared_ptr<const LensResult> ShownLens() const;
  std::unique_ptr<LensJob> lenses;
  // ---- Direct logit attribution and activation patching (app_attribution.cpp), each on its own background job.
  // The attribution follows the shown request, the position and the target the Overview asks for (started again
  // only when they change); a patching scan starts only on its Run button (it reruns the model many times).
  void RequestAttribution(int position, int target);
  std::shared_ptr<const AttributionResult> ShownAttribution() const;  // of the shown model result's request
  void StartPatching(const std::string& clean_text, int token_a, int token_b);
  std::shared_ptr<const PatchingResult> ShownPatching() const;  // of the shown model's folder
  std::unique_ptr<AttributionJob> attributions;
  std::unique_ptr<PatchingJob> patchings;
  std::string bundled_model_dir;                    // the bundled model's folder, "" when not shipped
  std::string bundled_seq2seq_dir;  // the bundled encoder-decoder model's folder (tiny-seq2seq), "" when not shipped
  // ---- Encoder-decoder models (app_seq2seq.cpp): a t5/bart/marian folder opens on its own session; the Model
  // panel edits the target and asks for a translation, the Overview shows the three stacks, the Heads panel the
  // stack, layer and head picked there (results.shown of that stack's layer).
  std::unique_ptr<Seq2SeqSession> seq2seqs;
  std::unique_ptr<Seq2SeqAnalysisJobs> seq2seq_jobs;  // the neuron view, map kinds and scan of its runs
  std::unique_ptr<Seq2SeqReadoutJobs> seq2seq_readouts;  // its decoder's lens, attribution and patching
  static constexpr int kTranslateMaxTokens = 64;  // the Translate button's greedy generation
  bool Seq2SeqShown() const { return results.seq2seq_mode(settings); }
  // The heads drawn in the grid (visible and < n_head of the shown result).
  std::vector<int> VisibleHeads() const;
  // The colour range for a map of `heads` of the shown result (fixed [0,1] or auto over them).
  ColorRange RangeFor(const std::vector<int>& heads, bool twin = false) const;
  // The width q and k share in the sandbox's settings, as the run has it (attnviz::QueryKeyWidth, the summary line's d_k):
  // d_k when both are projected, 1 from word length or position, the shown run's q width from one-hot (0 while
  // there is none). The Saturation panel marks it, and the exported saturation figure.
  int QueryKeyWidth() const;
  // The scaling switch acts (the S key, the Heads panel's scaled-vs-unscaled view, the keys its status line offers):
  // a model run (its what-if), or a sandbox run under scaled-dot, the one score divided by sqrt(d_k).
  bool ScalingActs() const { return attnviz::ScalingActs(settings); }
  // What the panels that take a context read and may call (app_panels.cpp); `renderer` for those that draw maps.
  PanelContext PanelContextFor(HeatmapRenderer* renderer);
  // What the sandbox's panels and the menu bar read and may call (app_panels.cpp).
  SandboxPanelContext SandboxPanelContextFor();
  // The tabs of the Shapes · learn window the Shapes panel does not draw itself: the App's panels that draw them.
  LearnTabDrawers LearnTabs();

  // Something runs or is about to show (a computation, a sweep, an export, a model opening or running, new
  // glyphs, dropped files): the main loop keeps drawing; an idle window draws nothing (frame_pacer.h).
  bool Busy() const;
  // What background work has changed on screen: a new value draws a frame (main loop, frame_pacer.h).
  struct ShownState {
    const void* model = nullptr;  // results.model: a run, or a later step of it (one more layer)
    const void* shown = nullptr;  // results.shown: the maps drawn
    const void* sweep = nullptr;  // results.sweep
    const void* weighted = nullptr;  // the value-weighted overview's latest step (one more layer)
    // Not the progress text: a run moves it just after each layer it publishes, which would draw each layer twice
    // (the progress frames, FramePacer::kProgressFramesPerSecond, show it).
    bool busy = false;            // the end of work changes the screen (progress bars go)
    int model_layers = 0;         // of results.model (layers_done)
    bool model_complete = false;  // every layer of results.model
    bool operator==(const ShownState& o) const {
      return model == o.model && shown == o.shown && sweep == o.sweep && weighted == o.weighted && busy == o.busy;
    }
    // Only more layers of a run whose first layer was already shown, and not yet its last (FramePacer::Busy: those
    // frames may wait their turn). The Heads panel's maps may change with them (a layer it waited for arrived).
    bool MoreLayersOnly(const ShownState& before) const {
      return model != before.model && before.model_layers > 0 && model_layers > before.model_layers &&
             !model_complete && sweep == before.sweep && weighted == before.weighted && busy == before.busy;
    }
    bool operator!=(const ShownState& o) const { return !(*this == o); }
  };
  ShownState Shown() const;
  // Everything asked for is on screen: the sandbox's maps (or the error that prevents them) with its sweep, or every
  // layer of the model run (or its error), and the glyphs they need. --frames and --screenshot count from here.
  bool Ready() const;

  AppSettings settings;  // what the user chose: persisted (settings.h)
  AppResults results;    // what the background jobs produced
  PanelViews views;      // each panel's own state between frames (panel_views.h)
  AppOptions options;
  WidgetDump dump;
  WindowLayout layout;
  UiFonts fonts;
  std::unique_ptr<SandboxSession> worker;  // the sandbox session: its forward pass and d_k sweep
  std::vector<std::string> pending_drops;  // files dropped on the window (platform fills it)
  UiMessage notice;                        // startup or one-off message (corrupt settings, font missing)

  uint64_t frame = 0;
  bool quit_requested = false;
  bool bench_hide_maps = false;   // the benchmark's "no heatmaps" phases
  bool bench_heads_only = false;  // the benchmark's "Heads panel alone" phases

 private:
  ComputeRequest BuildRequest();
  void InitModels();         // app_model.cpp: the session, the bundled model, --model / restored folder
  void UpdateModel();        // app_model.cpp: opened folders, results, the Heads panel's layer view
  void SubmitModelIfChanged();
  void OpenSeq2Seq(const std::string& dir);  // app_seq2seq.cpp
  void SubmitSeq2SeqIfChanged();
  void UpdateSeq2Seq();
  void UpdateSeq2SeqAnalyses();  // the neuron view, map kind and scan asked for the result shown
  void UpdateSeq2SeqReadouts();  // the lens, attribution and patching asked for the result shown
  Seq2SeqNeuronRequest seq2seq_neuron_asked_;
  Seq2SeqKindRequest seq2seq_kind_asked_;
  Seq2SeqLensRequest seq2seq_lens_asked_;
  Seq2SeqAttributionRequest seq2seq_attribution_asked_;
  Seq2SeqRequest last_seq2seq_request_;
  bool seq2seq_submitted_ = false;
  uint64_t seq2seq_generation_applied_ = 0;  // the last generation whose text went into the target field
  // The queue's number of the Translate submitted and not yet ended in the UI (its text applied, its error shown,
  // or it ended without a result); 0 when none. Until then only another folder or source is submitted.
  uint64_t seq2seq_generate_pending_ = 0;
  struct Seq2SeqView {
    const void* result = nullptr;  // the stacks shown (the run's, or its map kind's)
    int stack = -1, layer = -1;
    bool operator==(const Seq2SeqView& o) const { return result == o.result && stack == o.stack && layer == o.layer; }
  };
  Seq2SeqView seq2seq_view_;  // what results.shown was last made of
  std::unique_ptr<PanelVerbs> verbs_;  // what PanelContextFor hands the panels
  std::unique_ptr<SandboxVerbs> sandbox_verbs_;  // what SandboxPanelContextFor hands them
  std::shared_ptr<const attnviz::Shown> sandbox_shown_;  // the sandbox's last result, kept while a model is shown
  ModelRequest last_model_request_;
  bool model_submitted_ = false;
  LensRequest last_lens_request_;  // what RequestLens last started (app_lens.cpp)
  bool lens_submitted_ = false;
  AttributionRequest last_attribution_request_;  // what RequestAttribution last started (app_attribution.cpp)
  bool attribution_submitted_ = false;
  uint64_t seen_open_generation_ = 0;
  struct LayerView {
    uint64_t generation = 0;
    int layer = -1;
    bool hide_special = false;
    MapKind kind = MapKind::kAttention;
    bool operator==(const LayerView& o) const {
      return generation == o.generation && layer == o.layer && hide_special == o.hide_special && kind == o.kind;
    }
  };
  LayerView shown_layer_;
  void AskExactRowsWhenNeeded(const LayerView& view, bool rollout_shown);  // app_model.cpp
  std::shared_ptr<const ExactRows> applied_exact_rows_;  // the last q, k made for a shown streamed layer
  TopTokensRequest top_asked_;  // the positions of a result whose top tokens were last asked (MakeTopTokens; weak)
  LayerView exact_rows_asked_;  // the shown layer whose q and k were last asked for (MakeExactRows)
  uint64_t weighted_overview_asked_ = 0;  // the model result (generation) the value-weighted overview was asked for
  // Per layer of the current run (null until made), for hide_special: made once as each layer arrives.
  std::vector<std::shared_ptr<const LayerMaps>> overview_layers_;
  LayerView overview_view_;
  // Rollout and value-weighted layers are made on the UI thread as the panels ask (value-weighted: O(n_head n^2) a
  // layer): at most about kKindCellsPerFrame cells a frame, the other layers on the next frames (drawn empty until
  // then), so switching the map kind of a large run never stalls one frame.
  static constexpr double kKindCellsPerFrame = double(1 << 22);
  uint64_t kind_budget_frame_ = ~uint64_t(0);
  double kind_cells_made_ = 0;
  bool kind_layers_pending_ = false;
  uint64_t view_generation_ = 0;  // the last Shown::generation handed out (sandbox and model alike)
  std::shared_ptr<const TokenizedText> tokenized_;  // the texts last submitted, tokenized once
  std::future<Status> export_job_;
  std::string export_job_path_;
  ComputeRequest last_request_;
  bool submitted_once_ = false;
  SweepRequest last_sweep_request_;
  bool sweep_submitted_once_ = false;
  std::string checked_text_;
  // Auto-range cache.
  mutable std::string range_key_;
  mutable ColorRange range_value_;
};

// One function per panel (app/panel_*.cpp); the sandbox's own panels and the menu bar: sandbox_panel_context.h.
void DrawControlsPanel(PanelContext& ctx);
void DrawHeadsPanel(PanelContext& ctx);
// The Shapes · learn window: its Shapes tab, and the other tabs as `others` draws them.
void DrawShapesPanel(PanelContext& ctx, const LearnTabDrawers& others);
void DrawExportPanel(PanelContext& ctx);
// The Shapes · learn window's tabs for the panels that still take the App (Shapes, Controls): each builds the App's
// SandboxPanelContext (app_panels.cpp) and draws from it.
void DrawLessonsPanel(App& app);
void DrawLessonBeside(App& app);
void DrawNumbersPanel(App& app);
void DrawDictionaryPanel(App& app);
void DrawVariancePanel(App& app);
void DrawModelPanel(PanelContext& ctx);
void DrawOverviewPanel(PanelContext& ctx);
// The Model panel, the Overview and the Shapes tab on an encoder-decoder model (panel_seq2seq.cpp).
void DrawSeq2SeqModelPanel(PanelContext& ctx);
void DrawSeq2SeqOverviewPanel(PanelContext& ctx);
// The row of the Overview's views (maps, lens, attribution, patching; panel_overview.cpp): sets and returns the one
// chosen.
OverviewPanelView::View DrawOverviewViewChoice(PanelContext& ctx);
// The Overview's readouts of an encoder-decoder run in place of its grids (panel_seq2seq_readouts.cpp).
void DrawSeq2SeqLensView(PanelContext& ctx);
void DrawSeq2SeqAttributionView(PanelContext& ctx);
void DrawSeq2SeqPatchingView(PanelContext& ctx);
void DrawSeq2SeqShapes(PanelContext& ctx);
// Predictions and head ablation (panel_predictions.cpp, panel_ablation.cpp), drawn inside the Model, Heads and
// Overview panels.
// The top next tokens at `position` of the latest model result, one per line ("" when it has none there): from its
// predictions, or before they come from results.model_top (each position asked is added to *wanted).
std::string PredictionLines(const AppResults& results, int position, std::vector<int>* wanted = nullptr);
// A token chip's tooltip: per token of tokens[first, first + count), its id and its text as ShownText writes it
// ("id 274  ·c", never the vocabulary's "Ġc"), and "special token" for one.
std::string TokenTipLines(const std::vector<tokenize::Token>& tokens, size_t first, size_t count);
// The query row labels left of a model map (labels_min..labels_max, rows from first_row, row_height pixels each):
// hovering one shows that token's top next tokens.
void DrawRowLabelPredictions(PanelContext& ctx, ImVec2 labels_min, ImVec2 labels_max, int first_row, float row_height);
// Under the what-ifs: the loss (and before -> after), the explanation, or why there is none.
void DrawLossLine(PanelContext& ctx);
// An encoder-decoder result's top tokens at decoder position `position` ("" when it has none there).
std::string Seq2SeqPredictionLines(const Seq2SeqResult& result, int position);
// The target's mean loss, and with ablations its change against the model without them.
void DrawSeq2SeqLossLine(PanelContext& ctx);
// Under the loss: the ablated heads with "restore all", the scan's button, progress, Cancel and ranking table.
void DrawAblationControls(PanelContext& ctx);
// The right-click menu of a head's map (the last item): "Ablate head L H" / "Restore head L H".
void DrawHeadAblateMenu(PanelContext& ctx, int layer, int head);
// The same for a head of one stack of an encoder-decoder model (Seq2SeqStackIndex), and that model's list of
// ablated heads with their restore buttons and the mode (views.seq2seq.ablated, sent with every forced run).
void DrawSeq2SeqHeadAblateMenu(PanelContext& ctx, int stack, int layer, int head);
void DrawSeq2SeqAblationControls(PanelContext& ctx);
// "Ablate each head once" over every head of every stack: its button, progress and Stop, and what it found.
void DrawSeq2SeqScanControls(PanelContext& ctx);
bool Seq2SeqHeadAblated(const Seq2SeqPanelView& view, int stack, int layer, int head);
void SetSeq2SeqHeadAblated(Seq2SeqPanelView* view, int stack, int layer, int head, bool ablated);
// The language combo (English / 한국어), drawn in the Controls and Model panels.
void DrawLanguageSwitch(PanelContext& ctx);
void DrawLanguageSwitch(App& app);

// Small formatting helpers the panels share: never print NaN ("n/a" instead).
std::string FormatNumber(double value, const char* format = "%.4g");
// Maps too faint to read: on the linear, fixed 0..1 scale, the heads' mean largest weight of a row (the best
// head's) below kFaintMapsPeak (long inputs: about 1/n per key). Returns that peak, or 0 when the maps read well
// (another scale or range, no metrics, or a peak at or above the bound).
constexpr float kFaintMapsPeak = 0.1f;
float FaintMapsPeak(const std::vector<HeadMetrics>& metrics, ColorScale scale, bool auto_range);
// One significant digit, the exponent without padding: 5.96e-07 -> "6e-7", 0 -> "0" (a size, not a reading).
std::string ShortExponent(double value);

}  // namespace attnviz
