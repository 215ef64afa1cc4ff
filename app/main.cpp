// attnviz: the desktop app. The straight loop of imgui's example_glfw_opengl3, phases commented:
//   1. options   2. restored settings   3. window + GL + ImGui   4. heatmap renderer (shaders)
//   5. the loop: events -> results -> fonts -> new frame -> panels -> render -> screenshot -> swap
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
#include "file_io.h"
#include "gl/heatmap_renderer.h"
#include "json.h"
#include "platform.h"
#include "state.h"

using namespace attnviz;

namespace {

volatile std::sig_atomic_t g_snapshot_requested = 0;
void OnSigUsr1(int) { g_snapshot_requested = 1; }

bool FileExists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::fclose(f);
  return true;
}

// --shader-dir, else shaders/ next to the executable (or one level up), else the source tree.
std::string FindShaderDir(const std::string& option) {
  if (!option.empty()) return option;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::vector<std::string> candidates;
  if (n > 0) {
    std::string exe(buf, (size_t)n);
    std::string dir = exe.substr(0, exe.find_last_of('/'));
    candidates = {dir + "/shaders", dir + "/../shaders", dir + "/../share/attnviz/shaders"};
  }
  candidates.push_back(ATTNVIZ_SOURCE_SHADER_DIR);
  for (const std::string& c : candidates)
    if (FileExists(c + "/heatmap.vert") && FileExists(c + "/heatmap.frag")) return c;
  return ATTNVIZ_SOURCE_SHADER_DIR;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, (size_t)(p * (double)v.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  // ---- 1. Options: the shared text/config options (ParseInputOption) plus the app's own.
  std::vector<std::string> args(argv + 1, argv + argc);
  bool no_settings = std::find(args.begin(), args.end(), "--no-settings") != args.end();

  // ---- 2. Restored settings: the command line is applied on top of them.
  const std::string config_dir = ConfigDir();
  const std::string settings_path = config_dir + "/settings.txt";
  const std::string layout_path = config_dir + "/layout.ini";
  LoadedViewState loaded = no_settings ? LoadedViewState{} : LoadViewState(settings_path);
  AppOptions options;
  options.input.config = loaded.state.config;
  Status parsed = ParseAppOptions(args, &options);
  if (!parsed.ok()) {
    std::fprintf(stderr, "attnviz: %s\n", parsed.message().c_str());
    return 2;
  }
  if (options.help) {
    std::printf("%s", AppOptionsHelp().c_str());
    return 0;
  }
  if (Status valid = Validate(options.input.config); !valid.ok()) {
    std::fprintf(stderr, "attnviz: %s\n", valid.message().c_str());
    return 2;
  }
  std::unique_ptr<Pipeline> prepared;
  if (!options.input.weights_dir.empty()) {
    InputOptions in = options.input;
    if (in.text.empty() && in.text_file.empty()) in.text = loaded.state.kv_text;
    prepared = std::make_unique<Pipeline>();
    Status st = PreparePipeline(in, prepared.get());
    if (!st.ok()) {
      std::fprintf(stderr, "attnviz: %s\n", st.message().c_str());
      return 2;
    }
  }
  App app(loaded.state, options, std::move(prepared));
  if (!loaded.message.empty()) {
    app.Notify(loaded.message);
    std::fprintf(stderr, "attnviz: %s\n", loaded.message.c_str());
  }

  // ---- 3. Window, GL context, ImGui.
  Platform platform;
  WindowRect rect{app.state.window_x, app.state.window_y, app.state.window_w, app.state.window_h};
  if (Status st = platform.Init("attnviz", rect); !st.ok()) {
    std::fprintf(stderr, "attnviz: %s\n", st.message().c_str());
    return 1;
  }
  if (!no_settings) {
    if (Result<std::string> ini = ReadFile(layout_path); ini.ok())
      ImGui::LoadIniSettingsFromMemory(ini->data(), ini->size());
  }
  std::signal(SIGUSR1, OnSigUsr1);

  // ---- 4. The heatmap renderer (shaders loaded from files; a failure is shown in the Heads panel).
  const std::string shader_dir = FindShaderDir(options.shader_dir);
  const std::string gl_renderer = platform.gl_renderer();
  auto renderer = std::make_unique<gl::GlHeatmapRenderer>(shader_dir);
  if (!renderer->error().empty()) std::fprintf(stderr, "attnviz: %s\n", renderer->error().c_str());

  // ---- 5. The loop.
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  std::string last_saved = SerializeViewState(app.state);
  auto last_save_check = Clock::now();
  int ready_frames = 0;   // frames since the first results were on screen
  int snapshots = 0;
  std::string snapshot_message;
  const bool bench = options.bench_frames > 0;
  // Benchmark phases, run in blocks of kBlock frames, round-robin, so slow drifts (other processes,
  // CPU clocks) hit every phase alike; the first frame of each block is dropped (it may redraw FBOs).
  struct Phase {
    const char* name;
    bool empty, heads_only, hide_maps, redraw;
    std::vector<double> ms;
  };
  std::vector<Phase> phases = {
      {"empty ImGui frame (clear + swap)", true, false, false, false, {}},
      {"Heads panel, maps hidden", false, true, true, false, {}},
      {"Heads panel, 8 maps (cached FBOs)", false, true, false, false, {}},
      {"Heads panel, 8 maps (re-upload + redraw each frame)", false, true, false, true, {}},
      {"all panels, maps hidden", false, false, true, false, {}},
      {"all panels, 8 maps (cached FBOs)", false, false, false, false, {}},
  };
  constexpr int kBlock = 10;
  int bench_frame = -1;  // -1: warming up until the first results are on screen
  auto current_phase = [&]() -> Phase* {
    if (!bench || bench_frame < 0) return nullptr;
    return &phases[(size_t)((bench_frame / kBlock) % (int)phases.size())];
  };

  while (!platform.ShouldClose() && !app.quit_requested) {
    auto frame_start = Clock::now();
    // Events, dropped files, finished results from the worker.
    platform.PollEvents();
    for (std::string& path : platform.TakeDroppedFiles()) app.pending_drops.push_back(path);
    app.Update();
    if (platform.UpdateContentScale()) app.fonts.Invalidate();
    // New characters (e.g. Hangul just typed) need a font atlas rebuild before the frame starts.
    if (app.fonts.dirty()) {
      std::string message = platform.RebuildFonts(&app.fonts);
      if (!message.empty()) app.Notify(message);
    }
    // Ready: the latest settings are on screen (maps, or the error that prevents them).
    bool ready = (app.shown || !app.compute_error.empty()) && !app.computing && !app.sweeping && !app.fonts.dirty();
    double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    if (ready || elapsed > 60.0) ++ready_frames;

    // The frame.
    platform.NewFrame(/*ignore_mouse=*/!options.screenshot_path.empty());
    Phase* bench_phase = current_phase();
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
    if (bench) platform.Finish();

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
    if (options.frames > 0 && options.screenshot_path.empty() && !bench && ready_frames >= options.frames)
      platform.RequestClose();

    // Frame-time benchmark: warm up until ready, then each phase for bench_frames frames.
    double frame_ms = std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count();
    if (bench) {
      if (bench_frame < 0) {
        if (ready_frames >= 10) bench_frame = 0;
      } else {
        if (bench_frame % kBlock != 0) bench_phase->ms.push_back(frame_ms);
        ++bench_frame;
        if (bench_frame >= options.bench_frames * (int)phases.size()) platform.RequestClose();
      }
    }

    // Settings: saved (atomically) when they change, at most every 2 s; ImGui's layout likewise.
    if (!no_settings && Clock::now() - last_save_check > std::chrono::seconds(2)) {
      last_save_check = Clock::now();
      WindowRect r = platform.window_rect();
      app.state.window_x = r.x, app.state.window_y = r.y, app.state.window_w = r.width, app.state.window_h = r.height;
      std::string now = SerializeViewState(app.state);
      if (now != last_saved && SaveViewState(settings_path, app.state).ok()) last_saved = now;
      if (ImGui::GetIO().WantSaveIniSettings) {
        size_t size = 0;
        const char* ini = ImGui::SaveIniSettingsToMemory(&size);
        WriteFileAtomic(layout_path, std::string_view(ini, size));
        ImGui::GetIO().WantSaveIniSettings = false;
      }
    }
    // Without vsync (e.g. Xvfb) do not spin: about 60 frames a second leaves the cores to the worker.
    if (!bench) {
      auto spent = Clock::now() - frame_start;
      if (spent < std::chrono::milliseconds(15)) std::this_thread::sleep_for(std::chrono::milliseconds(15) - spent);
    }
  }

  // ---- 6. Save settings and layout, shut down.
  if (!no_settings) {
    WindowRect r = platform.window_rect();
    app.state.window_x = r.x, app.state.window_y = r.y, app.state.window_w = r.width, app.state.window_h = r.height;
    Status st = SaveViewState(settings_path, app.state);
    if (!st.ok()) std::fprintf(stderr, "attnviz: could not save settings: %s\n", st.message().c_str());
    size_t size = 0;
    const char* ini = ImGui::SaveIniSettingsToMemory(&size);
    WriteFileAtomic(layout_path, std::string_view(ini, size));
  }
  if (bench) {
    const AttentionTensors* t = app.shown ? &app.shown->tensors : nullptr;
    std::printf("frame time, %s; %d visible heads at n_q=%d n_k=%d; %d frames a phase (median of each)\n",
                platform.gl_renderer().c_str(), (int)app.VisibleHeads().size(), t ? t->n_q() : 0, t ? t->n_k() : 0,
                options.bench_frames);
    std::printf("%-55s %10s %10s %10s\n", "phase", "median ms", "p90 ms", "vs empty");
    double empty = Median(phases[0].ms);
    for (const Phase& p : phases)
      std::printf("%-55s %10.2f %10.2f %9.2fx\n", p.name, Median(p.ms), Percentile(p.ms, 0.9),
                  empty > 0 ? Median(p.ms) / empty : 0.0);
    // The budget: the maps may add at most 50 % to the frame they sit in. Measured twice: on the
    // Heads panel alone and on the whole app, each against the same frame with the maps left out.
    double heads_added = Median(phases[2].ms) - Median(phases[1].ms);
    double heads_ratio = Median(phases[1].ms) > 0 ? heads_added / Median(phases[1].ms) : 0;
    double all_added = Median(phases[5].ms) - Median(phases[4].ms);
    double all_ratio = Median(phases[4].ms) > 0 ? all_added / Median(phases[4].ms) : 0;
    std::printf("8 maps add %.2f ms (%+.0f%%) to the Heads panel frame and %.2f ms (%+.0f%%) to the whole app frame;\n"
                "against the bare clear+swap frame (%.2f ms) that is %.0f%%.\n",
                heads_added, heads_ratio * 100.0, all_added, all_ratio * 100.0, empty,
                empty > 0 ? heads_added / empty * 100.0 : 0.0);
    bool pass = heads_ratio <= 0.5 && all_ratio <= 0.5;
    std::printf("budget (maps add at most 50%% to the frame without them): %s\n", pass ? "PASS" : "FAIL");
  }
  renderer.reset();  // GL objects go before the context
  platform.Shutdown();
  return 0;
}
