// What the app starts from, decided before any window opens: the command line applied on top of the restored
// settings (the messages in the language --lang, the saved setting or the locale says), the --weights pipeline,
// and where the settings and the layout are saved.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app.h"
#include "settings.h"

namespace attnviz {

struct Startup {
  AppOptions options;
  LoadedSettings loaded;
  std::unique_ptr<Pipeline> prepared;  // --weights: the pipeline holding them (null: the random init)
  std::string settings_path, layout_path;
  bool save_settings = false;  // false: --no-settings, or a file that could not be read (never saved over)
};

// Fills *out from argv (without the program name). Returns the exit code to end with now (--help printed: 0; a bad
// option, config, text file or weights: 2, the message on stderr), or -1 to go on.
int PrepareStartup(const std::vector<std::string>& args, Startup* out);

// Saves the settings (atomically) when they changed and ImGui's layout when it asks: at most every 2 s while the
// app runs, and once more on exit. Never when the settings could not be read (Startup::save_settings).
class SettingsSaver {
 public:
  explicit SettingsSaver(const Startup& startup, const AppSettings& initial);
  void SaveIfChanged(const AppSettings& settings);
  void SaveOnExit(const AppSettings& settings);

 private:
  void SaveLayout();
  std::string settings_path_, layout_path_;
  bool enabled_;
  std::string last_saved_;
  double last_check_ = 0;  // seconds on the steady clock
};

}  // namespace attnviz
