#include "startup.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "io/file_io.h"
#include "i18n/localized.h"

namespace attnviz {
namespace {

int Refuse(const std::string& message) {
  std::fprintf(stderr, "attnviz: %s\n", message.c_str());
  return 2;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int PrepareStartup(const std::vector<std::string>& args, Startup* out) {
  // 1. Restored settings: the command line is applied on top of them.
  const bool no_settings = std::find(args.begin(), args.end(), "--no-settings") != args.end();
  const std::string config_dir = ConfigDir();
  out->settings_path = config_dir + "/settings.txt";
  out->layout_path = config_dir + "/layout.ini";
  out->loaded = no_settings ? LoadedSettings{} : LoadSettings(out->settings_path);
  // An unreadable settings file (or a corrupt one that could not be set aside) is never saved over.
  out->save_settings = !no_settings && !out->loaded.keep_file;
  // 2. The language of the messages below, decided as App decides it: --lang (wherever it stands, even after a bad
  // option), else the saved setting, else the locale.
  Lang lang = LangFromEnvironment();
  if (!out->loaded.settings.lang.empty()) ParseLang(out->loaded.settings.lang, &lang);
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--lang") ParseLang(args[i + 1], &lang);
    if (OptionTakesValue(args[i])) ++i;  // a value is never an option: `--text --lang` is the text "--lang"
  }
  SetLang(lang);
  // 3. Options: the shared text/config options (ParseInputOption) plus the app's own, checked.
  AppOptions& options = out->options;
  options.input.config = out->loaded.settings.config;
  if (Status parsed = ParseAppOptions(args, &options); !parsed.ok()) return Refuse(Localized(parsed));
  if (options.help) {
    std::printf("%s", AppOptionsHelp().c_str());
    return 0;
  }
  if (Status valid = Validate(options.input.config); !valid.ok()) return Refuse(Localized(valid));
  // --text-file/--line are resolved as attnviz-cli resolves them: a bad file or line exits 2.
  if (!options.input.text_file.empty() || options.input.line != 0) {
    if (Result<SentenceItem> item = ResolveInputText(options.input); !item) return Refuse(Localized(item));
  }
  // 4. --weights: a pipeline holding them.
  if (!options.input.weights_dir.empty()) {
    InputOptions in = options.input;
    if (in.text.empty() && in.text_file.empty()) in.text = out->loaded.settings.kv_text;
    out->prepared = std::make_unique<Pipeline>();
    if (Status st = PreparePipeline(in, out->prepared.get()); !st.ok()) return Refuse(Localized(st));
  }
  return -1;
}

SettingsSaver::SettingsSaver(const Startup& startup, const AppSettings& initial)
    : settings_path_(startup.settings_path),
      layout_path_(startup.layout_path),
      enabled_(startup.save_settings),
      last_saved_(SerializeSettings(initial)),
      last_check_(Now()) {}

void SettingsSaver::SaveIfChanged(const AppSettings& settings) {
  if (!enabled_ || Now() - last_check_ <= 2.0) return;
  last_check_ = Now();
  const std::string now = SerializeSettings(settings);
  if (now != last_saved_ && SaveSettings(settings_path_, settings).ok()) last_saved_ = now;
  if (ImGui::GetIO().WantSaveIniSettings) SaveLayout();
}

void SettingsSaver::SaveOnExit(const AppSettings& settings) {
  if (!enabled_) return;
  if (Status st = SaveSettings(settings_path_, settings); !st.ok())
    std::fprintf(stderr, "attnviz: could not save settings: %s\n", st.message().c_str());
  SaveLayout();
}

void SettingsSaver::SaveLayout() {
  size_t size = 0;
  const char* ini = ImGui::SaveIniSettingsToMemory(&size);
  WriteFileAtomic(layout_path_, std::string_view(ini, size));
  ImGui::GetIO().WantSaveIniSettings = false;
}

}  // namespace attnviz
