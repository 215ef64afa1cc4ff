#include "data_dir.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

#include "io/file_io.h"

// Set by packaging/CMakeLists.txt; the defaults keep this file compiling on its own.
#ifndef ATTNVIZ_DATA_RELATIVE
#define ATTNVIZ_DATA_RELATIVE "../share/attnviz"
#endif
#ifndef ATTNVIZ_DATA_SOURCE_DIR
#define ATTNVIZ_DATA_SOURCE_DIR ""
#endif
#ifndef ATTNVIZ_DATA_BUILD_DIR
#define ATTNVIZ_DATA_BUILD_DIR ""
#endif
#ifndef ATTNVIZ_VERSION
#define ATTNVIZ_VERSION "0"
#endif

namespace attnviz {
namespace {

std::string RealPath(const std::string& path) {
  if (path.empty()) return "";
  char* resolved = realpath(path.c_str(), nullptr);
  if (!resolved) return "";
  std::string out = resolved;
  std::free(resolved);
  return out;
}

// A data root holds the shaders (both programs install the same tree, so one marker serves both).
bool LooksLikeDataRoot(const std::string& dir) { return IsRegularFile(dir + "/shaders/heatmap.frag"); }

DataDir Find() {
  DataDir d;
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) d.executable.assign(buf, (size_t)n);
  std::string exe_dir = d.executable.substr(0, d.executable.find_last_of('/'));
  std::vector<std::pair<std::string, bool>> candidates;  // (folder, installed)
  if (!exe_dir.empty()) candidates.push_back({exe_dir + "/" + ATTNVIZ_DATA_RELATIVE, true});
  // The source tree only for a program that lives in the build folder: an installed copy whose share/
  // folder is missing must say so, not quietly read a source tree that may be gone tomorrow.
  const std::string build = RealPath(ATTNVIZ_DATA_BUILD_DIR);
  if (!build.empty() && d.executable.compare(0, build.size() + 1, build + "/") == 0)
    candidates.push_back({ATTNVIZ_DATA_SOURCE_DIR, false});
  for (const auto& [dir, installed] : candidates) {
    d.searched += (d.searched.empty() ? "" : ", ") + dir;
    if (IsFolder(dir) && LooksLikeDataRoot(dir)) {
      d.root = RealPath(dir);
      d.installed = installed;
      break;
    }
  }
  return d;
}

}  // namespace

const DataDir& FindDataDir() {
  static const DataDir dir = Find();
  return dir;
}

const char* AttnvizVersion() { return ATTNVIZ_VERSION; }

std::string InfoOptionText(const std::string& program, const std::string& arg) {
  if (arg == "--version") return program + " " + AttnvizVersion() + "\n";
  if (arg != "--print-paths") return "";
  const DataDir& d = FindDataDir();
  auto line = [](const char* key, const std::string& value) { return std::string(key) + ": " + value + "\n"; };
  std::string out = line("executable", d.executable);
  if (d.root.empty()) return out + line("data", "(not found; looked in " + d.searched + ")");
  out += line("data", d.root) + line("layout", d.installed ? "installed" : "source tree");
  out += line("shaders", d.shaders()) + line("samples", d.samples());
  out += line("model", IsFolder(d.bundled_model()) ? d.bundled_model() : "(none bundled)");
  return out;
}

}  // namespace attnviz
