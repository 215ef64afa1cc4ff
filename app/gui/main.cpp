// attnviz: the desktop app. The straight loop of imgui's example_glfw_opengl3, phases commented:
//   1. options   2. restored settings   3. window + GL + ImGui   4. heatmap renderer (shaders)
//   5. the loop: events -> results -> fonts -> new frame -> panels -> render -> screenshot -> swap
//      (drawn only after input, a change or while work runs: frame_pacer.h; an idle or minimized
//      window waits for events instead of drawing; the frame benchmark is frame_bench.*)
//   6. save settings and layout, shut down
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "app.h"
#include "data_dir.h"
#include "io/file_io.h"
#include "frame_bench.h"
#include "frame_pacer.h"
#include "gl/heatmap_renderer.h"
#include "io/json.h"
#include "i18n/localized.h"
#include "passive_waits.h"
#include "platform.h"
#include "settings.h"

using namespace attnviz;

namespace {

volatile std::sig_atomic_t g_snapshot_requested = 0;
void OnSigUsr1(int) { g_snapshot_requested = 1; }
// SIGUSR2: draw a few frames although nothing changed (tests that wait on the frame counter).
volatile std::sig_atomic_t g_frames_requested = 0;
void OnSigUsr2(int) { g_frames_requested = 1; }

// --shader-dir, else the shaders of the data folder (data_dir.h: <prefix>/share/attnviz installed, the source
// tree from the build folder). Nothing found: the renderer reports the missing files in the Heads panel.
std::string FindShaderDir(const std::string& option) {
  if (!option.empty()) return option;
  const DataDir& data = FindDataDir();
  return data.root.empty() ? "shaders (not found; looked in " + data.searched + ")" : data.shaders();
}

}  // namespace

