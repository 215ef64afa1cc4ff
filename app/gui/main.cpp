// attnviz: the desktop app. The straight loop of imgui's example_glfw_opengl3, phases commented:
//   1, 2. options on top of the restored settings (startup.h)   3. window + GL + ImGui   4. heatmap renderer
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
#include "startup.h"

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

// The frame's outputs besides the window: --screenshot once ready for --frames frames, a SIGUSR1 snapshot, and the
// --widgets-json dump's own fields. Returns true when the app should close (the screenshot was written).
struct FrameOutputs {
  int snapshots = 0;
  std::string snapshot_message;
  double window_t_s = -1;  // when the first frame was drawn: "on screen within S s of the window" counts from here
  bool Write(App& app, Platform& platform, const gl::GlHeatmapRenderer& renderer, bool ready, int ready_frames,
             double t_s) {
    const AppOptions& options = app.options;
    bool close = false;
    if (!options.screenshot_path.empty() && options.frames > 0 && ready_frames >= options.frames) {
      Status st = platform.SaveScreenshot(options.screenshot_path);
      if (!st.ok()) std::fprintf(stderr, "attnviz: %s\n", st.message().c_str());
      else std::printf("screenshot written to %s\n", options.screenshot_path.c_str());
      close = true;
    }
    if (g_snapshot_requested) {
      g_snapshot_requested = 0;
      std::string path = options.snapshot_path.empty() ? "attnviz-snapshot.png" : options.snapshot_path;
      Status st = platform.SaveScreenshot(path);
      ++snapshots;
      snapshot_message = st.ok() ? path : st.message();
    }
    if (window_t_s < 0) window_t_s = t_s;
    OverviewPanelView& overview = app.views.overview;
    overview.Stamp(t_s);
    if (app.dump.enabled()) {
      app.dump.set_seconds(t_s);
      app.dump.SetField("window_t_s", std::to_string(window_t_s));
      app.dump.SetField("overview_t_s", "{\"first_layer\": " + std::to_string(overview.first_layer_t_s) +
                                            ", \"all_layers\": " + std::to_string(overview.all_layers_t_s) + "}");
      app.dump.SetField("snapshots", std::to_string(snapshots));
      app.dump.SetField("snapshot_message", JsonString(snapshot_message));
      app.dump.SetField("ready", ready ? "true" : "false");
      app.dump.SetField("gl_renderer", JsonString(platform.gl_renderer()));
      app.dump.SetField("heatmap_uploads", std::to_string(renderer.uploads()));
      app.dump.SetField("heatmap_draws", std::to_string(renderer.draws()));
      app.dump.WriteTo(options.widgets_json_path);
    }
    return close;
  }
};

// One frame: NewFrame, the panels (or what the benchmark's phase leaves of them), Render.
void DrawFrame(App& app, Platform& platform, gl::GlHeatmapRenderer& renderer, const FrameBench& bench) {
  platform.NewFrame(/*ignore_mouse=*/!app.options.screenshot_path.empty());
  const FrameBench::Phase* bench_phase = bench.current();
  if (!(bench_phase && bench_phase->empty)) {  // the benchmark's empty phase: nothing but NewFrame/Render
    app.bench_hide_maps = bench_phase && bench_phase->hide_maps;
    app.bench_heads_only = bench_phase && bench_phase->heads_only;
    if (bench_phase && bench_phase->redraw) renderer.InvalidateAll();
    app.Draw(renderer);
  }
  platform.Render(0.10f, 0.10f, 0.12f);
  renderer.EndFrame();
}

