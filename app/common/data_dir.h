// Where attnviz and attnviz-cli find what they read at run time: the shaders, the sample sentences and the
// bundled model. Installed (`cmake --install BUILD --prefix P`, or the .deb), that is P/share/attnviz, found
// relative to the running executable (P/bin/..), so an installed tree works from any folder and can be moved.
// Run from the build folder, it is the source tree. The layout under the root is the source tree's:
//   shaders/heatmap.vert, shaders/heatmap.frag     the heatmap shaders (attnviz)
//   assets/sentences.txt                           the sample sentences (--samples)
//   assets/models/tiny/                            the bundled model, when there is one
#pragma once
#include <string>

namespace attnviz {

struct DataDir {
  std::string root;        // empty when nothing was found (see `searched`)
  bool installed = false;  // root is <prefix>/share/attnviz beside the executable; else the source tree
  std::string executable;  // /proc/self/exe, resolved
  std::string searched;    // the folders looked at, for an error message

  std::string Path(const std::string& relative) const { return root.empty() ? "" : root + "/" + relative; }
  std::string shaders() const { return Path("shaders"); }
  std::string samples() const { return Path("assets/sentences.txt"); }
  std::string bundled_model() const { return Path("assets/models/tiny"); }  // may not exist
  std::string bundled_seq2seq_model() const { return Path("assets/models/tiny-seq2seq"); }  // may not exist
};

// Looked up once per process (thread-safe): first <exe dir>/<relative share dir> (ATTNVIZ_DATA_RELATIVE,
// "../share/attnviz"), then, only for an executable inside the build folder, the source tree.
const DataDir& FindDataDir();

// The program's version ("0.1"), from the CMake project.
const char* AttnvizVersion();

// The informational flags both programs take as their first word:
//   --version       "attnviz 0.1"
//   --print-paths   the executable, the data root (installed or source tree), shaders, samples, bundled model:
//                   one "key: value" line each
// Returns the text to print for `arg`, or "" when `arg` is neither.
std::string InfoOptionText(const std::string& program, const std::string& arg);

}  // namespace attnviz
