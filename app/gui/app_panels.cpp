// The App as the panels see it: the PanelVerbs and SandboxVerbs it answers (its background jobs and caches) and the
// PanelContext and SandboxPanelContext it builds for each panel it draws.
#include <algorithm>

#include "app.h"
#include "session/sandbox_session.h"

namespace attnviz {

namespace {

class AppVerbs final : public PanelVerbs {
 public:
  explicit AppVerbs(App& app) : app_(app) {}
  void CycleHead(int direction) override { app_.CycleHead(direction); }
  void SetSource(Source source) override { app_.SetSource(source); }
  void OpenModel(const std::string& dir_or_name) override { app_.OpenModel(dir_or_name); }
  void SetLanguage(Lang lang) override { app_.SetLanguage(lang); }
  void OpenNeuronView(int head, int display_i, int display_j) override {
    PanelContext ctx = app_.PanelContextFor(nullptr);
    attnviz::OpenNeuronView(ctx, head, display_i, display_j);
  }
  void SetHeadAblated(int layer, int head, bool ablated) override { app_.SetHeadAblated(layer, head, ablated); }
  void RestoreAllHeads() override { app_.RestoreAllHeads(); }
  void StartAblationScan(std::vector<int> loss_at) override { app_.StartAblationScan(std::move(loss_at)); }
  void CancelAblationScan() override { app_.scans->Stop(); }  // the heads done stay shown
  void StartExport(const std::string& path, std::function<Status()> job) override {
    app_.StartExport(path, std::move(job));
  }
  JobProgress SandboxProgress() const override { return app_.worker->progress(); }
  JobProgress SweepProgress() const override { return app_.worker->sweep_progress(); }
  bool Exporting() const override { return app_.exporting(); }
  std::shared_ptr<const ModelFolder> ModelFolderOpen() const override { return app_.models->folder(); }
  bool ModelOpening() const override { return app_.models->opening(); }
  ModelProgress ModelRunProgress() const override { return app_.models->progress(); }
  std::string ModelOpenError() const override { return OpenErrorText(*app_.models); }
  std::shared_ptr<const WeightedOverview> WeightedOverviewMade() const override {
    return app_.models->weighted_overview();
  }
  bool AblationScanBusy() const override { return app_.scans->busy(); }
  std::string AblationScanProgress(float* fraction) const override { return AblationScanProgressText(app_.scans->progress(), fraction); }
  ColorRange RangeFor(const std::vector<int>& heads, bool twin) const override { return app_.RangeFor(heads, twin); }
  std::shared_ptr<const AblationScanResult> ShownScan() const override { return app_.ShownScan(); }
  std::shared_ptr<const LayerMaps> OverviewLayer(int layer, bool hide_special) override {
    return app_.OverviewLayer(layer, hide_special);
  }
  void RequestLens(int first, int count) override { app_.RequestLens(first, count); }
  void CancelLens() override { app_.lenses->Cancel(); }
  std::shared_ptr<const LensResult> ShownLens() const override { return app_.ShownLens(); }
  bool LensBusy() const override { return app_.lenses->busy(); }
  JobProgress LensProgress() const override { return app_.lenses->progress(); }
  void RequestAttribution(int position, int target) override { app_.RequestAttribution(position, target); }
  std::shared_ptr<const AttributionResult> ShownAttribution() const override { return app_.ShownAttribution(); }
  bool AttributionBusy() const override { return app_.attributions->busy(); }
  void StartPatching(const std::string& clean_text, int token_a, int token_b) override {
    app_.StartPatching(clean_text, token_a, token_b);
  }
  void CancelPatching() override { app_.patchings->Cancel(); }
  std::shared_ptr<const PatchingResult> ShownPatching() const override { return app_.ShownPatching(); }
  bool PatchingBusy() const override { return app_.patchings->busy(); }
  JobProgress PatchingProgress() const override { return app_.patchings->progress(); }

 private:
  App& app_;
};

}  // namespace

PanelContext App::PanelContextFor(HeatmapRenderer* renderer) {
  if (!verbs_) verbs_ = std::make_unique<AppVerbs>(*this);
  PanelContext c{settings, results, views, dump, layout, *verbs_};
  c.renderer = renderer;
  c.fonts = &fonts;
  c.notice = &notice;
  c.bundled_model_dir = bundled_model_dir;
  c.bench_hide_maps = bench_hide_maps;
  return c;
}

SandboxPanelContext App::SandboxPanelContextFor() {
  if (!sandbox_verbs_) {
    sandbox_verbs_ = std::make_unique<SandboxVerbs>();
    SandboxVerbs& v = *sandbox_verbs_;
    v.open_sentence_file = [this](const std::string& path) { return OpenSentenceFile(path); };
    v.select_sentence = [this](int index) { SelectSentence(index); };
    v.show_lesson = [this](Lesson lesson, LessonPart part) { ShowLesson(lesson, part); };
    v.open_model = [this](const std::string& dir_or_name) { OpenModel(dir_or_name); };
    v.set_source = [this](Source source) { SetSource(source); };
    v.set_language = [this](Lang lang) { SetLanguage(lang); };
    v.quit = [this] { quit_requested = true; };
  }
  SandboxPanelContext c{settings, views.sentences, views.learn, dump, layout, *sandbox_verbs_};
  SandboxShown& s = c.shown;
  s.sandbox = results.shown ? results.shown->sandbox.get() : nullptr;
  s.maps = results.shown ? results.shown->maps.get() : nullptr;
  s.sweep = results.sweep.get();
  s.roles = results.model && results.model->status.ok() ? &results.model->roles : nullptr;
  s.loaded_weights = worker->loaded_weights();
  s.config_error = results.config_error;
  s.compute_error = results.compute_error;
  s.sweep_error = results.sweep_error;
  s.computing = results.computing;
  s.sweeping = results.sweeping;
  c.bundled_model_dir = bundled_model_dir;
  c.bundled_seq2seq_dir = bundled_seq2seq_dir;
  return c;
}

// For the panels that still take the App (Shapes draws the learn tabs, Controls the language switch).
namespace {
template <void (*Draw)(SandboxPanelContext&)>
void DrawFromSandboxContext(App& app) {
  SandboxPanelContext ctx = app.SandboxPanelContextFor();
  Draw(ctx);
}
}  // namespace
void DrawLessonsPanel(App& app) { DrawFromSandboxContext<DrawLessonsPanel>(app); }
void DrawLessonBeside(App& app) { DrawFromSandboxContext<DrawLessonBeside>(app); }
void DrawNumbersPanel(App& app) { DrawFromSandboxContext<DrawNumbersPanel>(app); }
void DrawDictionaryPanel(App& app) { DrawFromSandboxContext<DrawDictionaryPanel>(app); }
void DrawVariancePanel(App& app) { DrawFromSandboxContext<DrawVariancePanel>(app); }
void DrawLanguageSwitch(App& app) {
  PanelContext ctx = app.PanelContextFor(nullptr);
  DrawLanguageSwitch(ctx);
}

}  // namespace attnviz
