// What a panel reads and may call instead of the whole App: what is shown (the background jobs' results and the model
// session's state, as of this frame), the settings, the panels' own view state, the verbs it may call (PanelVerbs),
// the widget recorder, the fonts' glyph requests and the renderer. The App builds one for each panel it draws
// (app_panels.cpp); a test builds one from parts, with no App.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "heatmap_view.h"
#include "layout.h"
#include "model_display.h"
#include "panel_views.h"
#include "settings.h"
#include "shown.h"
#include "i18n/ui_message.h"
#include "session/ablation_scan.h"
#include "session/attribution_job.h"
#include "session/lens_job.h"
#include "session/patching_job.h"
#include "session/sandbox_session.h"
#include "session/seq2seq_jobs.h"
#include "session/seq2seq_readouts.h"
#include "session/seq2seq_session.h"
#include "widgets_dump.h"

namespace attnviz {

class UiFonts;

// What the background jobs produced, as the panels show it: App::Update refreshes it each frame from the SandboxSession and
// the ModelSession. Messages are kept as what makes them (ui_message.h) and rendered when drawn, so they follow a
// language switch.
struct AppResults {
  std::shared_ptr<const Shown> shown;           // what the maps show: the sandbox's layer or a model layer (shown.h)
  std::shared_ptr<const SandboxRun> latest;     // the sandbox's last run, maybe failed
  std::shared_ptr<const SweepResult> sweep;     // the last successful sweep
  UiMessage sweep_error;
  bool computing = false, sweeping = false;
  UiMessage config_error;   // Validate() of the settings being edited
  UiMessage compute_error;  // the last run's error (text or config), empty when it worked
  std::shared_ptr<const ModelResult> model;     // the last successful model run (or its latest step)
  // The top tokens at the hovered and pinned positions of `model` while its predictions are still to come
  // (ModelSession::MakeTopTokens); null when none were asked of this result.
  std::shared_ptr<const TopTokens> model_top;
  UiMessage model_error;                        // the last model run's error
  // An encoder-decoder folder open (seq2seq_session.h): its folder ("" when a decoder-only model or the sandbox is
  // the source), the last result (a generation's latest step while it runs), its error and the run's progress.
  std::string seq2seq_dir;
  std::shared_ptr<const Seq2SeqResult> seq2seq;
  UiMessage seq2seq_error;
  JobProgress seq2seq_progress;
  bool seq2seq_busy = false;
  // Its analyses (seq2seq_jobs.h), each of the result shown: the neuron view asked for (null until made), the map
  // kind's stacks (null: attention or being made; a failed one carries its status) and the scan (a partial one after Stop), its progress.
  std::shared_ptr<const Seq2SeqNeuronResult> seq2seq_neuron;
  std::shared_ptr<const Seq2SeqKindResult> seq2seq_kind;
  bool seq2seq_kind_busy = false;
  std::shared_ptr<const Seq2SeqScanResult> seq2seq_scan;
  JobProgress seq2seq_scan_progress;
  bool seq2seq_scan_busy = false;
  // What it computes (seq2seq_readouts.h): the decoder's logit lens and the attribution of the result shown (null
  // until made), the last patching of the folder shown (a partial one after Stop), and their work in progress.
  std::shared_ptr<const Seq2SeqLensResult> seq2seq_lens;
  JobProgress seq2seq_lens_progress;
  bool seq2seq_lens_busy = false;
  std::shared_ptr<const Seq2SeqAttributionResult> seq2seq_attribution;
  bool seq2seq_attribution_busy = false;
  std::shared_ptr<const Seq2SeqPatchingResult> seq2seq_patching;
  JobProgress seq2seq_patching_progress;
  bool seq2seq_patching_busy = false;
  bool seq2seq_mode(const AppSettings& s) const { return s.source == Source::kModel && !seq2seq_dir.empty(); }
};

// What a panel may ask of the App: the verbs that start or change work, and what it reads of the App's background
// jobs and caches (read when drawn: a verb called earlier in the frame shows at once, as a person expects).
class PanelVerbs {
 public:
  virtual ~PanelVerbs() = default;
  // ---- Verbs.
  virtual void CycleHead(int direction) = 0;  // among the visible heads
  virtual void SetSource(Source source) = 0;
  virtual void OpenModel(const std::string& dir_or_name) = 0;
  virtual void SetLanguage(Lang lang) = 0;
  // A click on a Heads panel cell: the neuron view of head `head` at the display cell (i, j).
  virtual void OpenNeuronView(int head, int display_i, int display_j) = 0;
  virtual void SetHeadAblated(int layer, int head, bool ablated) = 0;
  virtual void RestoreAllHeads() = 0;
  // loss_at: the positions whose next-token loss ranks the heads (empty: the mean over every position).
  virtual void StartAblationScan(std::vector<int> loss_at) = 0;
  virtual void CancelAblationScan() = 0;
  // Runs an export job on a background thread; the App reports "Wrote PATH" or the error.
  virtual void StartExport(const std::string& path, std::function<Status()> job) = 0;
  // ---- Reads.
  virtual JobProgress SandboxProgress() const = 0;  // the sandbox session's forward pass
  virtual JobProgress SweepProgress() const = 0;
  virtual bool Exporting() const = 0;
  virtual std::shared_ptr<const ModelFolder> ModelFolderOpen() const = 0;  // null while none is
  virtual bool ModelOpening() const = 0;
  virtual ModelProgress ModelRunProgress() const = 0;
  virtual std::string ModelOpenError() const = 0;  // the last open's error in the UI's language, "" when it worked
  // A streamed run's value-weighted overview, the layers made so far.
  virtual std::shared_ptr<const WeightedOverview> WeightedOverviewMade() const = 0;
  virtual bool AblationScanBusy() const = 0;
  virtual std::string AblationScanProgress(float* fraction) const = 0;  // "" when no scan runs
  // The colour range for a map of `heads` of the shown result (fixed [0,1] or auto over them; cached).
  virtual ColorRange RangeFor(const std::vector<int>& heads, bool twin) const = 0;
  // The last ablation scan when it is of the shown model result's folder and text, else null.
  virtual std::shared_ptr<const AblationScanResult> ShownScan() const = 0;
  // Layer `layer` of the latest model result as the Overview draws it, of the map kind the Heads panel picked (null
  // while it is not there or still to be made).
  virtual std::shared_ptr<const LayerMaps> OverviewLayer(int layer, bool hide_special) = 0;
  // ---- The logit lens (lens_job.h) of the shown model result's request over positions [first, first + count):
  // started when that differs from the last one asked for; the last lens read of it (null while none is).
  virtual void RequestLens(int first, int count) = 0;
  virtual void CancelLens() = 0;
  virtual std::shared_ptr<const LensResult> ShownLens() const = 0;
  virtual bool LensBusy() const = 0;
  virtual JobProgress LensProgress() const = 0;
  // ---- Direct logit attribution (attribution_job.h) of the shown request at `position` for `target` (-1: the
  // defaults): started when that differs from the last one asked for; the last result of the shown request.
  virtual void RequestAttribution(int position, int target) = 0;
  virtual std::shared_ptr<const AttributionResult> ShownAttribution() const = 0;
  virtual bool AttributionBusy() const = 0;
  // ---- Activation patching (patching_job.h): the shown text as the corrupted run, `clean_text` the clean one.
  virtual void StartPatching(const std::string& clean_text, int token_a, int token_b) = 0;
  virtual void CancelPatching() = 0;  // the cells done stay shown
  virtual std::shared_ptr<const PatchingResult> ShownPatching() const = 0;
  virtual bool PatchingBusy() const = 0;
  virtual JobProgress PatchingProgress() const = 0;
};

// The tabs of the Shapes · learn window beside its Shapes tab (and the shown lesson's words beside them), drawn into
// the open tab by whoever owns their panels (the App; a test, anything). Empty: the tab is drawn empty.
struct LearnTabDrawers {
  std::function<void()> numbers, lessons, dictionary, variance;
  std::function<void()> lesson_beside;
};

struct PanelContext {
  PanelContext(AppSettings& s, const AppResults& r, PanelViews& v, WidgetDump& d, WindowLayout& l, PanelVerbs& b)
      : settings(s), results(r), shown(r.shown), views(v), dump(d), layout(l), verbs(b) {}
  AppSettings& settings;      // what the user chose
  const AppResults& results;  // what the background jobs produced
  const std::shared_ptr<const Shown>& shown;  // what the maps show (results.shown, as of this frame); may be null
  PanelViews& views;          // the panels' own state between frames
  WidgetDump& dump;           // the widget recorder (--widgets-json)
  WindowLayout& layout;
  PanelVerbs& verbs;
  HeatmapRenderer* renderer = nullptr;  // the panels that draw maps
  UiFonts* fonts = nullptr;             // glyphs the panel's text needs (null: none asked for)
  UiMessage* notice = nullptr;          // the one-off message the Heads panel shows and dismisses
  std::string bundled_model_dir;        // the bundled model's folder, "" when not shipped
  bool bench_hide_maps = false;         // the frame benchmark's "no heatmaps" phases

  // Reads of the above.
  std::vector<int> VisibleHeads() const;  // visible and < n_head of the shown result
  // The scaling switch acts: a model run (its what-if), or a sandbox run under scaled-dot.
  bool ScalingActs() const;
  // The width q and k share in the sandbox's settings, as the run has it (App::QueryKeyWidth).
  int QueryKeyWidth() const;
  bool HeadAblated(int layer, int head) const;
  // One sentence on what head (layer, head) of the latest model result does ("" without roles for it).
  std::string HeadRoleLine(int layer, int head) const;
  // Asks the fonts for the glyphs of `utf8`.
  void NeedGlyphs(const std::string& utf8) const;
};

// The same reads for the App (app.cpp), which owns those parts.
std::vector<int> VisibleHeads(const AppSettings& settings, const AppResults& results);
bool ScalingActs(const AppSettings& settings);
int QueryKeyWidth(const AppSettings& settings, const AppResults& results);
bool HeadAblated(const PanelViews& views, int layer, int head);
std::string HeadRoleLine(const AppResults& results, int layer, int head);

}  // namespace attnviz
