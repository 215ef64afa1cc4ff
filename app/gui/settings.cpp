#include "settings.h"

#include "base/parse_number.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <type_traits>

#include "io/file_io.h"
#include "options.h"
#include "sandbox/text.h"
#include "i18n/ui_strings.h"

namespace attnviz {

const char* ToString(ExportTarget target) {
  switch (target) {
    case ExportTarget::kCurrentHead: return "current head";
    case ExportTarget::kVisibleHeads: return "visible heads";
    case ExportTarget::kSaturationPlot: return "saturation plot";
    case ExportTarget::kOverview: return "overview";
  }
  return "?";
}

const char* ToString(ExportFormat format) {
  switch (format) {
    case ExportFormat::kPng: return "png";
    case ExportFormat::kSvg: return "svg";
    case ExportFormat::kPdf: return "pdf";
    case ExportFormat::kCsv: return "csv";
    case ExportFormat::kNpy: return "npy";
    case ExportFormat::kJson: return "json";
  }
  return "?";
}

void AppSettings::AddRecentFile(const std::string& path) {
  for (size_t i = 0; i < recent_files.size(); ++i) {
    if (recent_files[i] == path) {
      recent_files.erase(recent_files.begin() + (long)i);
      break;
    }
  }
  recent_files.insert(recent_files.begin(), path);
  if ((int)recent_files.size() > kMaxRecentFiles) recent_files.resize(kMaxRecentFiles);
}

namespace {

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  return out;
}

// The value with \\, \n, \r undone; an empty message, or what is wrong.
UiMessage Unescape(const std::string& s, std::string* out_value) {
  std::string& out = *out_value;
  out.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i >= s.size()) return UiMessage(Str::kSettingsLoneBackslash);
    if (s[i] == '\\') out += '\\';
    else if (s[i] == 'n') out += '\n';
    else if (s[i] == 'r') out += '\r';
    else return UiMessage(Str::kSettingsUnknownEscape, {std::string(1, s[i])});
  }
  return UiMessage();
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}


std::optional<bool> ParseBool(const std::string& v) {
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  return std::nullopt;
}

// "'x' is not sandbox/model": a value outside a few named choices.
UiMessage NotOneOf(const std::string& raw, const char* choices) {
  return UiMessage(Str::kSettingsNotOneOf, {raw, choices});
}

}  // namespace

const char* ToString(Source source) { return source == Source::kModel ? "model" : "sandbox"; }

void AppSettings::AddRecentModel(const std::string& dir) {
  recent_models.erase(std::remove(recent_models.begin(), recent_models.end(), dir), recent_models.end());
  recent_models.insert(recent_models.begin(), dir);
  if ((int)recent_models.size() > kMaxRecentFiles) recent_models.resize(kMaxRecentFiles);
}

std::string SerializeSettings(const AppSettings& s) {
  std::ostringstream o;
  const AttentionConfig& c = s.config;
  o << "# attnviz settings (written by the app; key = value)\n";
  o << "version = 1\n";
  o << "kv_text = " << Escape(s.kv_text) << "\n";
  o << "query_text = " << Escape(s.query_text) << "\n";
  o << "sentence_file = " << Escape(s.sentence_file) << "\n";
  for (const std::string& f : s.recent_files) o << "recent_file = " << Escape(f) << "\n";
  o << ConfigSettingsLines(c);  // the attention config: one line per field of the table (config.h)
  o << "source = " << ToString(s.source) << "\n";
  o << "model_dir = " << Escape(s.model_dir) << "\n";
  for (const std::string& m : s.recent_models) o << "recent_model = " << Escape(m) << "\n";
  o << "model_layer = " << s.model_layer << "\n";
  o << "model_hide_special = " << (s.model_hide_special ? "true" : "false") << "\n";
  o << "model_no_scale = " << (s.model_no_scale ? "true" : "false") << "\n";
  o << "model_no_softcap = " << (s.model_no_softcap ? "true" : "false") << "\n";
  o << "model_no_qk_norm = " << (s.model_no_qk_norm ? "true" : "false") << "\n";
  {
    char t[64];
    std::snprintf(t, sizeof t, "%.9g", (double)s.model_temperature);
    o << "model_temperature = " << t << "\n";
  }
  o << "model_whatif_layers = " << Escape(s.model_whatif_layers) << "\n";
  o << "model_role_filter = " << Escape(s.model_role_filter) << "\n";
  o << "colormap = " << ToString(s.colormap) << "\n";
  o << "color_scale = " << ToString(s.color_scale) << "\n";
  o << "auto_range = " << (s.auto_range ? "true" : "false") << "\n";
  std::string hidden;
  for (size_t h = 0; h < s.head_hidden.size(); ++h)
    if (s.head_hidden[h]) hidden += (hidden.empty() ? "" : ",") + std::to_string(h);
  o << "hidden_heads = " << hidden << "\n";
  o << "selected_head = " << s.selected_head << "\n";
  o << "enlarged = " << (s.enlarged ? "true" : "false") << "\n";
  o << "side_by_side = " << (s.side_by_side ? "true" : "false") << "\n";
  o << "export_target = " << (int)s.export_target << "\n";
  o << "export_format = " << ToString(s.export_format) << "\n";
  o << "export_dir = " << Escape(s.export_dir) << "\n";
  o << "lang = " << s.lang << "\n";
  o << "export_title = " << Escape(s.export_title) << "\n";
  o << "export_size = " << Escape(s.export_size) << "\n";
  o << "export_dpi = " << s.export_dpi << "\n";
  o << "export_annotate = " << (s.export_annotate ? "true" : "false") << "\n";
  o << "window_x = " << s.window_x << "\n";
  o << "window_y = " << s.window_y << "\n";
  o << "window_w = " << s.window_w << "\n";
  o << "window_h = " << s.window_h << "\n";
  return o.str();
}