void PrintBenchReport(App& app, Platform& platform, const FrameBench& bench) {
  const LayerMaps* t = app.results.shown ? app.results.shown->maps.get() : nullptr;
  std::printf("%s", bench.Report(platform.gl_renderer(), (int)app.VisibleHeads().size(), t ? t->n_q() : 0,
                                 t ? t->n_k() : 0).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  // ---- 0. OpenMP's waiting threads sleep (a re-run of this program with OMP_WAIT_POLICY=passive when unset).
  UsePassiveOpenMpWaits(argv);
  // ---- 1, 2. Options on top of the restored settings (startup.h); a bad one exits 2 before any window.
  Startup startup;
  if (int exit_code = PrepareStartup(std::vector<std::string>(argv + 1, argv + argc), &startup); exit_code >= 0)
    return exit_code;
  App app(startup.loaded.settings, startup.options, std::move(startup.prepared));
  const AppOptions& options = app.options;
  if (!startup.loaded.message.empty()) {
    app.Notify(startup.loaded.message);
    std::fprintf(stderr, "attnviz: %s\n", startup.loaded.message.Render().c_str());
  }
  // ---- 3. Window, GL context, ImGui (and the saved layout).
  Platform platform;
  WindowRect rect{app.settings.window_x, app.settings.window_y, app.settings.window_w, app.settings.window_h};
  if (Status st = platform.Init("attnviz", rect); !st.ok()) {
    std::fprintf(stderr, "attnviz: %s\n", st.message().c_str());
    return 1;
  }
  if (!options.no_settings) {
    if (Result<std::string> ini = ReadFile(startup.layout_path); ini.ok())
      ImGui::LoadIniSettingsFromMemory(ini->data(), ini->size());
  }
  app.wake_ui = &Platform::Wake;  // background results end the event wait at once
  std::signal(SIGUSR1, OnSigUsr1);
  std::signal(SIGUSR2, OnSigUsr2);
  // ---- 4. The heatmap renderer (shaders loaded from files; a failure is shown in the Heads panel).
  auto renderer = std::make_unique<gl::GlHeatmapRenderer>(FindShaderDir(options.shader_dir));
  if (!renderer->error().empty()) std::fprintf(stderr, "attnviz: %s\n", renderer->error().c_str());

  // ---- 5. The loop.
  SettingsSaver saver(startup, app.settings);
  FrameBench bench(options.bench_frames);  // --bench-frames: frame_bench.h
  FramePacer pacer;
  FrameOutputs outputs;
  int ready_frames = 0;  // frames since everything asked for was on screen
  auto last_frame = Clock::now();
  App::ShownState last_shown;  // what the last pass of the loop showed (a change draws a frame)
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
  // --bench-frames and --frames count frames: every pass of the loop draws one, --frames' once everything asked for
  // is on screen (before that, frames come as they would for a person: a model run's cores are not spent on frames
  // nobody counts).
  auto every_frame = [&] { return bench.enabled() || (options.frames > 0 && (ready_frames > 0 || seconds() > 60.0)); };
  auto keep_window_rect = [&] {
    const WindowRect r = platform.window_rect();
    app.settings.window_x = r.x, app.settings.window_y = r.y, app.settings.window_w = r.width;
    app.settings.window_h = r.height;
  };
  while (!platform.ShouldClose() && !app.quit_requested) {
    // 5a. Events: an idle window sleeps until one arrives (or a short timeout, for signals and saving). While work
    //     runs and no input comes, a frame is drawn when what it shows changed (at most kBusyFramesPerSecond a
    //     second; a run's next layers kLayerFramesPerSecond) or for the progress bar (kProgressFramesPerSecond):
    //     drawing (llvmpipe draws on the CPU) must leave the cores to the work; input and background results
    //     (App::wake_ui) end the wait at once.
    auto since_last_frame = [&] { return std::chrono::duration<double>(Clock::now() - last_frame).count(); };
    const double wait = every_frame() ? 0.0 : app.Busy() ? pacer.BusyWaitSecondsFor(since_last_frame()) : pacer.WaitSeconds();
    if (wait > 0) platform.WaitEvents(wait);
    else platform.PollEvents();
    if (platform.Iconified()) {  // a minimized window draws nothing
      platform.WaitEvents(0.1);
      continue;
    }
    const auto frame_start = Clock::now();
    // 5b. Dropped files and finished results; settings saved when they changed (drawn or not).
    for (std::string& path : platform.TakeDroppedFiles()) app.pending_drops.push_back(path);
    app.Update();
    if (platform.UpdateContentScale()) app.fonts.Invalidate();
    const App::ShownState shown = app.Shown();
    if (platform.TakeInputEvents() > 0 || g_snapshot_requested || g_frames_requested) pacer.Activity(shown.busy);
    else if (shown.busy) pacer.Busy(shown != last_shown, shown.MoreLayersOnly(last_shown), since_last_frame());
    else if (shown != last_shown) pacer.Change();
    if (platform.TakeWindowEvents() > 0) pacer.Change();
    last_shown = shown;
    g_frames_requested = 0;
    keep_window_rect();
    saver.SaveIfChanged(app.settings);
    if (!every_frame() && !pacer.FrameDue()) continue;
    pacer.FrameDrawn();
    last_frame = frame_start;
    // 5c. New characters (e.g. Hangul just typed) need a font atlas rebuild before the frame starts.
    if (app.fonts.dirty()) {
      std::string message = platform.RebuildFonts(&app.fonts);
      if (!message.empty()) app.Notify(message);
    }
    const bool ready = app.Ready();
    if (ready || seconds() > 60.0) ++ready_frames;
    // 5d. The frame: panels, render.
    DrawFrame(app, platform, *renderer, bench);
    // 5e. Screenshot, snapshot and dump; swap.
    if (outputs.Write(app, platform, *renderer, ready, ready_frames, seconds())) platform.RequestClose();
    platform.Swap();
    if (shown.busy) pacer.FrameCost(std::chrono::duration<double>(Clock::now() - frame_start).count());
    if (bench.enabled()) platform.Finish();
    ++app.frame;
    if (options.frames > 0 && options.screenshot_path.empty() && !bench.enabled() && ready_frames >= options.frames)
      platform.RequestClose();
    // 5f. Frame-time benchmark: warm up until ready, then each phase for bench_frames frames.
    bench.Record(std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count(), ready_frames);
    if (bench.done()) platform.RequestClose();
    // Without vsync (e.g. Xvfb) do not spin: about 60 frames a second leaves the cores to the worker.
    const auto spent = Clock::now() - frame_start;
    if (!bench.enabled() && spent < std::chrono::milliseconds(15))
      std::this_thread::sleep_for(std::chrono::milliseconds(15) - spent);
  }

  // ---- 6. Save settings and layout, shut down.
  keep_window_rect();
  saver.SaveOnExit(app.settings);
  if (bench.enabled()) PrintBenchReport(app, platform, bench);
  renderer.reset();  // GL objects go before the context
  platform.Shutdown();  // Wake posts nothing from here on
  return 0;
}