int main(int argc, char** argv) {
  // ---- 0. OpenMP's waiting threads sleep (a re-run of this program with OMP_WAIT_POLICY=passive when unset).
  UsePassiveOpenMpWaits(argv);
  // ---- 1. Options: the shared text/config options (ParseInputOption) plus the app's own.
  std::vector<std::string> args(argv + 1, argv + argc);
  bool no_settings = std::find(args.begin(), args.end(), "--no-settings") != args.end();

  // ---- 2. Restored settings: the command line is applied on top of them.
  const std::string config_dir = ConfigDir();
  const std::string settings_path = config_dir + "/settings.txt";
  const std::string layout_path = config_dir + "/layout.ini";
  LoadedSettings loaded = no_settings ? LoadedSettings{} : LoadSettings(settings_path);
  // An unreadable settings file (or a corrupt one that could not be set aside) is never saved over.
  const bool save_settings = !no_settings && !loaded.keep_file;
  // The language of the messages below, decided as App decides it: --lang (wherever it stands, even after a bad
  // option), else the saved setting, else the locale.
  Lang lang = LangFromEnvironment();
  if (!loaded.settings.lang.empty()) ParseLang(loaded.settings.lang, &lang);
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--lang") ParseLang(args[i + 1], &lang);
    if (OptionTakesValue(args[i])) ++i;  // a value is never an option: `--text --lang` is the text "--lang"
  }
  SetLang(lang);
  AppOptions options;
  options.input.config = loaded.settings.config;
  Status parsed = ParseAppOptions(args, &options);
  if (!parsed.ok()) {
    std::fprintf(stderr, "attnviz: %s\n", Localized(parsed).c_str());
    return 2;
  }
  if (options.help) {
    std::printf("%s", AppOptionsHelp().c_str());
    return 0;
  }
  if (Status valid = Validate(options.input.config); !valid.ok()) {
    std::fprintf(stderr, "attnviz: %s\n", Localized(valid).c_str());
    return 2;
  }
  // --text-file/--line are resolved as attnviz-cli resolves them: a bad file or line exits 2.
  if (!options.input.text_file.empty() || options.input.line != 0) {
    if (Result<SentenceItem> item = ResolveInputText(options.input); !item) {
      std::fprintf(stderr, "attnviz: %s\n", Localized(item).c_str());
      return 2;
    }
  }
  std::unique_ptr<Pipeline> prepared;
  if (!options.input.weights_dir.empty()) {
    InputOptions in = options.input;
    if (in.text.empty() && in.text_file.empty()) in.text = loaded.settings.kv_text;
    prepared = std::make_unique<Pipeline>();
    Status st = PreparePipeline(in, prepared.get());
    if (!st.ok()) {
      std::fprintf(stderr, "attnviz: %s\n", Localized(st).c_str());
      return 2;
    }
  }
  App app(loaded.settings, options, std::move(prepared));
  if (!loaded.message.empty()) {
    app.Notify(loaded.message);
    std::fprintf(stderr, "attnviz: %s\n", loaded.message.Render().c_str());
  }

  // ---- 3. Window, GL context, ImGui.
  Platform platform;
  WindowRect rect{app.settings.window_x, app.settings.window_y, app.settings.window_w, app.settings.window_h};
  if (Status st = platform.Init("attnviz", rect); !st.ok()) {
    std::fprintf(stderr, "attnviz: %s\n", st.message().c_str());
    return 1;
  }
  if (!no_settings) {
    if (Result<std::string> ini = ReadFile(layout_path); ini.ok())
      ImGui::LoadIniSettingsFromMemory(ini->data(), ini->size());
  }
  std::signal(SIGUSR1, OnSigUsr1);
  std::signal(SIGUSR2, OnSigUsr2);

  // ---- 4. The heatmap renderer (shaders loaded from files; a failure is shown in the Heads panel).
  const std::string shader_dir = FindShaderDir(options.shader_dir);
  const std::string gl_renderer = platform.gl_renderer();
  auto renderer = std::make_unique<gl::GlHeatmapRenderer>(shader_dir);
  if (!renderer->error().empty()) std::fprintf(stderr, "attnviz: %s\n", renderer->error().c_str());

  // ---- 5. The loop.
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  std::string last_saved = SerializeSettings(app.settings);
  auto last_save_check = Clock::now();
  int ready_frames = 0;   // frames since the first results were on screen
  int snapshots = 0;
  std::string snapshot_message;
  FrameBench bench(options.bench_frames);  // --bench-frames: frame_bench.h
  FramePacer pacer;
  const bool every_frame = options.frames > 0 || bench.enabled();  // they count frames
  // Settings: saved (atomically) when they change, at most every 2 s, drawn or not; ImGui's layout likewise.
  auto save_settings_if_changed = [&]() {
    if (!save_settings || Clock::now() - last_save_check <= std::chrono::seconds(2)) return;
    last_save_check = Clock::now();
    WindowRect r = platform.window_rect();
    app.settings.window_x = r.x, app.settings.window_y = r.y, app.settings.window_w = r.width, app.settings.window_h = r.height;
    std::string now = SerializeSettings(app.settings);
    if (now != last_saved && SaveSettings(settings_path, app.settings).ok()) last_saved = now;
    if (ImGui::GetIO().WantSaveIniSettings) {
      size_t size = 0;
      const char* ini = ImGui::SaveIniSettingsToMemory(&size);
      WriteFileAtomic(layout_path, std::string_view(ini, size));
      ImGui::GetIO().WantSaveIniSettings = false;
    }
  };
  while (!platform.ShouldClose() && !app.quit_requested) {
    // Events: an idle window sleeps until one arrives (or a short timeout, for signals and saving).
    if (every_frame || pacer.FrameDue() || app.Busy()) platform.PollEvents();
    else platform.WaitEvents(FramePacer::kIdleWaitSeconds);
    if (platform.Iconified()) {  // a minimized window draws nothing
      platform.WaitEvents(0.1);
      continue;
    }
    auto frame_start = Clock::now();
    // Dropped files, finished results from the worker.
    for (std::string& path : platform.TakeDroppedFiles()) app.pending_drops.push_back(path);
    app.Update();
    if (platform.UpdateContentScale()) app.fonts.Invalidate();
    if (platform.TakeInputEvents() > 0 || app.Busy() || g_snapshot_requested || g_frames_requested) pacer.Activity();
    g_frames_requested = 0;
    save_settings_if_changed();
    if (!every_frame && !pacer.FrameDue()) continue;
    pacer.FrameDrawn();
    // New characters (e.g. Hangul just typed) need a font atlas rebuild before the frame starts.
    if (app.fonts.dirty()) {
      std::string message = platform.RebuildFonts(&app.fonts);
      if (!message.empty()) app.Notify(message);
    }
    // Ready: the latest settings are on screen (maps, or the error that prevents them).
    bool ready = (app.results.shown || !app.results.compute_error.empty()) && !app.results.computing && !app.results.sweeping && !app.fonts.dirty();
    double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    if (ready || elapsed > 60.0) ++ready_frames;

    // The frame.
    platform.NewFrame(/*ignore_mouse=*/!options.screenshot_path.empty());
    const FrameBench::Phase* bench_phase = bench.current();
    if (bench_phase && bench_phase->empty) {
      // An empty ImGui frame: nothing but NewFrame/Render, clear and swap.
    } else {
      app.bench_hide_maps = bench_phase && bench_phase->hide_maps;
      app.bench_heads_only = bench_phase && bench_phase->heads_only;
      if (bench_phase && bench_phase->redraw) renderer->InvalidateAll();
      app.Draw(*renderer);
    }
    platform.Render(0.10f, 0.10f, 0.12f);
    renderer->EndFrame();

    // Screenshots: --screenshot after --frames, or SIGUSR1 to --snapshot-path.
    if (!options.screenshot_path.empty() && options.frames > 0 && ready_frames >= options.frames) {
      Status st = platform.SaveScreenshot(options.screenshot_path);
      if (!st.ok()) std::fprintf(stderr, "attnviz: %s\n", st.message().c_str());
      else std::printf("screenshot written to %s\n", options.screenshot_path.c_str());
      platform.RequestClose();
    }
    if (g_snapshot_requested) {
      g_snapshot_requested = 0;
      std::string path = options.snapshot_path.empty() ? "attnviz-snapshot.png" : options.snapshot_path;
      Status st = platform.SaveScreenshot(path);
      ++snapshots;
      snapshot_message = st.ok() ? path : st.message();
    }
    platform.Swap();
    if (bench.enabled()) platform.Finish();

    if (app.dump.enabled()) {
      app.dump.SetField("snapshots", std::to_string(snapshots));
      app.dump.SetField("snapshot_message", JsonString(snapshot_message));
      app.dump.SetField("ready", ready ? "true" : "false");
      app.dump.SetField("gl_renderer", JsonString(gl_renderer));
      app.dump.SetField("heatmap_uploads", std::to_string(renderer->uploads()));
      app.dump.SetField("heatmap_draws", std::to_string(renderer->draws()));
      app.dump.WriteTo(options.widgets_json_path);
    }
    ++app.frame;
    if (options.frames > 0 && options.screenshot_path.empty() && !bench.enabled() && ready_frames >= options.frames)
      platform.RequestClose();

    // Frame-time benchmark: warm up until ready, then each phase for bench_frames frames.
    bench.Record(std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count(), ready_frames);
    if (bench.done()) platform.RequestClose();

    // Without vsync (e.g. Xvfb) do not spin: about 60 frames a second leaves the cores to the worker.
    if (!bench.enabled()) {
      auto spent = Clock::now() - frame_start;
      if (spent < std::chrono::milliseconds(15)) std::this_thread::sleep_for(std::chrono::milliseconds(15) - spent);
    }
  }

  // ---- 6. Save settings and layout, shut down.
  if (save_settings) {
    WindowRect r = platform.window_rect();
    app.settings.window_x = r.x, app.settings.window_y = r.y, app.settings.window_w = r.width, app.settings.window_h = r.height;
    Status st = SaveSettings(settings_path, app.settings);
    if (!st.ok()) std::fprintf(stderr, "attnviz: could not save settings: %s\n", st.message().c_str());
    size_t size = 0;
    const char* ini = ImGui::SaveIniSettingsToMemory(&size);
    WriteFileAtomic(layout_path, std::string_view(ini, size));
  }
  if (bench.enabled()) {
    const AttentionTensors* t = app.results.shown ? &app.results.shown->tensors : nullptr;
    std::printf("%s", bench.Report(platform.gl_renderer(), (int)app.VisibleHeads().size(), t ? t->n_q() : 0,
                                   t ? t->n_k() : 0).c_str());
  }
  renderer.reset();  // GL objects go before the context
  platform.Shutdown();
  return 0;
}