namespace {

// Sets `key` from `raw`; an empty message, or what is wrong with the value.
UiMessage ApplyKey(const std::string& key, const std::string& raw, AppSettings* s) {
  AttentionConfig& c = s->config;
  auto str = [&](std::string* out) { return Unescape(raw, out); };
  auto integer = [&](long long lo, long long hi, auto* out) -> Status {
    Result<long long> r = ParseInteger(raw, lo, hi);
    if (!r) return r.status();
    *out = (std::remove_pointer_t<decltype(out)>)*r;
    return Status::Ok();
  };
  auto boolean = [&](bool* out) -> UiMessage {
    std::optional<bool> r = ParseBool(raw);
    if (!r) return NotOneOf(raw, "true/false");
    *out = *r;
    return UiMessage();
  };
  if (key == "version") return Status::Ok();
  if (key == "kv_text") return str(&s->kv_text);
  if (key == "query_text") return str(&s->query_text);
  if (key == "sentence_file") return str(&s->sentence_file);
  if (key == "recent_file") {
    std::string f;
    UiMessage st = str(&f);
    if (st.empty() && (int)s->recent_files.size() < kMaxRecentFiles) s->recent_files.push_back(f);
    return st;
  }
  Status field_error;
  if (SetConfigField(key, raw, &c, &field_error)) return field_error;  // the config's fields (config.h)
  if (key == "source") {
    if (raw == "sandbox") s->source = Source::kSandbox;
    else if (raw == "model") s->source = Source::kModel;
    else return NotOneOf(raw, "sandbox/model");
    return Status::Ok();
  }
  if (key == "model_dir") return str(&s->model_dir);
  if (key == "recent_model") {
    std::string m;
    UiMessage st = str(&m);
    if (st.empty() && (int)s->recent_models.size() < kMaxRecentFiles) s->recent_models.push_back(m);
    return st;
  }
  if (key == "model_layer") return integer(0, 4096, &s->model_layer);
  if (key == "model_hide_special") return boolean(&s->model_hide_special);
  if (key == "model_no_scale") return boolean(&s->model_no_scale);
  if (key == "model_no_softcap") return boolean(&s->model_no_softcap);
  if (key == "model_no_qk_norm") return boolean(&s->model_no_qk_norm);
  if (key == "model_temperature") {
    Result<double> t = ParseReal(raw, kMinTemperature, kMaxTemperature);
    if (!t) return t.status();
    s->model_temperature = (float)*t;
    return Status::Ok();
  }
  if (key == "lang") {
    Lang lang;
    if (!raw.empty() && !ParseLang(raw, &lang)) return NotOneOf(raw, "en/ko");
    s->lang = raw.empty() ? "" : ToString(lang);
    return Status::Ok();
  }
  if (key == "model_whatif_layers") return str(&s->model_whatif_layers);
  if (key == "model_role_filter") return str(&s->model_role_filter);
  if (key == "colormap") {
    Result<Colormap> m = ParseColormap(raw);
    if (!m) return m.status();
    s->colormap = *m;
    return Status::Ok();
  }
  if (key == "color_scale") {
    Result<ColorScale> m = ParseColorScale(raw);
    if (!m) return m.status();
    s->color_scale = *m;
    return Status::Ok();
  }
  if (key == "auto_range") return boolean(&s->auto_range);
  if (key == "hidden_heads") {
    std::fill(s->head_hidden.begin(), s->head_hidden.end(), false);
    std::stringstream ss(raw);
    std::string item;
    while (std::getline(ss, item, ',')) {
      Result<long long> h = ParseInteger(Trim(item), 0, kMaxHeads - 1);
      if (!h) return h.status();
      s->head_hidden[(size_t)*h] = true;
    }
    return Status::Ok();
  }
  if (key == "selected_head") return integer(0, kMaxHeads - 1, &s->selected_head);
  if (key == "enlarged") return boolean(&s->enlarged);
  if (key == "side_by_side") return boolean(&s->side_by_side);
  if (key == "export_target") {
    int t = 0;
    Status st = integer(0, (int)ExportTarget::kOverview, &t);
    s->export_target = (ExportTarget)t;
    return st;
  }
  if (key == "export_format") {
    for (int f = 0; f <= (int)ExportFormat::kJson; ++f)
      if (raw == ToString((ExportFormat)f)) {
        s->export_format = (ExportFormat)f;
        return Status::Ok();
      }
    return NotOneOf(raw, "png/svg/csv/npy/json");
  }
  if (key == "export_dir") return str(&s->export_dir);
  if (key == "export_title") return str(&s->export_title);
  if (key == "export_size") return str(&s->export_size);
  if (key == "export_dpi") return integer(10, 2400, &s->export_dpi);
  if (key == "export_annotate") return boolean(&s->export_annotate);
  // Bounds a window system takes (X coordinates are 16-bit; 100000 killed every start with an X error).
  if (key == "window_x") return integer(-kMaxWindowSide, kMaxWindowSide, &s->window_x);
  if (key == "window_y") return integer(-kMaxWindowSide, kMaxWindowSide, &s->window_y);
  if (key == "window_w") return integer(kMinWindowWidth, kMaxWindowSide, &s->window_w);
  if (key == "window_h") return integer(kMinWindowHeight, kMaxWindowSide, &s->window_h);
  return Status::Ok();  // unknown key: ignored
}

}  // namespace

