// AppSettings: what the user chose (text, attention settings, picture settings, visible heads,
// window placement), separate from rendering and from computed results. Persisted atomically as
// a `key = value` text file in $XDG_CONFIG_HOME/attnviz/ (or ~/.config/attnviz/).
#pragma once
#include <string>
#include <vector>

#include "color/colormap.h"
#include "sandbox/config.h"
#include "base/status.h"
#include "i18n/ui_message.h"

namespace attnviz {

enum class ExportTarget { kCurrentHead = 0, kVisibleHeads, kSaturationPlot, kOverview };  // kOverview: a model's layers x heads
enum class ExportFormat { kPng = 0, kSvg, kPdf, kCsv, kNpy, kJson };  // saved by name (ToString)
const char* ToString(ExportTarget target);
const char* ToString(ExportFormat format);  // "png", ...

constexpr int kMaxRecentFiles = 8;

// Where the maps come from: the sandbox (one random attention layer, every knob) or a trained model.
enum class Source { kSandbox = 0, kModel };
const char* ToString(Source source);

struct AppSettings {
  // Text: kv_text gives keys and values (and queries in self mode); query_text the queries in cross mode.
  std::string kv_text = "I go home.";
  std::string query_text;                  // "" until cross mode first starts: then the user's own kv_text
  std::string sentence_file;               // the sentence list shown in the Sentences panel
  std::vector<std::string> recent_files;   // most recent first
  AttentionConfig config;

  // Picture.
  Colormap colormap = Colormap::kViridis;
  ColorScale color_scale = ColorScale::kLinear;
  bool auto_range = false;                 // false: fixed [0, 1]
  std::vector<bool> head_hidden;           // [kMaxHeads]; hidden heads are left out of the grid
  int selected_head = 0;
  bool enlarged = false;                   // the selected head fills the Heads panel
  bool side_by_side = false;               // the selected head scaled and unscaled next to each other

  // Export.
  ExportTarget export_target = ExportTarget::kCurrentHead;
  ExportFormat export_format = ExportFormat::kPng;
  std::string export_dir;                  // "" = DefaultExportDir(), the user's pictures folder
  std::string export_title;                // "" = the automatic title (FigureTitle)
  std::string export_size;                 // "" = automatic, else e.g. "3.3x3in" or "8x7cm"
  int export_dpi = 300;                    // pixels per inch (text in points scales with it): a paper's figure
  bool export_annotate = false;            // weights printed in the cells

  // Trained model (the Model panel).
  Source source = Source::kSandbox;
  std::string model_dir;                   // the folder last opened ("" = none)
  std::vector<std::string> recent_models;  // most recent first
  int model_layer = 0;                     // the layer the Heads panel shows
  bool model_hide_special = false;         // leave [CLS], [SEP], BOS ... out of the maps
  bool model_no_scale = false;             // what-if: no 1/sqrt(d_head)
  float model_temperature = 1.0f;          // what-if: logits / T
  bool model_no_softcap = false;           // what-if: no attention soft cap (models with one)
  bool model_no_qk_norm = false;           // what-if: no q/k norms (models with them)
  std::string model_whatif_layers;         // the layers the what-ifs act on: "" = all, else "0,2,5"
  std::string model_role_filter;           // the Overview's filter, e.g. "induction >= 0.4" ("" = none)

  // The UI language once chosen (--lang or the window's switch): "en" or "ko"; "" = from the locale.
  std::string lang;

  // Window placement (screen coordinates; x/y < 0: let the window system choose).
  int window_x = -1, window_y = -1, window_w = 1280, window_h = 800;

  AppSettings() : head_hidden(kMaxHeads, false) {}
  bool head_visible(int head) const { return head >= 0 && head < (int)head_hidden.size() && !head_hidden[head]; }
  void AddRecentFile(const std::string& path);
  void AddRecentModel(const std::string& dir);
};

// Window bounds a window system takes (settings outside them are refused on load).
constexpr int kMinWindowWidth = 200, kMinWindowHeight = 150, kMaxWindowSide = 8192;
// The largest settings file read (the app writes a few KB).
constexpr size_t kMaxSettingsFileBytes = size_t(1) << 20;

// key = value lines; strings escape \n and backslash. '#' lines are comments.
std::string SerializeSettings(const AppSettings& state);
// Fails on invalid UTF-8 or a line that is not `key = value`; the message names the line. Unknown keys
// are ignored (newer versions may add some). A bad value (unparsable, out of range) or a config that
// fails Validate() fails too when `value_problems` is null; else it is appended there ("line 7
// (window_w): 100000 is out of range: allowed 200..8192; the default is used") and the default kept. The error's
// message is English; `why` (when given) gets it as a UiMessage, to show in the UI's language.
Result<AppSettings> ParseSettings(const std::string& text, std::vector<UiMessage>* value_problems = nullptr,
                                 UiMessage* why = nullptr);

// $XDG_CONFIG_HOME/attnviz (or $HOME/.config/attnviz).
std::string ConfigDir();

// The folder the Export panel writes to when none is set: the user's pictures folder (XDG_PICTURES_DIR from
// $XDG_CONFIG_HOME/user-dirs.dirs, else ~/Pictures) when it exists, else $HOME (the password file's home when $HOME
// is unset, else /tmp). Never the process's working folder: the app may have been started from anywhere.
std::string DefaultExportDir();
// XDG_PICTURES_DIR's folder in a user-dirs.dirs text ("$HOME/Pictures" or "/abs/path", quoted), `home` put for
// $HOME; "" when the text sets none (or sets it to $HOME itself, which xdg-user-dirs reads as "no such folder").
std::string PicturesDirFromUserDirs(const std::string& user_dirs_text, const std::string& home);

struct LoadedSettings {
  AppSettings settings;        // defaults when the file is missing, unreadable or corrupt
  UiMessage message;       // for the user: "Settings file ... was corrupt (...); moved it to ....corrupt.1"
  bool restored = false;   // a saved state was read (bad values replaced by defaults, named in message)
  bool keep_file = false;  // unreadable (permissions, a folder, a device, too large) or corrupt and not movable:
                           // the caller must not save over it
};
// Reads `path` (at most kMaxSettingsFileBytes, a regular file). A corrupt file (bad UTF-8, a line that
// is not `key = value`) is renamed to the first free `path.corrupt.N`; bad values are reported and
// replaced by defaults; a file that cannot be read is reported and left alone (keep_file).
LoadedSettings LoadSettings(const std::string& path);
// Atomic (WriteFileAtomic); creates the folder.
Status SaveSettings(const std::string& path, const AppSettings& state);

}  // namespace attnviz