Result<AppSettings> ParseSettings(const std::string& text, std::vector<UiMessage>* value_problems, UiMessage* why) {
  auto fail = [&](const UiMessage& problem) -> Result<AppSettings> {
    if (why) *why = problem;
    return Status::Error(problem.Render(Lang::kEn));
  };
  AppSettings s;
  Status utf8 = ValidateUtf8(text);
  if (!utf8.ok()) {
    if (why) *why = utf8;
    return utf8;
  }
  std::stringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    size_t eq = line.find(" = ");
    std::string key, value;
    if (eq == std::string::npos) {
      // "key =" with an empty value.
      if (t.size() >= 2 && t.compare(t.size() - 2, 2, " =") == 0) {
        key = Trim(t.substr(0, t.size() - 1));
      } else {
        return fail(UiMessage(Str::kSettingsExpectedKeyValue, {std::to_string(line_no)}));
      }
    } else {
      key = Trim(line.substr(0, eq));
      value = line.substr(eq + 3);
      if (!value.empty() && value.back() == '\r') value.pop_back();
    }
    if (key.empty() || key.find_first_of(" \t") != std::string::npos)
      return fail(UiMessage(Str::kSettingsBadKey, {std::to_string(line_no), key}));
    const AppSettings before = s;
    UiMessage st = ApplyKey(key, value, &s);
    if (st.empty()) continue;
    if (!value_problems) return fail(UiMessage(Str::kSettingsLineValue, {std::to_string(line_no), key, st}));
    value_problems->push_back(UiMessage(Str::kSettingsLineProblem, {std::to_string(line_no), key, st}));
    s = before;  // the key keeps its default (or an earlier line's value)
  }
  Status valid = Validate(s.config);
  if (!valid.ok()) {
    if (!value_problems) return fail(UiMessage(Str::kSettingsConfig, {valid}));
    value_problems->push_back(UiMessage(Str::kSettingsConfigProblem, {valid}));
    s.config = AttentionConfig();
  }
  return s;
}

std::string ConfigDir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/attnviz";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.config/attnviz";
}

std::string PicturesDirFromUserDirs(const std::string& text, const std::string& home) {
  std::string found;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const std::string key = "XDG_PICTURES_DIR=";
    if (line.compare(start, key.size(), key) != 0) continue;
    std::string value = line.substr(start + key.size());
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) value.pop_back();
    if (value.size() < 2 || value.front() != '"' || value.back() != '"') continue;
    value = value.substr(1, value.size() - 2);
    std::string unescaped;  // the file escapes '"', '\\', '$' and '`' with a backslash
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i] == '\\' && i + 1 < value.size()) ++i;
      unescaped += value[i];
    }
    if (unescaped.rfind("$HOME", 0) == 0 && (unescaped.size() == 5 || unescaped[5] == '/')) {
      std::string rest = unescaped.substr(5);
      while (!rest.empty() && rest.back() == '/') rest.pop_back();
      found = rest.empty() ? "" : home + rest;  // "$HOME/" means the folder is disabled
    } else if (!unescaped.empty() && unescaped[0] == '/') {
      found = unescaped;
    } else {
      found.clear();  // the spec allows only these two forms
    }
  }
  return found;
}

std::string DefaultExportDir() {
  std::string home = ExpandHome("~");
  if (home.empty() || home[0] != '/') home = "/tmp";
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const std::string config = xdg && *xdg ? std::string(xdg) : home + "/.config";
  if (Result<std::string> text = ReadFile(config + "/user-dirs.dirs"); text.ok()) {
    const std::string pictures = PicturesDirFromUserDirs(*text, home);
    if (!pictures.empty() && IsFolder(pictures)) return pictures;
  }
  if (IsFolder(home + "/Pictures")) return home + "/Pictures";
  return home;
}

namespace {

// Renames `path` to the first free `path.corrupt.N`: an earlier corrupt copy is never overwritten.
Result<std::string> SetAside(const std::string& path) {
  for (int n = 1; n <= 1000; ++n) {
    const std::string aside = path + ".corrupt." + std::to_string(n);
    if (::renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, aside.c_str(), RENAME_NOREPLACE) == 0) return aside;
    if (errno == EEXIST) continue;
    if (errno != EINVAL && errno != ENOSYS) return Status::Error(std::strerror(errno));
    // A file system without RENAME_NOREPLACE: look, then rename.
    struct stat st;
    if (::lstat(aside.c_str(), &st) == 0) continue;
    if (std::rename(path.c_str(), aside.c_str()) == 0) return aside;
    return Status::Error(std::strerror(errno));
  }
  return Status::Error("1000 corrupt copies exist already");
}

}  // namespace

LoadedSettings LoadSettings(const std::string& path) {
  LoadedSettings out;
  const UiMessage left_alone(Str::kSettingsLeftAlone);
  auto left_as_it_is = [&](UiMessage m) { return UiMessage::Joined({std::move(m), left_alone}, ""); };
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return out;  // first launch
    out.keep_file = true;
    out.message = left_as_it_is(UiMessage(Str::kSettingsCannotRead, {path, std::strerror(errno)}));
    return out;
  }
  Result<std::string> bytes = ReadFile(path, kMaxSettingsFileBytes, "settings file");
  if (!bytes) {
    out.keep_file = true;
    out.message = left_as_it_is(UiMessage(Str::kSettingsReadFailed, {bytes.status()}));
    return out;
  }
  std::vector<UiMessage> problems;
  UiMessage why;
  Result<AppSettings> parsed = ParseSettings(*bytes, &problems, &why);
  if (parsed) {
    out.settings = *parsed;
    out.restored = true;
    if (!problems.empty())
      out.message = UiMessage(Str::kSettingsProblems, {path, UiMessage::Joined(std::move(problems), "; ")});
    return out;
  }
  Result<std::string> aside = SetAside(path);
  if (aside) {
    out.message = UiMessage(Str::kSettingsCorruptMoved, {path, why, *aside});
  } else {
    out.keep_file = true;
    out.message = left_as_it_is(UiMessage(Str::kSettingsCorruptStuck, {path, why, aside.status()}));
  }
  return out;
}

Status SaveSettings(const std::string& path, const AppSettings& state) {
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos) {
    Status dirs = MakeDirs(path.substr(0, slash));
    if (!dirs.ok()) return dirs;
  }
  return WriteFileAtomic(path, SerializeSettings(state));
}

}  // namespace attnviz
